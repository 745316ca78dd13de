(* Not in tinygrad: the CPU mode's rewrite of the tensor graph before rangeify (CPU_OPT=fast on the CPU,
   Renderer.cpu_fast_device), rules appended to Rangeify's earliest rewrites. *)

open Uop
module P = Upat
module M = Mixin_movement

let enabled () = Renderer.cpu_fast_device "CPU"

(* an operand at least this big (4 MiB) does not stay in L2 beside the others: a matmul streams its column
   panels through L2 and L1, where the set conflicts below evict them *)
let padded_operand_bytes = 4 lsl 20

(* a row stride that is a multiple of 4 KiB maps the rows of a panel to a few cache sets *)
let conflict_stride_bytes = 4096

(* a cache line of padding on each row: consecutive rows then start in consecutive sets *)
let pad_bytes = 64

(* the copy reads and writes the operand once; a product reads it once per tile of the outputs that do not
   index it (rows of A), so with fewer than this many such outputs (a matrix-vector product: one) the copy
   costs more than the conflicts it removes *)
let min_reuse = 64

(* the operand of a sum of products on the CPU whose reduce steps its rows by a multiple of 4 KiB and whose
   outputs run along a row, its buffer and its row: B of a matmul A @ B, B K x N with N a multiple of 1024
   floats. Only a chain of movement ops over a buffer. *)
let conflicting_operand ~mops (reduce : Uop.t) (x : Uop.t) =
  let nred = match reduce.arg with Reduce_arg (Ops.Add, n) -> n | _ -> 0 in
  let rec under_mops (u : Uop.t) = if List.memq u.op Ops.Group.movement then under_mops u.src.(0) else u in
  let prod = under_mops x in
  (* the operands worth the index walk: movement ops over a big float32 CPU buffer, broadcast to the
     product's shape (each dim the product's or 1) *)
  let broadcast (operand : Uop.t) =
    let s = max_shape operand and ps = max_shape prod in
    List.length s = List.length ps && List.for_all2 (fun d pd -> d = pd || d = 1) s ps in
  let big (operand : Uop.t) =
    let buf = under_mops operand in
    buf.op == Ops.Param && buf.dtype == Dtype.Float32
    && (match (param_arg buf).device with Some (One "CPU") -> true | _ -> false)
    && Helpers.prod (max_shape buf) * Dtype.itemsize buf.dtype >= padded_operand_bytes
    && broadcast operand in
  let xshape = shape x in
  if nred = 0 || not (enabled ()) || prod.op != Ops.Mul || x.dtype != Dtype.Float32
     || not (List.for_all (function Sint _ -> true | Suop _ -> false) xshape)
     || not (Array.exists big prod.src) then None else
    let rngs = List.mapi (fun i s -> range s i) xshape in
    let reduce_rngs = Helpers.take nred rngs and out_rngs = Helpers.drop nred rngs in
    let push u = P.graph_rewrite mops () u in
    match push (index x rngs) with
    | { op = Ops.Index; src; _ } as pushed when src.(0) == prod ->
      let idxs = List.tl (Array.to_list pushed.src) in
      List.find_map (fun (operand : Uop.t) ->
          let at = List.map2 (fun d i -> if d = 1 then const_int 0 else i) (max_shape operand) idxs in
          match push (index operand at) with
          | { op = Ops.Index; src = [| buf; flat |]; _ } when big operand && buf == under_mops operand ->
            let size = Helpers.prod (max_shape buf) and itemsize = Dtype.itemsize buf.dtype in
            let flat = simplify flat in
            let row = List.fold_left (fun acc r -> max acc (term_coefficient r flat)) 0 reduce_rngs in
            let used = toposort flat in
            let reuse = List.fold_left2 (fun acc r s ->
                if List.memq r used then acc else match s with Sint n -> acc * n | Suop _ -> acc)
                1 out_rngs (Helpers.drop nred xshape) in
            if row > 1 && row * itemsize mod conflict_stride_bytes = 0 && size mod row = 0
               && reuse >= min_reuse && List.exists (fun r -> term_coefficient r flat = 1) out_rngs
            then Some (operand, buf, row) else None
          | _ -> None) (Array.to_list prod.src)
    | _ -> None

(* A matmul whose B operand (the one its outputs run along) has rows a multiple of 4 KiB long reads B through
   a copy with a cache line of padding at the end of each row: the loop over the reduce steps through B by
   rows, and with such a stride every column panel of B falls in a few sets of L2, which then keeps a small
   part of the panel that the cache block (Opt.BLOCK) means to keep. The copy is one more kernel, reading and
   writing B once. *)
let pad_rows ~mops (reduce : Uop.t) (x : Uop.t) =
  match conflicting_operand ~mops reduce x with
  | None -> None
  | Some (operand, buf, row) ->
    let rows = Helpers.prod (max_shape buf) / row in
    let pad = pad_bytes / Dtype.itemsize buf.dtype in
    let rows_of_buf = M.reshape buf [ Sint rows; Sint row ] in
    let padded = Buffers.contiguous (M.pad rows_of_buf [ None; Some (Sint 0, Sint pad) ]) in
    let view = M.reshape (M.shrink padded [ None; Some (Sint 0, Sint row) ]) (shape buf) in
    (* the operand's movement ops over the view (a substitution of the buffer by the view, which holds it,
       would not end) *)
    let rec rebase (u : Uop.t) =
      if u == buf then Some view
      else if List.memq u.op Ops.Group.movement then
        Option.map (fun s ->
            Uop.replace ~src:(Array.append [| s |] (Array.sub u.src 1 (Array.length u.src - 1))) u)
          (rebase u.src.(0))
      else None in
    Option.map (fun operand' -> P.substitute reduce [ (operand, operand') ]) (rebase operand)

let rules ~mops : unit P.matcher =
  P.(matcher [ rule (pat Ops.Reduce ~name:"reduce" ~src:(In_order [ var "x" ])) (fun m ->
      pad_rows ~mops (get m "reduce") (get m "x")) ])
