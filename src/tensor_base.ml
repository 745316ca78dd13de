(* tinygrad: tensor.py — the Tensor record, the registry of live tensors (all_tensors), _apply_uop and
   _apply_map_to_tensors; the Tensor API is src/tensor.ml *)

open Uop

(* [view] is shared with the registry (see [views]), which reads it without touching the tensor *)
type t = { mutable uop : Uop.t; mutable grad : t option; mutable is_param : bool; view : view }

(* whether the tensor's UOp is a plain view of a buffer ([plain_view]) *)
and view = { mutable plain : bool }

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

(* a chain of movement ops (no BITCAST) with constant shape arguments down to a BUFFER: a realized tensor, the common
   case among the live tensors. A map none of whose keys is a BUFFER, a movement op or a constant does not reach such
   a UOp: callify's maps, whose keys are the nodes callify tags (COPY, CONTIGUOUS, AFTER and the bases of the
   realized tensors); an assign into a view maps the BUFFER itself *)
let rec plain_view (u : Uop.t) = view_step ~bitcast:false ~arg:constant_arg ~below:plain_view u

let set_uop_of x u = x.uop <- u; x.view.plain <- plain_view u

(* ---------- all_tensors: tinygrad's dict of weakrefs ---------- *)

let registry : t Stdlib.Weak.t ref = ref (Stdlib.Weak.create 1024)
let reg_next = ref 0

(* the [view] of the tensor in each slot of the registry (a dead tensor's until the slot is reused) *)
let views : view array ref = ref (Array.make 1024 { plain = true })

(* the registry is compacted when [reg_next] reaches [reg_limit]: twice the slots found full at the last compaction
   (at least 64), so a scan of the registry (every realize) costs about the number of live tensors *)
let reg_limit = ref 64

(* the collection budget: twice the slots found full at the last compaction, at least 1024 (see [register]) *)
let gc_budget = ref 1024

(* the slots found full right after the last collection: tensors that were live then *)
let reg_settled = ref 0

(* the live tensors, in creation order *)
let all_tensors () =
  let r = !registry in
  let acc = ref [] in
  for i = !reg_next - 1 downto 0 do
    match Stdlib.Weak.get r i with Some t -> acc := t :: !acc | None -> ()
  done;
  !acc

(* the live tensors whose UOp satisfies [p], in creation order; a slot is read as a copy first, so the tensors that
   do not match are not kept alive by the scan (see [register]) *)
let live_tensors_with (p : Uop.t -> bool) =
  let r = !registry in
  let acc = ref [] in
  for i = !reg_next - 1 downto 0 do
    if Stdlib.Weak.check r i then
      match Stdlib.Weak.get_copy r i with
      | Some c when p c.uop -> (match Stdlib.Weak.get r i with Some t -> acc := t :: !acc | None -> ())
      | Some _ | None -> ()
  done;
  !acc

(* Python drops a dead tensor from all_tensors at once (refcounting); here the GC empties a dead tensor's slot: at
   the next minor collection for a tensor that died young, at the end of a major cycle for one the GC promoted
   (an eager step's graph outlives several minor collections). Reading a slot with [Weak.get] while the GC is
   marking keeps the tensor alive for that cycle, so the scans on every realize and backward read slots with
   [Weak.check] and [Weak.get_copy], which do not. *)
let compact () =
  let r = !registry in
  let n = ref 0 in
  for i = 0 to !reg_next - 1 do
    if Stdlib.Weak.check r i then begin
      if i <> !n then begin Stdlib.Weak.blit r i r !n 1; !views.(!n) <- !views.(i) end;
      incr n
    end
  done;
  Stdlib.Weak.fill r !n (!reg_next - !n) None;
  reg_next := !n;
  !n

let register (x : t) =
  if !reg_next >= !reg_limit then begin
    (* the budget: when the slots still full after compaction exceed those found live after the last collection by
       more than an eighth of the budget, the GC lags behind the tensors' deaths (dead promoted tensors and their lazy
       graphs, which every realize and backward would scan): only then collect. Measured on an eager MLP step
       (ms/step, OCaml heap): 10.4-11.7 ms, 19 MB with an eighth; 16-17 ms, 29 MB with a half; major slices or one
       finished cycle (Gc.major) 2-3x slower; 16.8 ms, 17 MB with a collection every 1024 registrations *)
    let n = compact () in
    let n =
      if n - !reg_settled > !gc_budget / 8 then begin Gc.full_major (); reg_settled := compact (); !reg_settled end
      else n in
    gc_budget := max 1024 (2 * n);
    reg_limit := max 64 (2 * n);
    if !reg_limit > Stdlib.Weak.length !registry then begin
      let r' = Stdlib.Weak.create (2 * !reg_limit) in
      Stdlib.Weak.blit !registry 0 r' 0 n;
      registry := r';
      let v' = Array.make (2 * !reg_limit) x.view in
      Array.blit !views 0 v' 0 n;
      views := v'
    end
  end;
  Stdlib.Weak.set !registry !reg_next (Some x);
  !views.(!reg_next) <- x.view;
  incr reg_next

(* tinygrad: Tensor._apply_uop — a fresh registered Tensor; its shape is computed now so that a broadcast
   mismatch raises here, naming the op *)
let wrap ?(op = "tensor") (u : Uop.t) =
  (match Uop.shape_opt u with
   | _ -> ()
   | exception Invalid_argument m -> invalid_arg (op ^ ": " ^ m));
  Device.reclaim ();
  let x = { uop = u; grad = None; is_param = true; view = { plain = plain_view u } } in
  register x;
  x

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

(* tinygrad: _apply_map_to_tensors over the live tensors. Each slot is read as a copy (its UOp), which does not keep
   a dead tensor alive; only a tensor whose UOp changes is read itself *)
let apply_map_to_tensors (m : (Uop.t * Uop.t) list) =
  if m <> [] then begin
    let tbl = Uop.Tbl.create 16 in
    List.iter (fun ((k : Uop.t), _) -> Uop.Tbl.replace tbl k ()) m;
    let keys = { tbl; min_id = List.fold_left (fun a ((k : Uop.t), _) -> min a k.id) max_int m } in
    let settled = settled_out_of_scope keys in
    let skip_plain = List.for_all (fun ((k : Uop.t), _) ->
        not (k.op == Ops.Buffer || k.op == Ops.Const || k.op == Ops.Stack || Ops.Group.is_movement k.op)) m in
    let r = !registry and views = !views in
    let slots = ref [] in
    for i = !reg_next - 1 downto 0 do
      if not (skip_plain && views.(i).plain) then
        match Stdlib.Weak.get_copy r i with
        | Some c when not (settled c.uop) -> slots := (i, c.uop) :: !slots
        | Some _ | None -> ()
    done;
    Callify.apply_map_to_tensors ~get:snd
      ~set:(fun (i, _) u -> match Stdlib.Weak.get r i with Some x -> set_uop_of x u | None -> ()) !slots m
  end

let uop x = x.uop
let set_uop = set_uop_of
let grad x = x.grad
let set_grad x g = x.grad <- g
let is_param x = x.is_param
let set_is_param x b = x.is_param <- b

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
