(* tinygrad: tensor.py (the Tensor class, less callify which is src/schedule/callify.ml) with the mixins of
   src/mixin wrapped: a Tensor is a mutable holder of a UOp, registered among the live tensors so the
   scheduler's buffer map can be applied back to it. *)

open Uop

type t = { mutable uop : Uop.t; mutable grad : t option; mutable is_param : bool }

type index = I of int | S of int option * int option * int option | T of t | New | Ellipsis

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
let of_uop u = wrap u

(* ---------- properties ---------- *)

let sints l = List.map (fun i -> Sint i) (Array.to_list l)
let int_shape ?(op = "shape") (u : Uop.t) =
  Array.of_list (List.map (function Sint i -> i | Suop _ -> invalid_arg (op ^ ": symbolic shape")) (Uop.shape u))
let shape x = int_shape x.uop
let dtype x = x.uop.dtype
let device x = match Buffers.device x.uop with Some d -> d | None -> Device.default ()
let ndim x = List.length (Uop.shape x.uop)
let numel x = Array.fold_left ( * ) 1 (shape x)
let shape_str a = Uop.shape_str (sints a)
let element_size x = Mixin_dtype.element_size x.uop
let is_floating_point x = Mixin_dtype.is_floating_point x.uop

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

let of_float_array ?dtype ?device shp (data : float array) =
  let dt = match dtype with Some d -> d | None -> Dtype.default_float () in
  from_host "of_float_array" ?device dt shp (Array.length data) (fun b -> Device.Buffer.copyin_floats b data)

let of_int_array ?dtype ?device shp (data : int array) =
  let dt = match dtype with Some d -> d | None -> Dtype.default_int () in
  if Dtype.is_float dt then
    from_host "of_int_array" ?device dt shp (Array.length data)
      (fun b -> Device.Buffer.copyin_floats b (Array.map float_of_int data))
  else from_host "of_int_array" ?device dt shp (Array.length data) (fun b -> Device.Buffer.copyin_ints b data)

(* G-ops-A: an Invalid_argument raised below the Tensor layer (e.g. "dot: ..." under matmul) gets the public op's
   name in front, so every API error names the op the user called *)
let named op f =
  let p = op ^ ":" in
  try f () with
  | Invalid_argument m when not (String.length m >= String.length p && String.sub m 0 (String.length p) = p) ->
    invalid_arg (op ^ ": " ^ m)

(* tinygrad: Tensor(3.0) — a device-less CONST, weak unless [dtype] *)
let scalar ?dtype v = named "scalar" @@ fun () -> wrap ~op:"scalar" (Uop.const ?dtype (Dtype.F v))

(* tinygrad: Tensor(3) *)
let scalar_int ?dtype v = named "scalar" @@ fun () -> wrap ~op:"scalar" (Uop.const ?dtype (Dtype.I (Z.of_int v)))

let check_shape op shp =
  if Array.exists (fun d -> d < 0) shp then invalid_arg (Printf.sprintf "%s: negative dimension in shape %s" op (shape_str shp))

let full ?dtype ?device shp v =
  check_shape "full" shp;
  let device = Option.map (fun d -> Mixin_creation.canonicalize_device ~op:"full" (Some d)) device in
  wrap ~op:"full" (Mixin_creation.full ?dtype ?device (sints shp) (Dtype.F v))
let zeros ?dtype ?device shp =
  check_shape "zeros" shp;
  let device = Option.map (fun d -> Mixin_creation.canonicalize_device ~op:"zeros" (Some d)) device in
  wrap ~op:"zeros" (Mixin_creation.zeros ?dtype ?device (sints shp))
let ones ?dtype ?device shp =
  check_shape "ones" shp;
  let device = Option.map (fun d -> Mixin_creation.canonicalize_device ~op:"ones" (Some d)) device in
  wrap ~op:"ones" (Mixin_creation.ones ?dtype ?device (sints shp))
let empty ?dtype ?device shp =
  check_shape "empty" shp;
  wrap ~op:"empty" (Mixin_creation.empty ?dtype ?device (sints shp))
let full_like ?dtype x v = named "full_like" @@ fun () -> wrap ~op:"full_like" (Mixin_creation.full_like ?dtype x.uop (Dtype.F v))
let zeros_like ?dtype x = named "zeros_like" @@ fun () -> wrap ~op:"zeros_like" (Mixin_creation.zeros_like ?dtype x.uop)
let ones_like ?dtype x = named "ones_like" @@ fun () -> wrap ~op:"ones_like" (Mixin_creation.ones_like ?dtype x.uop)
let empty_like ?dtype x = named "empty_like" @@ fun () -> wrap ~op:"empty_like" (Mixin_creation.empty_like ?dtype x.uop)

(* ---------- realize ---------- *)

(* tinygrad: Tensor.linear_with_vars *)
let linear_with_vars (xs : t list) =
  List.iter (fun x ->
      if Dtype.is_weak x.uop.dtype && Buffers.device x.uop <> None then
        invalid_arg "realize: cannot realize a weak dtype; cast to a concrete dtype first") xs;
  let big_sink = Uop.sink (List.map (fun x -> x.uop) xs) in
  let call, becomes_map = Callify.transform_to_call big_sink in
  apply_map_to_tensors becomes_map;
  Schedule.create_linear_with_vars call

(* tinygrad: Tensor.realize over several tensors *)
let realize_all (xs : t list) =
  let to_realize = List.filter (fun x -> not (Buffers.is_virtual x.uop) && not (Buffers.has_buffer_identity x.uop)) xs in
  if to_realize <> [] then begin
    let linear, var_vals = linear_with_vars to_realize in
    Realize.run_linear ~var_vals linear
  end

(* tinygrad: Tensor.realize *)
let realize x = realize_all [ x ]; x

(* ---------- dtype ---------- *)

let cast x dt = if x.uop.dtype == dt then x else wrap ~op:"cast" (Mixin_dtype.cast x.uop dt)
let bitcast x dt = named "bitcast" @@ fun () -> wrap ~op:"bitcast" (Mixin_dtype.bitcast x.uop dt)
let float x = cast x Dtype.Float32
let half x = cast x Dtype.Float16
let int x = cast x Dtype.Int32
let bool x = cast x Dtype.Bool

(* ---------- elementwise ---------- *)

let un op f x = named op (fun () -> wrap ~op (f x.uop))

(* API.md: [scalar 3.] adopts the dtype of the tensor it meets, so an integral float literal meeting an int
   tensor acts as Python's int literal [3] (tinygrad itself promotes [int_tensor + 3.0] to weakfloat). *)
let int_literal (x : Uop.t) (other : Uop.t) =
  if x.op == Ops.Const && x.dtype == Dtype.Weakfloat && Dtype.is_int other.dtype then
    match Uop.const_val x with
    | Dtype.F v when Float.is_integer v -> Uop.const (Dtype.I (Z.of_float v))
    | _ -> x
  else x

let bin op f x y = named op (fun () -> wrap ~op (f (int_literal x.uop y.uop) (int_literal y.uop x.uop)))

let add = bin "add" Mixin_elementwise.add
let sub = bin "sub" Mixin_elementwise.sub
let mul = bin "mul" Mixin_elementwise.mul
let div ?rounding_mode x y = bin "div" (fun a b -> Mixin_elementwise.div ?rounding_mode a b) x y
let idiv = bin "idiv" Mixin_elementwise.idiv
let ( mod ) = bin "mod" Mixin_elementwise.mod_
let fmod = bin "fmod" Mixin_elementwise.fmod
let pow = bin "pow" Mixin_elementwise.pow
let maximum = bin "maximum" Mixin_elementwise.maximum
let minimum = bin "minimum" Mixin_elementwise.minimum
let lt = bin "lt" Mixin_elementwise.lt
let gt = bin "gt" Mixin_elementwise.gt
let le = bin "le" Mixin_elementwise.le
let ge = bin "ge" Mixin_elementwise.ge
let eq = bin "eq" Mixin_elementwise.eq
let ne = bin "ne" Mixin_elementwise.ne
let bitwise_and = bin "bitwise_and" Mixin_elementwise.bitwise_and
let bitwise_or = bin "bitwise_or" Mixin_elementwise.bitwise_or
let bitwise_xor = bin "bitwise_xor" Mixin_elementwise.bitwise_xor
let lshift = bin "lshift" Mixin_elementwise.lshift
let rshift = bin "rshift" Mixin_elementwise.rshift
let logaddexp = bin "logaddexp" Mixin_elementwise.logaddexp
let copysign = bin "copysign" Mixin_elementwise.copysign

let neg = un "neg" Mixin_elementwise.neg
let reciprocal = un "reciprocal" Mixin_elementwise.reciprocal
let sqrt = un "sqrt" Mixin_elementwise.sqrt
let rsqrt = un "rsqrt" Mixin_elementwise.rsqrt
let exp = un "exp" Mixin_elementwise.exp
let exp2 = un "exp2" Mixin_elementwise.exp2
let log = un "log" Mixin_elementwise.log
let log2 = un "log2" Mixin_elementwise.log2
let log10 = un "log10" Mixin_elementwise.log10
let sin = un "sin" Mixin_elementwise.sin
let cos = un "cos" Mixin_elementwise.cos
let tan = un "tan" Mixin_elementwise.tan
let asin = un "asin" Mixin_elementwise.asin
let acos = un "acos" Mixin_elementwise.acos
let atan = un "atan" Mixin_elementwise.atan
let sinh = un "sinh" Mixin_elementwise.sinh
let cosh = un "cosh" Mixin_elementwise.cosh
let atanh = un "atanh" Mixin_elementwise.atanh
let asinh = un "asinh" Mixin_elementwise.asinh
let acosh = un "acosh" Mixin_elementwise.acosh
let erf = un "erf" Mixin_elementwise.erf
let abs = un "abs" Mixin_elementwise.abs
let sign = un "sign" Mixin_elementwise.sign
let square = un "square" Mixin_elementwise.square
let trunc = un "trunc" Mixin_elementwise.trunc
let floor = un "floor" Mixin_elementwise.floor
let ceil = un "ceil" Mixin_elementwise.ceil
let round = un "round" Mixin_elementwise.round
let relu = un "relu" Mixin_elementwise.relu
let relu6 = un "relu6" Mixin_elementwise.relu6
let sigmoid = un "sigmoid" Mixin_elementwise.sigmoid
let logsigmoid = un "logsigmoid" Mixin_elementwise.logsigmoid
let hardswish = un "hardswish" Mixin_elementwise.hardswish
let hardsigmoid x = un "hardsigmoid" (fun u -> Mixin_elementwise.hardsigmoid u) x
let tanh = un "tanh" Mixin_elementwise.tanh
let gelu ?approximate x = un "gelu" (fun u -> Mixin_elementwise.gelu ?approximate u) x
let quick_gelu = un "quick_gelu" Mixin_elementwise.quick_gelu
let silu = un "silu" Mixin_elementwise.silu
let swish = un "swish" Mixin_elementwise.swish
let mish = un "mish" Mixin_elementwise.mish
let softsign = un "softsign" Mixin_elementwise.softsign
let leaky_relu ?neg_slope x = un "leaky_relu" (Mixin_elementwise.leaky_relu ?neg_slope) x
let elu ?alpha x = un "elu" (Mixin_elementwise.elu ?alpha) x
let celu ?alpha x = un "celu" (Mixin_elementwise.celu ?alpha) x
let selu ?alpha ?gamma x = un "selu" (Mixin_elementwise.selu ?alpha ?gamma) x
let softplus ?beta x = un "softplus" (Mixin_elementwise.softplus ?beta) x
let hardtanh ?min_val ?max_val x = un "hardtanh" (Mixin_elementwise.hardtanh ?min_val ?max_val) x
let logical_not = un "logical_not" Mixin_elementwise.logical_not
let bitwise_not = un "bitwise_not" Mixin_elementwise.bitwise_not
let isnan = un "isnan" Mixin_elementwise.isnan
let isinf = un "isinf" (fun u -> Mixin_elementwise.isinf u)
let isfinite = un "isfinite" Mixin_elementwise.isfinite

let clip ?min ?max x =
  named "clip" @@ fun () -> wrap ~op:"clip" (Mixin_elementwise.clip ?min_:(Option.map (fun f -> Uop.const_float f) min) ?max_:(Option.map (fun f -> Uop.const_float f) max) x.uop)

let where c x y = named "where" @@ fun () -> wrap ~op:"where" (Mixin_elementwise.where c.uop (int_literal x.uop y.uop) (int_literal y.uop x.uop))
let masked_fill x mask value = named "masked_fill" @@ fun () -> wrap ~op:"masked_fill" (Mixin_elementwise.masked_fill x.uop mask.uop value.uop)
let lerp x end_ weight = named "lerp" @@ fun () -> wrap ~op:"lerp" (Mixin_elementwise.lerp x.uop end_.uop weight.uop)

let contiguous x = named "contiguous" @@ fun () -> wrap ~op:"contiguous" (Mixin_elementwise.contiguous x.uop)
let contiguous_backward x = named "contiguous_backward" @@ fun () -> wrap ~op:"contiguous_backward" (Mixin_elementwise.contiguous_backward x.uop)
let detach x = named "detach" @@ fun () -> wrap ~op:"detach" (Mixin_elementwise.detach x.uop)

(* ---------- reductions ---------- *)

let sum ?axis ?keepdim x = named "sum" @@ fun () -> wrap ~op:"sum" (Mixin_reduce.sum ?axis ?keepdim x.uop)
let prod ?axis ?keepdim x = named "prod" @@ fun () -> wrap ~op:"prod" (Mixin_reduce.prod ?axis ?keepdim x.uop)
let max ?axis ?keepdim x = named "max" @@ fun () -> wrap ~op:"max" (Mixin_reduce.max ?axis ?keepdim x.uop)
let min ?axis ?keepdim x = named "min" @@ fun () -> wrap ~op:"min" (Mixin_reduce.min ?axis ?keepdim x.uop)
let mean ?axis ?keepdim x = named "mean" @@ fun () -> wrap ~op:"mean" (Mixin_reduce.mean ?axis ?keepdim x.uop)
let var ?axis ?keepdim ?correction x = named "var" @@ fun () -> wrap ~op:"var" (Mixin_reduce.var ?axis ?keepdim ?correction x.uop)
let std ?axis ?keepdim ?correction x = named "std" @@ fun () -> wrap ~op:"std" (Mixin_reduce.std ?axis ?keepdim ?correction x.uop)
let any ?axis ?keepdim x = named "any" @@ fun () -> wrap ~op:"any" (Mixin_reduce.any ?axis ?keepdim x.uop)
let all ?axis ?keepdim x = named "all" @@ fun () -> wrap ~op:"all" (Mixin_reduce.all ?axis ?keepdim x.uop)

(* ---------- movement ---------- *)

let reshape x shp = named "reshape" @@ fun () -> wrap ~op:"reshape" (Mixin_movement.reshape x.uop (sints shp))
let view = reshape
let permute x order = named "permute" @@ fun () -> wrap ~op:"permute" (Mixin_movement.permute x.uop (Array.to_list order))
let expand x shp = named "expand" @@ fun () -> wrap ~op:"expand" (Mixin_movement.expand x.uop (sints shp))

(* tinygrad: OpMixin.pad (pairs per dim; negative pads crop); [mode] default [`Constant] *)
let pad ?mode ?(value = 0.0) x pads =
  if Array.length pads <> ndim x then
    invalid_arg (Printf.sprintf "pad: padding length is improper, %d pairs for shape %s" (Array.length pads) (shape_str (shape x)));
  wrap ~op:"pad" (Mixin_op_ext.pad ?mode ~value:(Dtype.F value) x.uop (List.map Option.some (Array.to_list pads)))

let shrink x arg =
  named "shrink" @@ fun () -> wrap ~op:"shrink" (Mixin_movement.shrink x.uop (List.map (fun (a, b) -> Some (Sint a, Sint b)) (Array.to_list arg)))
let flip x axis = named "flip" @@ fun () -> wrap ~op:"flip" (Mixin_movement.flip x.uop axis)
let transpose ?(dim0 = -2) ?(dim1 = -1) x = named "transpose" @@ fun () -> wrap ~op:"transpose" (Mixin_movement.transpose ~dim0 ~dim1 x.uop)
let flatten ?start_dim ?end_dim x = named "flatten" @@ fun () -> wrap ~op:"flatten" (Mixin_movement.flatten ?start_dim ?end_dim x.uop)
let unflatten x dim sizes = named "unflatten" @@ fun () -> wrap ~op:"unflatten" (Mixin_movement.unflatten x.uop dim (sints sizes))
let squeeze ?axis x = named "squeeze" @@ fun () -> wrap ~op:"squeeze" (Mixin_movement.squeeze ?dim:axis x.uop)
let unsqueeze x dim = named "unsqueeze" @@ fun () -> wrap ~op:"unsqueeze" (Mixin_movement.unsqueeze x.uop dim)
let repeat x repeats = named "repeat" @@ fun () -> wrap ~op:"repeat" (Mixin_movement.repeat x.uop (sints repeats))
let repeat_interleave ?dim x repeats = named "repeat_interleave" @@ fun () -> wrap ~op:"repeat_interleave" (Mixin_movement.repeat_interleave ?dim x.uop repeats)
let roll ?dims x shifts = named "roll" @@ fun () -> wrap ~op:"roll" (Mixin_movement.roll ?dims x.uop shifts)
let split ?dim x sizes = List.map (wrap ~op:"split") (Mixin_movement.split ?dim x.uop sizes)
let chunk ?dim x n = List.map (wrap ~op:"chunk") (Mixin_movement.chunk ?dim x.uop n)
let cat ?(axis = 0) xs = named "cat" @@ fun () -> wrap ~op:"cat" (Mixin_reduce.cat ~dim:axis (List.map (fun x -> x.uop) xs))
let stack ?(axis = 0) xs = named "stack" @@ fun () -> wrap ~op:"stack" (Mixin_movement.stack ~dim:axis (List.map (fun x -> x.uop) xs))
let diag x = named "diag" @@ fun () -> wrap ~op:"diag" (Mixin_movement.diag x.uop)

(* ---------- data out ---------- *)

(* tinygrad: UOp.clone *)
let clone ?device x =
  let device = match device with Some d -> Some d | None -> Buffers.device x.uop in
  let ret = Mixin_creation.empty_like ?device x.uop in
  wrap ~op:"clone" (Uop.after ret [ Uop.store ret (Uop.cast ret.dtype x.uop) ])

(* tinygrad: Tensor.assign (single device, no DISK) *)
let assign x v =
  if Dtype.is_weak x.uop.dtype then invalid_arg "assign: cannot assign into a weak tensor; it has no storage";
  if x.uop == v.uop then x
  else begin
    let vu = (try Mixin_movement.broadcast_to v.uop (Uop.shape x.uop)
              with Invalid_argument m -> invalid_arg ("assign: " ^ m)) in
    let vu = if Dtype.is_weak vu.dtype then Uop.cast (Dtype.least_upper_dtype [ x.uop.dtype; vu.dtype ]) vu else vu in
    if vu.dtype != x.uop.dtype then
      invalid_arg (Printf.sprintf "assign: dtype mismatch %s != %s" (Dtype.to_string x.uop.dtype) (Dtype.to_string vu.dtype));
    (match Buffers.device vu, Buffers.device x.uop with
     | Some a, Some b when a <> b -> invalid_arg (Printf.sprintf "assign: device mismatch %s != %s" b a)
     | _ -> ());
    let assign = Uop.after x.uop [ Uop.store x.uop vu ] in
    let rec find_ib (ib : Uop.t) =
      if (not (Buffers.has_buffer_identity ib)) && (Ops.Group.is_movement ib.op || ib.op == Ops.Bitcast || ib.op == Ops.Detach)
      then find_ib ib.src.(0) else ib in
    let ib = find_ib x.uop in
    if ib != x.uop && Buffers.has_buffer_identity ~after_ok:true ib then
      (* view assign: replace at the buffer-identity level *)
      apply_map_to_tensors [ (ib, Uop.after ib [ assign ]) ]
    else x.uop <- assign;
    x
  end

(* tinygrad: UOp.buffer — with views of a buffer (movement ops that stay a contiguous range) as Buffer views *)
let uop_buffer op (u : Uop.t) : Device.Buffer.t = Callify.buffer ~op u

(* tinygrad: Tensor._buffer — contiguous, realized, on a device *)
let buffer_of op x =
  if !Realize.capturing <> [] && Helpers.unsafe_allow_jit_buffer.value = 0 then
    raise (Realize.Jit_error (op ^ ": cannot access tensor data during JIT capture, the value will be baked in"));
  let x = if Dtype.is_weak x.uop.dtype then cast x (Dtype.strong_dtype x.uop.dtype) else x in
  let c = contiguous x in
  let c = if Buffers.device c.uop = None then clone ~device:(Device.default ()) c else c in
  ignore (realize c);
  Device.Buffer.ensure_allocated (uop_buffer op c.uop)

let to_float_array x =
  let n = numel x in
  if n = 0 then [||]
  else
    let b = buffer_of "to_float_array" x in
    let v = Device.Buffer.to_floats b in
    if Array.length v = n then v else Array.sub v 0 n

let to_int_array x =
  if Dtype.is_float x.uop.dtype then
    invalid_arg ("to_int_array: " ^ Dtype.to_string x.uop.dtype ^ " is not an int or bool dtype; use to_float_array");
  let n = numel x in
  if n = 0 then [||]
  else
    let b = buffer_of "to_int_array" x in
    let v = Device.Buffer.to_ints b in
    if Array.length v = n then v else Array.sub v 0 n

(* tinygrad: OpMixin.item *)
let item x =
  if numel x <> 1 then invalid_arg (Printf.sprintf "item: must have one element for item, shape %s" (shape_str (shape x)));
  (to_float_array x).(0)

let to_string x =
  let sh = shape x in
  let dt = x.uop.dtype in
  let vals =
    if Dtype.is_float dt then Array.map (fun f -> Dtype.float_repr f) (to_float_array x)
    else if dt == Dtype.Bool then Array.map (fun i -> if i <> 0 then "True" else "False") (to_int_array x)
    else Array.map string_of_int (to_int_array x) in
  (* nested brackets in C order *)
  let buf = Buffer.create 64 in
  let rec go dim off =
    if dim = Array.length sh then Buffer.add_string buf vals.(off)
    else begin
      let stride = Array.fold_left ( * ) 1 (Array.sub sh (dim + 1) (Array.length sh - dim - 1)) in
      Buffer.add_char buf '[';
      for i = 0 to sh.(dim) - 1 do
        if i > 0 then Buffer.add_string buf ", ";
        go (dim + 1) (off + i * stride)
      done;
      Buffer.add_char buf ']'
    end in
  if Array.length vals > 0 || Array.length sh > 0 then go 0 0;
  Printf.sprintf "<Tensor shape=%s dtype=%s device=%s %s>" (shape_str sh) (Dtype.to_string dt) (device x) (Buffer.contents buf)


(* tinygrad: UOp.copy_to_device *)
let copy_to_device (u : Uop.t) device =
  if Dtype.is_weak u.dtype then invalid_arg ("to_device: cannot create storage for weak dtype " ^ Dtype.to_string u.dtype);
  let padded = Mixin_movement.pad_to u (List.map (fun i -> Some (Sint i)) (Uop.max_shape u)) in
  Mixin_movement.shrink_to (Uop.create Ops.Copy ~src:[| padded |] ~arg:(Str device)) (List.map Option.some (Uop.shape u))

(* tinygrad: Tensor.to *)
let to_device x device =
  match Buffers.device x.uop with
  | None -> x
  | Some d ->
    let device = Mixin_creation.canonicalize_device ~op:"to_device" (Some device) in
    if device = d then x
    else begin
      let ret = wrap ~op:"to_device" (copy_to_device x.uop device) in
      ret.is_param <- x.is_param;
      ret
    end

(* ==================== T-ops block: wrappers of src/mixin/mixin_op.ml (tinygrad mixin/op.py) ==================== *)

let arange ?(start = 0) ?(step = 1) ?dtype ?device stop =
  (* tinygrad's arange is a device-less CONST graph; [device] is accepted for the API and not used *)
  ignore (device : string option);
  wrap ~op:"arange" (Mixin_op.arange ~start ~step ?dtype stop)
let arange_float ?(start = 0.) ?(step = 1.) ?dtype stop =
  named "arange" @@ fun () -> wrap ~op:"arange" (Mixin_op.arange_gen ?dtype ~start:(Dtype.F start) ~stop:(Dtype.F stop) ~step:(Dtype.F step) ())
let linspace ?dtype start stop steps = named "linspace" @@ fun () -> wrap ~op:"linspace" (Mixin_op.linspace ?dtype start stop steps)
let eye ?m ?dtype n = named "eye" @@ fun () -> wrap ~op:"eye" (Mixin_op.eye ?m ?dtype n)
let triu ?diagonal x = named "triu" @@ fun () -> wrap ~op:"triu" (Mixin_op.triu ?diagonal x.uop)
let tril ?diagonal x = named "tril" @@ fun () -> wrap ~op:"tril" (Mixin_op.tril ?diagonal x.uop)

let getitem x (idx : index list) =
  let conv = function
    | I i -> Mixin_op.I i | S (a, b, c) -> Mixin_op.S (a, b, c) | T t -> Mixin_op.T t.uop
    | New -> Mixin_op.New | Ellipsis -> Mixin_op.Ellipsis in
  wrap ~op:"getitem" (Mixin_op.getitem x.uop (List.map conv idx))
let gather x ~axis index = named "gather" @@ fun () -> wrap ~op:"gather" (Mixin_op.gather x.uop ~dim:axis index.uop)
let one_hot x n = named "one_hot" @@ fun () -> wrap ~op:"one_hot" (Mixin_op.one_hot x.uop n)

let dot x w = named "dot" @@ fun () -> wrap ~op:"dot" (Mixin_op.dot x.uop w.uop)
let matmul x w = named "matmul" @@ fun () -> wrap ~op:"matmul" (Mixin_op.matmul x.uop w.uop)
let linear ?bias x weight = named "linear" @@ fun () -> wrap ~op:"linear" (Mixin_op.linear ?bias:(Option.map uop bias) x.uop weight.uop)

let logsumexp ?axis ?keepdim x = named "logsumexp" @@ fun () -> wrap ~op:"logsumexp" (Mixin_op.logsumexp ?axis ?keepdim x.uop)
let softmax ?axis x = named "softmax" @@ fun () -> wrap ~op:"softmax" (Mixin_op.softmax ?axis x.uop)
let log_softmax ?axis x = named "log_softmax" @@ fun () -> wrap ~op:"log_softmax" (Mixin_op.log_softmax ?axis x.uop)
let argmax ?axis ?keepdim x = named "argmax" @@ fun () -> wrap ~op:"argmax" (Mixin_op.argmax ?axis ?keepdim x.uop)
let argmin ?axis ?keepdim x = named "argmin" @@ fun () -> wrap ~op:"argmin" (Mixin_op.argmin ?axis ?keepdim x.uop)
let cumsum ?axis x = named "cumsum" @@ fun () -> wrap ~op:"cumsum" (Mixin_op.cumsum ?axis x.uop)
let cumprod ~axis x = named "cumprod" @@ fun () -> wrap ~op:"cumprod" (Mixin_op.cumprod ~axis x.uop)
let layernorm ?axis ?eps x = named "layernorm" @@ fun () -> wrap ~op:"layernorm" (Mixin_op.layernorm ?axis ?eps x.uop)
let batchnorm x ~weight ~bias ~mean ~invstd =
  named "batchnorm" @@ fun () -> wrap ~op:"batchnorm" (Mixin_op.batchnorm x.uop ~weight:(Option.map uop weight) ~bias:(Option.map uop bias)
                          ~mean:mean.uop ~invstd:invstd.uop)

let one_opt = Option.map (fun i -> [ i ])
let conv2d ?bias ?stride ?padding ?dilation ?groups x w =
  named "conv2d" @@ fun () -> wrap ~op:"conv2d" (Mixin_op.conv2d ?bias:(Option.map uop bias) ?groups ?stride:(one_opt stride) ?dilation:(one_opt dilation)
                       ?padding:(one_opt padding) x.uop w.uop)
let max_pool2d ?(kernel_size = 2) ?stride ?padding x =
  named "max_pool2d" @@ fun () -> wrap ~op:"max_pool2d" (Mixin_op.max_pool2d ~kernel_size:[ kernel_size; kernel_size ] ?stride:(one_opt stride)
                           ?padding:(one_opt padding) x.uop)
let avg_pool2d ?(kernel_size = 2) ?stride ?padding x =
  named "avg_pool2d" @@ fun () -> wrap ~op:"avg_pool2d" (Mixin_op.avg_pool2d ~kernel_size:[ kernel_size; kernel_size ] ?stride:(one_opt stride)
                           ?padding:(one_opt padding) x.uop)

let cross_entropy ?reduction ?label_smoothing x y =
  named "cross_entropy" @@ fun () -> wrap ~op:"cross_entropy" (Mixin_op.cross_entropy ?reduction ?label_smoothing x.uop y.uop)
let sparse_categorical_crossentropy ?ignore_index ?label_smoothing ?reduction x y =
  wrap ~op:"sparse_categorical_crossentropy"
    (Mixin_op.sparse_categorical_crossentropy ?ignore_index ?label_smoothing ?reduction x.uop y.uop)
let binary_crossentropy ?reduction x y = named "binary_crossentropy" @@ fun () -> wrap ~op:"binary_crossentropy" (Mixin_op.binary_crossentropy ?reduction x.uop y.uop)
let binary_crossentropy_logits ?reduction ?pos_weight x y =
  wrap ~op:"binary_crossentropy_logits"
    (Mixin_op.binary_crossentropy_logits ?reduction ?pos_weight:(Option.map uop pos_weight) x.uop y.uop)

(* API.md's [O.( @ )] is [matmul]: it belongs in [module O] above, which must then follow this block (T-frontend's). *)
(* ==================== end of T-ops block ==================== *)

(* ==================== G-autograd block: tinygrad tensor.py backward, mixin/op.py gradient ==================== *)

(* tinygrad: OpMixin.gradient — d(self)/d(target) for each target *)
let gradient_with ?gradient self (targets : t list) =
  List.map (wrap ~op:"gradient")
    (Gradient.gradient ?gradient:(Option.map uop gradient) self.uop (List.map uop targets))

let gradient self targets = gradient_with self targets

(* tinygrad: Tensor.grad *)
let grad x = x.grad

(* tinygrad: Tensor.backward — backward fills .grad for every in-scope float tensor with a device *)
let backward ?gradient self =
  let all_uops = Uop.Tbl.create 256 in
  List.iter (fun u -> Uop.Tbl.replace all_uops u ()) (Uop.toposort self.uop);
  let tensors_need_grad =
    List.filter (fun t -> Uop.Tbl.mem all_uops t.uop && is_floating_point t && Buffers.device t.uop <> None) (all_tensors ()) in
  List.iter2 (fun t g ->
      if not (Uop.equal_sints (Uop.shape g.uop) (Uop.shape t.uop)) then
        invalid_arg (Printf.sprintf "backward: grad shape must match tensor shape, %s != %s"
                       (Uop.shape_str (Uop.shape g.uop)) (Uop.shape_str (Uop.shape t.uop)));
      let g = if Buffers.device g.uop = None then clone ~device:(device t) g else g in
      match t.grad with
      | None -> t.grad <- Some g
      | Some tg -> ignore (assign tg (add tg (to_device g (device tg)))))
    tensors_need_grad (gradient_with ?gradient self tensors_need_grad)

(* ==================== end of G-autograd block ==================== *)

(* ==================== G-ops-C block: more wrappers of src/mixin/mixin_op.ml (tinygrad mixin/op.py) ==================== *)

type reduction = Mixin_op.reduction
let reduction_of_string = Mixin_op.reduction_of_string

let conv_nd ?bias ?groups ?stride ?dilation ?padding x w =
  named "conv2d" @@ fun () -> wrap ~op:"conv2d" (Mixin_op.conv2d ?bias:(Option.map uop bias) ?groups ?stride ?dilation ?padding x.uop w.uop)
let max_pool_nd ?kernel_size ?stride ?dilation ?padding ?ceil_mode x =
  named "max_pool2d" @@ fun () -> wrap ~op:"max_pool2d" (Mixin_op.max_pool2d ?kernel_size ?stride ?dilation ?padding ?ceil_mode x.uop)
let max_pool_nd_with_indices ?kernel_size ?stride ?dilation ?padding ?ceil_mode x =
  named "max_pool2d" @@ fun () ->
  let v, i = Mixin_op.max_pool2d_with_indices ?kernel_size ?stride ?dilation ?padding ?ceil_mode x.uop in
  (wrap ~op:"max_pool2d" v, wrap ~op:"max_pool2d" i)
let avg_pool_nd ?kernel_size ?stride ?dilation ?padding ?ceil_mode ?count_include_pad x =
  named "avg_pool2d" @@ fun () -> wrap ~op:"avg_pool2d" (Mixin_op.avg_pool2d ?kernel_size ?stride ?dilation ?padding ?ceil_mode ?count_include_pad x.uop)
let conv_transpose2d ?bias ?groups ?stride ?dilation ?padding ?output_padding x w =
  named "conv_transpose2d" @@ fun () -> wrap ~op:"conv_transpose2d"
    (Mixin_op.conv_transpose2d ?bias:(Option.map uop bias) ?groups ?stride ?dilation ?padding ?output_padding x.uop w.uop)
let max_unpool2d ?kernel_size ?stride ?dilation ?padding ?output_size x indices =
  named "max_unpool2d" @@ fun () -> wrap ~op:"max_unpool2d" (Mixin_op.max_unpool2d ?kernel_size ?stride ?dilation ?padding ?output_size x.uop indices.uop)
let einsum ?dtype formula xs = named "einsum" @@ fun () -> wrap ~op:"einsum" (Mixin_op.einsum ?dtype formula (List.map uop xs))
let interpolate ?mode ?align_corners x size = named "interpolate" @@ fun () -> wrap ~op:"interpolate" (Mixin_op.interpolate ?mode ?align_corners x.uop size)
let diagonal ?offset ?dim1 ?dim2 x = named "diagonal" @@ fun () -> wrap ~op:"diagonal" (Mixin_op.diagonal ?offset ?dim1 ?dim2 x.uop)
let nll_loss ?weight ?ignore_index ?reduction x y =
  named "nll_loss" @@ fun () -> wrap ~op:"nll_loss" (Mixin_op.nll_loss ?weight:(Option.map uop weight) ?ignore_index ?reduction x.uop y.uop)

(* ==================== end of G-ops-C block ==================== *)

(* ==================== G-ops-A block: more wrappers of src/mixin/mixin_elementwise.ml (tinygrad mixin/elementwise.py) ==================== *)

let isclose ?rtol ?atol ?equal_nan x other =
  bin "isclose" (Mixin_elementwise.isclose ?rtol ?atol ?equal_nan) x other

(* ==================== end of G-ops-A block ==================== *)

(* ==================== G-ops-B block: wrappers of src/mixin/mixin_op_ext.ml, mixin_movement.ml ==================== *)

let cummax ?axis x = let v, i = Mixin_op_ext.cummax ?axis x.uop in (wrap ~op:"cummax" v, wrap ~op:"cummax" i)
let cummin ?axis x = let v, i = Mixin_op_ext.cummin ?axis x.uop in (wrap ~op:"cummin" v, wrap ~op:"cummin" i)
let logcumsumexp ?axis x = named "logcumsumexp" @@ fun () -> wrap ~op:"logcumsumexp" (Mixin_op_ext.logcumsumexp ?axis x.uop)
let sort ?dim ?descending x = let v, i = Mixin_op_ext.sort ?dim ?descending x.uop in (wrap ~op:"sort" v, wrap ~op:"sort" i)
let argsort ?dim ?descending x = named "argsort" @@ fun () -> wrap ~op:"argsort" (Mixin_op_ext.argsort ?dim ?descending x.uop)
let topk ?dim ?largest ?sorted_ x k =
  let v, i = Mixin_op_ext.topk ?dim ?largest ?sorted_ x.uop k in (wrap ~op:"topk" v, wrap ~op:"topk" i)
type scatter_reduction = Mixin_op_ext.scatter_reduction
let scatter_reduction_of_string = Mixin_op_ext.scatter_reduction_of_string
let scatter_reduce ?include_self x ~dim index src reduce =
  named "scatter_reduce" @@ fun () -> wrap ~op:"scatter_reduce" (Mixin_op_ext.scatter_reduce ?include_self x.uop ~dim index.uop src.uop reduce)
let scatter_mode_of_string = Mixin_op_ext.scatter_mode_of_string
let scatter ?reduce x ~dim index src =
  let src = match src with `Tensor t -> `Tensor t.uop | `Scalar f -> `Scalar (Dtype.F f) in
  wrap ~op:"scatter" (Mixin_op_ext.scatter ?reduce x.uop ~dim index.uop src)
let normalize ?p ?dim ?eps x = named "normalize" @@ fun () -> wrap ~op:"normalize" (Mixin_op_ext.normalize ?p ?dim ?eps x.uop)
let softmin ?axis x = named "softmin" @@ fun () -> wrap ~op:"softmin" (Mixin_op_ext.softmin ?axis x.uop)
let var_mean ?axis ?keepdim ?correction x =
  let v, m = Mixin_op_ext.var_mean ?axis ?keepdim ?correction x.uop in (wrap ~op:"var_mean" v, wrap ~op:"var_mean" m)
let std_mean ?axis ?keepdim ?correction x =
  let v, m = Mixin_op_ext.std_mean ?axis ?keepdim ?correction x.uop in (wrap ~op:"std_mean" v, wrap ~op:"std_mean" m)
let unfold x dim size step = named "unfold" @@ fun () -> wrap ~op:"unfold" (Mixin_movement.unfold x.uop dim size step)
let meshgrid ?indexing xs = List.map (wrap ~op:"meshgrid") (Mixin_movement.meshgrid ?indexing (List.map uop xs))

let pad_mode_of_string = Mixin_op_ext.pad_mode_of_string
(* tinygrad's .item() of the count, for the data-dependent output length *)
let count_of_uop u = int_of_float (item (wrap ~op:"count" u))
let masked_select ?size ?fill_value x mask =
  named "masked_select" @@ fun () -> wrap ~op:"masked_select" (Mixin_op_ext.masked_select ?size ?fill_value:(Option.map (fun f -> Dtype.F f) fill_value)
                              ~count:count_of_uop x.uop mask.uop)
let nonzero ?size ?fill_value x =
  named "nonzero" @@ fun () -> wrap ~op:"nonzero" (Mixin_op_ext.nonzero ?size ?fill_value:(Option.map (fun i -> Dtype.I (Z.of_int i)) fill_value)
                        ~count:count_of_uop x.uop)

(* ==================== end of G-ops-B block ==================== *)

(* ==================== G-rand block: tinygrad tensor.py RNG state (manual_seed, _next_counter), mixin/rand.py ==================== *)

(* tinygrad: the PYTHON device that Tensor(list) fills before copying to the target device; here a host device
   sharing the CPU runtime's allocator (it runs no kernels) *)
let python_device = lazy (Device.register "PYTHON" (fun ix -> { (Device.get "CPU") with Device.device = ix }))

(* tinygrad: Tensor(list, device=..., dtype=...) for the library's own small tensors — the data in a PYTHON buffer
   (_frompy) and a lazy COPY to the device, so the copy runs in the schedule that uses it *)
let from_py_ints ~device dt (data : int array) =
  Lazy.force python_device;
  let n = Array.length data in
  let b = Device.Buffer.create "PYTHON" n dt in
  if n > 0 then Device.Buffer.copyin_ints b data;
  let u = Mixin_movement.reshape (Buffers.from_buffer b) [ Sint n ] in
  wrap ~op:"tensor" (copy_to_device u device)

(* tinygrad: Tensor(list of floats, device=..., dtype=...) — as [from_py_ints] (nn/optim.py's lr tensor) *)
let from_py_floats ~device dt (data : float array) =
  Lazy.force python_device;
  let n = Array.length data in
  let b = Device.Buffer.create "PYTHON" n dt in
  if n > 0 then Device.Buffer.copyin_floats b data;
  let u = Mixin_movement.reshape (Buffers.from_buffer b) [ Sint n ] in
  wrap ~op:"tensor" (copy_to_device u device)

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
  let new_low = E.add (slice counter.uop 0 1) (E.ci lo) in
  let new_high = E.add (E.add (slice counter.uop 1 2) (E.ci hi)) (E.lt new_low (idx counter.uop 0)) in
  ignore (assign counter (wrap ~op:"rand" (Mixin_reduce.cat [ new_low; new_high ])));
  let low = E.sub (slice counter.uop 0 1) (E.ci lo) in
  let high = E.sub (E.sub (slice counter.uop 1 2) (E.ci hi)) (E.lt (idx counter.uop 0) (E.ci lo)) in
  ((List.assoc device !device_seeds).uop, (wrap ~op:"rand" (Mixin_reduce.cat [ low; high ])).uop)

let () = Mixin_rand.next_counter_hook := next_counter

let rl = Array.to_list
let rand ?dtype ?device ?contiguous shp = named "rand" @@ fun () -> wrap ~op:"rand" (Mixin_rand.rand ?device ?dtype ?contiguous (rl shp))
let rand_like ?dtype ?contiguous x = named "rand_like" @@ fun () -> wrap ~op:"rand_like" (Mixin_rand.rand_like ?dtype ?contiguous x.uop)
let randn ?dtype ?device shp = named "randn" @@ fun () -> wrap ~op:"randn" (Mixin_rand.randn ?device ?dtype (rl shp))
let randn_like ?dtype x = named "randn_like" @@ fun () -> wrap ~op:"randn_like" (Mixin_rand.randn_like ?dtype x.uop)
let randint ?dtype ?device ?low ~high shp = named "randint" @@ fun () -> wrap ~op:"randint" (Mixin_rand.randint ?device ?low ~high ?dtype (rl shp))
let uniform ?dtype ?device ?low ?high shp = named "uniform" @@ fun () -> wrap ~op:"uniform" (Mixin_rand.uniform ?device ?dtype ?low ?high (rl shp))
let normal ?dtype ?device ?mean ?std shp = named "normal" @@ fun () -> wrap ~op:"normal" (Mixin_rand.normal ?device ?dtype ?mean ?std (rl shp))
let scaled_uniform ?dtype ?device shp = named "scaled_uniform" @@ fun () -> wrap ~op:"scaled_uniform" (Mixin_rand.scaled_uniform ?device ?dtype (rl shp))
let glorot_uniform ?dtype ?device shp = named "glorot_uniform" @@ fun () -> wrap ~op:"glorot_uniform" (Mixin_rand.glorot_uniform ?device ?dtype (rl shp))
let kaiming_uniform ?dtype ?device ?a shp = named "kaiming_uniform" @@ fun () -> wrap ~op:"kaiming_uniform" (Mixin_rand.kaiming_uniform ?device ?dtype ?a (rl shp))
let kaiming_normal ?dtype ?device ?a shp = named "kaiming_normal" @@ fun () -> wrap ~op:"kaiming_normal" (Mixin_rand.kaiming_normal ?device ?dtype ?a (rl shp))
let multinomial ?num_samples ?replacement x =
  named "multinomial" @@ fun () -> wrap ~op:"multinomial" (Mixin_rand.multinomial ?num_samples ?replacement x.uop)

let dropout ?p x = let u = Mixin_rand.dropout ?p x.uop in if u == x.uop then x else wrap ~op:"dropout" u
let scaled_dot_product_attention ?mask ?dropout_p ?is_causal ?enable_gqa q k v =
  wrap ~op:"scaled_dot_product_attention"
    (Mixin_rand.scaled_dot_product_attention ?attn_mask:(Option.map uop mask) ?dropout_p ?is_causal ?enable_gqa
       q.uop k.uop v.uop)

(* ==================== end of G-rand block ==================== *)

(* infix operators (after the T-ops block: [@] is its matmul) *)
module O = struct
  let ( + ) = add
  let ( - ) = sub
  let ( * ) = mul
  let ( / ) x y = div x y
  let ( ~- ) = neg
  let ( @ ) = matmul
end
