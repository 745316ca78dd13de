(* Not in tinygrad: the realize cache. tinygrad runs callify (transform_to_call) on every realize and caches the
   schedule after it, keyed by the CALL whose buffers are PARAMs (schedule_cache). Here a realize whose tensor graph
   has the structure of an earlier one, buffers aside, skips callify, scheduling, memory planning and lowering: the
   cache is keyed by the big SINK with its buffers replaced by placeholders (numbered in walk order) and by the
   knobs, and holds the compiled LINEAR, the becomes map and the Variable values as templates over slots, which a
   hit fills with the new graph's buffers and with new buffers where the first realize made new ones. The cache
   holds no buffer: templates and keys have placeholders where buffers were. *)

open Uop

(* **************** templates **************** *)

(* a node rebuilt on a hit: as it was, a slot (an input buffer of the graph or a buffer the realize makes), or the
   node over rebuilt sources (the node itself is kept with placeholders where buffers were) *)
type tmpl = Same of Uop.t | Slot of int | Rebuild of Uop.t * tmpl array

let rec instantiate (slots : Uop.t array) (t : tmpl) : Uop.t =
  match t with
  | Same u -> u
  | Slot i -> slots.(i)
  | Rebuild (u, ts) -> replace u ~src:(Array.map (instantiate slots) ts)

type entry = {
  n_leaves : int;  (* slots [0, n_leaves): the graph's buffers, in walk order *)
  fresh : (string * int * Dtype.t) array;  (* slots from n_leaves: the buffers each realize makes *)
  becomes : (int * tmpl) list;  (* the becomes map: the key's position in the walk, its value *)
  linear : tmpl;  (* the compiled LINEAR *)
  held : tmpl list;  (* the CALL's arguments, which the realize does not free *)
  var_vals : (string * int) list;
}

(* **************** the key: the graph with placeholders for buffers **************** *)

(* a graph buffer (callify's pm_replace_buf makes it a PARAM), a Variable, or another BUFFER (the cache is not used) *)
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

type walk = {
  key : Uop.t;  (* the big SINK, buffers replaced by placeholders *)
  leaves : Uop.t array;  (* the buffers, in walk order *)
  nodes : Uop.t array;  (* every node, post-order *)
}

(* the graph walked in post-order (sources in order), each node rebuilt over the normalized sources; None when the
   graph holds a node the cache does not key (a PARAM, a BUFFER that is not a graph buffer or Variable) *)
let normalize (root : Uop.t) : walk option =
  let memo : Uop.t Tbl.t = Tbl.create 32 in
  let leaves = ref [] and n_leaves = ref 0 and nodes = ref [] and ok = ref true in
  let stack = Stack.create () in
  Stack.push (root, false) stack;
  while !ok && not (Stack.is_empty stack) do
    let n, expanded = Stack.pop stack in
    if not (Tbl.mem memo n) then
      if not expanded then begin
        Stack.push (n, true) stack;
        for i = Array.length n.src - 1 downto 0 do
          if not (Tbl.mem memo n.src.(i)) then Stack.push (n.src.(i), false) stack
        done
      end else begin
        let nn = match n.op with
          | Ops.Buffer when classify n = Input ->
            leaves := n :: !leaves;
            incr n_leaves;
            input_placeholder n (!n_leaves - 1)
          | (Ops.Buffer | Ops.Param) when classify n = Var -> n
          | Ops.Buffer | Ops.Param -> ok := false; n
          | _ ->
            let src = Array.map (Tbl.find memo) n.src in
            if Array.for_all2 ( == ) src n.src then n else replace n ~src in
        Tbl.replace memo n nn;
        nodes := n :: !nodes
      end
  done;
  if not !ok then None
  else
    Some { key = Tbl.find memo root; leaves = Array.of_list (List.rev !leaves);
           nodes = Array.of_list (List.rev !nodes) }

(* **************** the cache **************** *)

(* the entries of each setting of the knobs (the default dtypes and device are knobs), by key *)
let cache : (Helpers.knobs * entry Tbl.t) list ref = ref []

(* a run of new structures (shapes that change on every step) empties the table of their setting at this size *)
let max_entries = 512

(* and the settings least recently added are dropped beyond this many *)
let max_settings = 16

let clear () = cache := []

let table () =
  match List.find_opt (fun (k, _) -> Helpers.knobs_current k) !cache with
  | Some (_, t) -> t
  | None ->
    let t = Tbl.create 64 in
    cache := (Helpers.knobs (), t) :: List.filteri (fun i _ -> i < max_settings - 1) !cache;
    t

(* the realizes the cache serves: not under the JIT's capture, BEAM, DEBUG output or SCACHE=0 *)
let usable () =
  (!Realize.capturing = [] || Helpers.capturing.value = 0) && Helpers.beam.value = 0 && Helpers.debug.value = 0 && Helpers.scache.value <> 0

type lookup = Hit of entry * walk | Miss of walk | Not_cached

(* the entry for a big SINK, or the walk to record the realize under *)
let lookup (big_sink : Uop.t) : lookup =
  if not (usable ()) then Not_cached
  else match normalize big_sink with
    | None -> Not_cached
    | Some w -> (match Tbl.find_opt (table ()) w.key with Some e -> Hit (e, w) | None -> Miss w)

(* **************** recording a realize **************** *)

exception Not_cacheable

(* the entry for a realize that ran: [call] and [becomes_map] from callify, [linear] compiled. A buffer that is not
   the graph's must be one this realize made ([Buffers.new_buffer], newer than the big SINK) *)
let make_entry (w : walk) ~(big_sink : Uop.t) ~(call : Uop.t) ~becomes_map ~(linear : Uop.t) ~var_vals : entry =
  if call.op <> Ops.Call then raise Not_cacheable;
  let n_leaves = Array.length w.leaves in
  let leaf_slot : int Tbl.t = Tbl.create 16 in
  Array.iteri (fun k b -> Tbl.replace leaf_slot b k) w.leaves;
  let fresh = ref [] and n_fresh = ref 0 in
  let memo : (tmpl * Uop.t) Tbl.t = Tbl.create 32 in
  (* a node's template and its placeholder form *)
  let rec tmpl (u : Uop.t) : tmpl * Uop.t =
    match Tbl.find_opt memo u with
    | Some r -> r
    | None ->
      let r = match u.op, Tbl.find_opt leaf_slot u with
        | Ops.Buffer, Some k -> (Slot k, input_placeholder u k)
        | Ops.Buffer, None when classify u = Input ->
          let d = match Buffers.device u with Some d -> d | None -> raise Not_cacheable in
          let size = max_numel u and slot = (param_arg u).slot in
          if u.id <= big_sink.id || Buffers.new_buffer ~num:slot d size u.dtype != u then raise Not_cacheable;
          fresh := (d, size, u.dtype) :: !fresh;
          incr n_fresh;
          (Slot (n_leaves + !n_fresh - 1), fresh_placeholder u (!n_fresh - 1))
        | (Ops.Buffer | Ops.Param), None when classify u <> Var -> raise Not_cacheable
        | _ ->
          let srcs = Array.map tmpl u.src in
          if Array.for_all (fun (t, _) -> match t with Same _ -> true | Slot _ | Rebuild _ -> false) srcs then (Same u, u)
          else (Rebuild (replace u ~src:(Array.map snd srcs), Array.map fst srcs), replace u ~src:(Array.map snd srcs)) in
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
  let linear = Rebuild (replace linear ~src:[||], calls) in
  let held = List.map (fun a -> fst (tmpl a)) (List.tl (Array.to_list call.src)) in
  { n_leaves; fresh = Array.of_list (List.rev !fresh); becomes; linear; held; var_vals }

(* records the realize of [w] when its buffers are all accounted for *)
let record (w : walk) ~big_sink ~call ~becomes_map ~linear ~var_vals =
  match make_entry w ~big_sink ~call ~becomes_map ~linear ~var_vals with
  | e ->
    let t = table () in
    if Tbl.length t >= max_entries then Tbl.reset t;
    Tbl.replace t w.key e
  (* a realize the templates cannot describe is not filed; it ran, and it runs again the same way next time *)
  | exception (Not_cacheable | Invalid_argument _ | Not_found | Failure _) -> ()

(* **************** a hit **************** *)

(* runs a cached realize on the walk's buffers and new ones: the becomes map is applied to the tensors
   ([apply_map]), the LINEAR is run, the internal buffers are freed *)
let run (e : entry) (w : walk) ~(apply_map : (Uop.t * Uop.t) list -> unit) =
  let slots = Array.make (e.n_leaves + Array.length e.fresh) w.key in
  Array.blit w.leaves 0 slots 0 e.n_leaves;
  Array.iteri (fun j (d, size, dtype) -> slots.(e.n_leaves + j) <- Buffers.new_buffer d size dtype) e.fresh;
  apply_map (List.map (fun (i, v) -> (w.nodes.(i), instantiate slots v)) e.becomes);
  let linear = instantiate slots e.linear in
  Realize.run_linear ~jit:true ~var_vals:e.var_vals linear;
  Realize.free_internal_buffers ~held:(List.map (instantiate slots) e.held) linear

let length () = List.fold_left (fun n (_, t) -> n + Tbl.length t) 0 !cache
