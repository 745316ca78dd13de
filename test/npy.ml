(* NumPy .npy files (numpy/lib/format.py): magic "\x93NUMPY", version, header length, a Python-dict header
   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }, then the raw C-order data. *)

open Tinygrad.Compiler

type t = { dtype : Dtype.t; shape : int list; data : string }

exception Error of string

let err fmt = Printf.ksprintf (fun s -> raise (Error s)) fmt

let descr_of_dtype (d : Dtype.t) = match d with
  | Float16 -> "<f2" | Float32 -> "<f4" | Float64 -> "<f8" | Int8 -> "|i1" | Int16 -> "<i2" | Int32 -> "<i4"
  | Int64 -> "<i8" | Uint8 -> "|u1" | Uint16 -> "<u2" | Uint32 -> "<u4" | Uint64 -> "<u8" | Bool -> "|b1"
  | d -> err "npy: unsupported dtype %s" (Dtype.to_string d)

let dtype_of_descr s =
  let le = String.length s = 3 && (s.[0] = '<' || s.[0] = '|' || (s.[0] = '=' && Sys.big_endian = false)) in
  if not le then err "npy: unsupported descr %S (need little-endian)" s;
  match String.sub s 1 2 with
  | "f2" -> Dtype.Float16 | "f4" -> Dtype.Float32 | "f8" -> Dtype.Float64
  | "i1" -> Dtype.Int8 | "i2" -> Dtype.Int16 | "i4" -> Dtype.Int32 | "i8" -> Dtype.Int64
  | "u1" -> Dtype.Uint8 | "u2" -> Dtype.Uint16 | "u4" -> Dtype.Uint32 | "u8" -> Dtype.Uint64 | "b1" -> Dtype.Bool
  | _ -> err "npy: unsupported descr %S" s

(* the value of key [k] in the header dict, as raw text up to the next top-level ',' or '}' *)
let header_field h k =
  let pat = "'" ^ k ^ "'" in
  let lp = String.length pat and n = String.length h in
  let rec find i = if i + lp > n then err "npy: header has no %s" k else if String.sub h i lp = pat then i + lp else find (i + 1) in
  let i = ref (find 0) in
  while !i < n && (h.[!i] = ' ' || h.[!i] = ':') do incr i done;
  let st = !i and depth = ref 0 in
  while !i < n && not (!depth = 0 && (h.[!i] = ',' || h.[!i] = '}')) do
    (match h.[!i] with '(' -> incr depth | ')' -> decr depth | _ -> ()); incr i
  done;
  String.trim (String.sub h st (!i - st))

let numel_of shape = List.fold_left ( * ) 1 shape

let of_string s =
  if String.length s < 10 || String.sub s 0 6 <> "\x93NUMPY" then err "npy: bad magic";
  let major = Char.code s.[6] in
  let hlen, hstart =
    if major = 1 then (Char.code s.[8] lor (Char.code s.[9] lsl 8), 10)
    else if major = 2 || major = 3 then
      (Char.code s.[8] lor (Char.code s.[9] lsl 8) lor (Char.code s.[10] lsl 16) lor (Char.code s.[11] lsl 24), 12)
    else err "npy: unsupported version %d" major in
  let h = String.sub s hstart hlen in
  let unquote v = if String.length v >= 2 then String.sub v 1 (String.length v - 2) else err "npy: bad descr %s" v in
  let dtype = dtype_of_descr (unquote (header_field h "descr")) in
  if header_field h "fortran_order" <> "False" then err "npy: fortran order is not supported";
  let sh = header_field h "shape" in
  let inner = String.sub sh 1 (String.length sh - 2) in
  let shape = List.filter_map (fun x -> let x = String.trim x in if x = "" then None else Some (int_of_string x))
      (String.split_on_char ',' inner) in
  let off = hstart + hlen in
  let nbytes = numel_of shape * Dtype.itemsize dtype in
  if String.length s < off + nbytes then err "npy: truncated data";
  { dtype; shape; data = String.sub s off nbytes }

let read path =
  let ic = open_in_bin path in
  let s = Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic)) in
  of_string s

let to_string a =
  let shape = match a.shape with [ x ] -> Printf.sprintf "(%d,)" x
                               | l -> "(" ^ String.concat ", " (List.map string_of_int l) ^ ")" in
  let h = Printf.sprintf "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" (descr_of_dtype a.dtype) shape in
  let total = 10 + String.length h + 1 in
  let pad = (64 - (total mod 64)) mod 64 in
  let h = h ^ String.make pad ' ' ^ "\n" in
  let hl = String.length h in
  "\x93NUMPY\x01\x00" ^ String.make 1 (Char.chr (hl land 0xFF)) ^ String.make 1 (Char.chr (hl lsr 8)) ^ h ^ a.data

let numel a = numel_of a.shape

(* IEEE half -> double *)
let half_to_float h =
  let s = if h land 0x8000 <> 0 then -1.0 else 1.0 in
  let e = (h lsr 10) land 0x1F and m = h land 0x3FF in
  if e = 0 then s *. Float.ldexp (float_of_int m) (-24)
  else if e = 31 then (if m = 0 then s *. infinity else nan)
  else s *. Float.ldexp (float_of_int (m lor 0x400)) (e - 25)

(* round half to even of a non-negative float *)
let round_even x =
  let r = Float.of_int (int_of_float x) in
  let d = x -. r in
  if d > 0.5 || (d = 0.5 && int_of_float r land 1 = 1) then int_of_float r + 1 else int_of_float r

(* double -> IEEE half bits, round to nearest even *)
let float_to_half f =
  let sign = if Float.sign_bit f then 0x8000 else 0 in
  let a = Float.abs f in
  if Float.is_nan f then sign lor 0x7E00
  else if a >= 65520.0 then sign lor 0x7C00
  else if a < Float.ldexp 1.0 (-14) then sign lor round_even (Float.ldexp a 24)  (* subnormal (may round up to the min normal) *)
  else begin
    let e = snd (Float.frexp a) - 1 in
    let mi = round_even (Float.ldexp a (10 - e)) in  (* in [1024, 2048] *)
    let mi, e = if mi = 2048 then (1024, e + 1) else (mi, e) in
    if e + 15 >= 31 then sign lor 0x7C00 else sign lor ((e + 15) lsl 10) lor (mi - 1024)
  end

let get_u a i sz =
  let v = ref 0L in
  for k = sz - 1 downto 0 do v := Int64.logor (Int64.shift_left !v 8) (Int64.of_int (Char.code a.data.[(i * sz) + k])) done;
  !v

let get_int64 a i : int64 =
  let sz = Dtype.itemsize a.dtype in
  let u = get_u a i sz in
  if Dtype.is_unsigned a.dtype || a.dtype == Dtype.Bool || sz = 8 then u
  else let sh = 64 - (8 * sz) in Int64.shift_right (Int64.shift_left u sh) sh

let to_floats a =
  let n = numel a in
  match a.dtype with
  | Float32 -> Array.init n (fun i -> Int32.float_of_bits (Int64.to_int32 (get_u a i 4)))
  | Float64 -> Array.init n (fun i -> Int64.float_of_bits (get_u a i 8))
  | Float16 -> Array.init n (fun i -> half_to_float (Int64.to_int (get_u a i 2)))
  | Uint64 -> Array.init n (fun i -> let v = get_u a i 8 in
                             if Int64.compare v 0L >= 0 then Int64.to_float v else Int64.to_float v +. 18446744073709551616.0)
  | _ -> Array.init n (fun i -> Int64.to_float (get_int64 a i))

let to_ints a =
  if Dtype.is_float a.dtype then err "npy: to_ints on a float array";
  Array.init (numel a) (fun i -> Int64.to_int (get_int64 a i))

let pack sz n f =
  let b = Bytes.create (n * sz) in
  for i = 0 to n - 1 do
    let v = f i in
    for k = 0 to sz - 1 do Bytes.set b ((i * sz) + k) (Char.chr (Int64.to_int (Int64.logand (Int64.shift_right_logical v (8 * k)) 0xFFL))) done
  done;
  Bytes.to_string b

let of_floats dtype shape xs =
  let n = Array.length xs in
  if n <> numel_of shape then err "npy: %d values for shape of %d" n (numel_of shape);
  let data = match (dtype : Dtype.t) with
    | Float32 -> pack 4 n (fun i -> Int64.of_int32 (Int32.bits_of_float xs.(i)))
    | Float64 -> pack 8 n (fun i -> Int64.bits_of_float xs.(i))
    | Float16 -> pack 2 n (fun i -> Int64.of_int (float_to_half xs.(i)))
    | d -> err "npy: of_floats: %s is not a float dtype" (Dtype.to_string d) in
  { dtype; shape; data }

let of_ints dtype shape xs =
  let n = Array.length xs in
  if n <> numel_of shape then err "npy: %d values for shape of %d" n (numel_of shape);
  if Dtype.is_float dtype then err "npy: of_ints: %s is a float dtype" (Dtype.to_string dtype);
  ignore (descr_of_dtype dtype);
  { dtype; shape; data = pack (Dtype.itemsize dtype) n (fun i -> Int64.of_int (if dtype == Dtype.Bool then (if xs.(i) <> 0 then 1 else 0) else xs.(i))) }
