(* Not in tinygrad: the realize cache. tinygrad runs callify (transform_to_call) on every realize and caches the
   schedule after it, keyed by the CALL whose buffers are PARAMs (schedule_cache). Here a realize whose tensor graph
   has the structure of an earlier one, buffers aside, skips callify, scheduling, memory planning and lowering: the
   cache is keyed by the big SINK's post-order with its buffers described by dtype, device and size only (their
   places in the walk number them) and by the knobs, and holds the compiled LINEAR and the becomes map as templates
   over slots, which a hit fills with the new graph's buffers and with new buffers where the first realize made new
   ones. A bound Variable is a slot too, keyed by its Variable and its value: a binding of the same value made
   anew is the same structure. (tinygrad's schedule_cache keys the CALL after callify, whose BINDs are arguments, so
   that a new value hits too; keyed before callify, as here, a value can shape what callify and scheduling make, and
   a graph with two bindings of one Variable keeps the one callify picked: the value stays in the key.) The cache
   holds no buffer: templates and keys have placeholders where buffers were. *)

open Uop

(* **************** templates **************** *)

(* a node rebuilt on a hit: as it was, a slot (an input buffer of the graph or a buffer the realize makes), or the
   node over rebuilt sources (the node itself is kept with placeholders where buffers were) *)
type tmpl = Same of Uop.t | Slot of int | Rebuild of Uop.t * tmpl array

(* the instantiation of templates over [slots]: a node shared by several templates (make_entry's memo shares them)
   is rebuilt once *)
let instantiator (slots : Uop.t array) : tmpl -> Uop.t =
  (* made at the first rebuilt node: a hit whose templates are all slots and kept nodes needs none *)
  let memo : Uop.t Tbl.t option ref = ref None in
  let table () = match !memo with Some t -> t | None -> let t = Tbl.create 8 in memo := Some t; t in
  let rec go = function
    | Same u -> u
    | Slot i -> slots.(i)
    | Rebuild (u, ts) ->
      let memo = table () in
      (match Tbl.find_opt memo u with
       | Some r -> r
       | None -> let r = replace u ~src:(Array.map go ts) in Tbl.replace memo u r; r) in
  go

(* a buffer of a prepared call: a slot's, or a window of it (elements, dtype, byte offset) *)
type plan_buf = Whole of int | Window of int * int * Dtype.t * int

(* a realize whose calls all run on one device on its slots' buffers: each call prepared with its buffers, and the
   slots of the internal buffers freed once it ran *)
type plan = { calls : (Realize.prepared * plan_buf array) array; internal : int array }

type entry = {
  (* the slots after the graph's buffers (walk order): the buffers each realize makes *)
  fresh : (string * int * Dtype.t) array;
  becomes : (int * tmpl) list;  (* the becomes map: the key's position in the walk, its value *)
  linear : tmpl;  (* the compiled LINEAR *)
  held : tmpl list;  (* the CALL's arguments, which the realize does not free *)
  var_vals : (string * int) list;
  plan : plan option;  (* how a hit runs without rebuilding the LINEAR, when its calls allow *)
}

(* **************** the key: the graph with placeholders for buffers **************** *)

(* a graph buffer (callify's pm_replace_buf makes it a PARAM), a Variable, or another BUFFER (the cache is not
   used) *)
type leaf = Input | Var | Other

let classify (u : Uop.t) =
  match u.arg with
  | Param _ when Array.length u.src = 1 && addrspace u = Some Dtype.Global -> Input
  | Param _ when addrspace u = Some Dtype.Alu -> Var
  | _ -> Other

(* placeholders: BUFFERs with negative slots (Variables have -1, real buffers count up from 0) *)
let placeholder (u : Uop.t) slot = replace u ~arg:(Param { (param_arg u) with slot })
let input_placeholder u k = placeholder u (-2 - (2 * k))
let fresh_placeholder u j = placeholder u (-3 - (2 * j))

(* a node of the key, in post-order: a node with no buffer or bound Variable below (itself, by identity), a graph
   buffer (its arg but the slot, its size node), a bound Variable (its Variable and value) or another node (op,
   dtype, arg, tag and its sources' positions). A key is compared without building UOps: hash-consing a rebuilt
   graph costs more than the realize it would skip *)
type knode =
  | Shared of Uop.t
  | Leaf of Uop.arg * Uop.t array
  | Bound of Uop.t * int
  | Node of Ops.t * Dtype.t * Uop.arg * Uop.arg * int array

type key = { knodes : knode array; khash : int }

module Key = struct
  type t = key

  let equal_knode a b =
    match a, b with
    | Shared x, Shared y -> x == y
    | Leaf (a1, s1), Leaf (a2, s2) -> Array.for_all2 ( == ) s1 s2 && equal_arg a1 a2
    | Bound (x, n), Bound (y, m) -> x == y && n = m
    | Node (o1, d1, a1, t1, p1), Node (o2, d2, a2, t2, p2) ->
      o1 == o2 && d1 == d2 && p1 = p2 && equal_arg a1 a2 && equal_arg t1 t2
    | (Shared _ | Leaf _ | Bound _ | Node _), _ -> false

  let equal a b =
    a.khash = b.khash && Array.length a.knodes = Array.length b.knodes
    && Array.for_all2 equal_knode a.knodes b.knodes

  let hash k = k.khash
end

module Ktbl = Hashtbl.Make (Key)

type walk = {
  key : key;
  leaves : Uop.t array;  (* the buffers and bound Variables, in walk order *)
  nodes : Uop.t array;  (* every node, post-order: the key's nodes *)
}

(* the graph walked in post-order (sources in order, a bound Variable as a leaf); None when it holds a node the cache
   does not key (a PARAM, a BUFFER that is not a graph buffer or Variable) *)
let normalize (root : Uop.t) : walk option =
  (* each node walked: its position and whether the nodes below it are the same in every graph of its key *)
  let pos : (int * bool) Tbl.t = Tbl.create 16 in
  let knodes = ref [] and n = ref 0 and h = ref 0 in
  let leaves = ref [] and nodes = ref [] and ok = ref true in
  let stack = Stack.create () in
  Stack.push (root, false) stack;
  while !ok && not (Stack.is_empty stack) do
    let u, expanded = Stack.pop stack in
    if not (Tbl.mem pos u) then
      if not (expanded || Buffers.is_bound_var u) then begin
        Stack.push (u, true) stack;
        for i = Array.length u.src - 1 downto 0 do
          if not (Tbl.mem pos u.src.(i)) then Stack.push (u.src.(i), false) stack
        done
      end else begin
        let kn, hk = match u.op with
          (* multi-device graphs are not cached: their buffers are per-device lists the templates do not hold *)
          | _ when Buffers.is_multi u -> ok := false; (Shared u, 0)
          | _ when Buffers.is_bound_var u ->
            leaves := u :: !leaves;
            let v, n = Buffers.unbind u in
            (Bound (v, n), (v.id * 31) + n)
          | Ops.Buffer when classify u = Input ->
            leaves := u :: !leaves;
            (Leaf (Param { (param_arg u) with slot = -2 }, u.src), 7)
          | (Ops.Buffer | Ops.Param) when classify u = Var -> (Shared u, u.id)
          | Ops.Buffer | Ops.Param -> ok := false; (Shared u, 0)
          | _ ->
            let srcs = Array.map (Tbl.find pos) u.src in
            if Array.for_all snd srcs then (Shared u, u.id)
            else
              let ps = Array.map fst srcs in
              (Node (u.op, u.dtype, u.arg, u.tag, ps), Array.fold_left (fun a p -> (a * 31) + p) (Ops.value u.op) ps) in
        Tbl.replace pos u (!n, (match kn with Shared _ -> true | Leaf _ | Bound _ | Node _ -> false));
        incr n;
        h := ((!h * 65599) + hk) land max_int;
        knodes := kn :: !knodes;
        nodes := u :: !nodes
      end
  done;
  if not !ok then None
  else
    Some { key = { knodes = Array.of_list (List.rev !knodes); khash = !h };
           leaves = Array.of_list (List.rev !leaves); nodes = Array.of_list (List.rev !nodes) }

module Last_walk = Ephemeron.K1.Make (struct
    type t = Uop.t
    let equal = ( == )
    let hash (u : Uop.t) = u.id
  end)

(* the walk of the last big SINK looked up, held as long as that SINK lives: the same tensors combined the
   same way again make the same SINK (hash-consing), whose walk is the same, as it depends on the graph
   alone *)
let last_walk : walk option Last_walk.t = Last_walk.create 1

let normalize_memo (big_sink : Uop.t) =
  match Last_walk.find_opt last_walk big_sink with
  | Some w -> w
  | None ->
    let w = normalize big_sink in
    Last_walk.reset last_walk;
    Last_walk.replace last_walk big_sink w;
    w

(* **************** the cache **************** *)

(* what a key is filed with: a realize to run again, or a graph the templates cannot describe (not tried again) *)
type filed = Entry of entry | Uncacheable

(* the entries of each setting of the knobs (the default dtypes and device are knobs), by key *)
let cache : (Helpers.knobs * filed Ktbl.t) list ref = ref []

(* the realizes served from the cache so far *)
let served = ref 0
let hits () = !served

(* a run of new structures (shapes that change on every step) empties the table of their setting at this size *)
let max_entries = 512

(* and the settings least recently used are dropped beyond this many *)
let max_settings = 16

let clear () = cache := []; Last_walk.reset last_walk

(* the current setting's table, moved to the front: a program that switched settings (training, another
   default dtype) realizes under its current one again and again, and each setting checked before it compares
   its knobs *)
let table () =
  match !cache with
  | (k, t) :: _ when Helpers.knobs_current k -> t
  | l ->
    match List.find_opt (fun (k, _) -> Helpers.knobs_current k) l with
    | Some ((_, t) as e) -> cache := e :: List.filter (fun x -> x != e) l; t
    | None ->
      let t = Ktbl.create 64 in
      cache := (Helpers.knobs (), t) :: List.filteri (fun i _ -> i < max_settings - 1) l;
      t

(* the realizes the cache serves: not under the JIT's capture, DEBUG output or SCACHE=0. Under BEAM a hit runs the
   kernels its first realize searched (BEAM is a knob of the key) *)
let usable () =
  (Realize.capturing () = None || Helpers.capturing.value = 0)
  && Helpers.debug.value = 0 && Helpers.scache.value <> 0

type table = filed Ktbl.t

type lookup = Hit of entry * walk | Miss of walk * table | Not_cached

(* the entry for a big SINK, or the walk to record the realize under *)
let lookup (big_sink : Uop.t) : lookup =
  if not (usable ()) then Not_cached
  else match normalize_memo big_sink with
    | None -> Not_cached
    | Some w ->
      let t = table () in
      (match Ktbl.find_opt t w.key with Some (Entry e) -> Hit (e, w) | Some Uncacheable -> Not_cached | None -> Miss (w, t))

(* **************** recording a realize **************** *)

exception Not_cacheable

(* the plan of a compiled LINEAR, given the slot of each buffer of the realize; [held] are the CALL's arguments. A
   view argument (the memory planner's SHRINK and BITCAST of an arena) is resolved to its window once, here *)
let make_plan ~(slot_of : int Tbl.t) ~held ~var_vals (linear : Uop.t) : plan option =
  let slot (u : Uop.t) = if u.op == Ops.Buffer && not (Buffers.is_multi u) then Tbl.find_opt slot_of u else None in
  let plan_buf (u : Uop.t) =
    if u.op == Ops.Buffer then Option.map (fun k -> Whole k) (slot u)
    else if (u != base u || u.op == Ops.Bitcast) && not (Buffers.is_multi u) then
      match Callify.contiguous_view u with
      | Some (b, offset) ->
        Option.map (fun k -> Window (k, max_numel u, u.dtype, offset * Dtype.itemsize b.dtype)) (slot (base b))
      | None -> None
    else None in
  let all f l = let s = List.filter_map f l in if List.compare_lengths s l = 0 then Some s else None in
  let prepared (c : Uop.t) =
    match Realize.prepare ~var_vals c with
    | None -> None
    | Some p -> Option.map (fun bufs -> (p, Array.of_list bufs)) (all plan_buf (Realize.prepared_args c)) in
  let calls = Array.to_list linear.src in
  match all prepared calls, all slot (Realize.internal_buffers ~held linear) with
  | Some calls, Some internal -> Some { calls = Array.of_list calls; internal = Array.of_list internal }
  | _ -> None

(* the entry for a realize that ran: [call] and [becomes_map] from callify, [linear] compiled. A buffer that is not
   the graph's must be one this realize made ([Buffers.new_buffer], newer than the big SINK) *)
let make_entry (w : walk) ~(big_sink : Uop.t) ~(call : Uop.t) ~becomes_map ~(linear : Uop.t) ~var_vals : entry =
  if call.op <> Ops.Call then raise Not_cacheable;
  let n_leaves = Array.length w.leaves in
  (* the slot of each buffer and bound Variable: the graph's (walk order), then the buffers the realize made *)
  let slot_of : int Tbl.t = Tbl.create 16 in
  Array.iteri (fun k b -> Tbl.replace slot_of b k) w.leaves;
  let fresh = ref [] and n_fresh = ref 0 in
  let memo : (tmpl * Uop.t) Tbl.t = Tbl.create 32 in
  (* a node's template and its placeholder form *)
  let rec tmpl (u : Uop.t) : tmpl * Uop.t =
    match Tbl.find_opt memo u with
    | Some r -> r
    | None ->
      let r = match u.op, Tbl.find_opt slot_of u with
        | Ops.Buffer, Some k -> (Slot k, input_placeholder u k)
        (* a bound Variable holds no buffer: it is its own placeholder *)
        | _, Some k -> (Slot k, u)
        | Ops.Buffer, None when classify u = Input ->
          let d = match Buffers.device u with Some d -> d | None -> raise Not_cacheable in
          let size = max_numel u and slot = (param_arg u).slot in
          if u.id <= big_sink.id || Buffers.new_buffer ~num:slot d size u.dtype != u then raise Not_cacheable;
          fresh := (d, size, u.dtype) :: !fresh;
          incr n_fresh;
          Tbl.replace slot_of u (n_leaves + !n_fresh - 1);
          (Slot (n_leaves + !n_fresh - 1), fresh_placeholder u (!n_fresh - 1))
        | (Ops.Buffer | Ops.Param), None when classify u <> Var -> raise Not_cacheable
        | _ ->
          let srcs = Array.map tmpl u.src in
          if Array.for_all (fun (t, _) -> match t with Same _ -> true | Slot _ | Rebuild _ -> false) srcs then
            (Same u, u)
          else
            let u' = replace u ~src:(Array.map snd srcs) in
            (Rebuild (u', Array.map fst srcs), u') in
      Tbl.replace memo u r;
      r in
  let position : int Tbl.t = Tbl.create 64 in
  Array.iteri (fun i n -> Tbl.replace position n i) w.nodes;
  let becomes = List.map (fun (k, v) ->
      match Tbl.find_opt position k with Some i -> (i, fst (tmpl v)) | None -> raise Not_cacheable) becomes_map in
  (* the calls' ASTs (PROGRAM, COPY) hold kernel PARAMs only: kept as they are *)
  let call_tmpl (c : Uop.t) =
    if c.op <> Ops.Call || not (List.memq c.src.(0).op [ Ops.Program; Ops.Copy ]) then raise Not_cacheable;
    let args = Array.map tmpl (Array.sub c.src 1 (Array.length c.src - 1)) in
    let src = Array.append [| Same c.src.(0) |] (Array.map fst args) in
    Rebuild (replace c ~src:(Array.append [| c.src.(0) |] (Array.map snd args)), src) in
  let calls = Array.map call_tmpl linear.src in
  let linear_tmpl = Rebuild (replace linear ~src:[||], calls) in
  let held_args = List.tl (Array.to_list call.src) in
  let held = List.map (fun a -> fst (tmpl a)) held_args in
  let plan = make_plan ~slot_of ~held:held_args ~var_vals linear in
  { fresh = Array.of_list (List.rev !fresh); becomes; linear = linear_tmpl; held; var_vals; plan }

(* records the realize of [w] in the table [t] its lookup missed in; one the templates cannot describe is filed as
   such (it ran, and runs the same way next time without being tried again) *)
let record (w : walk) (t : table) ~big_sink ~call ~becomes_map ~linear ~var_vals =
  let filed = match make_entry w ~big_sink ~call ~becomes_map ~linear ~var_vals with
    | e -> Entry e
    | exception Not_cacheable -> Uncacheable in
  if Ktbl.length t >= max_entries then Ktbl.reset t;
  Ktbl.replace t w.key filed

(* **************** a hit **************** *)

(* runs a cached realize on the walk's buffers and new ones: the becomes map is applied to the tensors
   ([apply_map]), the LINEAR is run, the internal buffers are freed *)
let run (e : entry) (w : walk) ~(apply_map : (Uop.t * Uop.t) list -> unit) =
  let fresh = Array.map (fun (d, size, dtype) -> Buffers.new_buffer d size dtype) e.fresh in
  let slots = Array.append w.leaves fresh in
  let inst = instantiator slots in
  apply_map (List.map (fun (i, v) -> (w.nodes.(i), inst v)) e.becomes);
  incr served;
  match e.plan with
  | Some p ->
    let buffer = function
      | Whole k -> Buffers.buffer slots.(k)
      | Window (k, size, dtype, offset) -> Device.Buffer.view (Buffers.buffer slots.(k)) size dtype offset in
    Array.iter (fun (c, bufs) -> Realize.exec_prepared c (Array.map buffer bufs)) p.calls;
    Array.iter (fun s -> Realize.free_buffer slots.(s)) p.internal
  | None ->
    let linear = inst e.linear in
    Realize.run_linear ~jit:true ~var_vals:e.var_vals linear;
    Realize.free_internal_buffers ~held:(List.map inst e.held) linear

let length () = List.fold_left (fun n (_, t) -> n + Ktbl.length t) 0 !cache
