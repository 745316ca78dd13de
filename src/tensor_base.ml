(* tinygrad: tensor.py — the Tensor record, the registry of live tensors (all_tensors), _apply_uop and
   _apply_map_to_tensors; the Tensor API is src/tensor.ml *)

open Uop

type t = { mutable uop : Uop.t; mutable grad : t option; mutable is_param : bool }

(* ---------- all_tensors: tinygrad's dict of weakrefs ---------- *)

let registry : t Stdlib.Weak.t ref = ref (Stdlib.Weak.create 1024)
let reg_next = ref 0

(* the live tensors, in creation order *)
let all_tensors () =
  let r = !registry in
  let acc = ref [] in
  for i = !reg_next - 1 downto 0 do
    match Stdlib.Weak.get r i with Some t -> acc := t :: !acc | None -> ()
  done;
  !acc

let register (x : t) =
  if !reg_next >= Stdlib.Weak.length !registry then begin
    (* Python frees a dead tensor at once (refcounting); here dead tensors (and their UOp graphs and buffers) only
       leave the weak registry after a major collection, so finish one before compacting: without it the registry,
       the hash-consing table and the buffers grow between collections (eager training loops) *)
    Gc.full_major ();
    let live = all_tensors () in
    let n = List.length live in
    let cap = if 2 * n > Stdlib.Weak.length !registry then 2 * Stdlib.Weak.length !registry else Stdlib.Weak.length !registry in
    let r = Stdlib.Weak.create cap in
    List.iteri (fun i t -> Stdlib.Weak.set r i (Some t)) live;
    registry := r;
    reg_next := n
  end;
  Stdlib.Weak.set !registry !reg_next (Some x);
  incr reg_next

(* tinygrad: Tensor._apply_uop — a fresh registered Tensor; its shape is computed now so that a broadcast
   mismatch raises here, naming the op *)
let wrap ?(op = "tensor") (u : Uop.t) =
  (match Uop.shape_opt u with
   | _ -> ()
   | exception Invalid_argument m -> invalid_arg (op ^ ": " ^ m));
  let x = { uop = u; grad = None; is_param = true } in
  register x;
  x

(* tinygrad: _apply_map_to_tensors over the live tensors *)
let apply_map_to_tensors (m : (Uop.t * Uop.t) list) =
  if m <> [] then
    Callify.apply_map_to_tensors ~get:(fun (x : t) -> x.uop) ~set:(fun (x : t) u -> x.uop <- u) (all_tensors ()) m

let uop x = x.uop
let set_uop x u = x.uop <- u
let grad x = x.grad
let set_grad x g = x.grad <- g
let is_param x = x.is_param
let set_is_param x b = x.is_param <- b

let named = Mixin_dtype.named

(* tinygrad: UOp.copy_to_device *)
let copy_to_device (u : Uop.t) device =
  if Dtype.is_weak u.dtype then invalid_arg ("to_device: cannot create storage for weak dtype " ^ Dtype.to_string u.dtype);
  let padded = Mixin_movement.pad_to u (List.map (fun i -> Some (Sint i)) (Uop.max_shape u)) in
  Mixin_movement.shrink_to (Uop.create Ops.Copy ~src:[| padded |] ~arg:(Str device)) (List.map Option.some (Uop.shape u))

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
