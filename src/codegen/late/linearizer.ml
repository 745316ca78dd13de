(* tinygrad: codegen/late/linearizer.py — priority toposort of the kernel graph, control-flow edges between
   sibling ranges, and splitting of multi-range ENDs *)

open Uop

(* a small binary min-heap of (key, uop) *)
module Heap = struct
  type t = { mutable a : (int * Uop.t) array; mutable n : int }
  let create () = { a = [||]; n = 0 }
  let swap h i j = let t = h.a.(i) in h.a.(i) <- h.a.(j); h.a.(j) <- t
  let push h ((k, _) as x) =
    if h.n = Array.length h.a then begin
      let na = Array.make (max 16 (2 * h.n)) x in
      Array.blit h.a 0 na 0 h.n; h.a <- na
    end;
    h.a.(h.n) <- x; h.n <- h.n + 1;
    let i = ref (h.n - 1) in
    while !i > 0 && fst h.a.((!i - 1) / 2) > k do swap h !i ((!i - 1) / 2); i := (!i - 1) / 2 done
  let pop h =
    let top = h.a.(0) in
    h.n <- h.n - 1;
    h.a.(0) <- h.a.(h.n);
    let i = ref 0 and continue = ref true in
    while !continue do
      let l = 2 * !i + 1 and r = 2 * !i + 2 in
      let m = ref !i in
      if l < h.n && fst h.a.(l) < fst h.a.(!m) then m := l;
      if r < h.n && fst h.a.(r) < fst h.a.(!m) then m := r;
      if !m = !i then continue := false else (swap h !i !m; i := !m)
    done;
    snd top
  let is_empty h = h.n = 0
end

(* tinygrad: linearize — a toposort with priority *)
let linearize (sink : Uop.t) : Uop.t list =
  let lst = toposort sink in
  let out_degree = Tbl.create 256 in
  let priorities = Tbl.create 256 in
  List.iter (fun u ->
      Array.iter (fun s -> Tbl.replace out_degree s (1 + Option.value (Tbl.find_opt out_degree s) ~default:0)) u.src;
      (* we place UOps with higher run_counts later *)
      let run_count = List.fold_left (fun acc r -> Z.mul acc (Z.succ (zi (vmax r)))) Z.one (ranges u) in
      (* simple priority override. smaller numbers will be closer to the top *)
      let priority, extra = match u.op with
        | Ops.Param -> (-20, Some (param_arg u).slot)
        | Ops.Buffer -> ((if (param_arg u).addrspace = Some Dtype.Local then -17 else -18), None)
        | Ops.Load -> (-1, None)   (* place loads early *)
        | Ops.Store -> (1, None)   (* place stores late *)
        | Ops.Range -> (5, None)   (* placing RANGE is good *)
        | Ops.End -> (-5, None)    (* placing END is bad *)
        | _ -> (0, None) in
      Tbl.replace priorities u (run_count, priority, extra)) (List.rev lst);
  let tuple_order = Helpers.tuple_order.value <> 0 in
  let cmp (ra, pa, ea, a) (rb, pb, eb, b) =
    let c = Z.compare ra rb in
    if c <> 0 then c else
      let c = compare pa pb in
      if c <> 0 then c else
        let c = compare ea eb in
        if c <> 0 || not tuple_order then c else compare_tuplize a b in
  (* number the uops in "ideal" order; each sorted with its priority beside it, looked up once *)
  let nkey = Tbl.create 256 in
  let keyed = List.map (fun u -> let r, p, e = Tbl.find priorities u in (r, p, e, u)) lst in
  List.iteri (fun i (_, _, _, u) -> Tbl.replace nkey u i) (List.stable_sort cmp keyed);
  (* then force them to be toposorted in as close to the ideal order as possible *)
  let heap = Heap.create () in
  Heap.push heap (- Tbl.find nkey sink, sink);
  let newlst = ref [] in
  while not (Heap.is_empty heap) do
    let u = Heap.pop heap in
    newlst := u :: !newlst;
    Array.iter (fun v ->
        let d = Tbl.find out_degree v - 1 in
        Tbl.replace out_degree v d;
        if d = 0 then Heap.push heap (- Tbl.find nkey v, v)) u.src
  done;
  !newlst

(* an insertion-ordered set of UOps (a Python dict[UOp, None]) *)
module Oset = struct
  type t = { tbl : unit Tbl.t; mutable order : Uop.t list (* reversed *) }
  let create () = { tbl = Tbl.create 8; order = [] }
  let add s x = if not (Tbl.mem s.tbl x) then (Tbl.replace s.tbl x (); s.order <- x :: s.order)
  let mem s x = Tbl.mem s.tbl x
  let to_list s = List.rev s.order
end

(* tinygrad: CFGContext — edges that order sibling ranges. there are 3 relationships between ranges:
   nested (endrange y is a dependency of endrange x and range x is a dependency of endrange y), dependent (endrange y
   is a dependency of endrange x and range x is not a dependency of endrange y), independent (endrange y is not a
   dependency of endrange x). everything is nested inside the sink *)
type cfg_context = { edges : Uop.t Tbl.t }

let cfg_context (sink : Uop.t) : cfg_context =
  let deps : Oset.t Tbl.t = Tbl.create 64 in
  let nesting : Uop.t Tbl.t = Tbl.create 16 in
  let nesting_order = ref [] in
  List.iter (fun u ->
      let d = Oset.create () in
      Array.iter (fun s -> List.iter (Oset.add d) (Oset.to_list (Tbl.find deps s))) u.src;
      Tbl.replace deps u d;
      if u.op == Ops.End || u.op == Ops.Sink then
        List.iter (fun x ->
            if x.op == Ops.End && (u.op == Ops.Sink || Oset.mem (Tbl.find deps x) u.src.(1)) && not (Tbl.mem nesting x)
            then (Tbl.replace nesting x u; nesting_order := x :: !nesting_order)) (Oset.to_list d);
      if u.op == Ops.Range || u.op == Ops.End then Oset.add d u) (toposort sink);
  let edges = Tbl.create 16 in
  (* siblings, keyed by the parent in first-seen order *)
  let siblings = ref [] in
  List.iter (fun k ->
      let vv = Tbl.find nesting k in
      match List.assq_opt vv !siblings with
      | Some l -> l := k :: !l
      | None -> siblings := !siblings @ [ (vv, ref [ k ]) ]) (List.rev !nesting_order);
  List.iter (fun (k, v) ->
      let v = List.rev !v in
      (* ranges that have dependencies on other siblings need to be scheduled after them *)
      let key x = List.length (List.filter (fun u -> Oset.mem (Tbl.find deps x) u) v) in
      let order = List.stable_sort (fun a b -> compare (key a) (key b)) v in
      let rec zip a b = match a, b with x :: a, y :: b -> (x, y) :: zip a b | _ -> [] in
      let zipped = if k.op == Ops.Sink then zip order (List.tl order) else zip (k.src.(1) :: order) order in
      List.iter (fun (x, y) ->
          if in_backward_slice_with_self y.src.(1) x then
            failwith "CFGContext: range depends on its sibling (infinite loop)";
          Tbl.replace edges y.src.(1) x) zipped) !siblings;
  { edges }

(* tinygrad: pm_add_control_flow *)
let pm_add_control_flow : cfg_context Upat.matcher =
  Upat.(matcher [
      rule_ctx (pat ~name:"x" Ops.Range) (fun ctx c ->
          let x = get c "x" in
          match Tbl.find_opt ctx.edges x with
          | Some y -> Some (Uop.replace ~src:(Array.append x.src [| y |]) x)
          | None -> None) ])

(* tinygrad: do_split_ends *)
let do_split_ends (e : Uop.t) : Uop.t =
  let rest = List.tl (Array.to_list e.src) in
  let backedge = List.filter (fun x -> x.dtype == Dtype.Void || x.dtype == Dtype.Bool) rest in
  (* a RANGE ends itself alone: not the ranges its end depends on (codegen.ml gate_reduce_loops; tinygrad's ends
     depend on none) *)
  let rngs = Helpers.dedupq
      (List.concat_map (fun (x : Uop.t) -> if x.op == Ops.Range then [ x ] else ranges x)
         (List.filter (fun x -> not (List.memq x backedge)) rest)) in
  let rngs = List.stable_sort (fun a b -> compare_arg_py b.arg a.arg) rngs in
  let ret = List.fold_left (fun ret r -> end_ ret [ r ]) e.src.(0) rngs in
  if backedge <> [] then end_ ret backedge else ret

(* tinygrad: pm_split_ends *)
let pm_split_ends : unit Upat.matcher =
  Upat.(matcher [ rule (pat ~name:"e" Ops.End) (fun c -> Some (do_split_ends (get c "e"))) ])
