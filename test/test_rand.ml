(* RNG (src/mixin/mixin_rand.ml, and the counter of src/tensor.ml): after Tensor.manual_seed 42, rand / randn /
   randint / uniform / normal / the init helpers give tinygrad 0.14.0's values BIT FOR BIT. The expected values were
   produced with the venv's tinygrad (DEV=CPU), e.g.
     Tensor.manual_seed(42); Tensor.rand(2,3).numpy().view(np.uint32)
   floats are stored as their IEEE bit patterns (float32/float16 as ints, float64 as Int64), ints as values.
   Also: SHA-256 test vectors (FIPS 180-2), reproducibility, dropout and scaled_dot_product_attention against
   tinygrad's outputs, and bad input. *)

open Tinygrad.Compiler
open Test_util
module T = Tinygrad.Tensor

type expect = F32 of int array | F16 of int array | F64 of int64 array | I of int array

(* name, shape, tinygrad's values; each draw starts from Tensor.manual_seed(42) *)
let golden : (string * int array * expect) list = [
  ("rand_5", [| 5 |], F32 [| 1052973056; 1008740608; 1038550032; 1039207536; 1057054564 |]);
  ("rand_2x3", [| 2; 3 |], F32 [| 1052973056; 1008740608; 1038550032; 1039207536; 1057054564; 1052673340 |]);
  ("rand_3x4x5", [| 3; 4; 5 |], F32 [| 1016057792; 1058698904; 1057771454; 1060527662; 1063587502; 1061518360; 1056912268; 1060279748; 1052681820; 1058746848; 1043546360; 1060826948; 1058654616; 1061375924; 1057429750; 1059876184; 1056458044; 1043151936; 1065252988; 1058870976; 1057703792; 1064895492; 1058856638; 1063573886; 1049741304; 1060527694; 1051305856; 1052589752; 1054969964; 1064992466; 1047368592; 1043645984; 1050106616; 1063966184; 1020183744; 1063011236; 1062498248; 1062688722; 1041466496; 1050527804; 1052596848; 1035865056; 1057095058; 1063223038; 1064565350; 1052308964; 1007740288; 1061282050; 1059645338; 1064128764; 1050234972; 1047844312; 1048629092; 1062456994; 1046481600; 1063857182; 1047134136; 1060138228; 1059890036; 1060441110 |]);
  ("randn_7", [| 7 |], F32 [| 3216491845; 1070797521; 1065258737; 1027380444; 3213192434; 1049577231; 1028647771 |]);
  ("randn_2x3", [| 2; 3 |], F32 [| 1073386497; 3191760636; 1070725424; 3208888471; 3210647224; 3202363820 |]);
  ("randn_4x4x2", [| 4; 4; 2 |], F32 [| 3206711385; 1069417814; 3188771898; 3207270606; 1049398176; 1073972788; 1062993582; 3209066446; 3229822216; 3202166077; 3215218975; 3193556470; 1074906441; 1070377560; 3205992496; 1056802971; 3214462875; 1063778075; 3207983190; 3218834015; 1065442299; 1058416122; 1066567696; 3219267845; 3196450890; 1055676694; 3205640663; 1059885716; 3215869930; 3210169718; 3208009105; 3213169563 |]);
  ("randint_10_0_100", [| 10 |], I [| 65; 8; 9; 7; 63; 95; 65; 6; 95; 26 |]);
  ("randint_3x3_-5_5", [| 3; 3 |], I [| 1; -5; -5; -5; 1; 4; 1; -5; 4 |]);
  ("randint_2x2x3", [| 2; 2; 3 |], I [| 0; 7; 9; 6; 4; 7; 8; 3; 7; 3; 3; 6 |]);
  ("rand_f16_7", [| 7 |], F16 [| 13364; 14404; 13500; 14684; 12424; 14874; 12704 |]);
  ("rand_f64_3", [| 3 |], F64 [| 0x3f84052c830c6000L; 0x3fbe218e971ce080L; 0x3fd7d0a7e7e057d8L |]);
  ("uniform_2x3", [| 2; 3 |], F32 [| 1084328960; 1074069832; 1077526788; 1077691164; 1086414692; 1084179102 |]);
  ("normal_2x3", [| 2; 3 |], F32 [| 1096721664; 1092226248; 1096056396; 1091012589; 1090792745; 1091697893 |]);
  ("kaiming_uniform_2x3", [| 2; 3 |], F32 [| 3198960289; 3216079021; 3213634706; 3213518481; 1014527313; 3199807972 |]);
  ("glorot_uniform_2x3", [| 2; 3 |], F32 [| 3196416093; 3213457859; 3210291948; 3210111883; 1010857711; 3197072737 |]);
  ("kaiming_normal_2x3", [| 2; 3 |], F32 [| 1070372354; 3189470334; 1068199706; 3206533815; 3207969759; 3199667045 |]);
  ("scaled_uniform_2x3", [| 2; 3 |], F32 [| 3183930179; 3201101763; 3198279170; 3198144957; 999257186; 3184909047 |]);
  (* a = Tensor.rand(3); a.realize(); Tensor.rand(4) *)
  ("rand_seq_second", [| 4 |], F32 [| 1062914612; 1042550032; 1061499680; 1064022720 |]);
  (* Tensor.rand(3).cat(Tensor.rand(4)), both unrealized: the second draw reads the counter after the first assign *)
  ("rand_seq_lazy", [| 7 |], F32 [| 1057525314; 1059819338; 1061378340; 1062914612; 1042550032; 1061499680; 1064022720 |]);
]

(* the draw of each golden case (after manual_seed 42) *)
let draw name : T.t =
  match name with
  | "rand_5" -> T.rand [| 5 |]
  | "rand_2x3" -> T.rand [| 2; 3 |]
  | "rand_3x4x5" -> T.rand [| 3; 4; 5 |]
  | "randn_7" -> T.randn [| 7 |]
  | "randn_2x3" -> T.randn [| 2; 3 |]
  | "randn_4x4x2" -> T.randn [| 4; 4; 2 |]
  | "randint_10_0_100" -> T.randint ~low:0 ~high:100 [| 10 |]
  | "randint_3x3_-5_5" -> T.randint ~low:(-5) ~high:5 [| 3; 3 |]
  | "randint_2x2x3" -> T.randint ~high:10 [| 2; 2; 3 |]
  | "rand_f16_7" -> T.rand ~dtype:Dtype.Float16 [| 7 |]
  | "rand_f64_3" -> T.rand ~dtype:Dtype.Float64 [| 3 |]
  | "uniform_2x3" -> T.uniform ~low:2. ~high:10. [| 2; 3 |]
  | "normal_2x3" -> T.normal ~mean:10. ~std:2. [| 2; 3 |]
  | "kaiming_uniform_2x3" -> T.kaiming_uniform [| 2; 3 |]
  | "glorot_uniform_2x3" -> T.glorot_uniform [| 2; 3 |]
  | "kaiming_normal_2x3" -> T.kaiming_normal [| 2; 3 |]
  | "scaled_uniform_2x3" -> T.scaled_uniform [| 2; 3 |]
  | "rand_seq_second" -> ignore (T.realize (T.rand [| 3 |])); T.rand [| 4 |]
  | "rand_seq_lazy" ->
    (* draw in program order: OCaml evaluates a list literal's elements (and a call's arguments) right to left *)
    let a = T.rand [| 3 |] in
    let b = T.rand [| 4 |] in
    T.cat [ a; b ]
  | n -> fail "no draw %s" n

let f32_bits f = Int32.to_int (Int32.bits_of_float f) land 0xffffffff

let check_values name (t : T.t) (shape : int array) (e : expect) =
  check (T.shape t = shape) "%s: shape" name;
  let cmp : 'a. string -> ('a -> string) -> 'a array -> 'a array -> unit = fun what pp exp got ->
    check (Array.length exp = Array.length got) "%s: %d values, expected %d" name (Array.length got) (Array.length exp);
    Array.iteri (fun i x -> if x <> got.(i) then fail "%s: %s[%d] = %s, expected %s" name what i (pp got.(i)) (pp x)) exp in
  match e with
  | F32 b ->
    check (T.dtype t = Dtype.Float32) "%s: dtype %s" name (Dtype.to_string (T.dtype t));
    cmp "bits" (Printf.sprintf "0x%08x") b (Array.map f32_bits (T.to_float_array t))
  | F16 b ->
    check (T.dtype t = Dtype.Float16) "%s: dtype %s" name (Dtype.to_string (T.dtype t));
    cmp "bits" (Printf.sprintf "0x%04x") b (T.to_int_array (T.bitcast (T.realize t) Dtype.Uint16))
  | F64 b ->
    check (T.dtype t = Dtype.Float64) "%s: dtype %s" name (Dtype.to_string (T.dtype t));
    cmp "bits" (Printf.sprintf "0x%016Lx") b (Array.map Int64.bits_of_float (T.to_float_array t))
  | I v ->
    check (T.dtype t = Dtype.Int32) "%s: dtype %s" name (Dtype.to_string (T.dtype t));
    cmp "value" string_of_int v (T.to_int_array t)

(* draws known to differ, with the reason: reported (printed), not failed *)
let known_failures : (string * string) list = []

let golden_cases =
  List.map (fun (name, shape, e) ->
      ("seed42_" ^ name, fun () ->
          T.manual_seed 42;
          match List.assoc_opt name known_failures with
          | None -> check_values name (draw name) shape e
          | Some why ->
            (match check_values name (draw name) shape e with
             | () -> Printf.printf "  rand %s: passes now, remove it from known_failures\n" name
             | exception Failed m -> Printf.printf "  rand %s: KNOWN FAILURE (%s): %s\n" name why m))) golden

(* ---------- SHA-256 (FIPS 180-2 vectors) and the device key word ---------- *)

let hex s = String.concat "" (List.init (String.length s) (fun i -> Printf.sprintf "%02x" (Char.code s.[i])))

let test_sha256 () =
  check_str ~what:"sha256 abc" "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" (hex (Mixin_rand.sha256 "abc"));
  check_str ~what:"sha256 empty" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" (hex (Mixin_rand.sha256 ""));
  check_str ~what:"sha256 two blocks" "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    (hex (Mixin_rand.sha256 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"));
  (* int.from_bytes(hashlib.sha256((0).to_bytes(4, "big")).digest(), "big") & 0xffffffff, from the venv *)
  check_int ~what:"device 0 key word" 347607321 (Mixin_rand.device_seed_word 0)

(* ---------- state ---------- *)

let test_reseed () =
  T.manual_seed 7;
  let a = T.to_float_array (T.rand [| 6 |]) in
  let b = T.to_float_array (T.rand [| 6 |]) in
  T.manual_seed 7;
  let a' = T.to_float_array (T.rand [| 6 |]) in
  check (a = a') "manual_seed: the same seed must give the same draw";
  check (a <> b) "two successive draws must differ";
  Array.iter (fun x -> check (x >= 0.0 && x < 1.0) "rand: %g outside [0, 1)" x) (Array.append a b)

(* ---------- dropout, attention, multinomial vs tinygrad ---------- *)

let close name (exp : float array) (got : float array) =
  check (Array.length exp = Array.length got) "%s: %d values, expected %d" name (Array.length got) (Array.length exp);
  Array.iteri (fun i e ->
      if Float.abs (e -. got.(i)) > 1e-6 *. Float.max 1.0 (Float.abs e) then
        fail "%s[%d] = %.9g, expected %.9g" name i got.(i) e) exp

let test_dropout () =
  let x = T.add (T.reshape (T.arange ~dtype:Dtype.Float32 12) [| 3; 4 |]) (T.scalar 1.) in
  let x = T.realize (T.contiguous x) in
  (* not training: the identity, and it draws nothing *)
  check (T.dropout ~p:0.3 x == x) "dropout is the identity unless training";
  (* Tensor.manual_seed(5); with Context(TRAINING=1): x.dropout(0.3) *)
  T.manual_seed 5;
  let y = Helpers.context [ Helpers.Bind (Helpers.training, 1) ] (fun () -> T.dropout ~p:0.3 x) in
  close "dropout" [| 0.0; 2.857142925262451; 4.285714149475098; 0.0; 0.0; 8.571428298950195; 10.0; 11.428571701049805;
                     0.0; 0.0; 15.714285850524902; 17.14285659790039 |] (T.to_float_array y);
  check_invalid_arg ~what:"dropout p=1.5" (fun () ->
    Helpers.context [ Helpers.Bind (Helpers.training, 1) ] (fun () -> T.dropout ~p:1.5 x))

let sdpa_inputs () =
  let q = T.of_float_array [| 2; 3; 4 |] (Array.init 24 (fun i -> Int32.float_of_bits (Int32.bits_of_float (float_of_int i *. 0.1 -. 1.0)))) in
  let k = T.of_float_array [| 2; 3; 4 |] (Array.init 24 (fun i -> sin (float_of_int i))) in
  let v = T.of_float_array [| 2; 3; 4 |] (Array.init 24 (fun i -> cos (float_of_int i))) in
  (q, k, v)

let test_sdpa () =
  let q, k, v = sdpa_inputs () in
  (* q.scaled_dot_product_attention(k, v) *)
  close "sdpa" [| -0.29380375146865845; -0.0008543066796846688; 0.2928806245326996; 0.3173424303531647; -0.15168790519237518;
                  -0.00013853983546141535; 0.1515382081270218; 0.16389143466949463; 0.026323912665247917; 0.028324062004685402;
                  0.004283190704882145; -0.02369561232626438; 0.2846296429634094; 0.1740417629480362; -0.09655933082103729;
                  -0.27838417887687683; 0.4479910433292389; 0.2666434943675995; -0.15985485911369324; -0.4393833577632904;
                  0.5586845278739929; 0.3438499867916107; -0.18711866438388824; -0.5460512638092041 |]
    (T.to_float_array (T.scaled_dot_product_attention q k v));
  (* is_causal=True *)
  close "sdpa causal" [| 1.0; 0.5403022766113281; -0.416146844625473; -0.9899924993515015; -0.15414215624332428; 0.36118316650390625;
                         0.544438362121582; 0.2271394431591034; 0.026323912665247917; 0.028324062004685402; 0.004283190704882145;
                         -0.02369561232626438; 0.8438539505004883; 0.9074468016624451; 0.13673721253871918; -0.7596879005432129;
                         0.46727970242500305; 0.6602432727813721; 0.2461821734905243; -0.3942176401615143; 0.5586845278739929;
                         0.3438499867916107; -0.18711866438388824; -0.5460512638092041 |]
    (T.to_float_array (T.scaled_dot_product_attention ~is_causal:true q k v));
  (* attn_mask=Tensor([[True, False, True],[True, True, False],[False, True, True]]) *)
  let m = T.of_int_array ~dtype:Dtype.Bool [| 3; 3 |] [| 1; 0; 1; 1; 1; 0; 0; 1; 1 |] in
  close "sdpa mask" [| 0.23988021910190582; -0.42282524704933167; -0.6967870593070984; -0.3301261365413666; -0.15414215624332428;
                       0.36118316650390625; 0.544438362121582; 0.2271394431591034; -0.4406246840953827; -0.21720679104328156;
                       0.20591002702713013; 0.43971413373947144; 0.6654645204544067; 0.3117496073246002; -0.3285864591598511;
                       -0.6668216586112976; 0.46727970242500305; 0.6602432727813721; 0.2461821734905243; -0.3942176401615143;
                       0.13512538373470306; -0.49325433373451233; -0.6681382656097412; -0.22873899340629578 |]
    (T.to_float_array (T.scaled_dot_product_attention ~attn_mask:m q k v));
  check_invalid_arg ~what:"sdpa mask with is_causal" (fun () -> T.scaled_dot_product_attention ~attn_mask:m ~is_causal:true q k v)

let test_multinomial () =
  (* Tensor.manual_seed(42); Tensor([1.,2.,3.,4.]).multinomial(10, replacement=True) *)
  T.manual_seed 42;
  let w = T.of_float_array [| 4 |] [| 1.; 2.; 3.; 4. |] in
  let s = T.multinomial ~num_samples:10 ~replacement:true w in
  check (T.dtype s = Dtype.Int32) "multinomial dtype";
  check (T.to_int_array s = [| 3; 0; 0; 0; 3; 3; 3; 0; 3; 1 |]) "multinomial values %s"
    (String.concat "," (Array.to_list (Array.map string_of_int (T.to_int_array s))))

let ints t = String.concat "," (Array.to_list (Array.map string_of_int (T.to_int_array t)))

let test_multinomial_no_replacement () =
  (* Tensor.manual_seed(42); Tensor([1,2,3,4]).multinomial(3, replacement=False) *)
  T.manual_seed 42;
  let s = T.multinomial ~num_samples:3 (T.of_int_array [| 4 |] [| 1; 2; 3; 4 |]) in
  check (T.shape s = [| 3 |] && T.dtype s = Dtype.Int32) "multinomial without replacement: shape / dtype";
  check (T.to_int_array s = [| 2; 1; 3 |]) "multinomial without replacement: %s" (ints s);
  (* Tensor.manual_seed(42); Tensor([[1.,2,3,4],[4,3,2,1]]).multinomial(2, replacement=False) *)
  T.manual_seed 42;
  let s = T.multinomial ~num_samples:2 (T.of_float_array [| 2; 4 |] [| 1.; 2.; 3.; 4.; 4.; 3.; 2.; 1. |]) in
  check (T.to_int_array s = [| 1; 3; 0; 2 |]) "multinomial 2-d without replacement: %s" (ints s)

let test_randperm () =
  (* Tensor.manual_seed(42); Tensor.randperm(6) / Tensor.randperm(10, dtype=dtypes.int64) *)
  T.manual_seed 42;
  let p = T.randperm 6 in
  check (T.dtype p = Dtype.Int32) "randperm dtype";
  check (T.to_int_array p = [| 1; 2; 3; 5; 0; 4 |]) "randperm 6: %s" (ints p);
  T.manual_seed 42;
  let p = T.randperm ~dtype:Dtype.Int64 10 in
  check (T.dtype p = Dtype.Int64) "randperm int64 dtype";
  check (T.to_int_array p = [| 7; 3; 1; 2; 9; 4; 6; 0; 5; 8 |]) "randperm 10: %s" (ints p)

(* the rand mixin over a second carrier, UOps, whose counter is a fixed (key, counter) pair *)
module Uop_rand (K : sig val key : unit -> Uop.t val counter : unit -> Uop.t end) = Mixin_rand.Make (struct
    type t = Uop.t
    let uop u = u
    let wrap_uop ~op:_ u = u
    let next_counter _device _num = (K.key (), K.counter ())
  end)

let bits_of u = Array.map f32_bits (T.to_float_array (Tensor_base.wrap u))
let bits_str b = String.concat "," (Array.to_list (Array.map string_of_int b))
let seed42_key = [ Mixin_rand.device_seed_word 0; 42 ]

let test_uop_carrier () =
  (* buffers, as Tensor's counter: the first draw on the CPU after manual_seed 42 is tinygrad's rand_5 *)
  let module R = Uop_rand (struct
      let buf ws = T.uop (T.of_int_array ~dtype:Dtype.Uint32 [| 2 |] (Array.of_list ws))
      let key () = buf seed42_key
      let counter () = buf [ 0; 0 ]
    end) in
  let u = R.rand [| 5 |] in
  check (u.Uop.dtype == Dtype.Float32) "UOp rand dtype";
  let got = bits_of u in
  check (got = [| 1052973056; 1008740608; 1038550032; 1039207536; 1057054564 |]) "UOp rand bits: %s" (bits_str got);
  check_invalid_arg ~what:"UOp rand negative shape" (fun () -> R.rand [| -1 |]);
  (* device-less CONST words; tinygrad gives the same bits (NaNs included):
       k = Tensor(w0, dtype=dtypes.uint32).reshape(1).cat(Tensor(42, dtype=dtypes.uint32).reshape(1)); c likewise [0, 0]
       Tensor._rand(k, c, (5,), dtypes.float32).numpy().view(np.uint32) *)
  let module C = Uop_rand (struct
      let words ws =
        Mixin_op.cat (List.map (fun w -> Mixin_movement.reshape (Uop.const ~dtype:Dtype.Uint32 (Dtype.I (Z.of_int w)))
                                        [ Uop.Sint 1 ]) ws)
      let key () = words seed42_key
      let counter () = words [ 0; 0 ]
    end) in
  let got = bits_of (C.rand [| 5 |]) in
  check (got = [| 2143289344; 3223437404; 2143289344; 2143289344; 2143289344 |]) "UOp rand of CONSTs: %s" (bits_str got)

let test_bad_input () =
  check_invalid_arg ~what:"rand int dtype" (fun () -> T.rand ~dtype:Dtype.Int32 [| 3 |]);
  check_invalid_arg ~what:"rand negative shape" (fun () -> T.rand [| 2; -1 |]);
  check_invalid_arg ~what:"randint low >= high" (fun () -> T.randint ~low:5 ~high:5 [| 3 |]);
  check_invalid_arg ~what:"randint float dtype" (fun () -> T.randint ~dtype:Dtype.Float32 ~high:5 [| 3 |]);
  check_invalid_arg ~what:"uniform low >= high" (fun () -> T.uniform ~low:1. ~high:0. [| 3 |]);
  check_invalid_arg ~what:"normal std < 0" (fun () -> T.normal ~std:(-1.) [| 3 |]);
  check_invalid_arg ~what:"dropout p < 0" (fun () -> T.dropout ~p:(-0.1) (T.ones [| 2 |]))

let tests : case list =
  golden_cases
  @ [ ("sha256", test_sha256); ("manual_seed_reproducible", test_reseed); ("dropout", test_dropout);
      ("multinomial_no_replacement", test_multinomial_no_replacement); ("randperm", test_randperm);
      ("uop_carrier", test_uop_carrier);
      ("scaled_dot_product_attention", test_sdpa); ("multinomial", test_multinomial); ("bad_input", test_bad_input) ]
