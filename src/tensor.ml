(* tinygrad: tensor.py (the Tensor class, less callify which is src/schedule/callify.ml) with the mixins of
   src/mixin wrapped: a Tensor is a mutable holder of a UOp, registered among the live tensors so the
   scheduler's buffer map can be applied back to it. *)

open Uop

include Tensor_base

type 'a index = 'a Mixin_intf.index = I of int | S of int option * int option * int option | T of 'a | New | Ellipsis

(* ---------- properties ---------- *)

let sints l = List.map (fun i -> Sint i) (Array.to_list l)
let int_shape ?(op = "shape") (u : Uop.t) =
  Array.of_list (List.map (function
      | Sint i -> i
      | Suop _ -> invalid_arg (Printf.sprintf "%s: symbolic shape %s, use Tensor.Sym.shape" op
                                 (Uop.shape_str (Uop.shape u)))) (Uop.shape u))
let shape x = int_shape (uop x)
let dtype x = (uop x).dtype
let device x = match Buffers.device (uop x) with Some d -> d | None -> Device.default ()

(* tinygrad: to_tuple(Tensor.device) *)
let devices x = match Buffers.mdevice (uop x) with Some d -> Uop.device_list d | None -> [ Device.default () ]

(* tinygrad: isinstance(Tensor.device, tuple) *)
let is_sharded x = Buffers.is_multi (uop x)

(* tinygrad: Tensor.uop.axis *)
let shard_axis x = if is_sharded x then Uop.axis (uop x) else None
let ndim x = List.length (Uop.shape (uop x))
let numel x = Array.fold_left ( * ) 1 (shape x)
let shape_str a = Uop.shape_str (sints a)

(* ---------- creation ---------- *)

let check_len op shp n =
  if Array.exists (fun d -> d < 0) shp then invalid_arg (Printf.sprintf "%s: negative dimension in shape %s" op (shape_str shp));
  let p = Array.fold_left ( * ) 1 shp in
  if p <> n then invalid_arg (Printf.sprintf "%s: %d values for shape %s (%d elements)" op n (shape_str shp) p)

(* tinygrad: Tensor(list) — our data goes straight into a device Buffer (a copyin, not a COPY kernel) *)
let from_host op ?device dt shp n (fill : Device.Buffer.t -> unit) =
  if Dtype.is_weak dt then invalid_arg (op ^ ": cannot create storage for weak dtype " ^ Dtype.to_string dt);
  check_len op shp n;
  let device = Mixin_creation.canonicalize_device ~op device in
  let b = Device.Buffer.create device n dt in
  if n > 0 then fill b;
  let u = Buffers.from_buffer b in
  wrap ~op (Mixin_movement.reshape u (sints shp))

(* tinygrad: Tensor.__init__ with a UOp and no device: the UOp's device canonicalized, and a COPY when the spelling
   differs (copy_multi gathers a sharded value) *)
let of_uop (u : Uop.t) =
  let canon d = Mixin_creation.canonicalize_device ~op:"of_uop" (Some d) in
  match Buffers.mdevice u with
  | None -> wrap ~op:"of_uop" u
  | Some (One d) -> wrap ~op:"of_uop" (if canon d = d then u else copy_to_device u (canon d))
  | Some (Multi ds) ->
    (match List.map canon ds with
     | cds when cds = ds -> wrap ~op:"of_uop" u
     | [ d ] -> wrap ~op:"of_uop" (copy_to_device u d)
     | cds -> wrap ~op:"of_uop" (Rangeify.copy_to_device u (Multi cds)))

let of_float_array ?dtype ?device shp (data : float array) =
  let dt = match dtype with Some d -> d | None -> Dtype.default_float () in
  from_host "of_float_array" ?device dt shp (Array.length data) (fun b -> Device.Buffer.copyin_floats b data)

let of_int_array ?dtype ?device shp (data : int array) =
  let dt = match dtype with Some d -> d | None -> Dtype.default_int () in
  if Dtype.is_float dt then
    from_host "of_int_array" ?device dt shp (Array.length data)
      (fun b -> Device.Buffer.copyin_floats b (Array.map float_of_int data))
  else from_host "of_int_array" ?device dt shp (Array.length data) (fun b -> Device.Buffer.copyin_ints b data)

(* tinygrad: Tensor(3.0) — a device-less CONST, weak unless [dtype] *)
let scalar ?dtype v =
  named "scalar" @@ fun () -> Mixin_creation.check_dtype "scalar" dtype; wrap ~op:"scalar" (Uop.const ?dtype (Dtype.F v))

(* tinygrad: Tensor(3) *)
let scalar_int ?dtype v =
  named "scalar_int" @@ fun () ->
  Mixin_creation.check_dtype "scalar_int" dtype; wrap ~op:"scalar_int" (Uop.const ?dtype (Dtype.I (Z.of_int v)))

(* ---------- realize ---------- *)

(* a scheduling failure that is not the caller's (Invalid_argument) is a bug of the library *)
let scheduling big_sink f = Helpers.internal_errors_as_bug ~what:"scheduling" ~show:(fun () -> Uop.to_string big_sink) f

(* not in tinygrad: the CPU mode stores an assign's expression target before the kernels read it
   (Rangeify_cpu.stored_assign_targets), in the scheduled graph only: a tensor outside it that reads the
   expression keeps reading the expression, the value before the assign *)
let store_assign_targets (xs : t list) =
  match Rangeify_cpu.stored_assign_targets (List.map uop xs) with
  | [] -> ()
  | pairs ->
    (* one walk over the tensors' shared graph *)
    let s = Upat.substitute ~walk:true (Uop.sink (List.map uop xs)) pairs in
    List.iteri (fun i x -> set_uop x s.src.(i)) xs

(* tinygrad: Tensor.linear_with_vars *)
let linear_with_vars (xs : t list) =
  store_assign_targets xs;
  let uops = List.map uop xs in
  scheduling (Uop.sink uops) (fun () -> Schedule.linear_with_vars ~apply_map:apply_map_to_tensors uops)

(* tinygrad: Tensor.realize over several tensors; the schedule's internal buffers are freed once it ran (tinygrad:
   by refcount when the schedule is dropped) *)
let realize_all (xs : t list) =
  (* a JIT capturing holds the buffers its kernels use: no release, no owned outputs *)
  let capturing = Realize.capturing () <> None in
  if not capturing then Tensor_base.release_unreached ();
  let to_realize = List.filter (fun x -> Schedule.needs_realize (uop x)) xs in
  store_assign_targets to_realize;
  if to_realize <> [] then begin
    let big_sink = Uop.sink (List.map uop to_realize) in
    let realize_now () =
      let call, becomes_map, linear, var_vals =
        scheduling big_sink (fun () -> Schedule.schedule_with_call ~apply_map:apply_map_to_tensors big_sink) in
      let linear = Realize.compile_linear linear in
      Realize.run_linear ~jit:true ~var_vals linear;
      if call.op == Ops.Call then Realize.free_internal_buffers ~held:(List.tl (Array.to_list call.src)) linear;
      (call, becomes_map, linear, var_vals) in
    (match Realize_cache.lookup big_sink with
     | Realize_cache.Hit (entry, walk) -> Realize_cache.run entry walk ~apply_map:apply_map_to_tensors
     | Realize_cache.Miss (walk, table) ->
       let call, becomes_map, linear, var_vals = realize_now () in
       Realize_cache.record walk table ~big_sink ~call ~becomes_map ~linear ~var_vals
     | Realize_cache.Not_cached -> ignore (realize_now ()));
    if not capturing then Tensor_base.own_outputs ~big_sink to_realize
  end

(* tinygrad: Tensor.realize *)
let realize x = realize_all [ x ]; x

(* ---------- the mixins over tensors: dtype, creation, elementwise, reduce, movement, op ---------- *)

(* tinygrad: Tensor._uop / _wrap_uop, the carrier of the mixins *)
module Carrier = struct
  type nonrec t = t
  let uop = uop
  let wrap_uop ~op u = wrap ~op u
end

include Mixin_dtype.Make (Carrier)
include Mixin_creation.Make (Carrier)
include Mixin_elementwise.Make (Carrier)
include Mixin_reduce.Make (Carrier)
include Mixin_movement.Make (Carrier)
include Mixin_op.Make (Carrier)

let ( mod ) = mod_

(* ---------- movement ---------- *)

let reshape x shp = named "reshape" @@ fun () -> wrap ~op:"reshape" (Mixin_movement.reshape (uop x) (sints shp))
let view x shp = named "view" @@ fun () -> reshape x shp
let permute x order = named "permute" @@ fun () -> wrap ~op:"permute" (Mixin_movement.permute (uop x) (Array.to_list order))
let expand x shp = named "expand" @@ fun () -> wrap ~op:"expand" (Mixin_movement.expand (uop x) (sints shp))

(* tinygrad: OpMixin.pad (pairs per dim; negative pads crop); [mode] default [`Constant] *)
let pad ?mode ?(value = 0.0) x pads =
  named "pad" @@ fun () ->
  if Array.length pads <> ndim x then
    invalid_arg (Printf.sprintf "pad: padding length is improper, %d pairs for shape %s" (Array.length pads)
                   (Uop.shape_str (Uop.shape (uop x))));
  wrap ~op:"pad" (Mixin_op.pad ?mode ~value:(Dtype.F value) (uop x) (List.map Option.some (Array.to_list pads)))

let shrink x arg =
  named "shrink" @@ fun () -> wrap ~op:"shrink" (Mixin_movement.shrink (uop x) (List.map (fun (a, b) -> Some (Sint a, Sint b)) (Array.to_list arg)))
let transpose ?(dim0 = 1) ?(dim1 = 0) x = named "transpose" @@ fun () -> wrap ~op:"transpose" (Mixin_movement.transpose ~dim0 ~dim1 (uop x))
let unflatten x dim sizes = named "unflatten" @@ fun () -> wrap ~op:"unflatten" (Mixin_movement.unflatten (uop x) dim (sints sizes))
let repeat x repeats = named "repeat" @@ fun () -> wrap ~op:"repeat" (Mixin_movement.repeat (uop x) (sints repeats))

(* ---------- data out ---------- *)

(* tinygrad: UOp.clone *)
let clone ?device x =
  named "clone" @@ fun () ->
  let u = uop x in
  let ret = Mixin_creation.empty_like ?device u in
  let src = match device, Buffers.mdevice u with
    | Some d, Some md ->
      let d = Mixin_creation.canonicalize_device ~op:"clone" (Some d) in
      if md = One d then u else copy_to_device u d
    | _ -> u in
  wrap ~op:"clone" (Uop.after ret [ Uop.store ret (Uop.cast ret.dtype src) ])

(* tinygrad: Tensor.assign (single device, no DISK) *)
let assign x v =
  named "assign" @@ fun () ->
  if Dtype.is_weak (uop x).dtype then invalid_arg "assign: cannot assign into a weak tensor; it has no storage";
  if (uop x) == (uop v) then x
  else begin
    let vu = (try Mixin_movement.broadcast_to (uop v) (Uop.shape (uop x))
              with Invalid_argument m -> invalid_arg ("assign: " ^ m)) in
    let vu = if Dtype.is_weak vu.dtype then Uop.cast (Dtype.least_upper_dtype [ (uop x).dtype; vu.dtype ]) vu else vu in
    if vu.dtype != (uop x).dtype then
      invalid_arg (Printf.sprintf "assign: dtype mismatch %s != %s" (Dtype.to_string (uop x).dtype) (Dtype.to_string vu.dtype));
    (match Buffers.mdevice vu, Buffers.mdevice (uop x) with
     | Some a, Some b when a <> b ->
       invalid_arg (Printf.sprintf "assign: device mismatch %s != %s" (Uop.device_to_string b) (Uop.device_to_string a))
     | _ -> ());
    if Buffers.is_multi (uop x) && Buffers.mdevice vu <> None && Uop.axis (uop x) <> Uop.axis vu then
      invalid_arg "assign: multi axis mismatch";
    let assign = Uop.after (uop x) [ Uop.store (uop x) vu ] in
    let rec find_ib (ib : Uop.t) =
      if (not (Buffers.has_buffer_identity ib)) && (Ops.Group.is_movement ib.op || ib.op == Ops.Bitcast || ib.op == Ops.Detach)
      then find_ib ib.src.(0) else ib in
    let ib = find_ib (uop x) in
    if ib != (uop x) && Buffers.has_buffer_identity ~after_ok:true ib then
      (* view assign: replace at the buffer-identity level *)
      apply_map_to_tensors [ (ib, Uop.after ib [ assign ]) ]
    else set_uop x assign;
    x
  end

(* tinygrad: UOp._base_buffer_is_realized — the buffer under a chain of AFTERs has memory *)
let base_buffer_is_realized (u : Uop.t) =
  let rec under_afters (u : Uop.t) = if u.op == Ops.After then under_afters u.src.(0) else u in
  Buffers.is_realized (under_afters (Uop.base u))

(* tinygrad: Tensor.__setitem__'s guard: a write into a graph another live tensor still reads would make the lazy
   result differ from the eager one (views of one realized buffer excepted, and the value's own graph) *)
let check_no_other_uses x (vu : Uop.t) =
  let u = uop x in
  if Uop.op_in_backward_slice_with_self u [ Ops.Buffer ] then begin
    let shared = if Buffers.is_realized (Uop.base u) then Some (Uop.base u) else None in
    let v_bw = Uop.backward_slice vu in
    let other_uses () = List.exists (fun t -> not (Tensor_base.same t x)) (live_tensors_with (fun tu ->
        tu != vu && Uop.in_backward_slice_with_self u tu
        && (match shared with Some b -> Uop.base tu != b | None -> true)
        && not (List.memq tu v_bw))) in
    (* Python drops a temporary at once; here a dead tensor stays registered until the GC finds it *)
    if other_uses () && (Helpers.collect_unreachable (); other_uses ()) then
      invalid_arg (Printf.sprintf "setitem: can't setitem on a tensor of shape %s with other uses"
                     (Uop.shape_str (Uop.shape u)))
  end

(* tinygrad: Tensor.__setitem__ — a lazy, not realized float tensor (or a basic index into a lazy one) takes the
   merged graph; an advanced index into a realized buffer assigns the merged tensor; a basic index assigns into the
   view *)
let setitem x (indices : t index list) (v : t) =
  named "setitem" @@ fun () ->
  let xdt = (uop x).dtype in
  if Dtype.is_weak xdt then invalid_arg "setitem: cannot setitem into a weak tensor; it has no storage";
  let v = if Dtype.is_weak (uop v).dtype then cast v (Dtype.least_upper_dtype [ xdt; (uop v).dtype ]) else v in
  if (uop v).dtype != xdt then
    invalid_arg (Printf.sprintf "setitem: dtype mismatch %s != %s" (Dtype.to_string xdt) (Dtype.to_string (uop v).dtype));
  check_no_other_uses x (uop v);
  let uindices = List.map (function
      | I i -> I i | S (a, b, c) -> S (a, b, c) | T t -> T (uop t) | New -> New | Ellipsis -> Ellipsis) indices in
  let advanced = List.exists (function T _ -> true | _ -> false) indices in
  let realized = (Uop.base (uop x)).op == Ops.Buffer || base_buffer_is_realized (uop x) in
  if ((not (Buffers.is_realized (uop x))) && Dtype.is_float xdt) || not (advanced || realized) then begin
    (* an in-place op's AFTER(view, STORE(view, computed)): the computed value *)
    let vu = uop v in
    let vu = if vu.op == Ops.After && Array.exists (fun (s : Uop.t) -> s.op == Ops.Store) (Array.sub vu.src 1 (Array.length vu.src - 1))
      then vu.src.(1).src.(1) else vu in
    set_uop x (Mixin_op.getitem_gen ~v:vu (uop x) uindices)
  end
  else if advanced then ignore (assign x (wrap ~op:"setitem" (Mixin_op.getitem_gen ~v:(uop v) (uop x) uindices)))
  else begin
    let view = getitem x indices in
    let vu = uop v in
    if not (vu.op == Ops.After && Array.memq vu (Uop.base (uop view)).src) then ignore (assign view v)
  end

(* tinygrad: Tensor.__setitem__ with a Python number: the value made in the tensor's dtype *)
let setitem_const x indices (c : float) =
  named "setitem_const" @@ fun () ->
  let dt = (uop x).dtype in
  if Dtype.is_weak dt then invalid_arg "setitem: cannot setitem into a weak tensor; it has no storage";
  let v = if Dtype.is_float dt then scalar ~dtype:dt c
    else if dt == Dtype.Bool then wrap ~op:"setitem" (Uop.const ~dtype:dt (Dtype.B (c <> 0.0)))
    else scalar_int ~dtype:dt (Float.to_int c) in
  setitem x indices v

(* tinygrad: UOp.buffer — with views of a buffer (movement ops that stay a contiguous range) as Buffer views *)
let uop_buffer op (u : Uop.t) : Device.Buffer.t = Callify.buffer ~op u

(* tinygrad: Tensor._buffer — contiguous, realized, on a device *)
let buffer_of op x =
  if Realize.capturing () <> None && Helpers.unsafe_allow_jit_buffer.value = 0 then
    raise (Realize.Jit_error (op ^ ": cannot access tensor data during JIT capture, the value will be baked in"));
  let x = if Dtype.is_weak (uop x).dtype then cast x (Dtype.strong_dtype (uop x).dtype) else x in
  let c = contiguous x in
  let c = if Buffers.mdevice (uop c) = None then clone ~device:(Device.default ()) c else c in
  (* a multi-device tensor is read through one copy on the CPU (tinygrad: clone("CPU")) *)
  let c = if Buffers.is_multi (uop c) then contiguous (wrap ~op (copy_to_device (uop c) "CPU")) else c in
  ignore (realize c);
  Device.Buffer.ensure_allocated (uop_buffer op (uop c))

let to_float_array x =
  let n = numel x in
  if n = 0 then [||]
  else
    let b = buffer_of "to_float_array" x in
    let v = Device.Buffer.to_floats b in
    if Array.length v = n then v else Array.sub v 0 n

let to_int_array x =
  if Dtype.is_float (uop x).dtype then
    invalid_arg ("to_int_array: " ^ Dtype.to_string (uop x).dtype ^ " is not an int or bool dtype; use to_float_array");
  let n = numel x in
  if n = 0 then [||]
  else
    let b = buffer_of "to_int_array" x in
    let v = Device.Buffer.to_ints b in
    if Array.length v = n then v else Array.sub v 0 n

(* ---------- Bigarray in and out (not in tinygrad: numpy's role for OCaml) ---------- *)

(* the dtype a Bigarray kind stores; OCaml's int and nativeint are machine words. Complex kinds (and, on OCaml 5.2,
   float16) have none here. *)
let[@warning "-11"] dtype_of_kind : type a b. (a, b) Bigarray.kind -> Dtype.t option = function
  | Bigarray.Float32 -> Some Dtype.Float32
  | Bigarray.Float64 -> Some Dtype.Float64
  | Bigarray.Int8_signed -> Some Dtype.Int8
  | Bigarray.Int8_unsigned | Bigarray.Char -> Some Dtype.Uint8
  | Bigarray.Int16_signed -> Some Dtype.Int16
  | Bigarray.Int16_unsigned -> Some Dtype.Uint16
  | Bigarray.Int32 -> Some Dtype.Int32
  | Bigarray.Int64 -> Some Dtype.Int64
  | Bigarray.Int | Bigarray.Nativeint -> Some (if Sys.word_size = 64 then Dtype.Int64 else Dtype.Int32)
  | Bigarray.Complex32 | Bigarray.Complex64 -> None
  | _ -> None

let kind_dtype op kind =
  match dtype_of_kind kind with
  | Some d -> d
  | None -> invalid_arg (op ^ ": this Bigarray kind has no tinygrad dtype (complex numbers are not supported)")

let of_bigarray ?device (ba : ('a, 'b, Bigarray.c_layout) Bigarray.Genarray.t) =
  named "of_bigarray" @@ fun () ->
  let dt = kind_dtype "of_bigarray" (Bigarray.Genarray.kind ba) in
  let shp = Bigarray.Genarray.dims ba in
  if Array.fold_left ( * ) 1 shp = 0 then empty ~dtype:dt ?device shp
  else
    let device = Mixin_creation.canonicalize_device ~op:"of_bigarray" device in
    let b = Device.Buffer.of_bigarray ~device dt ba in
    wrap ~op:"of_bigarray" (Mixin_movement.reshape (Buffers.from_buffer b) (sints shp))

let to_bigarray (type a b) (kind : (a, b) Bigarray.kind) x : (a, b, Bigarray.c_layout) Bigarray.Genarray.t =
  let dt = kind_dtype "to_bigarray" kind in
  let xdt = Dtype.strong_dtype (uop x).dtype in
  if not (Dtype.equal dt xdt) then
    invalid_arg (Printf.sprintf "to_bigarray: a %s tensor of shape %s into a Bigarray of %s elements (cast first)"
                   (Dtype.to_string xdt) (shape_str (shape x)) (Dtype.to_string dt));
  let shp = shape x and n = numel x in
  let out = Bigarray.Genarray.create kind Bigarray.c_layout shp in
  if n > 0 then begin
    let b = buffer_of "to_bigarray" x in
    let b = if Device.Buffer.nbytes b = n * Dtype.itemsize dt then b else Device.Buffer.view b n dt 0 in
    Device.Buffer.copyout b (Bigarray.reshape_1 out n)
  end;
  out

(* tinygrad: OpMixin.item *)
let item x =
  if numel x <> 1 then invalid_arg (Printf.sprintf "item: must have one element for item, shape %s" (shape_str (shape x)));
  (to_float_array x).(0)

(* nested brackets in C order; with [edge], an axis longer than 2 * edge shows its first and last [edge] entries
   around "..." (numpy's summarised repr) *)
let render_values ?edge x =
  let sh = shape x in
  let dt = dtype x in
  let vals =
    if Dtype.is_float dt then Array.map (fun f -> Dtype.float_repr f) (to_float_array x)
    else if dt == Dtype.Bool then Array.map (fun i -> if i <> 0 then "True" else "False") (to_int_array x)
    else Array.map string_of_int (to_int_array x) in
  let buf = Buffer.create 64 in
  let rec go dim off =
    if dim = Array.length sh then Buffer.add_string buf vals.(off)
    else begin
      let stride = Array.fold_left ( * ) 1 (Array.sub sh (dim + 1) (Array.length sh - dim - 1)) in
      let n = sh.(dim) in
      let shown = match edge with
        | Some e when n > 2 * e -> List.init e Fun.id @ [ -1 ] @ List.init e (fun i -> n - e + i)
        | _ -> List.init n Fun.id in
      Buffer.add_char buf '[';
      List.iteri (fun k i ->
          if k > 0 then Buffer.add_string buf ", ";
          if i < 0 then Buffer.add_string buf "..." else go (dim + 1) (off + i * stride)) shown;
      Buffer.add_char buf ']'
    end in
  if Array.length vals > 0 || Array.length sh > 0 then go 0 0;
  Buffer.contents buf

(* a symbolic shape has no values to show until a concrete window is read *)
let is_symbolic x = List.exists (function Suop _ -> true | Sint _ -> false) (Uop.shape (uop x))

(* the device shown by to_string / pp: the name, or the tuple of a multi-device tensor *)
let device_str x = match Buffers.mdevice (uop x) with Some (Multi _ as d) -> Uop.device_to_string d | _ -> device x

let to_string x =
  if is_symbolic x then
    Printf.sprintf "<Tensor shape=%s dtype=%s device=%s (symbolic)>" (Uop.shape_str (Uop.shape (uop x)))
      (Dtype.to_string (dtype x)) (device_str x)
  else
    Printf.sprintf "<Tensor shape=%s dtype=%s device=%s %s>" (shape_str (shape x)) (Dtype.to_string (dtype x)) (device_str x)
      (render_values x)

(* tinygrad: Tensor.__repr__ with the values; numpy's print options: more than 1000 elements are summarised with
   3 edge items per axis *)
let pp fmt x =
  if is_symbolic x then Format.pp_print_string fmt (to_string x)
  else
    let edge = if numel x > 1000 then Some 3 else None in
    Format.fprintf fmt "<Tensor shape=%s dtype=%s device=%s %s>" (shape_str (shape x)) (Dtype.to_string (dtype x))
      (device_str x) (render_values ?edge x)

(* tinygrad: Tensor.to *)
let to_device x device =
  named "to_device" @@ fun () ->
  match Buffers.mdevice (uop x) with
  | None -> x
  | Some d ->
    let device = Mixin_creation.canonicalize_device ~op:"to_device" (Some device) in
    if d = One device then x
    else begin
      let ret = wrap ~op:"to_device" (copy_to_device (uop x) device) in
      set_is_param ret (is_param x);
      ret
    end

(* tinygrad: Tensor.to of a tuple of devices *)
let to_devices x devices =
  named "to_devices" @@ fun () ->
  match Buffers.mdevice (uop x), devices with
  | None, _ -> x
  | _, [] -> invalid_arg "to_devices: no devices"
  | Some d, _ ->
    let devs = List.map (fun d -> Mixin_creation.canonicalize_device ~op:"to_devices" (Some d)) devices in
    if d = Multi devs then x
    else begin
      let ret = wrap ~op:"to_devices" (Rangeify.copy_to_device (uop x) (Multi devs)) in
      set_is_param ret (is_param x);
      ret
    end

(* tinygrad: Tensor.as_param *)
let as_param slot x =
  named "as_param" @@ fun () ->
  let u = uop x in
  wrap ~op:"as_param"
    (Uop.param ~shape:(Uop.shard_shape u) ?device:(Buffers.mdevice u) ?axis:(Uop.axis u) slot u.dtype)

(* tinygrad: Tensor.call (without grad_fxn: CallInfo is not modelled) *)
let call ~fxn args =
  named "call" @@ fun () -> of_uop (Buffers.gettuple (Buffers.call (uop fxn) (List.map uop args)) 0)

(* tinygrad: Tensor.shard *)
let shard ?axis x devices =
  named "shard" @@ fun () ->
  match Buffers.mdevice (uop x) with
  | None -> x
  | Some (Multi ds) ->
    invalid_arg (Printf.sprintf "shard: can't shard a multi-device tensor (on %s)" (String.concat ", " ds))
  | Some (One _) ->
    match devices with
    | [] -> invalid_arg "shard: no devices"
    | [ d ] -> to_device x d
    | _ ->
      let devs = List.map (fun d -> Mixin_creation.canonicalize_device ~op:"shard" (Some d)) devices in
      let axis = Option.map (fun a -> Mixin_movement.resolve_dim ~op:"shard" (uop x) a) axis in
      (match axis with
       | Some a ->
         let n = (shape x).(a) and k = List.length devs in
         if Stdlib.(n mod k <> 0) then
           invalid_arg (Printf.sprintf "shard: axis %d of shape %s does not split evenly over %d devices" a
                          (shape_str (shape x)) k)
       | None -> ());
      let ret = wrap ~op:"shard" (Multi.shard (uop x) devs axis) in
      set_is_param ret (is_param x);
      ret

(* tinygrad: Tensor.shard_ *)
let shard_ ?axis x devices = named "shard_" @@ fun () -> set_uop x (uop (shard ?axis x devices)); x

(* tinygrad: Tensor.shard_like — the devices and axis of [y] *)
let shard_like x y =
  named "shard_like" @@ fun () ->
  match Buffers.mdevice (uop y) with
  | None -> x
  | Some (One d) -> to_device x d
  | Some (Multi ds) ->
    if is_sharded x && Buffers.mdevice (uop x) = Some (Multi ds) && shard_axis x = shard_axis y then x
    else shard ?axis:(shard_axis y) x ds

(* ---------- convolution and pooling with int arguments (tinygrad's int form of the tuple arguments) ---------- *)

let one_opt = Option.map (fun i -> [ i ])
let conv2d ?bias ?stride ?padding ?dilation ?groups x w =
  named "conv2d" @@ fun () -> wrap ~op:"conv2d" (Mixin_op.conv2d ?bias:(Option.map uop bias) ?groups ?stride:(one_opt stride) ?dilation:(one_opt dilation)
                       ?padding:(one_opt padding) (uop x) (uop w))
let max_pool2d ?(kernel_size = 2) ?stride ?padding x =
  named "max_pool2d" @@ fun () -> wrap ~op:"max_pool2d" (Mixin_op.max_pool2d ~kernel_size:[ kernel_size; kernel_size ] ?stride:(one_opt stride)
                           ?padding:(one_opt padding) (uop x))
let avg_pool2d ?(kernel_size = 2) ?stride ?padding x =
  named "avg_pool2d" @@ fun () -> wrap ~op:"avg_pool2d" (Mixin_op.avg_pool2d ~kernel_size:[ kernel_size; kernel_size ] ?stride:(one_opt stride)
                           ?padding:(one_opt padding) (uop x))

(* ---------- autograd: tinygrad tensor.py backward, mixin/op.py gradient ---------- *)

(* tinygrad: OpMixin.gradient — d(self)/d(target) for each target *)
let gradient_with ?gradient self (targets : t list) =
  named "gradient_with" @@ fun () ->
  List.map (wrap ~op:"gradient")
    (Gradient.gradient ?gradient:(Option.map uop gradient) (uop self) (List.map uop targets))

let gradient self targets = named "gradient" @@ fun () -> gradient_with self targets

(* tinygrad: Tensor.backward — backward fills .grad for every in-scope float tensor with a device *)
let backward ?gradient self =
  named "backward" @@ fun () ->
  let all_uops = Uop.Tbl.create 256 in
  List.iter (fun u -> Uop.Tbl.replace all_uops u ()) (Uop.toposort (uop self));
  let tensors_need_grad =
    List.filter (fun t -> is_floating_point t && Buffers.mdevice (uop t) <> None)
      (Tensor_base.live_tensors_with (fun u -> Uop.Tbl.mem all_uops u)) in
  List.iter2 (fun t g ->
      if not (Uop.equal_sints (Uop.shape (uop g)) (Uop.shape (uop t))) then
        invalid_arg (Printf.sprintf "backward: grad shape must match tensor shape, %s != %s"
                       (Uop.shape_str (Uop.shape (uop g))) (Uop.shape_str (Uop.shape (uop t))));
      (* a device-less gradient gets the tensor's device (its devices and axis when sharded) *)
      let g = if Buffers.mdevice (uop g) <> None then g
        else if is_sharded t then shard_like (clone ~device:(List.hd (devices t)) g) t
        else clone ~device:(device t) g in
      match grad t with
      | None -> set_grad t (Some g)
      | Some tg ->
        let g = if is_sharded tg then (if devices g = devices tg then g else shard_like g tg) else to_device g (device tg) in
        ignore (assign tg (add tg g)))
    tensors_need_grad (gradient_with ?gradient self tensors_need_grad)

(* ---------- the mode types of mixin/op.py, and the ops that realize a count ---------- *)

type reduction = Mixin_op.reduction
type scatter_reduction = Mixin_op.scatter_reduction

(* tinygrad's .item() of the count, for the data-dependent output length *)
let count_of_uop u = int_of_float (item (wrap ~op:"count" u))
let masked_select ?size ?fill_value x mask =
  named "masked_select" @@ fun () -> wrap ~op:"masked_select" (Mixin_op.masked_select ?size ?fill_value:(Option.map (fun f -> Dtype.F f) fill_value)
                              ~count:count_of_uop (uop x) (uop mask))
let nonzero ?size ?fill_value x =
  named "nonzero" @@ fun () -> wrap ~op:"nonzero" (Mixin_op.nonzero ?size ?fill_value:(Option.map (fun i -> Dtype.I (Z.of_int i)) fill_value)
                        ~count:count_of_uop (uop x))

(* ---------- random numbers: tinygrad tensor.py RNG state (manual_seed, _next_counter), mixin/rand.py ---------- *)

(* tinygrad: Tensor._seed (int(time.time()) until manual_seed), _device_seeds, _device_rng_counters *)
let rng_seed = ref (Random.State.bits (Random.State.make_self_init ()))
let device_seeds : (string * t) list ref = ref []
let device_rng_counters : (string * t) list ref = ref []

(* tinygrad: Tensor.manual_seed *)
let manual_seed seed =
  rng_seed := seed;
  device_seeds := [];
  device_rng_counters := []

(* tinygrad: Tensor._next_counter — the device's (seed, counter) for a draw of [num] words; the counter tensor is
   advanced by an assign, and the counter returned is the value before the draw *)
let next_counter device num =
  let module E = Mixin_elementwise in
  let slice u a b = Mixin_op.getitem u [ Mixin_op.S (Some a, Some b, None) ] in
  let idx u i = Mixin_op.getitem u [ Mixin_op.I i ] in
  if not (List.mem_assoc device !device_seeds) then begin
    let seed = [| Mixin_rand.device_seed_word (List.length !device_seeds); !rng_seed land 0xffffffff |] in
    device_seeds := (device, from_py_ints ~device Dtype.Uint32 seed) :: !device_seeds;
    device_rng_counters := (device, from_py_ints ~device Dtype.Uint32 [| 0; 0 |]) :: !device_rng_counters
  end;
  let counter = List.assoc device !device_rng_counters in
  let lo = num land 0xffffffff and hi = num lsr 32 in
  let new_low = E.add (slice (uop counter) 0 1) (E.ci lo) in
  let new_high = E.add (E.add (slice (uop counter) 1 2) (E.ci hi)) (E.lt new_low (idx (uop counter) 0)) in
  ignore (assign counter (wrap ~op:"rand" (Mixin_op.cat [ new_low; new_high ])));
  let low = E.sub (slice (uop counter) 0 1) (E.ci lo) in
  let high = E.sub (E.sub (slice (uop counter) 1 2) (E.ci hi)) (E.lt (idx (uop counter) 0) (E.ci lo)) in
  (List.assoc device !device_seeds, wrap ~op:"rand" (Mixin_op.cat [ low; high ]))

(* tinygrad: Tensor(RandMixin), whose _next_counter is the one above *)
include Mixin_rand.Make (struct include Carrier let next_counter = next_counter end)

(* ---------- symbolic shapes: the movement and creation ops above with sint arguments ---------- *)

module Sym = struct
  let sl a = Array.to_list a
  let shape x = Array.of_list (Uop.shape (uop x))
  let numel x = Uop.sprod (Uop.shape (uop x))
  let reshape x shp = named "reshape" @@ fun () -> wrap ~op:"reshape" (Mixin_movement.reshape (uop x) (sl shp))
  let expand x shp = named "expand" @@ fun () -> wrap ~op:"expand" (Mixin_movement.expand (uop x) (sl shp))
  let shrink x arg =
    named "shrink" @@ fun () -> wrap ~op:"shrink" (Mixin_movement.shrink (uop x) (List.map Option.some (sl arg)))

  (* tinygrad: OpMixin._pad_constant with sint pads *)
  let pad ?(value = 0.0) x pads =
    named "pad" @@ fun () ->
    if Array.length pads <> ndim x then
      invalid_arg (Printf.sprintf "pad: padding length is improper, %d pairs for shape %s" (Array.length pads)
                     (Uop.shape_str (Uop.shape (uop x))));
    if Array.exists (fun (b, a) -> Sint.bounds b |> fst < 0 || Sint.bounds a |> fst < 0) pads then
      invalid_arg (Printf.sprintf "pad: pads may be negative, %s (crop with Tensor.Sym.shrink)"
                     (String.concat ", " (List.map (fun (b, a) -> Printf.sprintf "(%s, %s)" (Sint.to_string b) (Sint.to_string a)) (sl pads))));
    wrap ~op:"pad" (Mixin_op.pad_filled (uop x) (List.map Option.some (sl pads)) (Dtype.F value))

  let check_shape op shp =
    if Array.exists (function Sint i -> i < 0 | Suop _ -> false) shp then
      invalid_arg (Printf.sprintf "%s: negative dimension in shape %s" op (Uop.shape_str (sl shp)))
  let creation op f ?device shp =
    named op @@ fun () ->
    check_shape op shp;
    let device = Option.map (fun d -> Mixin_creation.canonicalize_device ~op (Some d)) device in
    wrap ~op (f ?device (sl shp))
  let full ?dtype ?device shp v = creation "full" (fun ?device s -> Mixin_creation.full ?dtype ?device s (Dtype.F v)) ?device shp
  let zeros ?dtype ?device shp = creation "zeros" (Mixin_creation.zeros ?dtype ?buffer:None) ?device shp
  let ones ?dtype ?device shp = creation "ones" (Mixin_creation.ones ?dtype ?buffer:None) ?device shp
  let empty ?dtype ?device shp = creation "empty" (Mixin_creation.empty ?dtype) ?device shp
  let arange n =
    named "arange" @@ fun () ->
    if fst (Sint.bounds n) < 0 then invalid_arg ("arange: negative length " ^ Sint.to_string n);
    wrap ~op:"arange" (Mixin_op.arange_sint n)
end

(* infix operators *)
module O = struct
  let ( + ) = add
  let ( - ) = sub
  let ( * ) = mul
  let ( / ) x y = div x y
  let ( ~- ) = neg
  let ( *@ ) x y = matmul x y
end
