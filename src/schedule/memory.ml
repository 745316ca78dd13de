(* tinygrad: schedule/memory.py — memory_plan_rewrite, with the TLSFAllocator of runtime/support/memory.py *)

open Uop

(* tinygrad: runtime/support/memory.py TLSFAllocator (Two-Level Segregated Fit) *)
module Tlsf = struct
  type block = { bsize : int; next : int; prev : int option; is_free : bool }

  type t = {
    base : int;
    block_size : int;
    l2_cnt : int;
    storage : (int, int list) Hashtbl.t array;  (* lv1 -> lv2 -> block starts, in insertion order *)
    lv1_entries : int array;
    blocks : (int, block) Hashtbl.t;
  }

  let bit_length = Helpers.bit_length
  let lv1 size = bit_length size
  let lv2 t size = (size - (1 lsl (bit_length size - 1))) / (1 lsl max 0 (bit_length size - t.l2_cnt))

  let bucket t size = let h = t.storage.(lv1 size) and k = lv2 t size in (h, k, Option.value (Hashtbl.find_opt h k) ~default:[])

  let insert_block ?prev t start size =
    let prev = match prev with Some p -> p | None -> (Hashtbl.find t.blocks start).prev in
    let h, k, l = bucket t size in
    Hashtbl.replace h k (l @ [ start ]);
    t.lv1_entries.(lv1 size) <- t.lv1_entries.(lv1 size) + 1;
    Hashtbl.replace t.blocks start { bsize = size; next = start + size; prev; is_free = true }

  let remove_block ?prev t start size =
    let prev = match prev with Some p -> p | None -> (Hashtbl.find t.blocks start).prev in
    let h, k, l = bucket t size in
    let rec rm = function [] -> [] | x :: r -> if x = start then r else x :: rm r in
    Hashtbl.replace h k (rm l);
    t.lv1_entries.(lv1 size) <- t.lv1_entries.(lv1 size) - 1;
    Hashtbl.replace t.blocks start { bsize = size; next = start + size; prev; is_free = false }

  let split_block t start size new_size =
    let nxt = (Hashtbl.find t.blocks start).next in
    assert (Hashtbl.find t.blocks start).is_free;
    remove_block t start size;
    insert_block t start new_size;
    insert_block ~prev:(Some start) t (start + new_size) (size - new_size);
    match Hashtbl.find_opt t.blocks nxt with
    | Some b -> Hashtbl.replace t.blocks nxt { b with prev = Some (start + new_size) }
    | None -> ()

  let merge_right t start =
    let b = Hashtbl.find t.blocks start in
    assert b.is_free;
    let size = ref b.bsize and nxt = ref b.next and continue = ref true in
    while !continue && Hashtbl.mem t.blocks !nxt do
      let blk = Hashtbl.find t.blocks !nxt in
      if not blk.is_free then continue := false
      else begin
        remove_block t start !size;
        remove_block t !nxt blk.bsize;
        size := !size + blk.bsize;
        insert_block t start !size;
        assert ((Hashtbl.find t.blocks start).next = blk.next);
        let popped = Hashtbl.find t.blocks !nxt in
        Hashtbl.remove t.blocks !nxt;
        nxt := popped.next
      end
    done;
    match Hashtbl.find_opt t.blocks !nxt with
    | Some b -> Hashtbl.replace t.blocks !nxt { b with prev = Some start }
    | None -> ()

  let merge_block t start =
    (* go left while blocks are free, then merge all of them right *)
    let start = ref start in
    let rec left () =
      match (Hashtbl.find t.blocks !start).prev with
      | Some x when (Hashtbl.find t.blocks x).is_free -> start := x; left ()
      | _ -> () in
    left ();
    merge_right t !start

  let create ?(base = 0) ?(block_size = 16) ?(lv2_cnt = 16) size =
    let t = { base; block_size; l2_cnt = bit_length lv2_cnt;
              storage = Array.init (bit_length size + 1) (fun _ -> Hashtbl.create 8);
              lv1_entries = Array.make (bit_length size + 1) 0; blocks = Hashtbl.create 16 } in
    Hashtbl.replace t.blocks 0 { bsize = size; next = size; prev = None; is_free = true };
    if size > 0 then insert_block t 0 size;
    t

  let alloc ?(align = 1) t req_size =
    let req_size = max t.block_size req_size in
    let size = max t.block_size (req_size + align - 1) in
    (* round up the allocation size to the next bucket, so any entry there can fit the requested size *)
    let size = Helpers.round_up size (1 lsl (bit_length size - t.l2_cnt)) in
    let result = ref None in
    let l1 = ref (lv1 size) in
    while !result = None && !l1 < Array.length t.storage do
      if t.lv1_entries.(!l1) <> 0 then begin
        let l2 = ref (if !l1 = bit_length size then lv2 t size else 0) in
        while !result = None && !l2 < 1 lsl t.l2_cnt do
          (match Hashtbl.find_opt t.storage.(!l1) !l2 with
           | Some (start :: _) ->
             let start = ref start and nsize = ref (Hashtbl.find t.blocks start).bsize in
             assert (!nsize >= size);
             let new_start = Helpers.round_up !start align in
             if new_start <> !start then begin
               split_block t !start !nsize (new_start - !start);
               start := new_start;
               nsize := (Hashtbl.find t.blocks new_start).bsize
             end;
             if !nsize > req_size then split_block t !start !nsize req_size;
             remove_block t !start req_size;
             result := Some (!start + t.base)
           | _ -> ());
          incr l2
        done
      end;
      incr l1
    done;
    match !result with Some r -> r | None -> failwith (Printf.sprintf "Can't allocate %d bytes" req_size)

  let free t start =
    let s = start - t.base in
    insert_block t s (Hashtbl.find t.blocks s).bsize;
    merge_block t s
end

(* tinygrad: _collect_bufs *)
let rec collect_bufs (u : Uop.t) : Uop.t list =
  if u.op == Ops.Buffer then [ u ]
  else if u.op == Ops.Mselect || u.op == Ops.Mstack then List.concat_map collect_bufs (Array.to_list u.src)
  else []

let starts_with p s = String.length s >= String.length p && String.sub s 0 (String.length p) = p

(* tinygrad: _can_plan *)
let can_plan (b : Uop.t) held_bufs =
  if List.memq b held_bufs then false
  else match Buffers.mdevice b with
    | Some d ->
      List.for_all (fun d -> not (List.exists (fun p -> starts_with p d) [ "DISK"; "TINYFS"; "CL"; "WEBGPU" ]))
        (Uop.device_list d)
    | None -> true

(* tinygrad: memory_plan_rewrite — internal buffers become SHRINK/BITCAST views into one arena per device and lane
   (copy / compute), placed by a TLSF suballocator over their lifetimes in the schedule *)
let memory_plan_rewrite ?(held_bufs : Uop.t list = []) (linear : Uop.t) : Uop.t =
  if Helpers.no_memory_planner.value <> 0 then linear
  else begin
    (* compute lifetimes for all plannable internal buffers *)
    let first_appearance : int Tbl.t = Tbl.create 16 and last_appearance : int Tbl.t = Tbl.create 16 in
    let order = ref [] in
    let copy_bufs : unit Tbl.t = Tbl.create 4 in
    Array.iteri (fun i (si : Uop.t) ->
        let si_bufs = List.filter (fun b -> can_plan b held_bufs)
            (List.concat_map collect_bufs (List.tl (Array.to_list si.src))) in
        List.iter (fun b ->
            if not (Tbl.mem first_appearance b) then begin Tbl.replace first_appearance b i; order := b :: !order end;
            Tbl.replace last_appearance b i) si_bufs;
        if si.src.(0).op == Ops.Copy then List.iter (fun b -> Tbl.replace copy_bufs b ()) si_bufs) linear.src;
    let bufs = List.rev !order in
    if bufs = [] then linear
    else begin
      (* separate copy and compute buffers into different lanes to avoid introducing dependencies (copy->compute->copy) *)
      let key b = (Option.value (Buffers.mdevice b) ~default:(One ""), if Tbl.mem copy_bufs b then 1 else 0) in
      let buf_hold b = if Tbl.mem copy_bufs b then Tbl.find last_appearance b - Tbl.find first_appearance b + 1 else 0 in
      (* suballocation: build sorted open/close events, then alloc/free in order *)
      let block_size = 256 in
      let raw_nbytes (b : Uop.t) = max_numel b * Dtype.itemsize b.dtype in
      let nbytes b = Helpers.round_up (raw_nbytes b) block_size in
      let events = List.map (fun b -> (Tbl.find first_appearance b, true, b)) bufs
                   @ List.map (fun b -> (Tbl.find last_appearance b + 1 + buf_hold b, false, b)) bufs in
      (* Python's sorted is stable, key (time, is_open) with False < True *)
      let events = List.stable_sort (fun (t1, o1, _) (t2, o2, _) -> compare (t1, o1) (t2, o2)) events in
      let total_memory = List.fold_left (fun a b -> a + nbytes b) 0 bufs * 2 in
      let offsets : int Tbl.t = Tbl.create 16 in
      let peaks : ((Uop.device * int) * (int ref * Tlsf.t)) list ref = ref [] in
      let lane k = match List.assoc_opt k !peaks with
        | Some p -> p
        | None ->
          let p = (ref 0, Tlsf.create ~block_size ~lv2_cnt:32 total_memory) in
          peaks := !peaks @ [ (k, p) ];
          p in
      List.iter (fun (_, is_open, buf) ->
          let peak, a = lane (key buf) in
          if is_open then Tbl.replace offsets buf (Tlsf.alloc a (nbytes buf)) else Tlsf.free a (Tbl.find offsets buf);
          peak := max !peak (Tbl.find offsets buf + raw_nbytes buf)) events;
      let arena_sizes = List.map (fun (k, (peak, _)) -> (k, Helpers.round_up !peak block_size)) !peaks in
      (* build replace_map: each buffer becomes a SHRINK/BITCAST into a shared per-device-lane arena *)
      let arenas = List.map (fun ((dev, lane), sz) -> ((dev, lane), Buffers.new_mbuffer dev sz Dtype.Int8)) arena_sizes in
      let replace_map = List.map (fun b ->
          let off = Tbl.find offsets b in
          let arena = List.assoc (key b) arenas in
          (b, bitcast b.dtype (mop Ops.Shrink arena (`Pairs [ (Sint off, Sint (raw_nbytes b)) ])))) bufs in
      let omem = float_of_int (List.fold_left (fun a b -> a + nbytes b) 0 bufs) /. 1e6 in
      let nmem = float_of_int (List.fold_left (fun a (_, s) -> a + s) 0 arena_sizes) /. 1e6 in
      if Helpers.debug.value >= 1 && omem <> nmem then
        Printf.printf "memory reduced from %.2f MB -> %.2f MB, %d -> %d bufs\n%!" omem nmem (List.length bufs) (List.length arenas);
      Upat.substitute ~walk:true linear replace_map
    end
  end
