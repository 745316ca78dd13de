(* Tests of the Tensor frontend (src/tensor.ml, src/mixin/mixin_*.ml).
   1. Graph construction: the UOp graph a tensor program builds is compared with tinygrad's by UOp.key
      (test/gen_tensor_oracle.py prints tinygrad 0.14.0's keys; inputs are Tensor.empty, BUFFER slots numbered from 0
      per case as in a fresh tinygrad process).
   2. Values after realize, against numpy (the numbers were computed with the venv and stored here).
   3. Bad input raises Invalid_argument naming the op. *)

open Tinygrad.Compiler
open Test_util

let tinygrad_keys = [
    ("add_broadcast", "9a3b62c1f074046a2734200165aa9a7f21ea7739120fdbd8b1ff0cb563e700b4");
    ("mul_col", "92aa1387f2541ad3b656e93b86bbc6ca8e9bf911a7b4ec405c4664e6cb61efe5");
    ("sub_scalar", "2ee9a66ae669e029ddedea9d2c023e101cb92941dbe69fc7b7973f5f9114ea4b");
    ("rsub_scalar", "f0e5351da28123a4e246f77bfb79396f14010855e60511b7fc33a3073ed34128");
    ("div", "41faa286353c994a91969c5845b2f4806aaba973cea4f8fb10ebd13be7eeee53");
    ("int_div", "115cee4b1212861cf1e68734531726fa6addd9465bef16fb47d8793accf489ac");
    ("int_idiv_mod", "067fb5014a66ab7a98cd086776d7628084a423104e2928308651f13f934ea9d1");
    ("float_idiv", "c51970e009a7eea3e6a17f5da3c82dae69ffdb440abc7454cbfbd1825fc59ea2");
    ("float_mod", "9ee98d4dba317f7dd7344ba5646f1c40b07d583cb7fe17f6da2431ee9b30149f");
    ("int_plus_frac_scalar", "fcd8408ebc30d7868d85b012b9a6622fd668a6029aae9c77985ccbb1c1208348");
    ("int_plus_float_scalar", "039d0c0fbe7ba0f3ae64ab9750126f8c08fb463bcb7d048ab9b2ab0057727c36");
    ("int_plus_int_scalar", "6933d3654b29716cdcd52ef1b621489efc3ee727f26fa410febcc609fcc00af4");
    ("sum_axis1", "d42fbd772264e6346ee8d6a397fc5090d2f1e4403342955bf86ff7e94d1d0dcd");
    ("sum_keepdim0", "1e812f2f3f106db445c85f324b62a1f6f61b3e8bd59e109f6fb4100f8a111848");
    ("sum_all", "96e1e60d96b822bdad88701164112c14196ee6da62c72c10f5fd69419ee8b880");
    ("sum_axes", "53caebb111881082677bb7f1b0a09c609ad4df9341cb921ddac09e4036a84c42");
    ("sum_half", "1f051d23a918afa5d9be6e0e7e1dff5ccbf149309d92899e5548b4a776b085bf");
    ("sum_int", "a5234788060800a76a463f0154bfab8a730b76777c70d9837267ef28aae35cf1");
    ("sum_size1", "27815e2c02914e132353d9013ec47f32b5daca4b56aeee9071b54348240aed6f");
    ("max_all", "c928d00299f6e25e36913a88d963853271574e399a2077f3f39c1f60362dabf9");
    ("min_axis", "37c825c716341ee400349d3cc5a6212d36a5bb62844705531e9030073e062fa4");
    ("min_int", "6091589786b7ca3882f727bf6f3e66701eba1015e102565f41e767492922ca5a");
    ("prod", "53b264b9d688cca40b7519db130f4ad6e318a1925ef9aebc6a041b1719f8d139");
    ("mean", "9e21cf22db15cc6d4075eaa7646e6927b7d2c8cd58288afee32e81e1a3a2866a");
    ("mean_axis_keep", "5a9bf4e1058cbd35f5689c09789c719769e7355120d2cb9cf824a68a09cebf14");
    ("mean_int", "a0d180b1bc9913fbdd27fc34d2b9a7771d2165a12f342a17b4578f426c58a9ad");
    ("var", "ba4d53c2c236c7238bdacb8337feb1da93f3998f596c274672fb848e224bc595");
    ("std", "1aceab18a66687ea1a98641a4cc1d1b388ff1dbf5058ead8545afa7d7e3dce0c");
    ("any_all", "4e1096961ce2f521e1e4a39bec4b9835f2c403237a70c26d82ce19474fbcbbd9");
    ("reshape_m1", "370bc969bda7ce96845929e1a6d633981321b6627ab12c5b4792577688fd6ce6");
    ("transpose", "f2aeceea9585848f2a4e00d21d4a2b1cf2da326cc6383c95f170a14d35f0ade6");
    ("permute", "a584871bfae89919ea6195473a50036c69e8c15e51b49cc33ed40c52b07b787d");
    ("expand", "f276538e5660b35e6f1e7725f28ff8a0a91d5f94fdb8bfffe1a342773154cccd");
    ("expand_m1", "f82b9538e6b8ed966f12a708c3dc26bbe7160303a663dd2b06e2889bc43eeebc");
    ("pad_value", "c7fcc16e2d87116795b87d1c536300f4e555a1bdd10007eaa8b04a35755e56f5");
    ("pad_neg", "22691740eecdfea5de5e26ab3b28d715ab3b09f66a8e0989470210afdcab8a4a");
    ("shrink", "5ed33d154b4d903653ac4187a2312a5555e132e0b1da5e0772fde70c7126bbd9");
    ("flip", "7ae3204b79707890ce270d720909f562833df4b3a414399658b0f2a8f5226ee3");
    ("flip2", "5f5b744d5e21630efa512cb3e7670bd981bcdb58077f963f7e5223d2932a0f68");
    ("cat_same", "ef5e2e9d6c1643c2622dcd9e3e6c542005299432bb49f2fa0e272bfb9944b004");
    ("cat_diff", "0756063777ce6ef7ffb5068a9bfc427735343dfe5046035356573f63c8b75d13");
    ("cat_dim1", "220f37da3ecae73b39e5650c7ae94c432760fcc09ddcd4b6c75d9c7788475aa4");
    ("stack1", "8c3f6d87d946e5bd5e6b9d6d865f4ed246583ef6a9f5595f4b86d6f9791f9045");
    ("repeat", "ab6913a3389e6622719c46a9b10b0af186437ff744340473a6055c34b04c46b1");
    ("squeeze", "27815e2c02914e132353d9013ec47f32b5daca4b56aeee9071b54348240aed6f");
    ("squeeze_dim", "27815e2c02914e132353d9013ec47f32b5daca4b56aeee9071b54348240aed6f");
    ("unsqueeze", "f8d1ba4e71b5ddd10f39b27c669d25acea16b29731f4bcf2101c89d4a8a092e4");
    ("flatten", "60ef0a7d2d50ec1b41a174b18e091de7d53ad85a55304eff9f7a03250082660e");
    ("unary_chain", "a94dfddb89642791fafb82eef1a638d1490cc8dc86ed13dc307bada36afcc086");
    ("unary_chain2", "587809c6da9b55f2321399a043d7f903301cd4874429c753e5049823de9c48d9");
    ("unary_chain3", "7e1baaced2693823f407e87760ad64f956e1e2346874ba128b439e6a609f7e05");
    ("where", "b135f42c7247407004ab2a8b197db1894c98378075136ebf1432d1a745501410");
    ("compare", "f0d6e8a8e373399b31790d7577f3f9f4ca890a45f68499888969bc251246f087");
    ("maximum_minimum", "b1d38b94beb8338023a191b0352a7d6206142be650bbe1a9a7642d70441c4ee7");
    ("minimum_int", "cb4a6f2ea26e9916293271ad3e270fc22e25ca16ca857c5d5dc3e3de23ef93cb");
    ("pow", "867f76b37f235b0cd7270492b9d362cce3117b975f92a6e174cfa96987d53bca");
    ("neg_bool", "f0ceac3aa2e53cc9bcb98acf15ca799cb8c8c21b3972a7664159baf706ca3739");
    ("logical_not", "f0ceac3aa2e53cc9bcb98acf15ca799cb8c8c21b3972a7664159baf706ca3739");
    ("cast", "08d8002d6d2396da48d767a097f2784341c277f011554227b1d6b1abc12006ee");
    ("bitcast", "3e77c98e954694f5df908ffea1c0aa3b6a8103736421d09d709665ef0f01d310");
    ("full", "4292a7df062b89784f1c81e362013873e2d1ce2e4ca0c3e267b193859161f85f");
    ("ones", "1bcc5341000f83e8b389a7c0d555c64d4404895b88f4d141ae3761b6179cbcc6");
    ("zeros_int", "aeddd859c167426649c4d0dfc0108cbcc773c91d5110a198ac41b65c48994368");
    ("contiguous", "cd9f94e97066f065fd28c01c2a5f2ef4ea6d22dc859bf47961a311b3b866abcb");
    ("bitwise_int", "ec06ee0b385bb8280ecd651e32b51fe364170310bdc83f4ece2654d8c77b546e");
    ("mul_scalar_expand", "c73e2b223178acbf83a9d1ae493e74717aec7c804355378a01e9a8b48ba00fde");
    ("getitem_like_views", "e1cd99c4883b9ca33d94045dfb5783f6e118bce21024c152d4ede6519b9802fa");
    ("split_chunk", "c334e00a9332f742e3d0b5c975b171212243b260873aa1a2db2c6bf0b368d5ad");
    ("roll", "ca78646bb47fa572f4116ae494583fcc6a41af1ed72481cfbfa49175bb78c0e5");
    ("repeat_interleave", "201262f08c4f312e1218b3de576fb1ec619c13f64a9e10a86b8e95be1a23f0cb");
    ("assign", "c7386f961b23f5f43b01041e6d1071a01a3a87bd70c588af3cd3a5034b8efba1");
  ]

module T = Tensor

let e ?(dtype = Dtype.Float32) shp = T.empty ~dtype shp
let f x = T.scalar x
let i x = T.scalar_int x

(* builds [f ()] with BUFFER slots counted from 0 (as tinygrad's UOp.unique_num in a fresh process) *)
let with_fresh_slots f =
  let saved = !Buffers.unique_num in
  Buffers.unique_num := 0;
  let r = (try f () with ex -> Buffers.unique_num := Stdlib.max saved !Buffers.unique_num; raise ex) in
  Buffers.unique_num := Stdlib.max saved !Buffers.unique_num;
  r

let graph ?key name (build : unit -> T.t) : case =
  ("graph_" ^ name, fun () ->
      let key = Option.value key ~default:name in
      let expected = match List.assoc_opt key tinygrad_keys with Some k -> k | None -> fail "no oracle key for %s" name in
      let t = with_fresh_slots build in
      let got = Golden.hex (Golden.uop_key (T.uop t)) in
      if got <> expected then fail "%s: UOp.key differs from tinygrad's; ours:\n%s" name (Uop.pretty_print (T.uop t)))

let i32 = Dtype.Int32

let graph_cases = [
  graph "add_broadcast" (fun () -> let a = e [| 2; 3 |] in let b = e [| 3 |] in T.add a b);
  graph "mul_col" (fun () -> let a = e [| 2; 3 |] in let b = e [| 2; 1 |] in T.mul a b);
  graph "sub_scalar" (fun () -> T.sub (e [| 2; 3 |]) (f 1.5));
  graph "rsub_scalar" (fun () -> T.sub (f 2.0) (e [| 2; 3 |]));
  graph "div" (fun () -> let a = e [| 2; 3 |] in let b = e [| 3 |] in T.div a b);
  graph "int_div" (fun () -> let a = e ~dtype:i32 [| 4 |] in let b = e ~dtype:i32 [| 4 |] in T.div a b);
  graph "int_idiv_mod" (fun () -> let a = e ~dtype:i32 [| 4 |] in let b = e ~dtype:i32 [| 4 |] in T.add (T.idiv a b) (T.( mod ) a b));
  graph "float_idiv" (fun () -> let a = e [| 4 |] in let b = e [| 4 |] in T.idiv a b);
  graph "float_mod" (fun () -> let a = e [| 4 |] in let b = e [| 4 |] in T.( mod ) a b);
  (* [scalar 3.] is a float literal: an int tensor plus it is tinygrad's [a + 3.0] (a weak float) *)
  graph "int_plus_float_scalar" (fun () -> T.add (e ~dtype:i32 [| 4 |]) (f 3.0));
  graph "int_plus_frac_scalar" (fun () -> T.add (e ~dtype:i32 [| 4 |]) (f 3.5));
  graph "int_plus_int_scalar" (fun () -> T.add (e ~dtype:i32 [| 4 |]) (i 3));
  graph "sum_axis1" (fun () -> T.sum ~axis:[ 1 ] (e [| 2; 3 |]));
  graph "sum_keepdim0" (fun () -> T.sum ~axis:[ 0 ] ~keepdim:true (e [| 2; 3 |]));
  graph "sum_all" (fun () -> T.sum (e [| 2; 3; 4 |]));
  graph "sum_axes" (fun () -> T.sum ~axis:[ 0; 2 ] (e [| 2; 3; 4 |]));
  graph "sum_half" (fun () -> T.sum (e ~dtype:Dtype.Float16 [| 2; 3 |]));
  graph "sum_int" (fun () -> T.sum ~axis:[ 1 ] (e ~dtype:Dtype.Int8 [| 2; 3 |]));
  graph "sum_size1" (fun () -> T.sum ~axis:[ 1 ] (e [| 2; 1; 3 |]));
  graph "max_all" (fun () -> T.max (e [| 2; 3 |]));
  graph "min_axis" (fun () -> T.min ~axis:[ 1 ] (e [| 2; 3 |]));
  graph "min_int" (fun () -> T.min ~axis:[ 0 ] (e ~dtype:i32 [| 2; 3 |]));
  graph "prod" (fun () -> T.prod ~axis:[ 0 ] (e [| 2; 3 |]));
  graph "mean" (fun () -> T.mean (e [| 2; 3 |]));
  graph "mean_axis_keep" (fun () -> T.mean ~axis:[ 1 ] ~keepdim:true (e [| 2; 3 |]));
  graph "mean_int" (fun () -> T.mean ~axis:[ 0 ] (e ~dtype:i32 [| 2; 3 |]));
  graph "var" (fun () -> T.var ~axis:[ 1 ] (e [| 2; 3 |]));
  graph "std" (fun () -> T.std (e [| 4; 3 |]));
  graph "any_all" (fun () -> let a = e [| 2; 3 |] in T.add (T.any ~axis:[ 0 ] a) (T.all ~axis:[ 0 ] a));
  graph "reshape_m1" (fun () -> T.reshape (e [| 2; 3 |]) [| 3; -1 |]);
  graph "transpose" (fun () -> T.transpose ~dim0:(-2) ~dim1:(-1) (e [| 2; 3; 4 |]));
  graph "permute" (fun () -> T.permute (e [| 2; 3; 4 |]) [| 2; 0; 1 |]);
  graph "expand" (fun () -> T.expand (e [| 3; 1 |]) [| 2; 3; 4 |]);
  graph "expand_m1" (fun () -> T.expand (e [| 3; 1 |]) [| -1; 4 |]);
  graph "pad_value" (fun () -> T.pad ~value:1.5 (e [| 2; 3 |]) [| (1, 0); (0, 2) |]);
  graph "pad_neg" (fun () -> T.pad (e [| 2; 3 |]) [| (-1, 0); (1, 1) |]);
  graph "shrink" (fun () -> T.shrink (e [| 2; 3 |]) [| (0, 1); (1, 3) |]);
  graph "flip" (fun () -> T.flip (e [| 2; 3 |]) [ 0 ]);
  graph "flip2" (fun () -> T.flip (e [| 2; 3 |]) [ 0; 1 ]);
  graph "cat_same" (fun () -> let a = e [| 2; 3 |] in T.cat ~dim:0 [ a; a ]);
  graph "cat_diff" (fun () -> let a = e [| 2; 3 |] in let b = e [| 1; 3 |] in T.cat ~dim:0 [ a; b ]);
  graph "cat_dim1" (fun () -> let a = e [| 2; 3 |] in let b = e [| 2; 2 |] in let c = e [| 2; 1 |] in T.cat ~dim:1 [ a; b; c ]);
  graph "stack1" (fun () -> let a = e [| 2; 3 |] in let b = e [| 2; 3 |] in T.stack ~dim:1 [ a; b ]);
  graph "repeat" (fun () -> T.repeat (e [| 2; 3 |]) [| 2; 1; 2 |]);
  graph "squeeze" (fun () -> T.squeeze (e [| 2; 1; 3 |]));
  graph "squeeze_dim" (fun () -> T.squeeze ~dim:1 (e [| 2; 1; 3 |]));
  graph "unsqueeze" (fun () -> T.unsqueeze (e [| 2; 3 |]) (-1));
  graph "flatten" (fun () -> T.flatten ~start_dim:1 (e [| 2; 3; 4 |]));
  graph "unary_chain" (fun () ->
      let a = e [| 2; 3 |] in
      List.fold_left T.add (T.relu a) [ T.sigmoid a; T.tanh a; T.gelu a; T.exp a; T.log a; T.sqrt a; T.cos a ]);
  graph "unary_chain2" (fun () ->
      let a = e [| 2; 3 |] in
      List.fold_left T.add (T.abs a) [ T.round a; T.floor a; T.ceil a; T.sign a; T.leaky_relu a; T.elu a; T.softplus a; T.silu a ]);
  graph "unary_chain3" (fun () ->
      let a = e [| 2; 3 |] in
      List.fold_left T.add (T.clip ~min:(-1.0) ~max:2.0 a)
        [ T.tan a; T.rsqrt a; T.square a; T.exp2 a; T.log2 a; T.sin a; T.reciprocal a; T.trunc a ]);
  graph "where" (fun () -> let a = e [| 2; 3 |] in let b = e [| 3 |] in T.where (T.gt a (i 0)) a b);
  graph "compare" (fun () ->
      let a = e [| 2; 3 |] in let b = e [| 3 |] in
      (* python precedence: ((a < b) & (a >= b)) | ((a <= b) ^ (a == b)) | (a != b) *)
      T.bitwise_or (T.bitwise_or (T.bitwise_and (T.lt a b) (T.ge a b)) (T.bitwise_xor (T.le a b) (T.eq a b))) (T.ne a b));
  graph "maximum_minimum" (fun () -> let a = e [| 2; 3 |] in let b = e [| 3 |] in T.add (T.maximum a b) (T.minimum a b));
  graph "minimum_int" (fun () -> let a = e ~dtype:i32 [| 3 |] in let b = e ~dtype:i32 [| 3 |] in T.minimum a b);
  graph "pow" (fun () -> let a = e [| 3 |] in let b = e [| 3 |] in T.pow a b);
  graph "neg_bool" (fun () -> T.neg (T.gt (e [| 3 |]) (i 0)));
  graph "logical_not" (fun () -> T.logical_not (T.gt (e [| 3 |]) (i 0)));
  graph "cast" (fun () -> T.cast (T.cast (e [| 3 |]) i32) Dtype.Float16);
  graph "bitcast" (fun () -> T.bitcast (e [| 3 |]) Dtype.Uint32);
  graph "full" (fun () -> T.full [| 2; 3 |] 42.0);
  graph "ones" (fun () -> T.ones [| 2; 3 |]);
  graph "zeros_int" (fun () -> T.zeros ~dtype:i32 [| 4 |]);
  graph "contiguous" (fun () -> T.contiguous (T.add (e [| 2; 3 |]) (i 1)));
  graph "bitwise_int" (fun () ->
      let a = e ~dtype:i32 [| 4 |] in let b = e ~dtype:i32 [| 4 |] in
      T.bitwise_or (T.bitwise_or (T.bitwise_or (T.bitwise_and a b) (T.bitwise_xor a b)) (T.lshift a b)) (T.rshift a b));
  graph "mul_scalar_expand" (fun () -> let a = e [| 3 |] in let b = e [| 4 |] in T.mul (T.reshape a [| 3; 1 |]) b);
  graph "getitem_like_views" (fun () ->
      let a = e [| 4; 4 |] in
      let s = Tensor_base.wrap (Mixin_movement.shrink (T.uop a) [ Some (Uop.Sint 1, Uop.Sint 3); None ]) in
      Tensor_base.wrap (Mixin_movement.pad (T.uop s) [ Some (Uop.Sint 0, Uop.Sint 1); Some (Uop.Sint 2, Uop.Sint 0) ]));
  graph "split_chunk" (fun () ->
      let p = T.split (e [| 5; 2 |]) (`Size 2) in T.add (T.sum (List.nth p 0)) (T.sum (List.nth p 2)));
  graph "roll" (fun () -> T.roll ~dims:[ 0 ] (e [| 4 |]) [ 1 ]);
  graph "repeat_interleave" (fun () -> T.repeat_interleave (e [| 3 |]) 2);
  graph "assign" (fun () -> let a = e [| 2; 3 |] in let b = e [| 2; 3 |] in T.assign a (T.add b (i 1)));
]


(* ---------- values after realize, against numpy (test/gen_tensor_values.py, numpy only) ---------- *)

let numpy_values = [
  ("add_broadcast", [| 11.0; 22.0; 33.0; 14.0; 25.0; 36.0 |]);
  ("sum_axis1", [| 6.0; 15.0 |]);
  ("sum_all", [| 21.0 |]);
  ("mean", [| 3.5 |]);
  ("mean_axis0", [| 2.5; 3.5; 4.5 |]);
  ("max_axis0", [| 4.0; 5.0; 6.0 |]);
  ("min_axis1", [| 1.0; 4.0 |]);
  ("prod_axis0", [| 4.0; 10.0; 18.0 |]);
  ("var_axis1", [| 1.0; 1.0 |]);
  ("std_all", [| 1.8708287477493286 |]);
  ("exp", [| 1.1051709651947021; 1.6487212181091309; 2.7182819843292236; 7.3890557289123535; 20.08553695678711 |]);
  ("log", [| -2.3025851249694824; -0.6931471824645996; 0.0; 0.6931471824645996; 1.0986123085021973 |]);
  ("sqrt", [| 0.3162277638912201; 0.7071067690849304; 1.0; 1.4142135381698608; 1.7320507764816284 |]);
  ("sigmoid", [| 0.07585818002124355; 0.18242552380635635; 0.3775406687981454; 0.5; 0.6224593312018546; 0.8175744761936437; 0.9241418199787566; 0.9758729797050395 |]);
  ("tanh", [| -0.9866142981514303; -0.9051482536448665; -0.46211715726000974; 0.0; 0.46211715726000974; 0.9051482536448665; 0.9866142981514303; 0.998778241397576 |]);
  ("gelu", [| -0.015084266089998577; -0.10042842301976707; -0.15428599017485606; 0.0; 0.34571400982514394; 1.3995715769802328; 2.484915733910001; 3.6997282417174806 |]);
  ("relu", [| 0.0; 0.0; 0.0; 0.0; 0.5; 1.5; 2.5; 3.700000047683716 |]);
  ("abs", [| 2.5; 1.5; 0.5; 0.0; 0.5; 1.5; 2.5; 3.700000047683716 |]);
  ("sign", [| -1.0; -1.0; -1.0; 0.0; 1.0; 1.0; 1.0; 1.0 |]);
  ("floor", [| -3.0; -2.0; -1.0; 0.0; 0.0; 1.0; 2.0; 3.0 |]);
  ("ceil", [| -2.0; -1.0; -0.0; 0.0; 1.0; 2.0; 3.0; 4.0 |]);
  ("round", [| -2.0; -2.0; -0.0; 0.0; 0.0; 2.0; 2.0; 4.0 |]);
  ("trunc", [| -2.0; -1.0; -0.0; 0.0; 0.0; 1.0; 2.0; 3.0 |]);
  ("sin", [| -0.5984721441039565; -0.9974949866040544; -0.479425538604203; 0.0; 0.479425538604203; 0.9974949866040544; 0.5984721441039565; -0.5298361813490535 |]);
  ("cos", [| -0.8011436155469337; 0.0707372016677029; 0.8775825618903728; 1.0; 0.8775825618903728; 0.0707372016677029; -0.8011436155469337; -0.8481000064458513 |]);
  ("idiv", [| -4.0; 3.0; 3.0; -4.0 |]);
  ("mod", [| 1.0; 1.0; -1.0; -1.0 |]);
  ("int_plus_scalar", [| -4.0; 10.0; -4.0; 10.0 |]);
  ("permute", [| 1.0; 4.0; 2.0; 5.0; 3.0; 6.0 |]);
  ("flip0", [| 4.0; 5.0; 6.0; 1.0; 2.0; 3.0 |]);
  ("pad_value", [| 1.5; 1.5; 1.5; 1.5; 1.5; 1.0; 2.0; 3.0; 1.5; 1.5; 4.0; 5.0; 6.0; 1.5; 1.5 |]);
  ("pad_neg", [| 0.0; 4.0; 5.0; 6.0; 0.0 |]);
  ("shrink", [| 2.0; 3.0 |]);
  ("expand", [| 10.0; 10.0; 10.0; 10.0; 20.0; 20.0; 20.0; 20.0; 30.0; 30.0; 30.0; 30.0; 10.0; 10.0; 10.0; 10.0; 20.0; 20.0; 20.0; 20.0; 30.0; 30.0; 30.0; 30.0 |]);
  ("cat_same", [| 1.0; 2.0; 3.0; 4.0; 5.0; 6.0; 1.0; 2.0; 3.0; 4.0; 5.0; 6.0 |]);
  ("cat_diff", [| 1.0; 2.0; 3.0; 4.0; 5.0; 6.0; 10.0; 20.0; 30.0 |]);
  ("cat_dim1", [| 1.0; 2.0; 3.0; 1.0; 2.0; 4.0; 5.0; 6.0; 4.0; 5.0 |]);
  ("stack1", [| 1.0; 2.0; 3.0; 2.0; 4.0; 6.0; 4.0; 5.0; 6.0; 8.0; 10.0; 12.0 |]);
  ("repeat", [| 1.0; 2.0; 3.0; 1.0; 2.0; 3.0; 4.0; 5.0; 6.0; 4.0; 5.0; 6.0; 1.0; 2.0; 3.0; 1.0; 2.0; 3.0; 4.0; 5.0; 6.0; 4.0; 5.0; 6.0 |]);
  ("where", [| 10.0; 20.0; 30.0; 4.0; 5.0; 6.0 |]);
  ("lt", [| 0.0; 0.0; 0.0; 0.0; 0.0; 0.0 |]);
  ("cast_int", [| -2.0; -1.0; 1.0; 2.0 |]);
  ("bitcast", [| 1065353216.0; 3221225472.0 |]);
  ("div_int", [| -3.5; 3.5; 3.5; -3.5 |]);
  ("maximum", [| 2.0; 4.0; 6.0; 4.0; 5.0; 6.0 |]);
  ("minimum", [| 1.0; 2.0; 3.0; 2.0; 4.0; 6.0 |]);
  ("pow", [| 0.0031622777779724037; 0.1767766952966369; 1.0; 5.656854249492381; 15.588457268119896 |]);
  ("softplus", [| 0.07888973429254963; 0.2014132779827524; 0.4740769841801067; 0.6931471805599453; 0.9740769841801067; 1.7014132779827524; 2.5788897342925496; 3.724422892467029 |]);
  ("leaky_relu", [| -0.02499999850988388; -0.014999999664723873; -0.004999999888241291; 0.0; 0.5; 1.5; 2.5; 3.700000047683716 |]);
  ("elu", [| -0.9179150013761012; -0.7768698398515702; -0.3934693402873666; 0.0; 0.5; 1.5; 2.5; 3.700000047683716 |]);
  ("silu", [| -0.18964545005310887; -0.2736382857095345; -0.1887703343990727; 0.0; 0.3112296656009273; 1.2263617142904655; 2.3103545499468914; 3.610730071441896 |]);
  ("square", [| 6.25; 2.25; 0.25; 0.0; 0.25; 2.25; 6.25; 13.690000534057617 |]);
  ("reciprocal", [| 10.0; 2.0; 1.0; 0.5; 0.3333333432674408 |]);
  ("rsqrt", [| 3.1622776985168457; 1.4142135381698608; 1.0; 0.7071067690849304; 0.5773502588272095 |]);
  ("clip", [| -1.0; -1.0; -0.5; 0.0; 0.5; 1.5; 2.0; 2.0 |]);
  ]

let close ?(rtol = 1e-5) ?(atol = 1e-6) a b = Float.abs (a -. b) <= atol +. rtol *. Float.abs b || (Float.is_nan a && Float.is_nan b)

let check_values ?rtol ?atol name (got : float array) =
  let expected = match List.assoc_opt name numpy_values with Some v -> v | None -> fail "no numpy values for %s" name in
  let pp a = "[" ^ String.concat "; " (Array.to_list (Array.map string_of_float a)) ^ "]" in
  if Array.length got <> Array.length expected || not (Array.for_all2 (fun g x -> close ?rtol ?atol g x) got expected) then
    fail "%s: expected %s, got %s" name (pp expected) (pp got)

let va () = T.of_float_array [| 2; 3 |] [| 1.; 2.; 3.; 4.; 5.; 6. |]
let vb () = T.of_float_array [| 3 |] [| 10.; 20.; 30. |]
let vx () = T.of_float_array [| 8 |] [| -2.5; -1.5; -0.5; 0.0; 0.5; 1.5; 2.5; 3.7 |]
let vp () = T.of_float_array [| 5 |] [| 0.1; 0.5; 1.0; 2.0; 3.0 |]
let vi () = T.of_int_array [| 4 |] [| -7; 7; -7; 7 |]
let vj () = T.of_int_array [| 4 |] [| 2; 2; -2; -2 |]

let value ?rtol ?atol name (build : unit -> T.t) : case =
  ("value_" ^ name, fun () -> check_values ?rtol ?atol name (T.to_float_array (build ())))

let ivalue name (build : unit -> T.t) : case =
  ("value_" ^ name, fun () -> check_values name (Array.map float_of_int (T.to_int_array (build ()))))

let value_cases = [
  value "add_broadcast" (fun () -> T.add (va ()) (vb ()));
  value "sum_axis1" (fun () -> T.sum ~axis:[ 1 ] (va ()));
  value "sum_all" (fun () -> T.sum (va ()));
  value "mean" (fun () -> T.mean (va ()));
  value "mean_axis0" (fun () -> T.mean ~axis:[ 0 ] (va ()));
  value "max_axis0" (fun () -> T.max ~axis:[ 0 ] (va ()));
  value "min_axis1" (fun () -> T.min ~axis:[ -1 ] (va ()));
  value "prod_axis0" (fun () -> T.prod ~axis:[ 0 ] (va ()));
  value "var_axis1" (fun () -> T.var ~axis:[ 1 ] (va ()));
  value "std_all" (fun () -> T.std (va ()));
  value "exp" (fun () -> T.exp (vp ()));
  value "log" (fun () -> T.log (vp ()));
  value "sqrt" (fun () -> T.sqrt (vp ()));
  value "sigmoid" (fun () -> T.sigmoid (vx ()));
  value "tanh" (fun () -> T.tanh (vx ()));
  value "gelu" (fun () -> T.gelu (vx ()));
  value "relu" (fun () -> T.relu (vx ()));
  value "abs" (fun () -> T.abs (vx ()));
  value "sign" (fun () -> T.sign (vx ()));
  value "floor" (fun () -> T.floor (vx ()));
  value "ceil" (fun () -> T.ceil (vx ()));
  value "round" (fun () -> T.round (vx ()));
  value "trunc" (fun () -> T.trunc (vx ()));
  value "sin" (fun () -> T.sin (vx ()));
  value "cos" (fun () -> T.cos (vx ()));
  value "softplus" (fun () -> T.softplus (vx ()));
  value "leaky_relu" (fun () -> T.leaky_relu (vx ()));
  value "elu" (fun () -> T.elu (vx ()));
  value "silu" (fun () -> T.silu (vx ()));
  value "square" (fun () -> T.square (vx ()));
  value "reciprocal" (fun () -> T.reciprocal (vp ()));
  value "rsqrt" (fun () -> T.rsqrt (vp ()));
  value "clip" (fun () -> T.clip ~min:(-1.0) ~max:2.0 (vx ()));
  value "pow" (fun () -> T.pow (vp ()) (T.scalar 2.5));
  value "maximum" (fun () -> T.maximum (va ()) (T.mul (T.div (vb ()) (T.scalar 10.)) (T.scalar 2.)));
  value "minimum" (fun () -> T.minimum (va ()) (T.mul (T.div (vb ()) (T.scalar 10.)) (T.scalar 2.)));
  ivalue "idiv" (fun () -> T.idiv (vi ()) (vj ()));
  ivalue "mod" (fun () -> T.( mod ) (vi ()) (vj ()));
  value "int_plus_scalar" (fun () -> let r = T.add (vi ()) (T.scalar 3.) in
                              (* tinygrad: Tensor([...], dtype=int32) + 3.0 is dtypes.weakfloat *)
                              check (T.dtype r == Dtype.Weakfloat) "int + scalar 3. is %s" (Dtype.to_string (T.dtype r)); r);
  value "div_int" (fun () -> T.div (vi ()) (vj ()));
  value "permute" (fun () -> T.permute (va ()) [| 1; 0 |]);
  value "flip0" (fun () -> T.flip (va ()) [ 0 ]);
  value "pad_value" (fun () -> T.pad ~value:1.5 (va ()) [| (1, 0); (0, 2) |]);
  value "pad_neg" (fun () -> T.pad (va ()) [| (-1, 0); (1, 1) |]);
  value "shrink" (fun () -> T.shrink (va ()) [| (0, 1); (1, 3) |]);
  value "expand" (fun () -> T.expand (T.reshape (vb ()) [| 3; 1 |]) [| 2; 3; 4 |]);
  value "cat_same" (fun () -> let a = va () in T.cat [ a; a ]);
  value "cat_diff" (fun () -> T.cat [ va (); T.reshape (vb ()) [| 1; 3 |] ]);
  value "cat_dim1" (fun () -> let a = va () in T.cat ~dim:1 [ a; T.shrink a [| (0, 2); (0, 2) |] ]);
  value "stack1" (fun () -> let a = va () in T.stack ~dim:1 [ a; T.mul a (T.scalar 2.) ]);
  value "repeat" (fun () -> T.repeat (va ()) [| 2; 1; 2 |]);
  value "where" (fun () -> let a = va () in T.where (T.gt a (T.scalar 3.)) a (vb ()));
  ivalue "lt" (fun () -> T.lt (va ()) (T.div (vb ()) (T.scalar 10.)));
  ivalue "cast_int" (fun () -> T.cast (T.of_float_array [| 4 |] [| -2.5; -1.5; 1.7; 2.9 |]) Dtype.Int32);
  ivalue "bitcast" (fun () -> T.bitcast (T.of_float_array [| 2 |] [| 1.0; -2.0 |]) Dtype.Uint32);
  ("value_creation", fun () ->
      let z = T.zeros [| 2; 2 |] and o = T.ones ~dtype:Dtype.Int32 [| 3 |] and fl = T.full [| 2 |] 42.5 in
      check (T.to_float_array z = [| 0.; 0.; 0.; 0. |]) "zeros";
      check (T.to_int_array o = [| 1; 1; 1 |]) "ones int32";
      check (T.to_float_array fl = [| 42.5; 42.5 |]) "full";
      check (T.dtype (T.full [| 1 |] 1.0) == Dtype.Float32) "full dtype";
      check (T.to_float_array (T.scalar 2.5) = [| 2.5 |]) "scalar";
      check (T.item (T.sum (va ())) = 21.0) "item");
  ("value_any_all", fun () ->
      let b = T.of_int_array ~dtype:Dtype.Bool [| 3; 2 |] [| 1; 1; 1; 0; 0; 0 |] in
      check (T.to_int_array (T.any ~axis:[ 1 ] b) = [| 1; 1; 0 |]) "any";
      check (T.to_int_array (T.all ~axis:[ 1 ] b) = [| 1; 0; 0 |]) "all";
      check (T.to_int_array (T.all b) = [| 0 |]) "all()");
  ("value_movement_shapes", fun () ->
      let a = va () in
      check (T.shape (T.reshape a [| -1; 2 |]) = [| 3; 2 |]) "reshape -1";
      check (T.shape (T.unsqueeze a 1) = [| 2; 1; 3 |]) "unsqueeze";
      check (T.shape (T.squeeze (T.unsqueeze a 0)) = [| 2; 3 |]) "squeeze";
      check (T.shape (T.flatten (T.unsqueeze a 0)) = [| 6 |]) "flatten";
      check (T.shape (T.transpose a) = [| 3; 2 |]) "transpose";
      check (T.to_float_array (T.transpose a) = [| 1.; 4.; 2.; 5.; 3.; 6. |]) "transpose values";
      check (T.to_float_array (T.flatten (T.flip a [ 1 ])) = [| 3.; 2.; 1.; 6.; 5.; 4. |]) "flip 1");
  ("value_assign", fun () ->
      let a = T.realize (T.zeros [| 3 |]) in
      ignore (T.realize (T.assign a (T.add a (T.scalar 1.))));
      check (T.to_float_array a = [| 1.; 1.; 1. |]) "after one assign: %s" (T.to_string a);
      ignore (T.assign a (T.mul a (T.scalar 3.)));
      check (T.to_float_array a = [| 3.; 3.; 3. |]) "after two assigns: %s" (T.to_string a));
  ("value_realize_all", fun () ->
      let a = va () in
      let s = T.sum a and m = T.max ~axis:[ 0 ] a in
      T.realize_all [ s; m ];
      check (T.to_float_array s = [| 21. |] && T.to_float_array m = [| 4.; 5.; 6. |]) "realize_all");
  ("value_to_string", fun () ->
      let s = T.to_string (T.of_int_array [| 2; 2 |] [| 1; 2; 3; 4 |]) in
      check_str ~what:"to_string" "<Tensor shape=(2, 2) dtype=dtypes.int device=CPU [[1, 2], [3, 4]]>" s);
  (* Tensor.pp: numpy's repr summarises more than 1000 elements with 3 edge items per axis, e.g.
     np.arange(2000).reshape(2, 1000) prints [[0, 1, 2, ..., 997, 998, 999], [1000, 1001, 1002, ..., 1997, 1998, 1999]] *)
  ("value_pp", fun () ->
      let pp t = Format.asprintf "%a" T.pp t in
      check_str ~what:"pp small" "<Tensor shape=(2, 2) dtype=dtypes.float device=CPU [[1.5, -2.0], [3.0, 4.25]]>"
        (pp (T.of_float_array [| 2; 2 |] [| 1.5; -2.; 3.; 4.25 |]));
      check_str ~what:"pp bool" "<Tensor shape=(3,) dtype=dtypes.bool device=CPU [True, False, True]>"
        (pp (T.of_int_array ~dtype:Dtype.Bool [| 3 |] [| 1; 0; 1 |]));
      check_str ~what:"pp 1000 elements (not summarised)" "999]>"
        (let s = pp (T.contiguous (T.arange 1000 ~dtype:Dtype.Int32)) in String.sub s (String.length s - 5) 5);
      check_str ~what:"pp summarised"
        "<Tensor shape=(2, 1000) dtype=dtypes.int device=CPU [[0, 1, 2, ..., 997, 998, 999], [1000, 1001, 1002, ..., 1997, 1998, 1999]]>"
        (pp (T.reshape (T.contiguous (T.arange 2000 ~dtype:Dtype.Int32)) [| 2; 1000 |]));
      check_str ~what:"pp summarised 3-D"
        "<Tensor shape=(8, 1, 200) dtype=dtypes.int device=CPU [[[0, 1, 2, ..., 197, 198, 199]], [[200, 201, 202, ..., 397, 398, 399]], [[400, 401, 402, ..., 597, 598, 599]], ..., [[1000, 1001, 1002, ..., 1197, 1198, 1199]], [[1200, 1201, 1202, ..., 1397, 1398, 1399]], [[1400, 1401, 1402, ..., 1597, 1598, 1599]]]>"
        (pp (T.reshape (T.contiguous (T.arange 1600 ~dtype:Dtype.Int32)) [| 8; 1; 200 |])));
  ("value_contiguous", fun () ->
      let c = T.contiguous (T.permute (va ()) [| 1; 0 |]) in
      check (T.to_float_array c = [| 1.; 4.; 2.; 5.; 3.; 6. |]) "contiguous");
]

(* ---------- bad input: Invalid_argument naming the op ---------- *)

let raises ~op name f : case =
  ("error_" ^ name, fun () ->
      match f () with
      | _ -> fail "%s: expected Invalid_argument" name
      | exception Invalid_argument m ->
        let lo = String.length op in
        check (String.length m >= lo && String.sub m 0 lo = op) "%s: message %S does not start with %S" name m op)

let error_cases = [
  raises ~op:"add" "broadcast_mismatch" (fun () -> T.add (va ()) (T.of_float_array [| 4 |] [| 1.; 2.; 3.; 4. |]));
  raises ~op:"reshape" "reshape_count" (fun () -> T.reshape (va ()) [| 4 |]);
  raises ~op:"reshape" "reshape_two_minus_one" (fun () -> T.reshape (va ()) [| -1; -1 |]);
  raises ~op:"sum" "sum_axis_range" (fun () -> T.sum ~axis:[ 2 ] (va ()));
  raises ~op:"permute" "permute_invalid" (fun () -> T.permute (va ()) [| 0; 0 |]);
  raises ~op:"expand" "expand_bad" (fun () -> T.expand (va ()) [| 4; 3 |]);
  raises ~op:"of_float_array" "unknown_device" (fun () -> T.of_float_array ~device:"NOSUCHDEV" [| 1 |] [| 1. |]);
  raises ~op:"of_float_array" "length_mismatch" (fun () -> T.of_float_array [| 2; 2 |] [| 1.; 2.; 3. |]);
  raises ~op:"cat" "cat_mismatch" (fun () -> T.cat ~dim:0 [ va (); T.of_float_array [| 2 |] [| 1.; 2. |] ]);
  raises ~op:"item" "item_many" (fun () -> T.item (va ()));
  raises ~op:"shrink" "shrink_bad" (fun () -> T.shrink (va ()) [| (0, 3); (0, 1) |]);
  raises ~op:"pad" "pad_len" (fun () -> T.pad (va ()) [| (1, 1) |]);
  raises ~op:"unsqueeze" "unsqueeze_range" (fun () -> T.unsqueeze (va ()) 5);
  raises ~op:"flip" "flip_range" (fun () -> T.flip (va ()) [ 3 ]);
  raises ~op:"bitcast" "bitcast_weak" (fun () -> T.bitcast (T.scalar 1.0) Dtype.Int32);
]

(* a float cast to an unsigned dtype wraps modulo 2^n after truncation toward zero, as numpy's astype does on x86
   (np.float32(-2).astype(np.uint8) = 254), in vectorised kernels too: C leaves the direct conversion of a negative
   float undefined. The defined wrap is the fast mode's renderer rule (tinygrad's own kernels keep C's undefined
   conversion), so the cases run in the fast mode whatever CPU_OPT says. The oracle is computed here from the
   inputs (truncate, then reduce modulo 2^bits). *)
let unsigned_cast_cases =
  let vals = Array.init 64 (fun i -> float_of_int (i - 32) *. 1.37 +. if i mod 5 = 0 then 200. else 0.) in
  let wrap bits v =
    let t = Int64.of_float v and m = Int64.shift_left 1L bits in
    Int64.to_int (Int64.rem (Int64.add (Int64.rem t m) m) m) in
  List.map (fun (dt, bits) ->
      (Printf.sprintf "cast_negative_float_to_%s" (Dtype.name dt), fun () ->
          (* padded with -2.0 and upcast by the opts: the vector path *)
          let x = T.pad ~value:(-2.) (T.of_float_array [| 4; 16 |] vals) [| (1, 1); (0, 16) |] in
          let got = Helpers.context Helpers.[ Bind (cpu_opt, Cpu_fast) ] (fun () -> T.to_int_array (T.cast x dt)) in
          let want = Array.init (6 * 32) (fun i ->
              let r = i / 32 - 1 and c = i mod 32 in
              wrap bits (if r < 0 || r >= 4 || c >= 16 then -2. else vals.(r * 16 + c))) in
          check (got = want) "cast to %s: got [%s], expected [%s]" (Dtype.name dt)
            (String.concat "," (Array.to_list (Array.map string_of_int got)))
            (String.concat "," (Array.to_list (Array.map string_of_int want)))))
    [ (Dtype.Uint8, 8); (Dtype.Uint16, 16); (Dtype.Uint32, 32) ]

let tests : case list = graph_cases @ value_cases @ error_cases @ unsigned_cast_cases
