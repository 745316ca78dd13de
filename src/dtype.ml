(* tinygrad: dtype.py *)

type t =
  | Void
  | Weakint
  | Bool
  | Int8
  | Uint8
  | Int16
  | Uint16
  | Int32
  | Uint32
  | Int64
  | Uint64
  | Uint128
  | Uint256
  | Weakfloat
  | Fp8e4m3
  | Fp8e5m2
  | Fp8e4m3fnuz
  | Fp8e5m2fnuz
  | Float16
  | Bfloat16
  | Float32
  | Float64

type addrspace = Global | Local | Reg | Alu
type const = I of Z.t | F of float | B of bool | Invalid

(* (priority, bitsize, name, fmt) exactly as DType.new in dtype.py *)
let info = function
  | Void -> (-1, 0, "void", None)
  | Weakint -> (0, 800, "weakint", None)
  | Bool -> (0, 1, "bool", Some '?')
  | Int8 -> (1, 8, "signed char", Some 'b')
  | Uint8 -> (2, 8, "unsigned char", Some 'B')
  | Int16 -> (3, 16, "short", Some 'h')
  | Uint16 -> (4, 16, "unsigned short", Some 'H')
  | Int32 -> (5, 32, "int", Some 'i')
  | Uint32 -> (6, 32, "unsigned int", Some 'I')
  | Int64 -> (7, 64, "long", Some 'q')
  | Uint64 -> (8, 64, "unsigned long", Some 'Q')
  | Uint128 -> (8, 128, "uint128", None)
  | Uint256 -> (8, 256, "uint256", None)
  | Weakfloat -> (9, 800, "weakfloat", None)
  | Fp8e4m3 -> (10, 8, "float8_e4m3", None)
  | Fp8e5m2 -> (11, 8, "float8_e5m2", None)
  | Fp8e4m3fnuz -> (10, 8, "float8_e4m3fnuz", None)
  | Fp8e5m2fnuz -> (11, 8, "float8_e5m2fnuz", None)
  | Float16 -> (12, 16, "half", Some 'e')
  | Bfloat16 -> (13, 16, "__bf16", None)
  | Float32 -> (14, 32, "float", Some 'f')
  | Float64 -> (15, 64, "double", Some 'd')

let priority d = let p, _, _, _ = info d in p
let bitsize d = let _, b, _, _ = info d in b
let itemsize d = (bitsize d + 7) / 8
let name d = let _, _, n, _ = info d in n
let fmt d = let _, _, _, f = info d in f

let short_name = function
  | Void -> "void" | Weakint -> "weakint" | Bool -> "bool" | Int8 -> "int8" | Uint8 -> "uint8"
  | Int16 -> "int16" | Uint16 -> "uint16" | Int32 -> "int32" | Uint32 -> "uint32" | Int64 -> "int64"
  | Uint64 -> "uint64" | Uint128 -> "_uint128" | Uint256 -> "_uint256" | Weakfloat -> "weakfloat"
  | Fp8e4m3 -> "fp8e4m3" | Fp8e5m2 -> "fp8e5m2" | Fp8e4m3fnuz -> "fp8e4m3fnuz" | Fp8e5m2fnuz -> "fp8e5m2fnuz"
  | Float16 -> "float16" | Bfloat16 -> "bfloat16" | Float32 -> "float32" | Float64 -> "float64"

(* INVERSE_DTYPES_DICT maps the C name to the *last* attribute defined with it, i.e. the alias *)
let to_string d =
  let alias = match d with
    | Float16 -> "half" | Float32 -> "float" | Float64 -> "double" | Uint8 -> "uchar" | Uint16 -> "ushort"
    | Uint32 -> "uint" | Uint64 -> "ulong" | Int8 -> "char" | Int16 -> "short" | Int32 -> "int" | Int64 -> "long"
    | d -> short_name d in
  "dtypes." ^ alias

let compare a b =
  let pa, ba, na, fa = info a and pb, bb, nb, fb = info b in
  Stdlib.compare (pa, ba, na, fa) (pb, bb, nb, fb)

let equal (a : t) b = a == b

let all_dtypes = [ Void; Weakint; Bool; Int8; Uint8; Int16; Uint16; Int32; Uint32; Int64; Uint64; Uint128; Uint256;
                   Weakfloat; Fp8e4m3; Fp8e5m2; Fp8e4m3fnuz; Fp8e5m2fnuz; Float16; Bfloat16; Float32; Float64 ]

let of_string s =
  match String.lowercase_ascii s with
  | "half" -> Some Float16 | "float" -> Some Float32 | "double" -> Some Float64 | "uchar" -> Some Uint8
  | "ushort" -> Some Uint16 | "uint" -> Some Uint32 | "ulong" -> Some Uint64 | "char" -> Some Int8
  | "short" -> Some Int16 | "int" -> Some Int32 | "long" -> Some Int64
  | s -> List.find_opt (fun d -> short_name d = s) all_dtypes

let fp8s = [ Fp8e4m3; Fp8e5m2; Fp8e4m3fnuz; Fp8e5m2fnuz ]
let fp8_fnuz = [ Fp8e4m3fnuz; Fp8e5m2fnuz ]
let floats = fp8s @ [ Float16; Bfloat16; Float32; Float64 ]
let uints = [ Uint8; Uint16; Uint32; Uint64 ]
let sints = [ Int8; Int16; Int32; Int64 ]
let ints = uints @ sints
let all = floats @ ints @ [ Bool ]

let is_float = function
  | Fp8e4m3 | Fp8e5m2 | Fp8e4m3fnuz | Fp8e5m2fnuz | Float16 | Bfloat16 | Float32 | Float64 | Weakfloat -> true
  | _ -> false
let is_int = function
  | Uint8 | Uint16 | Uint32 | Uint64 | Int8 | Int16 | Int32 | Int64 | Weakint -> true
  | _ -> false
let is_unsigned = function Uint8 | Uint16 | Uint32 | Uint64 -> true | _ -> false
let is_bool d = d = Bool
let is_weak = function Weakint | Weakfloat -> true | _ -> false

let finfo = function
  | Float16 -> (5, 10) | Bfloat16 -> (8, 7) | Float32 -> (8, 23) | Float64 -> (11, 52)
  | Fp8e4m3 | Fp8e4m3fnuz -> (4, 3) | Fp8e5m2 | Fp8e5m2fnuz -> (5, 2)
  | d -> invalid_arg (Printf.sprintf "finfo: %s is not a floating point type" (to_string d))

let min d =
  if is_int d then (if is_unsigned d then I Z.zero else I (Z.neg (Z.shift_left Z.one (bitsize d - 1))))
  else if is_float d then F neg_infinity else B false

let max d =
  if is_int d then
    (match min d with I m -> I (Z.add (Z.sub (Z.shift_left Z.one (bitsize d)) Z.one) m) | _ -> assert false)
  else if is_float d then F infinity else B true

(* the dtype named by the context variable DEFAULT_FLOAT / DEFAULT_INT (the default when empty) *)
let dtype_of_var (v : string Helpers.context_var) default =
  match v.value with
  | "" -> default
  | s -> (match of_string s with Some d -> d | None -> invalid_arg (v.key ^ ": unknown dtype " ^ s))
let default_float () = dtype_of_var Helpers.default_float Float32
let default_int () = dtype_of_var Helpers.default_int Int32

let from_const = function
  | B _ | Invalid -> Bool
  | F _ -> Weakfloat
  | I _ -> Weakint

let strong_dtype = function Weakint -> default_int () | Weakfloat -> default_float () | d -> d
let weak_dtype d = if is_float d then Weakfloat else if is_int d then Weakint else d

(* https://jax.readthedocs.io/en/latest/jep/9407-type-promotion.html *)
let promo_lattice = function
  | Bool -> [ Weakint ]
  | Weakint -> [ Int8; Uint8 ]
  | Int8 -> [ Int16 ] | Int16 -> [ Int32 ] | Int32 -> [ Int64 ] | Int64 -> [ Weakfloat ]
  | Uint8 -> [ Int16; Uint16 ] | Uint16 -> [ Int32; Uint32 ] | Uint32 -> [ Int64; Uint64 ] | Uint64 -> [ Weakfloat ]
  | Weakfloat -> fp8s
  | Fp8e4m3 | Fp8e5m2 | Fp8e4m3fnuz | Fp8e5m2fnuz -> [ Float16; Bfloat16 ]
  | Float16 | Bfloat16 -> [ Float32 ]
  | Float32 -> [ Float64 ]
  | d -> invalid_arg ("least_upper_dtype: " ^ to_string d ^ " is not in the promotion lattice")

let rec recursive_parents_uncached d =
  if d = Float64 then [ Float64 ]
  else List.sort_uniq Stdlib.compare (d :: List.concat_map recursive_parents_uncached (promo_lattice d))

(* a STACK of many lanes asks for the parents of each lane's dtype, so each dtype's list is built once *)
let parents_cache : (t, t list) Hashtbl.t = Hashtbl.create 32

let recursive_parents d =
  match Hashtbl.find_opt parents_cache d with
  | Some l -> l
  | None -> let l = recursive_parents_uncached d in Hashtbl.replace parents_cache d l; l

let least_upper_dtype_uncached = function
  | [] -> invalid_arg "least_upper_dtype: no dtypes"
  | d :: rest ->
    let common = List.fold_left (fun acc x -> let px = recursive_parents x in List.filter (fun y -> List.mem y px) acc)
        (recursive_parents d) rest in
    (match List.sort compare common with m :: _ -> m | [] -> invalid_arg "least_upper_dtype: no common dtype")

(* tinygrad caches least_upper_dtype (functools.cache); every binary op asks for a pair, so memoise pairs *)
let lud_pair_cache : (t * t, t) Hashtbl.t = Hashtbl.create 64

let least_upper_dtype = function
  | [ a; b ] ->
    (match Hashtbl.find_opt lud_pair_cache (a, b) with
     | Some r -> r
     | None -> let r = least_upper_dtype_uncached [ a; b ] in Hashtbl.replace lud_pair_cache (a, b) r; r)
  | l -> least_upper_dtype_uncached l

let least_upper_float dt =
  if dt = Weakint then Weakfloat else if is_float dt then dt else least_upper_dtype [ dt; default_float () ]

let can_lossless_cast dt0 dt1 =
  dt0 = dt1 || dt0 = Bool ||
  let mem l = List.mem dt0 l in
  match dt1 with
  | Weakint -> mem ints
  | Float64 -> mem ([ Float32; Float16; Bfloat16 ] @ fp8s @ [ Uint32; Uint16; Uint8; Int32; Int16; Int8 ])
  | Float32 -> mem ([ Float16; Bfloat16 ] @ fp8s @ [ Uint16; Uint8; Int16; Int8 ])
  | Float16 -> mem (fp8s @ [ Uint8; Int8 ])
  | Uint64 -> mem [ Uint32; Uint16; Uint8 ]
  | Uint32 -> mem [ Uint16; Uint8 ]
  | Uint16 -> mem [ Uint8 ]
  | Int64 -> mem [ Uint32; Uint16; Uint8; Int32; Int16; Int8 ]
  | Int32 -> mem [ Uint16; Uint8; Int16; Int8 ]
  | Int16 -> mem [ Uint8; Int8 ]
  | _ -> false

let sum_acc_dtype dt =
  if is_unsigned dt then least_upper_dtype [ dt; Uint32 ]
  else if is_int dt || dt = Bool then least_upper_dtype [ dt; Int32 ]
  else least_upper_dtype [ dt; dtype_of_var Helpers.sum_dtype Float32 ]

(* ---------- float formats ---------- *)

let float_to_fp32 x = Int32.float_of_bits (Int32.bits_of_float x)

(* round-to-nearest-even conversion to IEEE half; Python's struct raises OverflowError past the max and
   tinygrad turns that into a signed infinity *)
let float_to_fp16 x =
  if Float.is_nan x || Float.abs x = infinity || x = 0.0 then x
  else begin
    let ax = Float.abs x in
    let e = snd (Float.frexp ax) - 1 in        (* ax = m * 2^e, 1 <= m < 2 *)
    let e = if e < -14 then -14 else e in     (* subnormals share the quantum 2^-24 *)
    let quantum = Float.ldexp 1.0 (e - 10) in
    let q = ax /. quantum in
    let t = Float.trunc q in
    let frac = q -. t in
    let r = if frac > 0.5 then t +. 1.0 else if frac < 0.5 then t else if Float.rem t 2.0 = 0.0 then t else t +. 1.0 in
    let v = r *. quantum in
    Float.copy_sign (if v > 65504.0 then infinity else v) x
  end

let float_to_bf16 x =
  if Float.is_nan x || Float.abs x = infinity then x
  else
    let u = Int32.to_int (Int32.bits_of_float (float_to_fp32 x)) land 0xFFFFFFFF in
    let u = (u + 0x7FFF + ((u lsr 16) land 1)) land 0xFFFF0000 in
    Int32.float_of_bits (Int32.of_int u)

(* (bias, sig_bits, mant_mask, min_denorm_half, ovf_threshold, max_norm, min_norm), from cuda_fp8.hpp *)
let fp8_cfg = function
  | Fp8e4m3 -> (7, 4, 0x7, 0x3F50000000000000L, 0x407D000000000000L, 0x7E, 0x3F90000000000000L)
  | Fp8e5m2 -> (15, 3, 0x3, 0x3EE0000000000000L, Int64.sub 0x40EE000000000000L 1L, 0x7B, 0x3F10000000000000L)
  | Fp8e4m3fnuz -> (8, 4, 0x7, 0x3F40000000000000L, Int64.sub 0x406F000000000000L 1L, 0x7F, 0x3F80000000000000L)
  | Fp8e5m2fnuz -> (16, 3, 0x3, 0x3ED0000000000000L, Int64.sub 0x40EE000000000000L 1L, 0x7F, 0x3F00000000000000L)
  | d -> invalid_arg ("fp8: " ^ to_string d ^ " is not an fp8 dtype")

let float_to_fp8 x dt =
  let fnuz = List.mem dt fp8_fnuz in
  let finite = Float.is_finite x in
  if fnuz && not finite then 0x80
  else if fnuz && x = 0.0 then 0x00
  else if dt = Fp8e4m3 && not finite then (if Float.sign_bit x then 0xff else 0x7f)
  else if dt = Fp8e5m2 && not finite then
    (if Float.sign_bit x then 0x80 else 0) lor (if Float.is_nan x then 0x7f else 0x7c)
  else begin
    let bias, sig_bits, mant_mask, min_denorm_half, ovf_threshold, max_norm, min_norm = fp8_cfg dt in
    let xbits = Int64.bits_of_float x in
    let ( >>> ) = Int64.shift_right_logical and ( &&& ) = Int64.logand in
    let half_ulp = Int64.shift_left 1L (52 - sig_bits) in
    let sign = Int64.to_int ((xbits >>> 63) &&& 1L) lsl 7 in
    let exp = Int64.to_int ((xbits >>> 52) &&& 0x7FFL) - 1023 + bias in
    let mantissa = Int64.to_int ((xbits >>> (53 - sig_bits)) &&& Int64.of_int mant_mask) in
    let absx = xbits &&& 0x7FFFFFFFFFFFFFFFL in
    let ucmp a b = Int64.unsigned_compare a b in
    let res =
      if ucmp absx min_denorm_half <= 0 then 0
      else if ucmp absx ovf_threshold > 0 then max_norm
      else if ucmp absx min_norm >= 0 then begin
        let res = (exp lsl (sig_bits - 1)) lor mantissa in
        let round_bits = xbits &&& Int64.sub (Int64.shift_left half_ulp 1) 1L in
        if ucmp round_bits half_ulp > 0 || (round_bits = half_ulp && mantissa land 1 = 1) then res + 1 else res
      end else begin
        let shift = 1 - exp in
        let mantissa = mantissa lor (1 lsl (sig_bits - 1)) in
        let res = mantissa asr shift and half = Int64.shift_left half_ulp shift in
        let round_bits = Int64.logor xbits (Int64.shift_left 1L 52) &&& Int64.sub (Int64.shift_left half 1) 1L in
        if ucmp round_bits half > 0 || (round_bits = half && res land 1 = 1) then res + 1 else res
      end in
    if fnuz && res = 0 then 0 else res lor sign
  end

let fp8_to_float x dt =
  let fnuz = List.mem dt fp8_fnuz in
  if fnuz && x = 0x80 then nan
  else if x land 0x7F = 0 then (if x land 0x80 <> 0 then -0.0 else 0.0)
  else begin
    let bias, sig_bits, _, _, _, _, _ = fp8_cfg dt in
    let mant_bits = sig_bits - 1 in
    let exp_bits = 8 - sig_bits in
    let exp_max = (1 lsl exp_bits) - 1 and mant_max = (1 lsl mant_bits) - 1 in
    let sign = (x lsr 7) land 1 and exp = (x lsr mant_bits) land exp_max and mantissa = x land mant_max in
    let special =
      if (not fnuz) && exp = exp_max then
        (if dt = Fp8e5m2 then Some (Float.copy_sign (if mantissa <> 0 then nan else infinity) (if sign = 1 then -1.0 else 1.0))
         else if mantissa = mant_max then Some nan else None)
      else None in
    match special with
    | Some v -> v
    | None ->
      let m = float_of_int mantissa /. float_of_int (mant_max + 1) in
      let v = if exp = 0 then m *. Float.pow 2.0 (float_of_int (1 - bias))
        else (1.0 +. m) *. Float.pow 2.0 (float_of_int (exp - bias)) in
      if sign = 1 then -.v else v
  end

(* ---------- constants ---------- *)

let canonical_nan = Float.nan

let wrap_int bits signed z =
  let m = Z.extract z 0 bits in
  if signed && Z.testbit m (bits - 1) then Z.sub m (Z.shift_left Z.one bits) else m

let to_z_trunc = function
  | I z -> z
  | B b -> if b then Z.one else Z.zero
  | F f -> if Float.is_finite f then Z.of_float f else invalid_arg "truncate: cannot convert a non-finite float to int"
  | Invalid -> invalid_arg "truncate: Invalid has no value"

let const_to_float = function
  | I z -> Z.to_float z
  | F f -> f
  | B b -> if b then 1.0 else 0.0
  | Invalid -> invalid_arg "const_to_float: Invalid"

let const_truthy = function
  | I z -> not (Z.equal z Z.zero)
  | F f -> f <> 0.0
  | B b -> b
  | Invalid -> true

let truncate dt v =
  match v with
  | Invalid -> Invalid
  | _ ->
    match dt with
    | Bool -> B (const_truthy v)
    | Float16 -> F (float_to_fp16 (const_to_float v))
    | Bfloat16 -> F (float_to_bf16 (const_to_float v))
    | Fp8e4m3 | Fp8e5m2 | Fp8e4m3fnuz | Fp8e5m2fnuz -> F (fp8_to_float (float_to_fp8 (const_to_float v) dt) dt)
    | Float32 -> F (float_to_fp32 (const_to_float v))
    | Float64 -> F (const_to_float v)
    | Int8 | Int16 | Int32 | Int64 -> I (wrap_int (bitsize dt) true (to_z_trunc v))
    | Uint8 | Uint16 | Uint32 | Uint64 -> I (wrap_int (bitsize dt) false (to_z_trunc v))
    | Void | Weakint | Weakfloat | Uint128 | Uint256 -> v

let const dt v =
  match v with
  | Invalid -> Invalid
  | _ ->
    if is_float dt then begin
      let f = const_to_float v in
      let f = if Float.is_nan f then canonical_nan else f in
      match truncate dt (F f) with F f -> F (if Float.is_nan f then canonical_nan else f) | c -> c
    end
    else if is_bool dt then B (const_truthy v)
    else match v with
      | I _ -> v
      | B b -> I (if b then Z.one else Z.zero)
      | F f -> I (to_z_trunc (F f))
      | Invalid -> Invalid

let equal_const a b =
  match a, b with
  | I x, I y -> Z.equal x y
  | F x, F y -> Int64.equal (Int64.bits_of_float x) (Int64.bits_of_float y) || (Float.is_nan x && Float.is_nan y)
  | B x, B y -> x = y
  | Invalid, Invalid -> true
  | _ -> false

let hash_const = function
  | I z -> Z.hash z
  | F f -> if Float.is_nan f then 7 else Hashtbl.hash (Int64.bits_of_float f)
  | B b -> if b then 1 else 0
  | Invalid -> 13

(* Python's float repr: the shortest digits that round-trip, fixed notation for 1e-4 <= |x| < 1e16 *)
let float_repr f =
  if Float.is_nan f then "nan"
  else if f = infinity then "inf"
  else if f = neg_infinity then "-inf"
  else begin
    let rec shortest p =
      let s = Printf.sprintf "%.*e" (p - 1) f in
      if p >= 17 || float_of_string s = f then s else shortest (p + 1) in
    let s = shortest 1 in
    (* s is like "-1.2345e+05" *)
    let neg = s.[0] = '-' in
    let s = if neg then String.sub s 1 (String.length s - 1) else s in
    let epos = String.index s 'e' in
    let mant = String.sub s 0 epos and exp = int_of_string (String.sub s (epos + 1) (String.length s - epos - 1)) in
    let digits = String.concat "" (String.split_on_char '.' mant) in
    let nd = String.length digits in
    let body =
      if exp >= -5 && exp < 16 then begin
        if exp >= nd - 1 then digits ^ String.make (exp - nd + 1) '0' ^ ".0"
        else if exp >= 0 then String.sub digits 0 (exp + 1) ^ "." ^ String.sub digits (exp + 1) (nd - exp - 1)
        else "0." ^ String.make (-exp - 1) '0' ^ digits
      end else begin
        let m = if nd = 1 then digits else String.sub digits 0 1 ^ "." ^ String.sub digits 1 (nd - 1) in
        Printf.sprintf "%se%s%02d" m (if exp < 0 then "-" else "+") (abs exp)
      end in
    (* Python uses fixed notation only for exponents in [-4, 16) *)
    let body = if exp = -5 then (let m = if nd = 1 then digits else String.sub digits 0 1 ^ "." ^ String.sub digits 1 (nd - 1) in
                                 Printf.sprintf "%se-05" m) else body in
    if neg then "-" ^ body else body
  end

let const_to_string = function
  | I z -> Z.to_string z
  | F f -> float_repr f
  | B b -> if b then "True" else "False"
  | Invalid -> "Invalid"

let compare_const a b =
  match a, b with
  | Invalid, _ | _, Invalid -> invalid_arg "compare_const: Invalid is not ordered"
  | (I _ | B _), (I _ | B _) -> Z.compare (to_z_trunc a) (to_z_trunc b)
  | _ -> Stdlib.compare (const_to_float a) (const_to_float b)

(* bitcast goes through the storage bits of each dtype *)
let bits_of dt v =
  match dt with
  | Float16 ->
    (* encode half by hand: sign, 5-bit exponent, 10-bit mantissa *)
    let f = float_to_fp16 (const_to_float v) in
    let sign = if Float.sign_bit f then 0x8000 else 0 in
    let af = Float.abs f in
    let body =
      if Float.is_nan af then 0x7e00
      else if af = infinity then 0x7c00
      else if af = 0.0 then 0
      else if af < Float.ldexp 1.0 (-14) then int_of_float (af /. Float.ldexp 1.0 (-24))
      else (let m, e = Float.frexp af in (* af = m*2^e, 0.5<=m<1 *)
            let e = e - 1 in
            ((e + 15) lsl 10) lor (int_of_float ((m *. 2.0 -. 1.0) *. 1024.0))) in
    Z.of_int (sign lor body)
  | Bfloat16 -> Z.of_int ((Int32.to_int (Int32.bits_of_float (float_to_bf16 (const_to_float v))) lsr 16) land 0xFFFF)
  | Float32 -> Z.of_int (Int32.to_int (Int32.bits_of_float (const_to_float v)) land 0xFFFFFFFF)
  | Float64 -> Z.extract (Z.of_int64 (Int64.bits_of_float (const_to_float v))) 0 64
  | Fp8e4m3 | Fp8e5m2 | Fp8e4m3fnuz | Fp8e5m2fnuz -> Z.of_int (float_to_fp8 (const_to_float v) dt)
  | Bool -> if const_truthy v then Z.one else Z.zero
  | _ -> Z.extract (to_z_trunc v) 0 (bitsize dt)

let of_bits dt z =
  match dt with
  | Float16 ->
    let b = Z.to_int z in
    let sign = if b land 0x8000 <> 0 then -1.0 else 1.0 in
    let e = (b lsr 10) land 0x1f and m = b land 0x3ff in
    let v = if e = 0 then float_of_int m *. Float.ldexp 1.0 (-24)
      else if e = 31 then (if m = 0 then infinity else nan)
      else Float.ldexp (1.0 +. float_of_int m /. 1024.0) (e - 15) in
    F (sign *. v)
  | Bfloat16 -> F (Int32.float_of_bits (Int32.of_int ((Z.to_int z land 0xFFFF) lsl 16)))
  | Float32 -> F (Int32.float_of_bits (Int32.of_int (Z.to_int z)))
  | Float64 -> F (Int64.float_of_bits ((if Z.testbit z 63 then Z.to_int64 (Z.sub z (Z.shift_left Z.one 64)) else Z.to_int64 z)))
  | Fp8e4m3 | Fp8e5m2 | Fp8e4m3fnuz | Fp8e5m2fnuz -> F (fp8_to_float (Z.to_int z) dt)
  | Bool -> B (not (Z.equal z Z.zero))
  | _ -> I (wrap_int (bitsize dt) (not (is_unsigned dt)) z)

let bitcast v in_dt out_dt =
  if itemsize in_dt <> itemsize out_dt then
    invalid_arg (Printf.sprintf "bitcast: itemsize mismatch %s -> %s" (to_string in_dt) (to_string out_dt));
  of_bits out_dt (bits_of in_dt v)

(* tinygrad's lower-case names: Dtype.float32, Dtype.int32, ... as values *)
let void = Void
let bool = Bool
let int8 = Int8
let uint8 = Uint8
let int16 = Int16
let uint16 = Uint16
let int32 = Int32
let uint32 = Uint32
let int64 = Int64
let uint64 = Uint64
let float16 = Float16
let bfloat16 = Bfloat16
let float32 = Float32
let float64 = Float64
let half = Float16
let float = Float32
let double = Float64
