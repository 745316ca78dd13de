(* GGUF files: the header, the metadata and the tensors, dequantized with tensor ops. tinygrad: llm/gguf.py.
   tinygrad reads the header through a DISK tensor; here the file is mapped (Unix.map_file, private, as
   State.safe_load) and the header parsed from the mapping with a bound check on every read, so a malformed
   file raises Invalid_argument instead of reading past its end. Multi-part splits are not merged. *)
open Tinygrad

type value = Int of int | Float of float | Bool of bool | String of string | Array of value list

type ggml_type =
  | F32 | F16 | Q4_0 | Q4_1 | Q5_0 | Q5_1 | Q8_0 | Q4_K | Q5_K | Q6_K | IQ3_XXS | IQ3_S | IQ2_S | IQ4_XS
  | I8 | I16 | I32 | I64 | F64 | BF16 | MXFP4 | Q1_0

(* ggml.h's enum ggml_type, for the types tinygrad's ggml_data_to_tensor supports *)
let ggml_type_ids =
  [ (F32, 0); (F16, 1); (Q4_0, 2); (Q4_1, 3); (Q5_0, 6); (Q5_1, 7); (Q8_0, 8); (Q4_K, 12); (Q5_K, 13);
    (Q6_K, 14); (IQ3_XXS, 18); (IQ3_S, 21); (IQ2_S, 22); (IQ4_XS, 23); (I8, 24); (I16, 25); (I32, 26);
    (I64, 27); (F64, 28); (BF16, 30); (MXFP4, 39); (Q1_0, 41) ]

let all_ggml_types = List.map fst ggml_type_ids
let ggml_type_id t = List.assoc t ggml_type_ids
let ggml_type_of_id id = List.find_map (fun (t, i) -> if i = id then Some t else None) ggml_type_ids

let ggml_type_name = function
  | F32 -> "F32" | F16 -> "F16" | Q4_0 -> "Q4_0" | Q4_1 -> "Q4_1" | Q5_0 -> "Q5_0" | Q5_1 -> "Q5_1"
  | Q8_0 -> "Q8_0" | Q4_K -> "Q4_K" | Q5_K -> "Q5_K" | Q6_K -> "Q6_K" | IQ3_XXS -> "IQ3_XXS"
  | IQ3_S -> "IQ3_S" | IQ2_S -> "IQ2_S" | IQ4_XS -> "IQ4_XS" | I8 -> "I8" | I16 -> "I16" | I32 -> "I32"
  | I64 -> "I64" | F64 -> "F64"
  | BF16 -> "BF16" | MXFP4 -> "MXFP4" | Q1_0 -> "Q1_0"

type layout = Native of Dtype.t | Blocks of int * int

(* tinygrad: llm/gguf.py _GGML_NATIVE and _GGML_QUANT (elements, bytes per block) *)
let layout = function
  | F32 -> Native Dtype.Float32 | F16 -> Native Dtype.Float16 | I8 -> Native Dtype.Int8
  | I16 -> Native Dtype.Int16 | I32 -> Native Dtype.Int32 | I64 -> Native Dtype.Int64
  | F64 -> Native Dtype.Float64 | BF16 -> Native Dtype.Bfloat16
  | Q4_0 -> Blocks (32, 18) | Q4_1 -> Blocks (32, 20) | Q5_0 -> Blocks (32, 22) | Q5_1 -> Blocks (32, 24)
  | Q8_0 -> Blocks (32, 34) | Q4_K -> Blocks (256, 144) | Q5_K -> Blocks (256, 176)
  | Q6_K -> Blocks (256, 210)
  | IQ3_XXS -> Blocks (256, 98) | IQ3_S -> Blocks (256, 110) | IQ2_S -> Blocks (256, 82)
  | IQ4_XS -> Blocks (256, 136) | MXFP4 -> Blocks (32, 17) | Q1_0 -> Blocks (128, 18)

let nbytes typ n =
  match layout typ with
  | Native dt -> n * Dtype.itemsize dt
  | Blocks (els, bytes) ->
    if n mod els <> 0 then
      invalid_arg (Printf.sprintf "ggml_data_to_tensor: %d elements are not whole %s blocks of %d" n
                     (ggml_type_name typ) els);
    n / els * bytes

(* ---- dequantization ---- *)

let ints dtype vals = Tensor.of_int_array ~dtype [| Array.length vals |] vals
let floats vals = Tensor.of_float_array ~dtype:Dtype.Float32 [| Array.length vals |] vals
let ci = Tensor.scalar_int
let cf = Tensor.scalar

(* columns [a, b) of a (blocks, bytes) tensor *)
let cols t a b = Tensor.shrink t [| (0, (Tensor.shape t).(0)); (a, b) |]

(* little-endian half at columns [a, a+2), as float32 (blocks, 1) *)
let half_at t a = Tensor.cast (Tensor.bitcast (cols t a (a + 2)) Dtype.Float16) Dtype.Float32

let unsq t d = Tensor.unsqueeze t d
let reshape = Tensor.reshape
let ( &&& ) a m = Tensor.bitwise_and a (ci m)
let ( ||| ) = Tensor.bitwise_or
let ( >>> ) a s = Tensor.rshift a (ci s)
let ( <<< ) a s = Tensor.lshift a (ci s)

(* tinygrad: llm/gguf.py ggml_data_to_tensor q_to_uint8 — the [b]-bit fields of each byte, lowest first, the
   fields of one position of every byte before the next position *)
let q_to_uint8 t b =
  let shifts = ints (Tensor.dtype t) (Array.init (8 / b) (fun i -> 1 lsl (i * b))) in
  let q = Tensor.div ~rounding_mode:`Trunc (unsq t (-1)) shifts &&& (0xff lsr (8 - b)) in
  Tensor.flatten ~start_dim:(-2) (Tensor.transpose ~dim0:(-1) ~dim1:(-2) q)

(* ggml packs each grid entry of an i-quant as [width] bytes in one word *)
let iq_grid (n, width, bytes) =
  Tensor.of_float_array [| n; width |] (Array.init (n * width) (fun i -> float_of_int (Char.code bytes.[i])))

let signs_of_bits bits = Tensor.where (Tensor.eq bits (ci 0)) (cf 1.0) (cf (-1.0))

let popcount i = let rec go i = if i = 0 then 0 else (i land 1) + go (i lsr 1) in go i

(* tinygrad: llm/gguf.py ggml_data_to_tensor (the quantized types) *)
let dequantize typ blocks =
  let f16 = Dtype.Float16 and f32 = Dtype.Float32 and u8 = Dtype.Uint8 and i8 = Dtype.Int8 in
  let nb = (Tensor.shape blocks).(0) in
  let bytes = (Tensor.shape blocks).(1) in
  match typ with
  | Q4_0 ->
    Tensor.mul (Tensor.sub (Tensor.bitcast (q_to_uint8 (cols blocks 2 bytes) 4) i8) (ci 8)) (half_at blocks 0)
  | Q4_1 ->
    Tensor.add (Tensor.mul (Tensor.bitcast (q_to_uint8 (cols blocks 4 bytes) 4) i8) (half_at blocks 0))
              (half_at blocks 2)
  | Q5_0 | Q5_1 ->
    let d = half_at blocks 0 in
    let qh_off = if typ = Q5_0 then 2 else 4 in
    let qh = q_to_uint8 (cols blocks qh_off (qh_off + 4)) 1 in
    let qh = Tensor.bitcast (Tensor.flatten ~start_dim:(-2) (Tensor.transpose ~dim0:(-1) ~dim1:(-2)
                                                                (reshape qh [| -1; 8; 4 |]))) i8 in
    let ql = Tensor.bitcast (q_to_uint8 (cols blocks (qh_off + 4) bytes) 4) i8 in
    let q = Tensor.add ql (Tensor.mul qh (ci 16)) in
    (* Q5_0 as ggml's dequantize_row_q5_0, (q - 16) * d, where tinygrad writes q * d - 16 * d: equal values,
       but a zero takes the sign of d as in ggml *)
    if typ = Q5_1 then Tensor.add (Tensor.mul q d) (half_at blocks 2) else Tensor.mul (Tensor.sub q (ci 16)) d
  | Q8_0 -> Tensor.mul (half_at blocks 0) (Tensor.bitcast (cols blocks 2 bytes) i8)
  | Q4_K | Q5_K ->
    let d = unsq (half_at blocks 0) (-1) and dmin = unsq (half_at blocks 2) (-1) in
    let s = cols blocks 4 16 in
    let s a b = cols s a b in
    let sc = Tensor.cat ~dim:(-1) [ s 0 4 &&& 63; (s 8 12 &&& 0xF) ||| ((s 0 4 >>> 6) <<< 4) ] in
    let mn = Tensor.cat ~dim:(-1) [ s 4 8 &&& 63; (s 8 12 >>> 4) ||| ((s 4 8 >>> 6) <<< 4) ] in
    let qs_off = if typ = Q5_K then 48 else 16 in
    let qs = reshape (cols blocks qs_off (qs_off + 128)) [| -1; 4; 32 |] in
    let q = reshape (Tensor.stack ~dim:2 [ qs &&& 0xF; qs >>> 4 ]) [| -1; 8; 32 |] in
    let q = if typ = Q5_K then
        Tensor.add q (Tensor.mul (reshape (q_to_uint8 (cols blocks 16 48) 1) [| -1; 8; 32 |]) (ci 16))
      else q in
    Tensor.flatten ~start_dim:(-2)
      (Tensor.sub (Tensor.mul (Tensor.mul d (unsq sc (-1))) q) (Tensor.mul dmin (unsq mn (-1))))
  | Q6_K ->
    let xl = q_to_uint8 (reshape (cols blocks 0 128) [| -1; 2; 64 |]) 4 in
    let xh = q_to_uint8 (reshape (cols blocks 128 192) [| -1; 2; 32 |]) 2 <<< 4 in
    let scales = Tensor.expand (unsq (Tensor.bitcast (cols blocks 192 208) i8) (-1)) [| -1; 16; 16 |] in
    let scales = reshape scales [| -1; 256 |] in
    let d = half_at blocks (bytes - 2) in
    let q = Tensor.flatten ~start_dim:(-2) (Tensor.sub (Tensor.bitcast (xl ||| xh) i8) (ci 32)) in
    Tensor.mul (Tensor.mul d q) scales
  | IQ3_XXS ->
    let d = reshape (half_at blocks 0) [| -1; 1; 1; 1 |] in
    let scale_words = Tensor.bitcast (cols blocks 66 98) Dtype.Uint32 in
    let db = Tensor.mul (Tensor.mul d (reshape (Tensor.add (Tensor.cast (scale_words >>> 28) f32) (cf 0.5))
                                          [| -1; 8; 1; 1 |])) (cf 0.5) in
    let shifted = Tensor.rshift (unsq scale_words (-1)) (ints Dtype.Uint32 [| 0; 7; 14; 21 |]) in
    let sign_idx = Tensor.cast (reshape (shifted &&& 0x7F) [| -1; 32 |]) Dtype.Int32 in
    let even_signs = ints u8 (Array.init 128 (fun i -> i lor (if popcount i mod 2 = 1 then 0x80 else 0))) in
    let sel = reshape (Tensor.getitem even_signs [ T sign_idx ]) [| -1; 32; 1 |] in
    let signs = reshape (signs_of_bits (q_to_uint8 sel 1)) [| -1; 8; 4; 8 |] in
    let grid = Tensor.getitem (iq_grid Ggml_common.iq3xxs_grid) [ T (cols blocks 2 66) ] in
    let grid = reshape grid [| -1; 8; 4; 8 |] in
    Tensor.flatten ~start_dim:(-3) (Tensor.mul (Tensor.mul db grid) signs)
  | IQ3_S ->
    let d = reshape (half_at blocks 0) [| -1; 1; 1; 1 |] in
    let sc = q_to_uint8 (reshape (cols blocks 106 110) [| -1; 4; 1 |]) 4 in
    let scales = reshape (Tensor.cast (Tensor.add (ci 1) (Tensor.mul (ci 2) (reshape sc [| -1; 8 |]))) f32)
        [| -1; 8; 1; 1 |] in
    let qh = reshape (q_to_uint8 (reshape (cols blocks 66 74) [| -1; 8; 1 |]) 1) [| -1; 64 |] in
    let qh = Tensor.cast qh Dtype.Uint16 in
    let signs = reshape (signs_of_bits (reshape (q_to_uint8 (reshape (cols blocks 74 106) [| -1; 32; 1 |]) 1)
                                          [| -1; 256 |])) [| -1; 8; 4; 8 |] in
    let q = Tensor.add (Tensor.cast (cols blocks 2 66) Dtype.Uint16) (qh <<< 8) in
    let grid = reshape (Tensor.getitem (iq_grid Ggml_common.iq3s_grid) [ T q ]) [| -1; 8; 4; 8 |] in
    Tensor.flatten ~start_dim:(-3) (Tensor.mul (Tensor.mul (Tensor.mul d scales) grid) signs)
  | IQ2_S ->
    let d = reshape (half_at blocks 0) [| -1; 1; 1; 1 |] in
    let sc = reshape (q_to_uint8 (reshape (cols blocks 74 82) [| -1; 8; 1 |]) 4) [| -1; 16 |] in
    let db = Tensor.mul (Tensor.mul d (reshape (Tensor.add (Tensor.cast sc f32) (cf 0.5)) [| -1; 16; 1; 1 |]))
        (cf 0.25) in
    let signs = reshape (signs_of_bits (q_to_uint8 (reshape (cols blocks 34 66) [| -1; 32; 1 |]) 1))
        [| -1; 16; 2; 8 |] in
    let qh = reshape (q_to_uint8 (reshape (cols blocks 66 74) [| -1; 8; 1 |]) 2) [| -1; 32 |] in
    let qh = Tensor.cast qh Dtype.Uint16 in
    let q = Tensor.add (Tensor.cast (cols blocks 2 34) Dtype.Uint16) (qh <<< 8) in
    let grid = reshape (Tensor.getitem (iq_grid Ggml_common.iq2s_grid) [ T q ]) [| -1; 16; 2; 8 |] in
    Tensor.flatten ~start_dim:(-3) (Tensor.mul (Tensor.mul db grid) signs)
  | IQ4_XS ->
    let d = reshape (half_at blocks 0) [| -1; 1; 1 |] in
    let lut = floats (Array.map float_of_int Ggml_common.kvalues_iq4nl) in
    let sl = cols blocks 4 8 in
    let scales_l = reshape (Tensor.stack ~dim:2 [ sl &&& 0xF; sl >>> 4 ]) [| -1; 8 |] in
    let sh = Tensor.rshift (unsq (Tensor.bitcast (cols blocks 2 4) Dtype.Uint16) (-1))
        (ints Dtype.Uint16 [| 0; 2; 4; 6; 8; 10; 12; 14 |]) in
    let scales_h = Tensor.cast (reshape (sh &&& 0x03) [| -1; 8 |]) u8 in
    let sc = Tensor.sub (Tensor.bitcast (scales_l ||| (scales_h <<< 4)) i8) (ci 32) in
    let scales = reshape (Tensor.cast sc f32) [| -1; 8; 1 |] in
    let qs = reshape (cols blocks 8 bytes) [| -1; 8; 16 |] in
    let q = Tensor.cat ~dim:2 [ qs &&& 0xF; qs >>> 4 ] in
    Tensor.flatten ~start_dim:(-2) (Tensor.mul (Tensor.mul d scales) (Tensor.getitem lut [ T q ]))
  | MXFP4 ->
    let e = Tensor.cast (reshape (cols blocks 0 1) [| nb |]) Dtype.Uint32 in
    (* e = 0 and e = 1 are subnormal scales *)
    let small_bits = Tensor.getitem (ints Dtype.Uint32 [| 0x00200000; 0x00400000 |])
        [ T (Tensor.cast (Tensor.clip ~min:0. ~max:1. e) Dtype.Int32) ] in
    let d = unsq (Tensor.bitcast (Tensor.where (Tensor.lt e (ci 2)) small_bits
                                    (Tensor.mul (Tensor.sub e (ci 1)) (ci 0x00800000))) f32) (-1) in
    let codes = q_to_uint8 (cols blocks 1 17) 4 in
    (* ggml's kvalues_mxfp4 are integers: code 8 is +0, where tinygrad's table has -0.0 *)
    let fp4_lut = floats [| 0.; 1.; 2.; 3.; 4.; 6.; 8.; 12.; 0.; -1.; -2.; -3.; -4.; -6.; -8.; -12. |] in
    Tensor.flatten ~start_dim:(-2) (Tensor.mul (Tensor.getitem fp4_lut [ T codes ]) d)
  | Q1_0 ->
    let d = Tensor.bitcast (cols blocks 0 2) f16 in
    let bits = q_to_uint8 (cols blocks 2 bytes) 1 in
    let bits = Tensor.bitcast (Tensor.flatten ~start_dim:(-2) (Tensor.transpose ~dim0:(-1) ~dim1:(-2)
                                                                  (reshape bits [| -1; 8; 16 |]))) i8 in
    Tensor.mul d (Tensor.sub (Tensor.mul bits (ci 2)) (ci 1))
  | F32 | F16 | I8 | I16 | I32 | I64 | F64 | BF16 -> invalid_arg "ggml_data_to_tensor: not a quantized type"

(* tinygrad: llm/gguf.py ggml_data_to_tensor *)
let ggml_data_to_tensor t n typ =
  let len = (Tensor.shape t).(0) and need = nbytes typ n in
  if need > len then
    invalid_arg (Printf.sprintf "ggml_data_to_tensor: %d %s elements need %d bytes, the data have %d" n
                   (ggml_type_name typ) need len);
  let data = Tensor.shrink t [| (0, need) |] in
  match layout typ with
  | Native dt -> Tensor.bitcast (Tensor.contiguous data) dt
  | Blocks (_, bytes) -> reshape (dequantize typ (Tensor.contiguous (reshape data [| -1; bytes |]))) [| n |]

(* ---- the header ---- *)

(* a bounds-checked reader over the file's bytes *)
type reader = { what : string; get : int -> char; len : int; mutable pos : int }

let fail r fmt = Printf.ksprintf (fun s -> invalid_arg (Printf.sprintf "gguf_load: %s: %s" r.what s)) fmt

let take r n what =
  if n < 0 || r.pos + n > r.len then
    fail r "truncated: %s of %d bytes at byte %d, the file has %d" what n r.pos r.len;
  let p = r.pos in
  r.pos <- p + n; p

(* a little-endian integer of [n] bytes, sign-extended when [signed] *)
let read_int r n ~signed what =
  let p = take r n what in
  let v = ref 0L in
  for i = n - 1 downto 0 do
    v := Int64.logor (Int64.shift_left !v 8) (Int64.of_int (Char.code (r.get (p + i))))
  done;
  let bits = 8 * n in
  if signed && n < 8 && Int64.logand !v (Int64.shift_left 1L (bits - 1)) <> 0L then
    Int64.sub !v (Int64.shift_left 1L bits)
  else !v

let to_int r v what = if Int64.compare v 0L < 0 || Int64.compare v (Int64.of_int max_int) > 0 then
    fail r "%s %Lu out of range" what v else Int64.to_int v

let read_u64 r what = to_int r (read_int r 8 ~signed:false what) what
let read_u32 r what = Int64.to_int (read_int r 4 ~signed:false what)

(* valid UTF-8: Python's str(bytes, "utf-8") raises on anything else *)
let valid_utf8 s =
  let n = String.length s in
  let cont i = i < n && Char.code s.[i] land 0xc0 = 0x80 in
  let rec go i =
    if i >= n then true
    else
      let c = Char.code s.[i] in
      if c < 0x80 then go (i + 1)
      else if c >= 0xc2 && c < 0xe0 then cont (i + 1) && go (i + 2)
      else if c >= 0xe0 && c < 0xf0 then
        cont (i + 1) && cont (i + 2)
        && (let c1 = Char.code s.[i + 1] in (c <> 0xe0 || c1 >= 0xa0) && (c <> 0xed || c1 < 0xa0))
        && go (i + 3)
      else if c >= 0xf0 && c < 0xf5 then
        cont (i + 1) && cont (i + 2) && cont (i + 3)
        && (let c1 = Char.code s.[i + 1] in (c <> 0xf0 || c1 >= 0x90) && (c <> 0xf4 || c1 < 0x90))
        && go (i + 4)
      else false in
  go 0

(* tinygrad: llm/gguf.py read_str *)
let read_str r =
  let n = read_u64 r "string length" in
  let p = take r n "string" in
  let s = String.init n (fun i -> r.get (p + i)) in
  if not (valid_utf8 s) then fail r "string at byte %d is not UTF-8" p;
  s

(* tinygrad: llm/gguf.py readers (the GGUF metadata value types) *)
let rec read_value r typ =
  let int n signed = Int (Int64.to_int (read_int r n ~signed "value")) in
  match typ with
  | 0 -> int 1 false | 1 -> int 1 true | 2 -> int 2 false | 3 -> int 2 true
  | 4 -> int 4 false | 5 -> int 4 true
  | 6 -> Float (Int32.float_of_bits (Int64.to_int32 (read_int r 4 ~signed:false "float32")))
  | 7 -> Bool (read_int r 1 ~signed:false "bool" <> 0L)
  | 8 -> String (read_str r)
  | 9 ->
    let item = Int64.to_int (read_int r 4 ~signed:true "array type") in
    let n = read_u64 r "array length" in
    (* every item takes at least one byte: a count past the end is a malformed file, not a huge allocation *)
    if n > r.len - r.pos then fail r "array of %d items at byte %d runs past the end" n r.pos;
    Array (List.init n (fun _ -> read_value r item))
  | 10 -> Int (read_u64 r "uint64")
  | 11 -> Int (Int64.to_int (read_int r 8 ~signed:true "int64"))
  | 12 -> Float (Int64.float_of_bits (read_int r 8 ~signed:false "float64"))
  | t -> fail r "unknown metadata value type %d at byte %d" t r.pos

type tensor_info = { name : string; dims : int array; typ : ggml_type; offset : int }

let round_up n a = (n + a - 1) / a * a

(* tinygrad: llm/gguf.py _gguf_parse (the header): the metadata, the tensor infos and where the data start *)
let parse_header r =
  let p = take r 4 "magic" in
  let magic = String.init 4 (fun i -> r.get (p + i)) in
  if magic <> "GGUF" then fail r "not a GGUF file (magic %S)" magic;
  let version = read_u32 r "version" in
  if version <> 2 && version <> 3 then fail r "unsupported GGUF version %d" version;
  let n_tensors = read_u64 r "tensor count" and n_kv = read_u64 r "metadata count" in
  if n_kv > r.len || n_tensors > r.len then
    fail r "counts %d tensors, %d metadata past the file's size" n_tensors n_kv;
  let kv = List.init n_kv (fun _ ->
      let k = read_str r in
      let typ = Int64.to_int (read_int r 4 ~signed:true "value type") in
      (k, read_value r typ)) in
  let infos = List.init n_tensors (fun _ ->
      let name = read_str r in
      let nd = read_u32 r "dimension count" in
      if nd > 8 then fail r "tensor %s has %d dimensions" name nd;
      let dims = Array.init nd (fun _ -> read_u64 r "dimension") in
      let id = Int64.to_int (read_int r 4 ~signed:true "tensor type") in
      let typ = match ggml_type_of_id id with
        | Some t -> t
        | None -> fail r "tensor %s: GGML type '%d' is not supported" name id in
      let offset = read_u64 r "tensor offset" in
      { name; dims; typ; offset }) in
  let alignment = match List.assoc_opt "general.alignment" kv with
    | None -> 32
    | Some (Int a) when a > 0 -> a
    | Some _ -> fail r "general.alignment is not a positive integer" in
  (kv, infos, round_up r.pos alignment)

let numel r i =
  Array.fold_left (fun acc d ->
      if d <> 0 && acc > max_int / d then fail r "tensor %s: too many elements" i.name;
      acc * d) 1 i.dims

let of_bytes ~what ~get ~len (file : Tensor.t) =
  let r = { what; get; len; pos = 0 } in
  let kv, infos, data_start = parse_header r in
  let sd = List.map (fun i ->
      let n = numel r i in
      let need = (try nbytes i.typ n with Invalid_argument m -> fail r "tensor %s: %s" i.name m) in
      if data_start + i.offset + need > len || data_start + i.offset < 0 then
        fail r "tensor %s: %d bytes at offset %d run past the end of the data (%d bytes)" i.name need i.offset
          (len - data_start);
      let t = Tensor.shrink file [| (data_start + i.offset, len) |] in
      let shape = Array.of_list (List.rev (Array.to_list i.dims)) in
      (i.name, reshape (ggml_data_to_tensor t n i.typ) (if shape = [||] then [||] else shape))) infos in
  (kv, sd)

(* tinygrad: llm/gguf.py gguf_load (of a tensor) *)
let gguf_load_tensor t =
  if Tensor.ndim t <> 1 || Tensor.dtype t != Dtype.Uint8 then
    invalid_arg (Printf.sprintf "gguf_load: expected a 1-d uint8 tensor, got %s of shape (%s)"
                   (Dtype.to_string (Tensor.dtype t))
                   (String.concat ", " (Array.to_list (Array.map string_of_int (Tensor.shape t)))));
  let bytes = State.tensor_data t in
  of_bytes ~what:"tensor" ~get:(String.get bytes) ~len:(String.length bytes) t

(* the file mapped privately: writes through a tensor never reach it *)
let map_file fn =
  let fd = try Unix.openfile fn [ Unix.O_RDONLY; Unix.O_CLOEXEC ] 0
    with Unix.Unix_error (e, _, _) ->
      invalid_arg (Printf.sprintf "gguf_load: %s: %s" fn (Unix.error_message e)) in
  Fun.protect ~finally:(fun () -> Unix.close fd) (fun () ->
      let len = (Unix.fstat fd).Unix.st_size in
      if len = 0 then Bigarray.Array1.create Bigarray.char Bigarray.c_layout 0
      else Bigarray.array1_of_genarray (Unix.map_file fd Bigarray.char Bigarray.c_layout false [| len |]))

(* tinygrad: llm/gguf.py gguf_load (of a path) *)
let gguf_load fn =
  let m = map_file fn in
  let file = Tensor.of_bigarray (Bigarray.genarray_of_array1 m) in
  of_bytes ~what:fn ~get:(Bigarray.Array1.get m) ~len:(Bigarray.Array1.dim m) file

(* ---- metadata access ---- *)

let find kv key = List.assoc_opt key kv

let get_int kv key =
  match find kv key with
  | Some (Int i) -> Some i
  | Some (Bool b) -> Some (Bool.to_int b)
  | Some _ -> invalid_arg (Printf.sprintf "gguf: metadata %s is not an integer" key)
  | None -> None

let get_float kv key =
  match find kv key with
  | Some (Float f) -> Some f
  | Some (Int i) -> Some (float_of_int i)
  | Some _ -> invalid_arg (Printf.sprintf "gguf: metadata %s is not a number" key)
  | None -> None

let get_string kv key =
  match find kv key with
  | Some (String s) -> Some s
  | Some _ -> invalid_arg (Printf.sprintf "gguf: metadata %s is not a string" key)
  | None -> None
