(* Tensor.of_bigarray / to_bigarray: every kind with a dtype round-trips with its values (hand-written), CPU tensors
   view the Bigarray's memory (changes made through either side are seen by the other), bad kinds and dtypes are
   refused by name. *)

open Tinygrad.Compiler
open Test_util
module G = Bigarray.Genarray

let genarray kind dims values =
  let g = G.create kind Bigarray.c_layout dims in
  List.iteri (fun i v -> Bigarray.Array1.set (Bigarray.reshape_1 g (List.length values)) i v) values;
  g

let floats t = Array.to_list (Tensor.to_float_array t)
let pp_floats l = String.concat " " (List.map string_of_float l)

(* one kind: the tensor's dtype and shape, its values (read by the compiler: x + 0), and the way back *)
let round_trip (type a b) name (kind : (a, b) Bigarray.kind) (dtype : Dtype.t) (values : a list) (as_float : a -> float) =
  let dims = [| 2; List.length values / 2 |] in
  let g = genarray kind dims values in
  let t = Tensor.of_bigarray g in
  check (Dtype.equal (Tensor.dtype t) dtype) "%s: dtype %s" name (Dtype.to_string (Tensor.dtype t));
  check (Tensor.shape t = dims) "%s: shape" name;
  let expected = List.map as_float values in
  check_eq ~pp:pp_floats ~eq:( = ) ~what:(name ^ " values") expected (floats (Tensor.contiguous t));
  let back = Tensor.to_bigarray kind (Tensor.contiguous t) in
  check (G.dims back = dims) "%s: dims back" name;
  check_eq ~pp:pp_floats ~eq:( = ) ~what:(name ^ " back") expected
    (List.init (List.length values) (fun i -> as_float (Bigarray.Array1.get (Bigarray.reshape_1 back (List.length values)) i)))

let tests =
  [ ("round_trip_every_kind", fun () ->
        round_trip "float32" Bigarray.float32 Dtype.Float32 [ 1.5; -2.25; 0.; 1024.125 ] Fun.id;
        round_trip "float64" Bigarray.float64 Dtype.Float64 [ 1e-300; -2.5; 0.1; 7. ] Fun.id;
        round_trip "int8" Bigarray.int8_signed Dtype.Int8 [ -128; 127; 0; -1 ] float_of_int;
        round_trip "uint8" Bigarray.int8_unsigned Dtype.Uint8 [ 0; 255; 7; 128 ] float_of_int;
        round_trip "char" Bigarray.char Dtype.Uint8 [ 'a'; '\000'; '\255'; 'z' ] (fun c -> float_of_int (Char.code c));
        round_trip "int16" Bigarray.int16_signed Dtype.Int16 [ -32768; 32767; 5; -6 ] float_of_int;
        round_trip "uint16" Bigarray.int16_unsigned Dtype.Uint16 [ 0; 65535; 300; 1 ] float_of_int;
        round_trip "int32" Bigarray.int32 Dtype.Int32 [ Int32.min_int; Int32.max_int; 0l; -7l ] Int32.to_float;
        round_trip "int64" Bigarray.int64 Dtype.Int64 [ 1L; -(1L); 1_000_000_007L; 0L ] Int64.to_float;
        round_trip "int" Bigarray.int Dtype.Int64 [ 3; -4; 1 lsl 40; 0 ] float_of_int;
        round_trip "nativeint" Bigarray.nativeint Dtype.Int64 [ 3n; -4n; 9n; 0n ] Nativeint.to_float);
    ("computes_on_bigarray_input", fun () ->
        let g = genarray Bigarray.float32 [| 2; 3 |] [ 1.; 2.; 3.; 4.; 5.; 6. ] in
        let t = Tensor.(sum ~axis:[ 1 ] (mul (of_bigarray g) (scalar 2.))) in
        check_eq ~pp:pp_floats ~eq:( = ) ~what:"2 * row sums" [ 12.; 30. ] (floats t);
        (* a permuted (non-contiguous) result comes out in C order *)
        let p = Tensor.to_bigarray Bigarray.float32 (Tensor.permute (Tensor.of_bigarray g) [| 1; 0 |]) in
        check (G.dims p = [| 3; 2 |]) "dims of the transpose";
        check_eq ~pp:pp_floats ~eq:( = ) ~what:"transpose" [ 1.; 4.; 2.; 5.; 3.; 6. ]
          (List.init 6 (fun i -> Bigarray.Array1.get (Bigarray.reshape_1 p 6) i)));
    ("cpu_tensor_views_the_bigarray", fun () ->
        let n = 1 lsl 18 in
        let g = G.create Bigarray.float32 Bigarray.c_layout [| n |] in
        Bigarray.Genarray.fill g 1.;
        let t = Tensor.of_bigarray ~device:"CPU" g in
        (* no copy: a change to the Bigarray is seen by a kernel that runs after it *)
        G.set g [| 5 |] 42.;
        check_eq ~pp:string_of_float ~eq:( = ) ~what:"sum sees the change" (float_of_int (n - 1) +. 42.)
          (Tensor.item (Tensor.sum t));
        (* and an assign to the tensor writes into the Bigarray *)
        ignore (Tensor.realize (Tensor.assign t (Tensor.full [| n |] 3.)));
        check_eq ~pp:string_of_float ~eq:( = ) ~what:"assign wrote into the Bigarray" 3. (G.get g [| 7 |]));
    ("empty_bigarray", fun () ->
        let t = Tensor.of_bigarray (G.create Bigarray.int32 Bigarray.c_layout [| 0; 3 |]) in
        check (Tensor.shape t = [| 0; 3 |]) "shape";
        check (G.dims (Tensor.to_bigarray Bigarray.int32 t) = [| 0; 3 |]) "back");
    ("bad_kinds_and_dtypes_named", fun () ->
        let named op f =
          match f () with
          | _ -> fail "%s: expected Invalid_argument" op
          | exception Invalid_argument m ->
            check (String.length m > String.length op && String.sub m 0 (String.length op + 1) = op ^ ":") "%s: message %S" op m
        in
        named "of_bigarray" (fun () -> ignore (Tensor.of_bigarray (G.create Bigarray.complex32 Bigarray.c_layout [| 2 |])));
        named "to_bigarray" (fun () -> ignore (Tensor.to_bigarray Bigarray.complex64 (Tensor.zeros [| 2 |])));
        named "to_bigarray" (fun () -> ignore (Tensor.to_bigarray Bigarray.int32 (Tensor.zeros [| 2 |]))));
    ("fp8 host I/O against ml_dtypes", fun () ->
        (* of_float_array encodes on the host: the bytes are ml_dtypes' (tinygrad's saturation past the largest
           value); to_float_array decodes every byte as ml_dtypes does *)
        let open Fp8_host_oracle in
        let same a b = (Float.is_nan a && Float.is_nan b) || Int64.equal (Int64.bits_of_float a) (Int64.bits_of_float b) in
        List.iter (fun (dt, bits, decode) ->
            let name = Dtype.to_string dt in
            let t = Tensor.of_float_array ~dtype:dt [| Array.length inputs |] inputs in
            let got = Tensor.to_int_array (Tensor.bitcast t Dtype.Uint8) in
            Array.iteri (fun i b ->
                check (got.(i) = b) "%s: %h encodes as 0x%02x, expected 0x%02x" name inputs.(i) got.(i) b) bits;
            let bytes = Tensor.of_int_array ~dtype:Dtype.Uint8 [| 256 |] (Array.init 256 Fun.id) in
            let dec = Tensor.to_float_array (Tensor.contiguous (Tensor.bitcast bytes dt)) in
            Array.iteri (fun i e ->
                check (same e dec.(i)) "%s: byte 0x%02x decodes as %h, expected %h" name i dec.(i) e) decode;
            (* a round trip through the host keeps every fp8 value *)
            let back = Tensor.to_float_array (Tensor.of_float_array ~dtype:dt [| 256 |] decode) in
            Array.iteri (fun i e -> check (same e back.(i)) "%s: round trip of byte 0x%02x" name i) decode)
          [ (Dtype.Fp8e4m3, fp8e4m3_bits, fp8e4m3_decode); (Dtype.Fp8e5m2, fp8e5m2_bits, fp8e5m2_decode) ]) ]
