(* tinygrad: mixin/elementwise.py (ElementwiseMixin) as functions over UOps.
   The binary ops with weak-dtype promotion (_broadcasted/_binop) live in Uop and are re-exported here;
   shapes broadcast implicitly in the UOp graph, as tinygrad's do. Python constants are weak CONSTs
   ([Uop.const_float 2.0]). *)

open Uop

let cf f = Uop.const_float f
let ci i = Uop.const_int i

(* tinygrad: ElementwiseMixin._broadcasted / _binop *)
let broadcasted = Uop.broadcasted
let binop = Uop.binop

(* tinygrad: ElementwiseMixin.usum / uprod *)
let usum = Uop.usum
let uprod = Uop.uprod

(* tinygrad: ElementwiseMixin.detach *)
let detach x = Uop.create Ops.Detach ~src:[| x |]

(* tinygrad: ElementwiseMixin.logical_not *)
let logical_not = Uop.logical_not

(* tinygrad: ElementwiseMixin.contiguous *)
let contiguous (x : Uop.t) =
  if Dtype.is_weak x.dtype then x
  else if x.op == Ops.Contiguous || Buffers.mdevice x = None || Buffers.has_buffer_identity x then x
  else Uop.create Ops.Contiguous ~src:[| x |]

(* tinygrad: ElementwiseMixin.contiguous_backward *)
let contiguous_backward x = Uop.create Ops.Contiguous_backward ~src:[| x |]

let neg = Uop.neg
let add = Uop.add
let sub = Uop.sub
let mul = Uop.mul
let bitwise_not = Uop.bitwise_not
(* tinygrad rejects AND/OR/XOR/SHL/SHR on floats when verifying the UOp graph (a RuntimeError at realize); here the
   op refuses them up front, naming itself *)
let check_int_operands op x y =
  let a, b = broadcasted x y in
  let ok (u : Uop.t) = Dtype.is_int u.dtype || Dtype.is_bool u.dtype in
  if not (ok a && ok b) then
    invalid_arg (Printf.sprintf "%s: operands must be int or bool, got %s and %s" op (Dtype.to_string x.dtype)
                   (Dtype.to_string y.dtype))

let bitwise_and x y = check_int_operands "bitwise_and" x y; Uop.and_ x y
let bitwise_or x y = check_int_operands "bitwise_or" x y; Uop.or_ x y
let bitwise_xor x y = check_int_operands "bitwise_xor" x y; Uop.xor x y
let reciprocal = Uop.reciprocal
let trunc = Uop.trunc
let sqrt = Uop.sqrt
let sin = Uop.sin
let log2 = Uop.log2
let exp2 = Uop.exp2
let lt = Uop.lt
let gt = Uop.gt
let ge = Uop.ge
let le = Uop.le
let ne = Uop.ne
let eq = Uop.eq
let lshift x y = check_int_operands "lshift" x y; Uop.shl x y
let rshift x y = check_int_operands "rshift" x y; Uop.shr x y
let maximum = Uop.maximum
let minimum = Uop.minimum

(* tinygrad: ElementwiseMixin.where *)
let where = Uop.where

(* tinygrad: ElementwiseMixin.floor *)
let floor x = let b = trunc x in where (lt x b) (sub b (ci 1)) b

(* tinygrad: ElementwiseMixin.ceil *)
let ceil x = let b = trunc x in where (gt x b) (add b (ci 1)) b

(* tinygrad: ElementwiseMixin.div; [rounding_mode] is `Trunc or `Floor *)
let div ?rounding_mode x y =
  let a, b = broadcasted x y in
  let is_int (u : Uop.t) = Dtype.is_int u.dtype in
  match rounding_mode with
  | Some `Trunc when is_int a && is_int b -> Uop.alu Ops.Cdiv [ a; b ]
  | Some `Floor when is_int a && is_int b -> Uop.alu Ops.Floordiv [ a; b ]
  | _ ->
    let a = if is_int a || a.dtype == Dtype.Bool then Uop.cast (Dtype.default_float ()) a else a in
    let d = Uop.alu Ops.Mul [ a; reciprocal b ] in
    (match rounding_mode with None -> d | Some `Trunc -> trunc d | Some `Floor -> floor d)

(* tinygrad: ElementwiseMixin.__floordiv__ *)
let idiv x y = div ~rounding_mode:`Floor x y

(* tinygrad: ElementwiseMixin.mod *)
let mod_ x y =
  let a, b = broadcasted x y in
  if Dtype.is_int a.dtype && Dtype.is_int b.dtype then Uop.alu Ops.Floormod [ a; b ]
  else sub a (mul (div ~rounding_mode:`Floor a b) b)

(* tinygrad: ElementwiseMixin.fmod *)
let fmod x y =
  let a, b = broadcasted x y in
  if Dtype.is_int a.dtype && Dtype.is_int b.dtype then Uop.alu Ops.Cmod [ a; b ]
  else sub a (mul (div ~rounding_mode:`Trunc a b) b)

(* tinygrad: ElementwiseMixin._inverse *)
let inverse (x : Uop.t) = if Dtype.is_float x.dtype then neg x else bitwise_not x

(* tinygrad: ElementwiseMixin.cos *)
let cos (x : Uop.t) =
  let x = Uop.cast (Dtype.least_upper_float x.dtype) x in
  Uop.cast x.dtype (sin (sub (cf (Float.pi /. 2.)) (Uop.cast (Dtype.least_upper_dtype [ x.dtype; Dtype.Float32 ]) x)))

(* tinygrad: ElementwiseMixin.exp *)
let exp (x : Uop.t) =
  let x = Uop.cast (Dtype.least_upper_float x.dtype) x in
  Uop.cast x.dtype (exp2 (mul (Uop.cast (Dtype.least_upper_dtype [ x.dtype; Dtype.Float32 ]) x) (cf (1. /. Stdlib.log 2.))))

(* tinygrad: ElementwiseMixin.pow — a Python-number operand (a weak CONST) must be a non-negative int unless the
   result is a float ("base needs to be float"; int pow with a negative or float constant is refused) *)
let pow x y =
  let a, b = broadcasted x y in
  let py_const (u : Uop.t) = u.op == Ops.Const && Dtype.is_weak u.dtype in
  let nonneg_int (u : Uop.t) = match Uop.const_val u with Dtype.I z -> Z.sign z >= 0 | _ -> false in
  if not (Dtype.is_float (Dtype.least_upper_dtype [ a.dtype; b.dtype ]))
  && List.exists (fun u -> py_const u && not (nonneg_int u)) [ x; y ] then
    invalid_arg "pow: base needs to be float (an int tensor to a negative or float constant power)";
  Uop.pow x y

(* tinygrad: ElementwiseMixin.square *)
let square x = mul x x

(* tinygrad: ElementwiseMixin.clamp *)
let clamp ?min_ ?max_ x =
  if min_ = None && max_ = None then invalid_arg "clip: at least one of 'min_' or 'max_' must not be None";
  let ret = match min_ with Some m -> where (lt x m) m x | None -> x in
  match max_ with Some m -> where (gt ret m) m ret | None -> ret

(* tinygrad: ElementwiseMixin.clip, with Python-number bounds *)
let clip ?min ?max x = clamp ?min_:(Option.map cf min) ?max_:(Option.map cf max) x

(* tinygrad: ElementwiseMixin.isnan *)
let isnan x = ne x x

(* tinygrad: ElementwiseMixin.isinf *)
let isinf ?(detect_positive = true) ?(detect_negative = true) x =
  add (mul (eq x (cf Float.infinity)) (Uop.const_bool detect_positive))
    (mul (eq x (cf Float.neg_infinity)) (Uop.const_bool detect_negative))

(* tinygrad: ElementwiseMixin.isfinite *)
let isfinite x = logical_not (bitwise_or (isinf x) (isnan x))

(* tinygrad: ElementwiseMixin.relu *)
let relu x = where (gt x (ci 0)) x (ci 0)

(* tinygrad: ElementwiseMixin.sigmoid *)
let sigmoid x = reciprocal (add (ci 1) (exp2 (mul x (cf (-1. /. Stdlib.log 2.)))))

(* tinygrad: ElementwiseMixin.relu6 *)
let relu6 x = sub (relu x) (relu (sub x (ci 6)))

(* tinygrad: ElementwiseMixin.hardswish *)
let hardswish x = mul (mul x (relu6 (add x (ci 3)))) (cf (1. /. 6.))

(* tinygrad: ElementwiseMixin.hardsigmoid *)
let hardsigmoid ?(alpha = 1. /. 6.) ?(beta = 0.5) x =
  sub (relu (add (mul (cf alpha) x) (cf beta))) (relu (sub (add (mul (cf alpha) x) (cf beta)) (ci 1)))

(* tinygrad: ElementwiseMixin.hardtanh *)
let hardtanh ?(min_val = -1.) ?(max_val = 1.) x = clip ~min:min_val ~max:max_val x

(* tinygrad: ElementwiseMixin.leaky_relu *)
let leaky_relu ?(neg_slope = 0.01) x = where (lt x (ci 0)) (mul (cf neg_slope) x) x

(* tinygrad: ElementwiseMixin.tanh *)
let tanh x = sub (mul (cf 2.0) (sigmoid (mul (cf 2.0) x))) (cf 1.0)

(* tinygrad: ElementwiseMixin.quick_gelu *)
let quick_gelu x = mul x (sigmoid (mul x (cf 1.702)))

(* tinygrad: ElementwiseMixin.rsqrt *)
let rsqrt x = reciprocal (sqrt x)

(* tinygrad: ElementwiseMixin.log *)
let log x = mul (log2 x) (cf (Stdlib.log 2.))

(* tinygrad: ElementwiseMixin.log10 *)
let log10 x = mul (log2 x) (cf (Stdlib.log10 2.))

(* tinygrad: ElementwiseMixin.sign *)
let sign x =
  where (ne x (ci 0)) (where (lt x (ci 0)) (Uop.const_like_int x (-1)) (Uop.const_like_int x 1)) (Uop.const_like_int x 0)

(* tinygrad: ElementwiseMixin.abs *)
let abs x = mul x (sign x)

(* helpers.polyN *)
let poly_n x p = List.fold_left (fun acc c -> add (mul acc x) (cf c)) (cf 0.0) p

(* tinygrad: ElementwiseMixin.erf *)
let erf x =
  let t = div (cf 1.0) (add (cf 1.0) (mul (cf 0.3275911) (abs x))) in
  mul (sign x) (sub (cf 1.0) (mul (mul t (poly_n t [ 1.061405429; -1.453152027; 1.421413741; -0.284496736; 0.254829592 ]))
                                (exp (neg (square x)))))

(* tinygrad: ElementwiseMixin.gelu; [approximate] is `Tanh (tinygrad's "tanh", the default) or `None *)
let gelu ?(approximate = `Tanh) x =
  match approximate with
  | `Tanh ->
    mul (mul (cf 0.5) x)
      (add (ci 1) (tanh (mul (cf (Stdlib.sqrt (2. /. Float.pi))) (add x (mul (cf 0.044715) (pow x (ci 3)))))))
  | `None -> mul (mul x (cf 0.5)) (add (cf 1.0) (erf (div x (cf (Stdlib.sqrt 2.)))))

(* tinygrad: ElementwiseMixin.swish *)
let swish x = mul x (sigmoid x)

(* tinygrad: ElementwiseMixin.silu *)
let silu = swish

(* tinygrad: ElementwiseMixin.logaddexp *)
let logaddexp x other =
  let a, b = broadcasted x other in
  let m = maximum a b in
  add (log (add (exp (sub a m)) (exp (sub b m)))) m

(* tinygrad: ElementwiseMixin.copysign *)
let copysign x other =
  let a, b = broadcasted x other in
  let mag = abs a in
  where (bitwise_or (lt b (ci 0)) (lt (reciprocal b) (ci 0))) (neg mag) mag

(* tinygrad: ElementwiseMixin.round (half to even) *)
let round x =
  let b = div (trunc x) (cf 2.0) in
  where (eq (gt x (ci 0)) (eq (trunc b) b)) (ceil (sub x (cf 0.5))) (floor (add x (cf 0.5)))

(* tinygrad: ElementwiseMixin.tan *)
let tan x = div (sin x) (cos x)

(* tinygrad: ElementwiseMixin.asin *)
let asin x =
  let coefficients = [ -0.0012624911; 0.0066700901; -0.0170881256; 0.0308918810; -0.0501743046; 0.0889789874;
                       -0.2145988016; 1.5707963050 ] in
  let r = sub (cf (Float.pi /. 2.)) (mul (sqrt (sub (cf 1.0) (abs x))) (poly_n (abs x) coefficients)) in
  mul (sign x) r

(* tinygrad: ElementwiseMixin.acos *)
let acos x = sub (cf (Float.pi /. 2.)) (asin x)

(* tinygrad: ElementwiseMixin.atan *)
let atan x = asin (div x (sqrt (add (ci 1) (mul x x))))

(* tinygrad: ElementwiseMixin.atanh *)
let atanh x = div (log (div (add (ci 1) x) (sub (ci 1) x))) (ci 2)

(* tinygrad: ElementwiseMixin.asinh *)
let asinh x = log (add x (sqrt (add (square x) (ci 1))))

(* tinygrad: ElementwiseMixin.acosh *)
let acosh x = log (add x (sqrt (sub (square x) (ci 1))))

(* tinygrad: ElementwiseMixin.elu *)
let elu ?(alpha = 1.0) x = sub (relu x) (mul (cf alpha) (relu (sub (ci 1) (exp x))))

(* tinygrad: ElementwiseMixin.celu *)
let celu ?(alpha = 1.0) x = add (maximum x (ci 0)) (minimum (mul (cf alpha) (sub (exp (div x (cf alpha))) (ci 1))) (ci 0))

(* tinygrad: ElementwiseMixin.selu *)
let selu ?(alpha = 1.67326) ?(gamma = 1.0507) x =
  mul (cf gamma) (where (ge x (ci 0)) x (mul (cf alpha) (sub (exp x) (ci 1))))

(* tinygrad: ElementwiseMixin.softplus *)
let softplus ?(beta = 1.0) x = mul (cf (1. /. beta)) (logaddexp (mul x (cf beta)) (cf 0.0))

(* tinygrad: ElementwiseMixin.mish *)
let mish x = mul x (tanh (softplus x))

(* tinygrad: ElementwiseMixin.logsigmoid *)
let logsigmoid x = neg (softplus (neg x))

(* tinygrad: ElementwiseMixin.sinh *)
let sinh x = div (sub (exp x) (exp (neg x))) (ci 2)

(* tinygrad: ElementwiseMixin.cosh *)
let cosh x = div (add (exp x) (exp (neg x))) (ci 2)

(* tinygrad: ElementwiseMixin.softsign *)
let softsign x = div x (add (ci 1) (abs x))

(* tinygrad: ElementwiseMixin.lerp (the uint8 fixed-point path is not ported) *)
let lerp x end_ weight =
  (* uint8 with a tensor weight: fixed point with 7 bits of weight precision, as tinygrad *)
  if x.dtype == Dtype.Uint8 && (Uop.base weight).op != Ops.Const then begin
    let w_prec = 7 in
    let w_i = Uop.cast Dtype.Int16 (add (mul weight (Uop.const_int (1 lsl w_prec))) (Uop.const_float 0.5)) in
    let d = add (mul (Uop.cast Dtype.Int8 (sub end_ x)) w_i) (Uop.const_int (1 lsl (w_prec - 1))) in
    Uop.cast Dtype.Uint8 (add x (rshift (Uop.cast Dtype.Uint16 d) (Uop.const_int w_prec)))
  end
  else add x (mul (sub end_ x) weight)

(* tinygrad: ElementwiseMixin.masked_fill *)
let masked_fill x mask value = where mask value x

(* tinygrad: ElementwiseMixin.threefry *)
let threefry x seed = Uop.alu Ops.Threefry [ x; seed ]

(* tinygrad: ElementwiseMixin.isclose *)
let isclose ?(rtol = 1e-05) ?(atol = 1e-08) ?(equal_nan = false) x other =
  let is_finite_close =
    bitwise_and (bitwise_and (isfinite x) (isfinite other))
      (le (abs (sub x other)) (add (cf atol) (mul (cf rtol) (abs other)))) in
  let is_infinite_close = bitwise_and (bitwise_or (isinf x) (isinf other)) (eq x other) in
  let is_nan_close = bitwise_and (bitwise_and (isnan x) (isnan other)) (Uop.const_bool equal_nan) in
  bitwise_or (bitwise_or is_finite_close is_infinite_close) is_nan_close

(* each right-hand side is the UOp function of the same name above *)
module Make (C : Mixin_intf.CARRIER) = struct
  include Mixin_dtype.Lift (C)
  let detach x = lift1 "detach" detach x
  let logical_not x = lift1 "logical_not" logical_not x
  let contiguous x = lift1 "contiguous" contiguous x
  let contiguous_backward x = lift1 "contiguous_backward" contiguous_backward x
  let neg x = lift1 "neg" neg x
  let add x y = lift2 "add" add x y
  let sub x y = lift2 "sub" sub x y
  let mul x y = lift2 "mul" mul x y
  let bitwise_not x = lift1 "bitwise_not" bitwise_not x
  let bitwise_and x y = lift2 "bitwise_and" bitwise_and x y
  let bitwise_or x y = lift2 "bitwise_or" bitwise_or x y
  let bitwise_xor x y = lift2 "bitwise_xor" bitwise_xor x y
  let reciprocal x = lift1 "reciprocal" reciprocal x
  let trunc x = lift1 "trunc" trunc x
  let sqrt x = lift1 "sqrt" sqrt x
  let sin x = lift1 "sin" sin x
  let log2 x = lift1 "log2" log2 x
  let exp2 x = lift1 "exp2" exp2 x
  let lt x y = lift2 "lt" lt x y
  let gt x y = lift2 "gt" gt x y
  let ge x y = lift2 "ge" ge x y
  let le x y = lift2 "le" le x y
  let ne x y = lift2 "ne" ne x y
  let eq x y = lift2 "eq" eq x y
  let lshift x y = lift2 "lshift" lshift x y
  let rshift x y = lift2 "rshift" rshift x y
  let maximum x y = lift2 "maximum" maximum x y
  let clip ?min ?max x = lift1 "clip" (clip ?min ?max) x
  let minimum x y = lift2 "minimum" minimum x y
  let where x y z = lift3 "where" where x y z
  let floor x = lift1 "floor" floor x
  let ceil x = lift1 "ceil" ceil x
  let div ?rounding_mode x y = lift2 "div" (div ?rounding_mode) x y
  let idiv x y = lift2 "idiv" idiv x y
  let mod_ x y = lift2 "mod" mod_ x y
  let fmod x y = lift2 "fmod" fmod x y
  let cos x = lift1 "cos" cos x
  let exp x = lift1 "exp" exp x
  let pow x y = lift2 "pow" pow x y
  let square x = lift1 "square" square x
  let isnan x = lift1 "isnan" isnan x
  let isinf ?detect_positive ?detect_negative x = lift1 "isinf" (isinf ?detect_positive ?detect_negative) x
  let isfinite x = lift1 "isfinite" isfinite x
  let isclose ?rtol ?atol ?equal_nan x y = lift2 "isclose" (isclose ?rtol ?atol ?equal_nan) x y
  let relu x = lift1 "relu" relu x
  let sigmoid x = lift1 "sigmoid" sigmoid x
  let relu6 x = lift1 "relu6" relu6 x
  let hardswish x = lift1 "hardswish" hardswish x
  let hardsigmoid ?alpha ?beta x = lift1 "hardsigmoid" (hardsigmoid ?alpha ?beta) x
  let hardtanh ?min_val ?max_val x = lift1 "hardtanh" (hardtanh ?min_val ?max_val) x
  let leaky_relu ?neg_slope x = lift1 "leaky_relu" (leaky_relu ?neg_slope) x
  let tanh x = lift1 "tanh" tanh x
  let quick_gelu x = lift1 "quick_gelu" quick_gelu x
  let rsqrt x = lift1 "rsqrt" rsqrt x
  let log x = lift1 "log" log x
  let log10 x = lift1 "log10" log10 x
  let sign x = lift1 "sign" sign x
  let abs x = lift1 "abs" abs x
  let erf x = lift1 "erf" erf x
  let gelu ?approximate x = lift1 "gelu" (gelu ?approximate) x
  let swish x = lift1 "swish" swish x
  let silu x = lift1 "silu" silu x
  let logaddexp x y = lift2 "logaddexp" logaddexp x y
  let copysign x y = lift2 "copysign" copysign x y
  let round x = lift1 "round" round x
  let tan x = lift1 "tan" tan x
  let asin x = lift1 "asin" asin x
  let acos x = lift1 "acos" acos x
  let atan x = lift1 "atan" atan x
  let atanh x = lift1 "atanh" atanh x
  let asinh x = lift1 "asinh" asinh x
  let acosh x = lift1 "acosh" acosh x
  let elu ?alpha x = lift1 "elu" (elu ?alpha) x
  let celu ?alpha x = lift1 "celu" (celu ?alpha) x
  let selu ?alpha ?gamma x = lift1 "selu" (selu ?alpha ?gamma) x
  let softplus ?beta x = lift1 "softplus" (softplus ?beta) x
  let mish x = lift1 "mish" mish x
  let logsigmoid x = lift1 "logsigmoid" logsigmoid x
  let sinh x = lift1 "sinh" sinh x
  let cosh x = lift1 "cosh" cosh x
  let softsign x = lift1 "softsign" softsign x
  let lerp x y z = lift3 "lerp" lerp x y z
  let masked_fill x y z = lift3 "masked_fill" masked_fill x y z
end
