(* tinygrad: schedule/allreduce.py — the allreduce of a multi-device value: every device gets the reduction of all
   devices' values, naively (each device copies every other's) or, for big values over more than two devices, by a
   ring or an all-to-all reduce-scatter followed by an allgather. Not ported: create_allreduce_function (the
   LATE_ALLREDUCE=1 path, a precompiled FUNCTION; the port has no precompiled FUNCTIONs): the allreduce is lowered in
   place (tinygrad's LATE_ALLREDUCE=0). *)

open Uop
module M = Mixin_movement

let copy_to_device = Rangeify.copy_to_device

(* tinygrad: UOp.alu on two nodes of the reduce op *)
let combine op (x : Uop.t) (y : Uop.t) = create op ~dtype:x.dtype ~src:[| x; y |]

(* tinygrad: UOp.mstack *)
let mstack = function [ x ] -> x | srcs -> create Ops.Mstack ~src:(Array.of_list srcs)

let ints op sh = List.map (function Sint i -> i | Suop _ -> invalid_arg (op ^ ": symbolic shape")) sh

(* tinygrad: handle_allreduce *)
let handle_allreduce (buf : Uop.t) (red : Uop.t) : Uop.t option =
  match mdevice buf with
  | Some (Multi bdevs) ->
    let ndev = List.length bdevs and shape = Uop.shape buf in
    let concrete = List.for_all (function Sint _ -> true | Suop _ -> false) shape in
    let numel = if concrete then List.fold_left ( * ) 1 (ints "allreduce" shape) else 0 in
    let op, device = match red.arg with
      | Tuple [ Op op; d ] -> (op, Option.get (device_of_arg d))
      | _ -> invalid_arg "allreduce: bad ALLREDUCE arg" in
    (* ring allreduce doesn't pay off with 2 devices or under RING_ALLREDUCE_THRESHOLD elements: the naive one saves
       the dispatches of chunking and reassembling *)
    let big = ndev > 2 && numel > Helpers.ring_allreduce_threshold.value in
    let all2all = Helpers.all2all.value and ring = Helpers.ring.value in
    let use_all2all = concrete && (all2all >= 2 || (big && all2all >= 1)) in
    let use_ring = concrete && (not use_all2all) && (ring >= 2 || (big && ring >= 1)) in
    if Helpers.debug.value >= 2 then
      Printf.printf "%s ALLREDUCE %dx%d | %s\n%!" (if use_all2all then "ALL2ALL" else if use_ring then "RING" else "NAIVE")
        ndev numel (Dtype.to_string buf.dtype);
    let buf = M.pad_to buf (List.map (fun i -> Some (Sint i)) (max_shape buf)) in
    (* contiguous before it is copied *)
    let buf = Buffers.contiguous buf in
    let reduce_all = function [] -> invalid_arg "allreduce: no devices" | x :: rest -> List.fold_left (combine op) x rest in
    if not use_ring && not use_all2all then
      (* naive: copy to all devices; a later shrink is handled there *)
      Some (M.shrink_to (reduce_all (List.init ndev (fun i -> copy_to_device ~mselect:i buf device)))
              (List.map Option.some shape))
    else begin
      (* chunk the data into ndev pieces *)
      let factor = match List.find_opt (fun f -> numel mod f = 0) [ 32; 16; 8; 4; 2 ] with Some f -> f | None -> 1 in
      let base = numel / factor / ndev and left = numel / factor mod ndev in
      let sizes = List.init ndev (fun i -> if i < left then (base + 1) * factor else base * factor) in
      let chunks = List.rev (snd (List.fold_left (fun (s, acc) sz -> (s + sz, (s, s + sz) :: acc)) (0, []) sizes)) in
      let flat = M.reshape buf [ Sint numel ] in
      let piece u s e = M.shrink u [ Some (Sint s, Sint e) ] in
      let dev i = One (List.nth bdevs i) in
      (* reduce-scatter *)
      let reduced_chunks = List.mapi (fun i (s, e) ->
          if use_all2all then
            reduce_all (List.init ndev (fun j -> copy_to_device (piece (M.reshape (create Ops.Mselect ~src:[| buf |] ~arg:(Int j))
                                                                           [ Sint numel ]) s e) (dev i)))
          else begin
            let chunk = piece flat s e in
            let reduced = ref chunk in
            for step = 0 to ndev - 2 do
              let src = (i + step) mod ndev and dest = (i + step + 1) mod ndev in
              let cp = if is_multi !reduced then copy_to_device ~mselect:src !reduced (dev dest)
                else copy_to_device !reduced (dev dest) in
              reduced := combine op cp (copy_to_device ~mselect:dest chunk (dev dest))
            done;
            !reduced
          end) chunks in
      (* allgather *)
      let copied_chunks = List.mapi (fun i rc ->
          match device with
          | One _ -> copy_to_device rc device
          | Multi _ when use_all2all -> mstack (List.init ndev (fun j -> copy_to_device rc (dev j)))
          | Multi _ ->
            let chain = Array.make ndev rc in
            let rc = ref rc in
            for step = 0 to ndev - 2 do
              rc := copy_to_device !rc (dev ((i + step) mod ndev));
              chain.(step + 1) <- !rc
            done;
            mstack (List.init ndev (fun j -> chain.((((j - i + 1) mod ndev) + ndev) mod ndev)))) reduced_chunks in
      (* reassemble *)
      let padded = List.map2 (fun (s, e) c -> M.pad c [ Some (Sint s, Sint (numel - e)) ]) chunks copied_chunks in
      Some (M.reshape (usum ~start:(List.hd padded) (List.tl padded)) shape)
    end
  | _ -> None
