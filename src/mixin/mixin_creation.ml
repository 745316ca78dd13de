(* tinygrad: mixin/creation.py (CreationMixin) as functions over UOps, with UOp.new_buffer / UOp.empty_like, and
   [Make], the same ops over a carrier *)

open Uop

(* tinygrad: UOp.const (staticmethod); the value's weak dtype when [dtype] is absent *)
let const ?dtype (b : Dtype.const) = Uop.const ?dtype b

(* tinygrad: CreationMixin.const_like *)
let const_like ?dtype x (b : Dtype.const) = Uop.const_like ?dtype x b

(* tinygrad: UOp.unique_num (shared with the scheduler: Buffers.unique_num) *)
let unique_num = Buffers.unique_num
let next_unique () = let n = !unique_num in incr unique_num; n

(* tinygrad: UOp.new_buffer (Buffers.new_buffer) *)
let new_buffer = Buffers.new_buffer

(* tinygrad: device.canonicalize_device; unknown devices raise Invalid_argument *)
let canonicalize_device ?(op = "device") device =
  let d = Device.canonicalize device in
  (match Device.get d with
   | _ -> ()
   | exception (Invalid_argument m) -> invalid_arg (Printf.sprintf "%s: unknown device %S (%s)" op d m)
   | exception Failure m -> invalid_arg (Printf.sprintf "%s: unknown device %S (%s)" op d m));
  d

(* tinygrad: to_max_shape *)
let to_max_shape (s : sint list) = List.map (function Sint i -> i | Suop u -> Z.to_int (Uop.zi (Uop.vmax u))) s

let check_shape op (new_shape : sint list) =
  if List.exists (function Sint i -> i < 0 | _ -> false) new_shape then
    invalid_arg (op ^ ": negative dimension in shape " ^ Uop.shape_str new_shape)

(* tinygrad has no CONST of dtype void (a KeyError); the creation ops refuse it by name *)
let check_dtype op = function
  | Some Dtype.Void -> invalid_arg (op ^ ": cannot create a tensor of dtype void")
  | _ -> ()

(* tinygrad: CreationMixin.empty *)
let empty ?device ?dtype (new_shape : sint list) =
  let dt = match dtype with Some d -> d | None -> Dtype.default_float () in
  check_shape "empty" new_shape;
  let max_shape = to_max_shape new_shape in
  let u = new_buffer (canonicalize_device ~op:"empty" device) (List.fold_left ( * ) 1 max_shape) dt in
  let u = Mixin_movement.reshape u (List.map (fun i -> Sint i) max_shape) in
  Mixin_movement.shrink_to u (List.map Option.some new_shape)

(* tinygrad: UOp.empty_like; a value on a tuple of devices keeps its tuple and its axis: a buffer of the shard's
   shape on each device *)
let empty_like ?dtype ?device (x : Uop.t) =
  check_dtype "empty_like" dtype;
  match device, Buffers.mdevice x with
  | None, Some (Multi _) -> Buffers.empty_like ?dtype x
  | _ ->
    let device =
      canonicalize_device ~op:"empty_like" (match device with Some d -> Some d | None -> Buffers.device x) in
    let dtype = match dtype with Some d -> d | None -> Dtype.strong_dtype x.dtype in
    empty ~device ~dtype (Uop.shape x)

(* tinygrad: CreationMixin.full; [buffer=false] gives the broadcast CONST *)
let full ?dtype ?device ?(buffer = true) (new_shape : sint list) (fill_value : Dtype.const) =
  check_shape "full" new_shape;
  let device = Option.map (fun d -> canonicalize_device ~op:"full" (Some d)) device in
  let dt = match dtype with Some d -> d | None -> Dtype.from_const fill_value in
  let v = Uop.const ~dtype:dt fill_value in
  let v = Mixin_movement.expand (Mixin_movement.reshape v (List.map (fun _ -> Sint 1) new_shape)) new_shape in
  if not buffer then v
  else
    let ret = empty_like ?dtype ?device v in
    Uop.after ret [ Uop.store ret v ]

(* tinygrad: CreationMixin.full with a UOp fill value (its dtype) *)
let full_uop ?dtype ?device ?(buffer = true) (new_shape : sint list) (fill : Uop.t) =
  let dt = match dtype with Some d -> d | None -> fill.dtype in
  let v = Uop.cast dt fill in
  let v = Mixin_movement.expand (Mixin_movement.reshape v (List.map (fun _ -> Sint 1) new_shape)) new_shape in
  if not buffer then v
  else
    let ret = empty_like ?dtype ?device v in
    Uop.after ret [ Uop.store ret v ]

(* tinygrad: CreationMixin._multi_like — [make shape device] on each device of a multi-device value: replicated, or
   one shard per device unsharded along its axis *)
let multi_like (x : Uop.t) (make : Uop.sint list -> string option -> Uop.t) =
  match Buffers.mdevice x with
  | Some (Multi ds as d) ->
    (match Uop.axis x with
     | None -> Rangeify.copy_to_device (make (Uop.shape x) None) d
     | Some a ->
       let shards = List.map (fun dev -> make (Uop.shard_shape x) (Some dev)) ds in
       Uop.unshard_devices (Uop.create Ops.Mstack ~src:(Array.of_list shards)) a)
  | _ -> invalid_arg "multi_like: needs a multi-device value"

(* tinygrad: CreationMixin.full_like *)
let full_like ?dtype ?device ?buffer (x : Uop.t) fill_value =
  check_dtype "full_like" dtype;
  let dtype = match dtype with Some d -> d | None -> x.dtype in
  if Buffers.is_multi x then begin
    if device <> None then invalid_arg "full_like: cannot specify `device` on `*_like` of a multi device tensor";
    multi_like x (fun shape device -> full ~dtype ?device ?buffer shape fill_value)
  end else
    let device = match device with Some d -> Some d | None -> Buffers.device x in
    full ~dtype ?device ?buffer (Uop.shape x) fill_value

(* tinygrad: CreationMixin.invalids *)
let invalids ?device ?dtype new_shape = full ?dtype ?device new_shape Dtype.Invalid

(* tinygrad: CreationMixin.zeros *)
let zeros ?dtype ?device ?buffer new_shape = full ?dtype ?device ?buffer new_shape (Dtype.F 0.0)

(* tinygrad: CreationMixin.ones *)
let ones ?dtype ?device ?buffer new_shape = full ?dtype ?device ?buffer new_shape (Dtype.F 1.0)

(* tinygrad: CreationMixin.zeros_like *)
let zeros_like ?dtype ?device x = full_like ?dtype ?device x (Dtype.I Z.zero)

(* tinygrad: CreationMixin.ones_like *)
let ones_like ?dtype ?device x = full_like ?dtype ?device x (Dtype.I Z.one)

(* each right-hand side is the UOp function of the same name above, with the carrier's int shapes and float
   fill values *)
module Make (C : Mixin_intf.CARRIER) = struct
  let lift op f = Mixin_dtype.named op @@ fun () -> C.wrap_uop ~op (f ())
  let sints a = List.map (fun i -> Sint i) (Array.to_list a)
  let full ?dtype ?device shape v = lift "full" @@ fun () -> full ?dtype ?device (sints shape) (Dtype.F v)
  let zeros ?dtype ?device shape = lift "zeros" @@ fun () -> zeros ?dtype ?device (sints shape)
  let ones ?dtype ?device shape = lift "ones" @@ fun () -> ones ?dtype ?device (sints shape)
  let empty ?dtype ?device shape = lift "empty" @@ fun () -> empty ?dtype ?device (sints shape)
  let full_like ?dtype x v = lift "full_like" @@ fun () -> full_like ?dtype (C.uop x) (Dtype.F v)
  let zeros_like ?dtype x = lift "zeros_like" @@ fun () -> zeros_like ?dtype (C.uop x)
  let ones_like ?dtype x = lift "ones_like" @@ fun () -> ones_like ?dtype (C.uop x)
  let empty_like ?dtype x = lift "empty_like" @@ fun () -> empty_like ?dtype (C.uop x)
end
