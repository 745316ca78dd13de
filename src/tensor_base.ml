(* tinygrad: tensor.py — the Tensor record, the registry of live tensors (all_tensors), _apply_uop and
   _apply_map_to_tensors; the Tensor API is src/tensor.ml *)

open Uop

(* a tensor's state, what tinygrad's Tensor object holds; [handles] counts the handles on it that are not
   known to be dropped, and the state leaves the registry when it reaches 0 *)
type state = {
  mutable uop : Uop.t;
  mutable grad : t option;
  mutable is_param : bool;
  mutable plain : bool;  (* whether [uop] is a plain view of a buffer ([plain_view]) *)
  mutable handles : int;
  mutable slot : int;  (* its slot in [young] while the registry holds it weakly, else -1 *)
}

(* a tensor, a handle on its state. The registry holds states strongly only once they are old: a handle is
   reachable from the program alone, so one dropped young is found at the next minor collection (see
   [young]) *)
and t = { st : state }

(* one step of a chain of views down to a BUFFER: [u] is a BUFFER, or a movement op (or a BITCAST when
   [bitcast]) whose other sources, the shape arguments, satisfy [arg] and whose source satisfies [below] *)
let view_step ~bitcast ~arg ~below (u : Uop.t) =
  u.op == Ops.Buffer
  || ((Ops.Group.is_movement u.op || (bitcast && u.op == Ops.Bitcast))
      && (let n = Array.length u.src in
          let rec args i = i >= n || (arg u.src.(i) && args (i + 1)) in
          args 1 && below u.src.(0)))

(* a constant shape argument: a CONST, or a STACK of them *)
let constant_arg (a : Uop.t) =
  let constant (a : Uop.t) = a.op == Ops.Const && Array.length a.src = 0 in
  constant a || (a.op == Ops.Stack && Array.for_all constant a.src)

(* a chain of movement ops (no BITCAST) with constant shape arguments, and UNSHARDs, down to a BUFFER: a realized
   tensor, sharded or not, the common case among the live tensors. A map none of whose keys is a BUFFER, a movement op or a constant does not reach such
   a UOp: callify's maps, whose keys are the nodes callify tags (COPY, CONTIGUOUS, AFTER and the bases of the
   realized tensors); an assign into a view maps the BUFFER itself *)
let rec plain_view (u : Uop.t) =
  view_step ~bitcast:false ~arg:constant_arg ~below:plain_view u
  || (u.op == Ops.Unshard && plain_view u.src.(0))

(* the BUFFER under a plain view (a sharded value's BUFFER on its tuple of devices under the UNSHARD) *)
let rec view_buffer (u : Uop.t) =
  if Ops.Group.is_movement u.op || u.op == Ops.Unshard then view_buffer u.src.(0) else u

(* ---------- owned buffers: released when no tensor reaches them ---------- *)

(* a UOp held weakly: what waits for the next release holds no buffer the GC could otherwise free *)
type pending = Uop.t Stdlib.Weak.t

let pending (u : Uop.t) : pending =
  let w = Stdlib.Weak.create 1 in
  Stdlib.Weak.set w 0 (Some u);
  w

(* the owned BUFFERs under the plain views that tensors stopped holding (dropped, or replaced by a realize or
   an assign) since the last [find_candidates]: they may have lost their last tensor. A finaliser pushes here
   too, so atomically. A lazy graph let go is not walked for the owned BUFFERs it reads (a walk as big as the
   step's graph on every realize): those wait for the GC, unless a plain view of them is let go later *)
let let_go : pending list Atomic.t = Atomic.make []

let rec push_let_go (b : Uop.t) =
  let l = Atomic.get let_go in
  if not (Atomic.compare_and_set let_go l (pending b :: l)) then push_let_go b

(* the BUFFER under a tensor's UOp when that is a plain view of one *)
let plain_buffer ~plain (u : Uop.t) =
  if plain then (let b = view_buffer u in if b.op == Ops.Buffer then Some b else None) else None

(* lets go of a tensor's UOp: its BUFFER when it is a plain view of one *)
let let_go_of ~plain (u : Uop.t) = Option.iter push_let_go (plain_buffer ~plain u)

(* the owned BUFFERs found under the UOps let go, until the next [release_unreached] *)
let candidates : pending list ref = ref []

(* for each slot of [young]: whether its state is a plain view, read without the weak pointer, and that
   view's BUFFER, held weakly, which the tensor lets go of when it is found dropped ([reap_young]) *)
let young_capacity = 1024
let young_plain = Array.make young_capacity false
let young_buffer : Uop.t Stdlib.Weak.t = Stdlib.Weak.create young_capacity

let set_young_slot i ~plain u =
  young_plain.(i) <- plain;
  Stdlib.Weak.set young_buffer i (plain_buffer ~plain u)

(* a state no handle is left on keeps [dead_uop] *)
let set_state_uop st u =
  if st.handles > 0 && st.uop != u then begin
    let_go_of ~plain:st.plain st.uop;
    st.uop <- u;
    st.plain <- plain_view u;
    if st.slot >= 0 then set_young_slot st.slot ~plain:st.plain u
  end

(* the output size from which a realize asks for a minor collection before the next tensor is made: about
   what that collection costs in fresh pages *)
let prompt_release_bytes = 64 * 1024

(* the young allocation (a fraction of the minor heap, read once) from which a realize asks for that minor
   collection too. The next tensor made after a realize usually starts the next step of the program: a minor
   collection then finds the last step's tensors dropped young, where one that falls inside a step promotes
   the step's live tensors, which die promoted and only a full collection finds (see [register]) *)
let step_words = lazy (float_of_int ((Gc.get ()).minor_heap_size / 4))

(* the words allocated when the last minor collection the registry asked for ran *)
let words_at_minor = ref 0.

(* the states registered since then: young, unless a collection the registry did not ask for ran since *)
let young_states = ref 0

(* whether the next [wrap] runs a minor collection first: a realize made an owned output of at least
   [prompt_release_bytes], or left [step_words] young words since the last one the registry asked for *)
let minor_due = ref false

(* whether a minor collection clears a weak pointer to a dead young value without promoting it: OCaml 4's
   does; OCaml 5's promotes every young value that a weak array or an ephemeron refers to *)
let weak_young =
  match String.split_on_char '.' Sys.ocaml_version with
  | major :: _ -> (try int_of_string major < 5 with Failure _ -> false)
  | [] -> false

(* the handles made since the registry's last minor collection, held weakly, when [weak_young]: a registry
   that held their states, or a finaliser's closure over a state (which a minor collection promotes, dead
   value or not), would promote each dropped young tensor with its UOps and its output's Buffer, and only the
   major GC would find them dead. A dropped young tensor dies with its output here, whose memory goes back to
   the allocator's pool through the Bigarray's finaliser. The survivors of the registry's minor collection
   move to [states] with a finaliser on their handle ([sweep_young]) *)
let young : t Stdlib.Weak.t = Stdlib.Weak.create young_capacity
let young_next = ref 0

(* [f] on the live young handles, in creation order *)
let iter_young f =
  for i = 0 to !young_next - 1 do
    match Stdlib.Weak.get young i with Some h -> f h | None -> ()
  done

(* set by a collection since the last [reap_young]: the finaliser of a value dropped as soon as it is made
   runs at the next minor collection *)
let collected = ref true
let arm_collected () = Gc.finalise_last (fun () -> collected := true) (ref ())

(* the young tensors that a collection found dropped let go of their BUFFERs: one the GC did not free with
   them (a UOp the program keeps reaches it) goes back to the allocator once no live tensor reaches it, as
   a promoted tensor's does through its handle's finaliser *)
let reap_young () =
  if weak_young && !collected then begin
    collected := false;
    arm_collected ();
    for i = 0 to !young_next - 1 do
      if young_plain.(i) && not (Stdlib.Weak.check young i) then begin
        Option.iter push_let_go (Stdlib.Weak.get young_buffer i);
        young_plain.(i) <- false;
        Stdlib.Weak.set young_buffer i None
      end
    done
  end

(* the owned BUFFERs let go join [candidates] *)
let find_candidates () =
  match Atomic.exchange let_go [] with
  | [] -> ()
  | l ->
    let seen = Uop.Tbl.create 16 in
    let add w =
      match Stdlib.Weak.get w 0 with
      | Some b when Buffers.is_owned b && not (Uop.Tbl.mem seen b) ->
        Uop.Tbl.replace seen b (); candidates := w :: !candidates
      | Some _ | None -> () in
    List.iter add !candidates;
    candidates := [];
    List.iter add l

(* ---------- all_tensors: tinygrad's dict of weakrefs, as states with counted handles ---------- *)

(* the UOp of a state no handle is left on *)
let dead_uop = Uop.const_int 0

let dummy = { uop = dead_uop; grad = None; is_param = false; plain = false; handles = 0; slot = -1 }

let states : state array ref = ref (Array.make 1024 dummy)
let reg_next = ref 0

(* whether a state lost its last handle since the last [settle] *)
let dropped_any = ref false

(* the finaliser of a handle: a state whose last handle is gone lets its UOp go and holds nothing more (it
   stays in the registry until the next [settle], which no registry work inside a finaliser would race with)
   *)
let on_drop st =
  st.handles <- st.handles - 1;
  if st.handles = 0 then begin
    let_go_of ~plain:st.plain st.uop;
    st.uop <- dead_uop;
    st.grad <- None;
    dropped_any := true
  end

(* a new handle on a state *)
let handle st =
  st.handles <- st.handles + 1;
  let x = { st } in
  Gc.finalise_last (fun () -> on_drop st) x;
  x

(* a state at the end of the registry, which grows to hold it *)
let push_state st =
  if !reg_next >= Array.length !states then begin
    let a = Array.make (2 * Array.length !states) dummy in
    Array.blit !states 0 a 0 !reg_next;
    states := a
  end;
  !states.(!reg_next) <- st;
  incr reg_next

(* the young handles that survived a minor collection, old now, join [states] with a finaliser on the
   handle (whose state counts it already) *)
let sweep_young () =
  reap_young ();
  iter_young (fun h ->
      let st = h.st in
      st.slot <- -1;
      Gc.finalise_last (fun () -> on_drop st) h;
      push_state st);
  Stdlib.Weak.fill young 0 !young_next None;
  Stdlib.Weak.fill young_buffer 0 !young_next None;
  Array.fill young_plain 0 !young_next false;
  young_next := 0

let registry_minor () =
  Gc.minor ();
  words_at_minor := Gc.minor_words ();
  young_states := 0;
  sweep_young ()

(* the registry is compacted when [reg_next] reaches [reg_limit]: twice the states found live at the last
   compaction (at least 64), so a scan of the registry (every realize) costs about the number of live
   tensors *)
let reg_limit = ref 64

(* the collection budget: twice the states found live at the last compaction, at least 1024 (see [register])
   *)
let gc_budget = ref 1024

(* the states found live right after the last full collection *)
let reg_settled = ref 0

(* the registry without the states no handle is left on *)
let settle () =
  if !dropped_any then begin
    dropped_any := false;
    let a = !states in
    let n = ref 0 in
    for i = 0 to !reg_next - 1 do
      if a.(i).handles > 0 then begin a.(!n) <- a.(i); incr n end
    done;
    Array.fill a !n (!reg_next - !n) dummy;
    reg_next := !n
  end

(* the live states that satisfy [p], in creation order (the young ones are the newest); [skip_plain]: less
   the plain views *)
let live_states_with ~skip_plain p =
  settle ();
  let a = !states in
  let acc = ref [] in
  for i = !young_next - 1 downto 0 do
    if not (skip_plain && young_plain.(i)) then
      match Stdlib.Weak.get young i with Some h when p h.st -> acc := h.st :: !acc | Some _ | None -> ()
  done;
  for i = !reg_next - 1 downto 0 do
    if not (skip_plain && a.(i).plain) && p a.(i) then acc := a.(i) :: !acc
  done;
  !acc

(* the live tensors whose UOp satisfies [p], in creation order: new handles on the states of [states] (a
   state is checked live again right before, as a finaliser may have run since [settle]); a young tensor's
   own handle, as the weak slot that registers it holds that handle and no other *)
let live_tensors_with (p : Uop.t -> bool) =
  settle ();
  let a = !states in
  let acc = ref [] in
  for i = !young_next - 1 downto 0 do
    match Stdlib.Weak.get young i with Some h when p h.st.uop -> acc := h :: !acc | Some _ | None -> ()
  done;
  for i = !reg_next - 1 downto 0 do
    let st = a.(i) in
    if p st.uop && st.handles > 0 then acc := handle st :: !acc
  done;
  !acc

let same (a : t) (b : t) = a.st == b.st

(* the live tensors, in creation order *)
let all_tensors () = live_tensors_with (fun _ -> true)

(* Python drops a dead tensor from all_tensors at once (refcounting); here its handle's finaliser does, at
   the next minor collection for a handle dropped young, at the end of a major cycle for one the GC promoted
   (an eager step's graph outlives several minor collections). When the states still live after [settle]
   exceed those found live after the last full collection by more than the budget, the GC lags far behind
   the tensors' deaths (dead promoted handles, whose states and lazy graphs every realize and backward would
   scan): only then collect, after an eighth of the budget, so that a runtime whose major GC lags behind its
   allocation (OCaml 5's pacer) still finds an eager step's dead graphs before the heap grows. A full
   collection walks the whole heap, the compiled kernels' graphs included, so a step that leaves a few hundred
   promoted tensors behind lets the major GC find them. The states registered since the registry's last
   minor collection are young and do not count (up to a budget of them): the next minor collection finds
   those dropped, and one run inside a step would promote the step's live tensors. When the states over the
   budget remain, a minor collection still comes first, at a small fraction of a full collection's cost *)
let check_limit () =
  if !reg_next >= !reg_limit then begin
    settle ();
    find_candidates ();
    let lagging () = !reg_next - min !young_states !gc_budget - !reg_settled > !gc_budget / 8 in
    if lagging () then begin registry_minor (); settle () end;
    if lagging () then begin
      Helpers.collect_unreachable ();
      settle ();
      reg_settled := !reg_next
    end;
    let n = !reg_next in
    gc_budget := max 1024 (2 * n);
    reg_limit := max 64 (2 * n)
  end

let register st =
  check_limit ();
  push_state st;
  incr young_states

(* tinygrad: Tensor._apply_uop — a fresh registered Tensor; its shape is computed now so that a broadcast
   mismatch raises here, naming the op. After a realize that asked for it ([minor_due]), a minor collection
   first finds the handles dropped young since, before this tensor exists (it would promote it) *)
let wrap ?(op = "tensor") (u : Uop.t) =
  (match Uop.shape_opt u with
   | _ -> ()
   | exception Invalid_argument m -> invalid_arg (op ^ ": " ^ m));
  if !minor_due then begin minor_due := false; registry_minor () end;
  if weak_young then begin
    if !young_next >= young_capacity then begin registry_minor (); check_limit () end;
    let plain = plain_view u in
    let h = { st = { uop = u; grad = None; is_param = true; plain; handles = 1; slot = !young_next } } in
    Stdlib.Weak.set young !young_next (Some h);
    set_young_slot !young_next ~plain u;
    incr young_next;
    h
  end else begin
    let st = { uop = u; grad = None; is_param = true; plain = plain_view u; handles = 0; slot = -1 } in
    register st;
    handle st
  end


(* tinygrad frees a realize's output when its last reference goes (refcount). Here: the owned BUFFERs let go
   since the last call ([let_go]) that no live tensor reaches are released into the allocator's cache, for
   the realize about to run. A plain view reaches its own BUFFER alone, and a UOp older than every BUFFER
   left cannot reach one, which bounds the walk of the lazy graphs *)
let release_unreached () =
  settle ();
  reap_young ();
  find_candidates ();
  let owned w =
    match Stdlib.Weak.get w 0 with Some b when Buffers.is_owned b -> Some b | Some _ | None -> None in
  let cands = List.filter_map owned !candidates in
  candidates := [];
  if cands <> [] then begin
    let left = Uop.Tbl.create 8 in
    List.iter (fun b -> Uop.Tbl.replace left b ()) cands;
    let a = !states in
    (* a plain view reaches its BUFFER alone *)
    let plain_reach st = if st.plain then Uop.Tbl.remove left (view_buffer st.uop) in
    for i = 0 to !reg_next - 1 do plain_reach a.(i) done;
    iter_young (fun h -> plain_reach h.st);
    if Uop.Tbl.length left > 0 then begin
      (* the oldest BUFFER left (none: every node is older): a walk stops below it, and stops as soon as a
         tensor reaches every candidate *)
      let oldest () = Uop.Tbl.fold (fun (b : Uop.t) () m -> min m b.id) left max_int in
      let min_id = ref (oldest ()) in
      let seen = Uop.Tbl.create 64 in
      let rec reach (u : Uop.t) =
        if u.id >= !min_id && not (Uop.Tbl.mem seen u) then begin
          Uop.Tbl.replace seen u ();
          if Uop.Tbl.mem left u then begin Uop.Tbl.remove left u; min_id := oldest () end;
          Array.iter reach u.src
        end in
      let lazy_reach st = if Uop.Tbl.length left > 0 && not st.plain then reach st.uop in
      for i = 0 to !reg_next - 1 do lazy_reach a.(i) done;
      iter_young (fun h -> lazy_reach h.st);
      Uop.Tbl.iter (fun b () -> Buffers.release b) left
    end
  end

(* the realize's outputs, the BUFFERs under [xs] newer than [big_sink] (made by this realize: an assign's
   target is older), become owned *)
let own_outputs ~(big_sink : Uop.t) (xs : t list) =
  List.iter (fun x ->
      let b = view_buffer x.st.uop in
      if b.op == Ops.Buffer && b.id > big_sink.id && not (Buffers.is_owned b) then begin
        Buffers.own b;
        let bytes = List.fold_left (fun a buf -> a + Device.Buffer.nbytes buf) 0 (Buffers.device_buffers b) in
        if bytes >= prompt_release_bytes then minor_due := true
      end) xs;
  if Gc.minor_words () -. !words_at_minor >= Lazy.force step_words then minor_due := true

(* the keys of a map and the oldest key's id: a node is created after its sources, so a node older than every key
   neither is one nor reaches one *)
type keys = { tbl : unit Uop.Tbl.t; min_id : int }

let older keys (u : Uop.t) = u.id < keys.min_id

let rec no_key keys (u : Uop.t) =
  older keys u || (not (Uop.Tbl.mem keys.tbl u) && Array.for_all (no_key keys) u.src)

(* a tensor whose UOp is a chain of views down to a BUFFER (a realized tensor, the common case among the live
   tensors) reaches a key of the map only through that chain or the views' small shape arguments: checked here
   without the general walk *)
let settled_out_of_scope keys =
  let no_key = no_key keys in
  let rec settled (u : Uop.t) =
    older keys u || (not (Uop.Tbl.mem keys.tbl u) && view_step ~bitcast:true ~arg:no_key ~below:settled u) in
  settled

(* tinygrad: _apply_map_to_tensors over the live tensors *)
let apply_map_to_tensors (m : (Uop.t * Uop.t) list) =
  if m <> [] then begin
    let tbl = Uop.Tbl.create 16 in
    List.iter (fun ((k : Uop.t), _) -> Uop.Tbl.replace tbl k ()) m;
    let keys = { tbl; min_id = List.fold_left (fun a ((k : Uop.t), _) -> min a k.id) max_int m } in
    let settled = settled_out_of_scope keys in
    let skip_plain = List.for_all (fun ((k : Uop.t), _) ->
        not (k.op == Ops.Buffer || k.op == Ops.Const || k.op == Ops.Stack || k.op == Ops.Unshard
             || Ops.Group.is_movement k.op)) m in
    let slots = List.map (fun st -> (st, st.uop))
        (live_states_with ~skip_plain (fun st -> not (settled st.uop))) in
    Callify.apply_map_to_tensors ~get:snd ~set:(fun (st, _) u -> set_state_uop st u) slots m
  end

let uop x = x.st.uop
let set_uop x u = set_state_uop x.st u
let grad x = x.st.grad
let set_grad x g = x.st.grad <- g
let is_param x = x.st.is_param
let set_is_param x b = x.st.is_param <- b

let named = Mixin_dtype.named

(* tinygrad: UOp.copy_to_device *)
let copy_to_device (u : Uop.t) device =
  if Dtype.is_weak u.dtype then invalid_arg ("to_device: cannot create storage for weak dtype " ^ Dtype.to_string u.dtype);
  Rangeify.copy_to_device u (One device)

(* tinygrad: the PYTHON device that Tensor(list) fills before copying to the target device; here a host device
   sharing the CPU runtime's allocator (it runs no kernels) *)
let python_device = lazy (Device.register "PYTHON" (fun ix -> { (Device.get "CPU") with Device.device = ix }))

(* tinygrad: Tensor(list, device=..., dtype=...) for the library's own small tensors — the data in a PYTHON buffer
   (_frompy) and a lazy COPY to the device, so the copy runs in the schedule that uses it *)
let from_py ~device dt n (copyin : Device.Buffer.t -> unit) =
  Lazy.force python_device;
  let b = Device.Buffer.create "PYTHON" n dt in
  if n > 0 then copyin b;
  let u = Mixin_movement.reshape (Buffers.from_buffer b) [ Sint n ] in
  wrap ~op:"tensor" (copy_to_device u device)

let from_py_ints ~device dt (data : int array) =
  from_py ~device dt (Array.length data) (fun b -> Device.Buffer.copyin_ints b data)

(* nn/optim.py's lr tensor *)
let from_py_floats ~device dt (data : float array) =
  from_py ~device dt (Array.length data) (fun b -> Device.Buffer.copyin_floats b data)
