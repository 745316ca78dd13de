(* tinygrad: codegen/decomp/transcendental.py (SLEEF-style decompositions of EXP2, LOG2, SIN) *)

open Uop

let transcendental_dtypes = [ Dtype.Float16; Dtype.Float32; Dtype.Float64 ]

let fc u v = const_like u (Dtype.F v)  (* d.const_like(float) *)
let ic u v = const_like u (Dtype.I (Z.of_int v))  (* d.const_like(int) *)
let fl v = const_float v  (* a python float literal (weak) *)
let il v = const_int v  (* a python int literal (weak) *)
let zl z = const (Dtype.I z)  (* a big python int literal *)

(* tinygrad: _lazy_map_numbers: inf -> inf, -inf -> _inf, nan -> nan, otherwise -> ratio *)
let lazy_map_numbers x inf _inf nan ratio =
  where (ne x (fl infinity)) (where (ne x x) nan (where (ne x (fl neg_infinity)) ratio _inf)) inf

(* *** helper functions for bit manipulation *** *)
let mantissa_bits d = snd (Dtype.finfo d)
let exponent_bias d =
  (1 lsl (fst (Dtype.finfo d) - 1)) - (if d == Dtype.Fp8e4m3fnuz || d == Dtype.Fp8e5m2fnuz then 0 else 1)
let exponent_mask d = (1 lsl fst (Dtype.finfo d)) - 1

(* **** utils **** *)
let pow2z y = Z.shift_left Z.one y
(* tinygrad: shr(x, y) = x // 2**y and shl(x, y) = x * 2**y with an int y *)
let shr x y = idiv x (zl (pow2z y))
let shl x y = mul x (zl (pow2z y))

(* tinygrad: helpers.polyN: reduce(acc*x+c, p, 0.0) with a python float start *)
let poly_n x p = List.fold_left (fun acc c -> add (match acc with None -> binop ~reverse:true Ops.Mul x (fl 0.0) | Some a -> mul a x) (fl c) |> Option.some) None p
                 |> Option.get

let int_of_float_dt d = match d with
  | Dtype.Float64 -> Dtype.Int64 | Dtype.Float32 -> Dtype.Int32 | Dtype.Float16 -> Dtype.Int16
  | _ -> invalid_arg ("transcendental: unsupported dtype " ^ Dtype.to_string d)
let uint_of_float_dt d = match d with
  | Dtype.Float64 -> Dtype.Uint64 | Dtype.Float32 -> Dtype.Uint32 | Dtype.Float16 -> Dtype.Uint16
  | _ -> invalid_arg ("transcendental: unsupported dtype " ^ Dtype.to_string d)
let check_dt (d : Uop.t) =
  if not (List.memq d.dtype transcendental_dtypes) then invalid_arg ("transcendental: unsupported dtype " ^ Dtype.to_string d.dtype)

(* tinygrad: rintk: round d:float to int away from 0 *)
let rintk d =
  let out_dtype = int_of_float_dt d.dtype in
  cast out_dtype (add d (where (lt d (fl 0.0)) (fc d (-0.5)) (fc d 0.5)))

(* tinygrad: pow2if: cast(2^q, float_dtype) where q is any integer in [-126, 127] *)
let pow2if q float_dtype =
  let out_dtype = match q.dtype with
    | Dtype.Int64 -> Dtype.Float64 | Dtype.Int32 -> Dtype.Float32 | Dtype.Int16 -> float_dtype
    | d -> invalid_arg ("pow2if: unsupported dtype " ^ Dtype.to_string d) in
  bitcast out_dtype (shl (add q (il (exponent_bias out_dtype))) (mantissa_bits out_dtype))

(* tinygrad: ilogb2k: integer part of log2(d), d normalized in [0, +inf) *)
let ilogb2k d =
  check_dt d;
  let dint = bitcast (int_of_float_dt d.dtype) d in
  (* -1 <= ilog2bk(d) <= 128 *)
  sub (and_ (shr dint (mantissa_bits d.dtype)) (il (exponent_mask d.dtype))) (il (exponent_bias d.dtype))

(* tinygrad: ldexp3k: d*2^e, e a float holding an integer in [-127, 127] *)
let ldexp3k d e =
  check_dt d; check_dt e;
  let dtype = int_of_float_dt d.dtype in
  let m1 = bitcast dtype d in
  let m2 = shl (cast dtype e) (mantissa_bits d.dtype) in
  bitcast d.dtype (add m1 m2)

(* tinygrad: ldexp2k: d*2^e, faster than ldexp3k but d > 0 and not denormal *)
let ldexp2k d e =
  check_dt d;
  mul (mul d (pow2if (shr e 1) d.dtype)) (pow2if (sub e (shr e 1)) d.dtype)

(* tinygrad: frexp: (mantissa, exponent) assuming v != 0 *)
let frexp v =
  check_dt v;
  (* m1 = masks for mantissa, m2 = masks to normalize the mantissa *)
  let m1, m2 = match v.dtype with
    | Dtype.Float64 -> (Z.of_string "0x000FFFFFFFFFFFFF", Z.of_string "0x3FE0000000000000")
    | Dtype.Float32 -> (Z.of_string "0x807FFFFF", Z.of_string "0x3F000000")
    | _ -> (Z.of_string "0x83FF", Z.of_string "0x3800") in
  let bits = bitcast (uint_of_float_dt v.dtype) v in
  let exponent = and_ (shr bits (mantissa_bits v.dtype)) (il (exponent_mask v.dtype)) in
  (* set the exponent bits to normalize the mantissa into [0.5, 1.0) *)
  let mantissa = bitcast v.dtype (or_ (and_ bits (zl m1)) (zl m2)) in
  let exp = add (sub exponent (il (exponent_bias v.dtype))) (il 1) in
  (mantissa, exp)

(* *** reduction algorithms for sine *** *)

(* tinygrad: payne_hanek_reduction: (r, q) with r = x mod pi/2 rounded, q the quadrant, for 39800 <= d <= inf *)
let payne_hanek_reduction d =
  check_dt d;
  (* 190 bits of 2/pi for Payne-Hanek style argument reduction *)
  let two_over_pi_f = [| 0x00000000; 0x28be60db; 0x9391054a; 0x7f09d5f4; 0x7d4d3770; 0x36d8a566; 0x4f10e410 |] in
  let intermediate_dtype = if d.dtype == Dtype.Float16 then Dtype.Float32 else d.dtype in
  let f, e = frexp d in
  let ia = cast Dtype.Uint64 (mul (cast intermediate_dtype f) (fl 4.294967296e9)) in
  (* extract 96 relevant bits of 2/pi based on magnitude of argument *)
  let i = shr (cast Dtype.Uint64 e) 5 in
  let e = and_ (cast Dtype.Int32 e) (il 31) in
  let offset = sub (il 32) e in
  let rec take an offset count =
    (* an = two_over_pi_f[i+offset] *)
    if count + offset < Array.length two_over_pi_f - 1 then
      where (ne i (il count)) (take an offset (count + 1)) (ic an two_over_pi_f.(count + offset))
    else an in
  let shl_lazy x y = cast Dtype.Uint32 (mul (cast Dtype.Uint64 x) (cast Dtype.Uint64 (pow2if y d.dtype))) in
  let shr_lazy x y = cast Dtype.Uint32 (idiv (cast Dtype.Uint64 x) (cast Dtype.Uint64 (pow2if y d.dtype))) in
  let a = Array.init 4 (fun k -> take (const_int ~dtype:Dtype.Uint32 0) k 0) in
  (* (two_over_pi_f[Int(i) + n] << e) | (two_over_pi_f[Int(i) + n+1] >> (nbits - e)); e != 0 for d >= 1.0 *)
  let hi = or_ (shl_lazy a.(0) e) (shr_lazy a.(1) offset) in
  let mi = or_ (shl_lazy a.(1) e) (shr_lazy a.(2) offset) in
  let lo = or_ (shl_lazy a.(2) e) (shr_lazy a.(3) offset) in
  let hp_mul x y = mul (cast Dtype.Uint64 x) (cast Dtype.Uint64 y) in
  (* compute x * 2/pi *)
  let p = add (add (shl (hp_mul ia hi) 32) (hp_mul ia mi)) (shr (hp_mul ia lo) 32) in
  (* round quotient to nearest *)
  let q = cast Dtype.Int32 (shr p 62) in
  let p = and_ p (zl (Z.of_string "0x3fffffffffffffff")) in
  let r = cast d.dtype (mul (cast intermediate_dtype p) (fl 3.4061215800865545e-19)) in
  (* if fraction >= 0.5, r -= pi/2, q += 1 *)
  (where (lt f (fl 0.5)) r (sub r (fl (Float.pi /. 2.0))), where (lt f (fl 0.5)) q (add q (il 1)))

(* tinygrad: cody_waite_reduction: the same (r, q) for 0 <= abs(d) <= 39800 *)
let cody_waite_reduction d =
  let m_1_pi = 0.318309886183790671537767526745028724 in
  let qdh = mul (cast d.dtype (cast Dtype.Int64 (mul d (fl (m_1_pi /. (2.0 ** 24.0)))))) (fl (2.0 ** 24.0)) in
  let rec reduce_d x q =
    if x.dtype == Dtype.Float64 then begin
      (* sleef misc.h PI_A..PI_D *)
      let pi_a = 3.1415926218032836914 and pi_b = 3.1786509424591713469e-08 and pi_c = 1.2246467864107188502e-16
      and pi_d = 1.2736634327021899816e-24 in
      let d = add (mul qdh (fl (-.pi_a))) x in
      let d = add (mul q (fl (-.pi_a))) d in
      let d = add (mul qdh (fl (-.pi_b))) d in
      let d = add (mul q (fl (-.pi_b))) d in
      let d = add (mul qdh (fl (-.pi_c))) d in
      let d = add (mul q (fl (-.pi_c))) d in
      add (mul (add qdh q) (fl (-.pi_d))) d
    end else if x.dtype == Dtype.Float16 then
      (* [FIXME] when reducing `d`, FP16 needs FP32 precision to achieve 1.0 ULP precision *)
      cast Dtype.Float16 (reduce_d (cast Dtype.Float32 x) (cast Dtype.Float32 q))
    else begin
      (* sleefsp.c *)
      let d = add (mul q (fl (-3.1414794921875))) x in
      let d = add (mul q (fl (-0.00011315941810607910156))) d in
      let d = add (mul q (fl (-1.9841872589410058936e-09))) d in
      add (mul q (fl (-1.2154201256553420762e-10))) d
    end in
  let quadrant = if d.dtype == Dtype.Float64 then rintk (sub (mul d (fl m_1_pi)) qdh) else rintk (mul d (fl m_1_pi)) in
  (reduce_d d (cast d.dtype quadrant), cast Dtype.Int32 quadrant)

(* *** approximate sine on small angle *** *)
let trig_poly d coeff32 coeff64 = mul d (poly_n (mul d d) (if d.dtype == Dtype.Float64 then coeff64 else coeff32))

(* approximate sine on [-pi/2, pi/2] *)
let sin_poly d =
  trig_poly d
    [ 2.6083159809786593541503e-06; -0.0001981069071916863322258; 0.00833307858556509017944336; -0.166666597127914428710938; 1.0 ]
    [ -7.97255955009037868891952e-18; 2.81009972710863200091251e-15; -7.64712219118158833288484e-13; 1.60590430605664501629054e-10;
      -2.50521083763502045810755e-08; 2.75573192239198747630416e-06; -0.000198412698412696162806809; 0.00833333333333332974823815;
      -0.166666666666666657414808; 1.0 ]

let ifand q n = ne (and_ q (il n)) (il 0)

let sin_poly_small d q =
  let r = sin_poly d in
  mul r (where (ifand q 1) (ic r (-1)) (ic r 1))

let sin_poly_large d q =
  let r = sin_poly (add d (where (ifand q 1) (fc d (Float.pi /. 2.0)) (ic d 0))) in
  mul r (where (ifand q 2) (ic r (-1)) (ic r 1))

(* *** toplevel functions for xsin/xlog2/xexp2 *** *)

(* tinygrad: xsin: a 1.0 ULP approximation for SIN; fast assumes |x| <= switch_over *)
let xsin ?(fast = false) ?(switch_over = 30.0) d =
  check_dt d;
  (* mask +-inf/nan as zero *)
  let x = lazy_map_numbers d (fc d 0.0) (fc d 0.0) (fc d 0.0) d in
  (* x_sign = sign(x) *)
  let x_sign = where (ne x (il 0)) (where (lt x (il 0)) (ic x (-1)) (ic x 1)) (ic x 0) in
  let x_abs = mul x x_sign in
  let r, q = (if fast then cody_waite_reduction else payne_hanek_reduction) x_abs in
  let result =
    if fast then sin_poly_small r q
    else
      (* Payne Hanek Reduction assumes abs(x) >= pi/4, so for smaller values, use cody_waite_reduction *)
      let r_small, q_small = cody_waite_reduction x_abs in
      where (lt x_abs (fl switch_over)) (sin_poly_small r_small q_small) (sin_poly_large r q) in
  (* adjusts the sign for abs(x) *)
  let result = mul result x_sign in
  (* sin(Inf) = NaN, sin(-Inf) = NaN, sin(NaN) = NaN *)
  lazy_map_numbers d (fc d nan) (fc d nan) (fc d nan) result

(* tinygrad: xexp2: a 1.0 ULP approximation for EXP2 (https://arxiv.org/pdf/2001.09258) *)
let xexp2 d =
  check_dt d;
  (* mask +=inf/nan as zero *)
  let x = lazy_map_numbers d (fc d 0.0) (fc d 0.0) (fc d 0.0) d in
  let q = rintk x in
  (* s = d - round(d) *)
  let s = sub x q in
  (* a polynomial approximation with 13 non-zero terms in the range of [-(log 2)/2, (log 2)/2] *)
  let u =
    if d.dtype == Dtype.Float64 then
      poly_n s [ 0.4434359082926529454e-9; 0.7073164598085707425e-8; 0.1017819260921760451e-6; 0.1321543872511327615e-5;
                 0.1525273353517584730e-4; 0.1540353045101147808e-3; 0.1333355814670499073e-2; 0.9618129107597600536e-2;
                 0.5550410866482046596e-1; 0.2402265069591012214e+0; 0.6931471805599452862e+0; 0.1000000000000000000e+1 ]
    else poly_n s [ 0.1535920892e-3; 0.1339262701e-2; 0.9618384764e-2; 0.5550347269e-1; 0.2402264476e+0; 0.6931471825e+0; 1.0 ] in
  let u = ldexp2k u q in  (* u*2^q *)
  let upper, lower = match d.dtype with Dtype.Float64 -> (1024, -2000) | Dtype.Float32 -> (128, -150) | _ -> (23, -22) in
  (* replace x >= upper with +inf *)
  let u = where (ge d (il upper)) (fc d infinity) u in
  (* replace x < lower with zero *)
  let u = where (lt d (il lower)) (fc d 0.0) u in
  (* exp2(NaN) = NaN *)
  where (ne d d) (fc d nan) u

(* not in tinygrad: xexp2 for float32 with fewer selects, for the CPU mode (Codegen_cpu.decomp_exp2). The
   input is clamped to [-150, 128] (NaN and -inf to -150) instead of masking +-inf and NaN to 0; then the
   scaling by 2^q already gives +inf at 128 and 0 at -150 (2^-150 rounds to 0), so only the NaN select
   remains of the three after the polynomial: 4 compares and selects per value instead of 12 (softmax's exp
   kernels spend most of their work in exp2). Same polynomial and scaling as xexp2, so the finite results are
   xexp2's. *)
let xexp2_clamped d =
  check_dt d;
  let x = where (ge d (fl (-150.0))) (where (lt d (fl 128.0)) d (fc d 128.0)) (fc d (-150.0)) in
  let q = rintk x in
  let s = sub x q in
  let u = poly_n s [ 0.1535920892e-3; 0.1339262701e-2; 0.9618384764e-2; 0.5550347269e-1; 0.2402264476e+0; 0.6931471825e+0; 1.0 ] in
  where (ne d d) (fc d nan) (ldexp2k u q)

(* tinygrad: xlog2: a 1.0 ULP approximation for LOG2 (https://arxiv.org/pdf/2001.09258 5.5) *)
let xlog2 d =
  check_dt d;
  (* float16 uses 2^10 for denormal scaling (2^64 overflows), float32/64 use 2^64 *)
  let denormal_exp = if d.dtype == Dtype.Float16 then 10 else 64 in
  let flt_min = fc d (if d.dtype == Dtype.Float16 then 6.1e-5 else 1e-4) in
  let is_denormal = lt d flt_min in
  let a = where is_denormal (mul d (fl (2.0 ** float_of_int denormal_exp))) d in
  let e = cast a.dtype (ilogb2k (mul a (fl (1.0 /. 0.75)))) in
  let m = ldexp3k a (neg e) in
  let e = where is_denormal (sub e (il denormal_exp)) e in
  let x = div (sub m (fl 1.0)) (add m (fl 1.0)) in
  let x2 = mul x x in
  let r =
    if d.dtype == Dtype.Float64 then
      let t = poly_n x2 [ 0.2211941750456081490e+0; 0.2200768693152277689e+0; 0.2623708057488514656e+0; 0.3205977477944495502e+0;
                          0.4121985945485324709e+0; 0.5770780162997058982e+0; 0.96179669392608091449 ] in
      add (add (mul t (mul x x2)) e) (mul x (fl 2.885390081777926774))
    else
      let t = poly_n x2 [ 0.4374550283e+0; 0.5764790177e+0; 0.9618012905120 ] in
      (* s_lo term (x*3.27e-08) only for float32 - underflows in float16 *)
      add (add (add (mul t (mul x x2)) e) (mul x (fl 2.8853900432586669922)))
        (if d.dtype == Dtype.Float32 then mul x (fl 3.2734474483568488616e-08) else il 0) in
  (* log2(Inf) = Inf *)
  let r = where (ne d (fl infinity)) r (fc r infinity) in
  (* log2(0) = -Inf (handle both +0.0 and -0.0) *)
  let r = where (ne d (fl 0.0)) r (fc r neg_infinity) in
  (* log2(x) = NaN for x < 0 *)
  let r = where (lt d (fl (-0.0))) (fc r nan) r in
  (* log2(NaN) = NaN *)
  let r = where (ne d d) (fc r nan) r in
  (* log2(-0.0) = -Inf. In certain devices like PTX, x == -0.0 won't be true. so making reciprocal. *)
  where (ne (reciprocal d) (fl neg_infinity)) r (fc r neg_infinity)

(* tinygrad: xpow. It lives in uop/symbolic.ml (symbolic's POW rule needs it and must not depend on codegen). *)
let xpow = Symbolic.xpow

(* tinygrad: get_transcendental_patterns (functools.cache'd on its arguments) *)
let cache : (Ops.t list * bool, Renderer.t Upat.matcher) Hashtbl.t = Hashtbl.create 4

let get_transcendental_patterns (ops : Ops.t list) (force_transcendental : bool) : Renderer.t Upat.matcher =
  match Hashtbl.find_opt cache (ops, force_transcendental) with
  | Some m -> m
  | None ->
    let other_floats = List.filter (fun d -> not (List.memq d transcendental_dtypes)) Dtype.floats in
    let pats = List.concat_map (fun (op, f) ->
        if not (List.memq op ops) || force_transcendental then
          [ Upat.rule (Upat.pat op ~dtype:transcendental_dtypes ~src:(Upat.In_order [ Upat.var "d" ]))
              (fun c -> Some (f (Upat.get c "d")));
            Upat.rule (Upat.pat op ~dtype:other_floats ~src:(Upat.In_order [ Upat.var "d" ]) ~name:"x") (fun c ->
                let x = Upat.get c "x" in
                Some (cast x.dtype (alu x.op [ cast Dtype.Float32 (Upat.get c "d") ]))) ]
        else []) [ (Ops.Exp2, xexp2); (Ops.Log2, xlog2); (Ops.Sin, fun d -> xsin d) ] in
    (* rewrite SQRT to xpow 0.5 *)
    let pats =
      if not (List.memq Ops.Sqrt ops) || force_transcendental then
        pats @ [ Upat.rule (Upat.pat Ops.Sqrt ~src:(Upat.Repeat (Upat.var "d"))) (fun c ->
            let d = Upat.get c "d" in Some (xpow d (fc d 0.5))) ]
      else pats in
    let m = Upat.matcher pats in
    Hashtbl.replace cache (ops, force_transcendental) m;
    m
