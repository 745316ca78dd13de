(* Tests for src/mixin/mixin_op.ml: the graphs of tinygrad's mixin/op.py, checked against tinygrad 0.14.0's own
   graphs by UOp key. Oracle: test/gen_mixin_op_oracle.py, run in the venv on
   UOp.param leaves; it prints (name, t.uop.key.hex(), shape, dtype). *)

open Tinygrad.Compiler
module M = Mixin_op
module U = Uop

let p ?(dt = Dtype.Float32) slot shape = U.param ~shape:(List.map (fun i -> U.Sint i) shape) ~device:(Uop.One "CPU") slot dt
let pi slot shape = p ~dt:Dtype.Int32 slot shape
let a = p 0 [ 16; 32 ]
let b = p 1 [ 32 ]
let c = p 2 [ 32 ]

let cases : (string * (unit -> U.t)) list = [
  ("softmax", fun () -> M.softmax ~axis:(-1) a);
  ("softmax_axis0", fun () -> M.softmax ~axis:0 a);
  ("log_softmax", fun () -> M.log_softmax a);
  ("logsumexp_1", fun () -> M.logsumexp ~axis:1 a);
  ("logsumexp_all_keep", fun () -> M.logsumexp ~keepdim:true a);
  ("layernorm_affine", fun () -> U.add (U.mul (M.layernorm (p 0 [ 8; 32 ])) b) c);
  ("matmul", fun () -> M.matmul (p 0 [ 32; 48 ]) (p 1 [ 48; 16 ]));
  ("matvec", fun () -> M.matmul (p 0 [ 128; 256 ]) (p 1 [ 256 ]));
  ("vecmat", fun () -> M.matmul (p 0 [ 256 ]) (p 1 [ 256; 128 ]));
  ("dot_1d", fun () -> M.dot (p 0 [ 512 ]) (p 1 [ 512 ]));
  ("matmul_half", fun () -> M.matmul (p ~dt:Dtype.Float16 0 [ 32; 64 ]) (p ~dt:Dtype.Float16 1 [ 64; 32 ]));
  ("matmul_batched", fun () -> M.matmul (p 0 [ 2; 3; 4 ]) (p 1 [ 4; 5 ]));
  ("mlp", fun () ->
      let h = Mixin_elementwise.relu (U.add (M.matmul (p 0 [ 8; 16 ]) (p 1 [ 16; 32 ])) (p 2 [ 32 ])) in
      U.add (M.matmul h (p 3 [ 32; 10 ])) (p 4 [ 10 ]));
  ("linear_bias", fun () -> M.linear ~bias:(p 2 [ 32 ]) (p 0 [ 8; 16 ]) (p 1 [ 16; 32 ]));
  ("conv2d", fun () -> M.conv2d (p 0 [ 2; 3; 8; 8 ]) (p 1 [ 4; 3; 3; 3 ]));
  ("conv2d_1x1", fun () -> M.conv2d (p 0 [ 2; 8; 5; 5 ]) (p 1 [ 4; 8; 1; 1 ]));
  ("conv2d_groups", fun () -> M.conv2d ~groups:2 ~padding:[ 1 ] (p 0 [ 1; 4; 6; 6 ]) (p 1 [ 4; 2; 3; 3 ]));
  ("conv2d_stride_bias", fun () ->
      M.conv2d ~bias:(p 2 [ 2 ]) ~stride:[ 2 ] ~dilation:[ 1 ] ~padding:[ 1 ] (p 0 [ 1; 3; 9; 9 ]) (p 1 [ 2; 3; 3; 3 ]));
  ("conv2d_dilation", fun () -> M.conv2d ~dilation:[ 2 ] (p 0 [ 1; 2; 9; 9 ]) (p 1 [ 2; 2; 3; 3 ]));
  ("conv1d", fun () -> M.conv2d ~padding:[ 1 ] (p 0 [ 1; 2; 10 ]) (p 1 [ 3; 2; 3 ]));
  ("avg_pool2d", fun () -> M.avg_pool2d ~kernel_size:[ 3; 3 ] ~stride:[ 2 ] ~padding:[ 1 ] (p 0 [ 1; 2; 7; 7 ]));
  ("avg_pool2d_default", fun () -> M.avg_pool2d (p 0 [ 1; 2; 8; 8 ]));
  ("avg_pool2d_nopad_count", fun () ->
      M.avg_pool2d ~kernel_size:[ 3; 3 ] ~stride:[ 2 ] ~padding:[ 1 ] ~count_include_pad:false (p 0 [ 1; 2; 7; 7 ]));
  ("avg_pool2d_ceil", fun () -> M.avg_pool2d ~kernel_size:[ 2; 2 ] ~ceil_mode:true (p 0 [ 1; 1; 5; 5 ]));
  ("max_pool2d", fun () -> M.max_pool2d ~kernel_size:[ 2; 2 ] (p 0 [ 1; 6; 8; 8 ]));
  ("max_pool2d_pad", fun () -> M.max_pool2d ~kernel_size:[ 3; 3 ] ~stride:[ 2 ] ~padding:[ 1 ] (p 0 [ 1; 2; 7; 7 ]));
  ("conv_relu_pool", fun () ->
      M.max_pool2d ~kernel_size:[ 2; 2 ]
        (Mixin_elementwise.relu (M.conv2d ~padding:[ 1 ] (p 0 [ 1; 3; 8; 8 ]) (p 1 [ 6; 3; 3; 3 ]))));
  ("cat_dim0", fun () -> Mixin_op.cat ~dim:0 [ p 0 [ 3; 4 ]; p 1 [ 2; 4 ] ]);
  ("cat_same", fun () -> Mixin_op.cat ~dim:1 [ p 0 [ 3; 4 ]; p 1 [ 3; 4 ] ]);
  ("cat_three", fun () -> Mixin_op.cat ~dim:(-1) [ p 0 [ 2; 3 ]; p 1 [ 2; 1 ]; p 2 [ 2; 2 ] ]);
  ("stack_dim1", fun () -> Mixin_movement.stack ~dim:1 [ p 0 [ 4; 5 ]; p 1 [ 4; 5 ]; p 2 [ 4; 5 ] ]);
  ("slice_basic0", fun () -> U.add (M.getitem (p 0 [ 6; 8 ]) [ S (Some 1, Some 5, None); S (None, None, Some 2) ]) (U.const_int 0));
  ("slice_basic1", fun () -> U.add (M.getitem (p 0 [ 6; 8 ]) [ S (Some (-2), None, None); I 3 ]) (U.const_int 0));
  ("slice_basic2", fun () -> U.add (M.getitem (p 0 [ 6; 8 ]) [ S (None, None, Some (-1)); S (Some 1, None, Some 3) ]) (U.const_int 0));
  ("slice_none_ell", fun () -> M.getitem (p 0 [ 2; 3; 4 ]) [ New; Ellipsis; I 1 ]);
  ("slice_neg_step", fun () -> M.getitem (p 0 [ 10 ]) [ S (Some 8, Some 1, Some (-3)) ]);
  ("fancy_rows", fun () -> M.getitem (p 0 [ 10; 4 ]) [ T (pi 1 [ 5 ]) ]);
  ("fancy_cols", fun () -> M.getitem (p 0 [ 10; 4 ]) [ S (None, None, None); T (pi 1 [ 3 ]) ]);
  ("fancy_two", fun () -> M.getitem (p 0 [ 10; 4 ]) [ T (pi 1 [ 5 ]); T (pi 2 [ 5 ]) ]);
  ("fancy_two_sep", fun () -> M.getitem (p 0 [ 3; 4; 5 ]) [ T (pi 1 [ 2 ]); S (None, None, None); T (pi 2 [ 2 ]) ]);
  ("gather", fun () -> M.gather (p 0 [ 4; 6 ]) ~dim:1 (pi 1 [ 4; 3 ]));
  ("gather_dim0", fun () -> M.gather (p 0 [ 4; 6 ]) ~dim:0 (pi 1 [ 2; 6 ]));
  ("arange_float", fun () -> M.arange_gen ~start:(Dtype.I Z.zero) ~stop:(Dtype.I (Z.of_int 2)) ~step:(Dtype.F 0.25) ());
  ("arange_int", fun () -> M.arange 5);
  ("arange_neg", fun () -> M.arange ~start:10 ~step:(-3) 0);
  ("linspace", fun () -> M.linspace (-1.) 1. 5);
  ("eye", fun () -> M.eye 8);
  ("eye_rect", fun () -> M.eye ~m:4 2);
  ("one_hot", fun () -> M.one_hot (pi 0 [ 6 ]) 10);
  ("cumsum_long", fun () -> M.cumsum ~axis:0 (p 0 [ 1000 ]));
  ("cumsum_2d", fun () -> M.cumsum ~axis:1 (p 0 [ 4; 5 ]));
  ("cumsum_2d_axis0", fun () -> M.cumsum ~axis:0 (p 0 [ 4; 5 ]));
  ("cumsum_int", fun () -> M.cumsum (pi 0 [ 7 ]));
  ("triu_eye", fun () -> U.add (M.triu (p 0 [ 8; 8 ])) (M.eye 8));
  ("tril_1", fun () -> M.tril ~diagonal:1 (p 0 [ 3; 5 ]));
  ("triu_neg", fun () -> M.triu ~diagonal:(-1) (p 0 [ 2; 4; 4 ]));
  ("onehot_matmul", fun () -> M.matmul (U.cast Dtype.Float32 (M.one_hot (pi 0 [ 4 ]) 6)) (p 1 [ 6; 3 ]));
  ("sparse_ce", fun () -> M.sparse_categorical_crossentropy (p 0 [ 16; 10 ]) (pi 1 [ 16 ]));
  ("sparse_ce_ls_ignore", fun () ->
      M.sparse_categorical_crossentropy ~ignore_index:3 ~label_smoothing:0.1 (p 0 [ 16; 10 ]) (pi 1 [ 16 ]));
  ("cross_entropy_idx", fun () -> M.cross_entropy (p 0 [ 4; 5 ]) (pi 1 [ 4 ]));
  ("cross_entropy_prob", fun () -> M.cross_entropy ~label_smoothing:0.2 ~reduction:`Sum (p 0 [ 4; 5 ]) (p 1 [ 4; 5 ]));
  ("nll_loss", fun () -> M.nll_loss (p 0 [ 4; 5 ]) (pi 1 [ 4 ]));
  ("bce", fun () -> M.binary_crossentropy (p 0 [ 6 ]) (p 1 [ 6 ]));
  ("bce_logits", fun () -> M.binary_crossentropy_logits (p 0 [ 6 ]) (p 1 [ 6 ]));
  ("argmax_1", fun () -> M.argmax ~axis:1 (p 0 [ 4; 6 ]));
  ("argmax_all", fun () -> M.argmax (p 0 [ 4; 6 ]));
  ("argmin_0_keep", fun () -> M.argmin ~axis:0 ~keepdim:true (p 0 [ 4; 6 ]));
  ("argmax_int", fun () -> M.argmax ~axis:1 (pi 0 [ 4; 6 ]));
  ("mean_all", fun () -> Mixin_op.mean a);
  ("mean_int", fun () -> Mixin_op.mean ~axis:[ 1 ] (pi 0 [ 4; 6 ]));
  ("min_0", fun () -> Mixin_op.min ~axis:[ 0 ] a);
  ("var_1", fun () -> Mixin_op.var ~axis:[ 1 ] a);
  ("std_keep", fun () -> Mixin_op.std ~axis:[ 0; 1 ] ~keepdim:true ~correction:0 a);
  ("batchnorm", fun () ->
      M.batchnorm ~weight:(p 1 [ 3 ]) ~bias:(p 2 [ 3 ]) (p 0 [ 2; 3; 4; 4 ]) ~mean:(p 3 [ 3 ]) ~invstd:(p 4 [ 3 ]));
  ("pad_value", fun () -> M.pad_value ~value:(Dtype.I (Z.of_int (-1))) (p 0 [ 3; 4 ]) [ Some (1, 2); Some (0, 3) ]);
  ("pad_neg", fun () -> M.pad_value (p 0 [ 3; 4 ]) [ Some (1, -1); Some (-2, 3) ]);
]

(* (name, key hex, shape, dtype) from tinygrad *)
let expected = [
  ("softmax", "d37009cacaf10bf54c8cf42bf0e92cd994085e57724c0513d235a07c2de578ac", "(16, 32)", "float");
  ("softmax_axis0", "e909c8b756998dc557c3edb5485932c1b1bf5489032468e5bc8c7480fc0f3b70", "(16, 32)", "float");
  ("log_softmax", "4de5ffa725d469c54408753c8173b911ffc7f979579fee6359f715f36e099dc6", "(16, 32)", "float");
  ("logsumexp_1", "754a1099a400c36af182c7956a35451687e44fad5fb558603e828e73e7faa5b9", "(16,)", "float");
  ("logsumexp_all_keep", "46261ceba003e54781a0baee2b48f07629836960c5ae989fdfdf856266f9e1f0", "(1, 1)", "float");
  ("layernorm_affine", "6859d84c6d1539194e1e063bb2f90c500a13f272a24e9c8614aae5b4d9bd57b9", "(8, 32)", "float");
  ("matmul", "e0446e2207812fb261c5fe5102fce13927de112c2c9a5dbd2a5a50cb4b961828", "(32, 16)", "float");
  ("matvec", "086bf765ceb76979428f33d0b02d94f42d7a2a864c63bb426af8127b781c87e5", "(128,)", "float");
  ("vecmat", "6d1c835825213bfaeb6911b0853dfac345de12cf4ec5d514b9ceb8e399a1a616", "(128,)", "float");
  ("dot_1d", "85119f9e4d12fae75a7a97844b6f0c9bdbcfbcc9f4e8e74a369e5dd353811b50", "()", "float");
  ("matmul_half", "cd05ba518cd1da05308779777f2776770619b5291817fc720a94f3c0bca590b9", "(32, 32)", "half");
  ("matmul_batched", "79b65cccf3ecd16ed0cea0b9b946d197ffad9b9a4844f097cc9dc94cabebb4ce", "(2, 3, 5)", "float");
  ("mlp", "41dd8253f73580445956c581e9aeea50aac4e7b8e576fca606d20b737a5c84c4", "(8, 10)", "float");
  ("linear_bias", "f99f5a0522d55c4d6f5da8d7402f6f7b568a276d22943499c53ea0ddef6e0bdd", "(8, 32)", "float");
  ("conv2d", "1cfcca18f72794de8d4cd55d43694abd5c4ed738ee2154910644e45aa261b8f8", "(2, 4, 6, 6)", "float");
  ("conv2d_1x1", "6805b95fd166c13bd4c20f7e9338117f87f20d96baaffd95091b7cea17490056", "(2, 4, 5, 5)", "float");
  ("conv2d_groups", "f1448121dbce54770faff3bb38740b00cc865102f7271577485fdd4759b5cfd3", "(1, 4, 6, 6)", "float");
  ("conv2d_stride_bias", "8c5ae4a3e05b29bb3552da03457b6ea731786f5123c179973f14c756f6f3347e", "(1, 2, 5, 5)", "float");
  ("conv2d_dilation", "fb6c2a23af12f3420f2e68a943244c8410840d5ead4b4f8781a1cc13f853042c", "(1, 2, 5, 5)", "float");
  ("conv1d", "d22af40d98722334d693c746e2eea2fbc2573d92f30b63892a9bcadcbf800392", "(1, 3, 10)", "float");
  ("avg_pool2d", "b3807bf7fc56d6a87fe73ceb0c9a325e08db2a77c24ca349bc07e960c488bbee", "(1, 2, 4, 4)", "float");
  ("avg_pool2d_default", "f84a57ee56c15547e2a4d6fe7297e815bccfff7f2e9860b8faf5047fa951f904", "(1, 2, 4, 4)", "float");
  ("avg_pool2d_nopad_count", "9b8e52b503bd33d42b1c6b347665a2e6668239f79ac29a31e33fd54fc80a3c1c", "(1, 2, 4, 4)", "float");
  ("avg_pool2d_ceil", "b8c01142032457ef9c64f64810081382f9c95a341227939b1b1db79e09e7e998", "(1, 1, 3, 3)", "float");
  ("max_pool2d", "5f8552fc56da428cc8fa1b04e326a55b89c620791c1f7c968a58c5b4100bbea5", "(1, 6, 4, 4)", "float");
  ("max_pool2d_pad", "3ae81df7577ebffe867b7b6850756090604b0662f5a6e5f961b16b8ec7abe50d", "(1, 2, 4, 4)", "float");
  ("conv_relu_pool", "d87a11b7fc0f8fe6409b1ae0514e8ee1bb97f542680c5a67ca72dc25b8276588", "(1, 6, 4, 4)", "float");
  ("cat_dim0", "45215a4d16d206fb08bbae13508127c0e353fdd46bdbfcdcecb98bd6fb62d49b", "(5, 4)", "float");
  ("cat_same", "072f909c065c55192ea37ad5100cd383bd30efda3f4829f5c8f5acdfc639089f", "(3, 8)", "float");
  ("cat_three", "1095272609fd1bb353f4737e64d695e271096703c5155bc035c7e1c721cb10c8", "(2, 6)", "float");
  ("stack_dim1", "8cfdc821858f9d12754ae85a00e70f76640768dc670a4f4a1859281491298034", "(4, 3, 5)", "float");
  ("slice_basic0", "0748c827e98d360a6b30b955f026c8af15ec68d0dca09b8a3426b3075a0c3bb4", "(4, 4)", "float");
  ("slice_basic1", "2434fefc9e31ebe4ab409e31a8e311e2bc0103c93b6ee30658659f752df611a3", "(2,)", "float");
  ("slice_basic2", "f636de83c6a4b7b886dd2f82baf80477a6cc5174975d7337d5262720008e4114", "(6, 3)", "float");
  ("slice_none_ell", "3d33fd5ab28f9b865db66009d5c620e9fc8a76a9249c52e1e64e02529f60e6d1", "(1, 2, 3)", "float");
  ("slice_neg_step", "c8280b48903780420e465181d9baacc13879f64449eb5a39644dbba681558be0", "(3,)", "float");
  ("fancy_rows", "858dc84a8f204fc57aad2460f81a495947a8cdf270ad474896b1977f60a6aeac", "(5, 4)", "float");
  ("fancy_cols", "30cfdbc775b4ea6adec8261fc3e0fee5652b2249c198b63e783934d66edd93d0", "(10, 3)", "float");
  ("fancy_two", "b8820ac6959ae36ff0946cea05a7145e37fe1bd510a34cc2a3181f3e8a6fce66", "(5,)", "float");
  ("fancy_two_sep", "aae717926be6d374f7539c2e313a468d9bd955ae10ffa5965a1762258735f9f3", "(2, 4)", "float");
  ("gather", "7ca15fab68d44861c1292bd8e064801e7412c93cf79bc576183bd901ec678116", "(4, 3)", "float");
  ("gather_dim0", "2301b7cf938efca1d51afdaa7ce44db6ba8ef0b48c3120a1292effd7a93188a7", "(2, 6)", "float");
  ("arange_float", "8750fc69c1a3fd2023652245d9b5d16f39f51465aa27990907aa4bdcf897ffcf", "(8,)", "float");
  ("arange_int", "17ea522c247143ecf9aeca916a95c4753dd54fc026c42a02dea19ff634107ab3", "(5,)", "int");
  ("arange_neg", "6563b0531193fb5f2bcb363008fb7d3421578df1cd0647dadf309d3a0cf62238", "(4,)", "int");
  ("linspace", "14b00d86b70b7a4f2f75865d6b130f9c8e0857e923bb5407d5e4c46858816522", "(5,)", "float");
  ("eye", "41ba3b1aeaf403d7123f59ccabe921821ac3f9ccd3c4f819e0a7cceab2ed608c", "(8, 8)", "float");
  ("eye_rect", "811d87bf11cc9c4ffbf6d4aea3247392dd1759b760e1f0ac79c60857cc6f7a9d", "(2, 4)", "float");
  ("one_hot", "f87a200fb008e4685a910c7ce76b5569f6b92650019871d99fa0a0beba7d7f57", "(6, 10)", "weakint");
  ("cumsum_long", "2731f35722a83c3521ccec2cc16c3fbd41296a2feb59a717d7c5fa90c38e94b7", "(1000,)", "float");
  ("cumsum_2d", "e6e8dc7530b87fb7818657bec5bd1f50c7f41eeaa911fac3aa3e8a3e93a51569", "(4, 5)", "float");
  ("cumsum_2d_axis0", "e650b794ad3608db3b5f16864e44fc7fa1ff2e9ab187d56421d9c48724f7fc04", "(4, 5)", "float");
  ("cumsum_int", "fd9e8b1338269788509c7dc70b063fa9ae1c21f884638b87389079e439fd0792", "(7,)", "int");
  ("triu_eye", "ca0747bf37989fe449490e911669b5a3afa7edf58e6396e66d37fff4556f402e", "(8, 8)", "float");
  ("tril_1", "65b0d5a973663fdd6b10f809e0af98351995b99a20c647915fdf6acdbe71ec12", "(3, 5)", "float");
  ("triu_neg", "ef57057deeed415b0c354b92bbd945a3b0ca7f8717da85fd71b19f4877f86e8f", "(2, 4, 4)", "float");
  ("onehot_matmul", "f21b774b518be676fffae9bc0686b9d8051db11b2d4a1953e069cb8d25d16e1b", "(4, 3)", "float");
  ("sparse_ce", "ccf180beed4f9e70aa74a1467b2d0d698a35f2405d3d656eb8f37f924e4ebb23", "()", "float");
  ("sparse_ce_ls_ignore", "80753e82364f75910f41c235664cbba122135748ddb9a836f96941a35618b366", "()", "float");
  ("cross_entropy_idx", "1c0f6cf445dd0d804cdd71983815e12d05dbb6c56416f59d166628de532b4f9c", "()", "float");
  ("cross_entropy_prob", "67caec69d3485f00a11490d65db05b7233911f4c44e2eb0bd21421df110b38c1", "()", "float");
  ("nll_loss", "8d65ed84ca78fa5b53c7966922c467ccf4e99701cd4e38280f68422080620273", "()", "float");
  ("bce", "31822080e1f44a36fec7d4c5a60d4bbecb3e096e679ad102265eb82531fe873f", "()", "float");
  ("bce_logits", "953915a568f1fd60e66723f455375ce1394ce99eca1ac2ecdfd1f89f9112bdb2", "()", "float");
  ("argmax_1", "ad7ba2b3c64a60e836510b2f868be5620f73e3261b4da52fb6478e92cc312ce9", "(4,)", "int");
  ("argmax_all", "05c68b66b462c17c34514cb62f35212495f984f3db27b221194d6cf2b787de1a", "()", "int");
  ("argmin_0_keep", "cdf9a1bb2ca0351ea769969bba42f27d197897973f50f6a132492bc35fad36b5", "(1, 6)", "int");
  ("argmax_int", "10319a3246ddd45a527b33076fa4cc831ee808ddaa627308aec4a7c2a76307e4", "(4,)", "int");
  ("mean_all", "2b93c3aa1f742307cd0d62c877d404a165b75799219a4f3bec2bab4bdd1660d2", "()", "float");
  ("mean_int", "e2335068f02027baaccdc56cf775408d75a7327980ea161f1a1bca0b5d05ef3e", "(4,)", "float");
  ("min_0", "766f18293c2136669fbb55303a65833929b7a4a641e3fbd7349dbc1b324f0e20", "(32,)", "float");
  ("var_1", "ab799fe099aefe7cc800db0e213079decba4f1c61f54beb421313b0fe57902fd", "(16,)", "float");
  ("std_keep", "c7ec09245691af8c380109ab7d8748231d659fd1481e39a5701ff9f4450e72b3", "(1, 1)", "float");
  ("batchnorm", "06564031ca14e2b10fe44c0f080dfb279502c05b5c9394b92321793edfca1af0", "(2, 3, 4, 4)", "float");
  ("pad_value", "36ff2383320af7998c2e45da10381b751ce536d2d9d1db15e7862d6b0f184347", "(6, 7)", "float");
  ("pad_neg", "baf590e2bec9992ff58e6c47ab4a9e6076ba04cfac89bbaf15df2b5805251fef", "(3, 5)", "float");
]

let dtype_name (d : Dtype.t) = match d with
  | Float32 -> "float" | Int32 -> "int" | Float16 -> "half" | Weakint -> "weakint" | Bool -> "bool" | d -> Dtype.to_string d

let tests : Test_util.case list =
  List.map (fun (name, key, shp, dt) ->
      (name, fun () ->
          let f = try List.assoc name cases with Not_found -> Test_util.fail "no OCaml case for %s" name in
          let u = f () in
          Test_util.check_str ~what:(name ^ " shape") shp (U.shape_str (U.shape u));
          Test_util.check_str ~what:(name ^ " dtype") dt (dtype_name u.U.dtype);
          Test_util.check_str ~what:(name ^ " key") key (Golden.hex (Golden.uop_key u))))
    expected
  @ [ ("errors", fun () ->
        Test_util.check_invalid_arg ~what:"dot shapes" (fun () -> M.dot (p 0 [ 3; 4 ]) (p 1 [ 5; 2 ]));
        Test_util.check_invalid_arg ~what:"conv2d groups" (fun () -> M.conv2d ~groups:2 (p 0 [ 1; 3; 5; 5 ]) (p 1 [ 2; 3; 3; 3 ]));
        Test_util.check_invalid_arg ~what:"one_hot float" (fun () -> M.one_hot (p 0 [ 3 ]) 4);
        Test_util.check_invalid_arg ~what:"gather ndim" (fun () -> M.gather (p 0 [ 3; 4 ]) ~dim:0 (pi 1 [ 3 ]));
        Test_util.check_invalid_arg ~what:"getitem oob" (fun () -> M.getitem (p 0 [ 3; 4 ]) [ I 3 ]);
        Test_util.check_invalid_arg ~what:"getitem too many" (fun () -> M.getitem (p 0 [ 3 ]) [ I 0; I 0 ]);
        Test_util.check_invalid_arg ~what:"cat shapes" (fun () -> Mixin_op.cat [ p 0 [ 3; 4 ]; p 1 [ 3; 5 ] ]);
        Test_util.check_invalid_arg ~what:"eye negative" (fun () -> M.eye (-1))) ]

(* ---------- values through the Tensor wrappers, against numpy (test/gen_mixin_op_values.py) ---------- *)

let data shape =
  let n = List.fold_left ( * ) 1 shape in
  Tensor.of_float_array (Array.of_list shape) (Array.init n (fun i -> float_of_int ((i * 7) mod 11 - 5) *. 0.25))

let values_expected = [
  ("softmax", [| 0.03916072960596076; 0.2253544393847986; 0.08290326522638339; 0.47707535192135864; 0.17550621386149862; 0.07076092919311311; 0.40720103249134065; 0.14980088827734875; 0.05510866706645672; 0.3171284829717407; 0.11434622877733197; 0.042065626742666784; 0.24207096822120847; 0.08905293251304816; 0.5124642437457446 |]);
  ("log_softmax", [| -3.2400808300847905; -1.4900808300847905; -2.4900808300847905; -0.7400808300847904; -1.7400808300847905; -2.6484482781612666; -0.8984482781612668; -1.8984482781612668; -2.8984482781612666; -1.1484482781612668; -2.168524338704481; -3.168524338704481; -1.418524338704481; -2.418524338704481; -0.668524338704481 |]);
  ("logsumexp0", [| 0.43026967064173444; 1.537621321433714; 1.1802696706417346; 1.496213906717483; 1.9302696706417346 |]);
  ("matmul", [| 2.625; -1.75; 2.8125; -0.875; 0.125; 0.125; 0.125; -1.9375; -1.6875; 2.6875; -1.875; -2.3125 |]);
  ("matvec", [| 3.6875; 0.375; -0.875 |]);
  ("conv2d", [| -0.5; -3.3125; 2.4375; -0.75; 0.4375; 1.875; 0.4375; -2.8125; 1.5; -4.0625; 0.875; 0.0; -1.875; 1.0625; 0.25; -2.1875; 3.0; 0.4375; -2.8125; 1.8125; 1.25; 2.0; -0.75; -0.0625; 0.625; 1.125; 1.9375; -1.125; -1.4375; 1.625; 1.875; -1.1875; -0.8125; -0.4375; 3.1875; 0.125; 2.0625; 0.375; -0.625; -0.8125; -0.25; 1.1875; -1.1875; -0.8125; -0.6875; -1.375; -1.1875; 3.75; -3.0; -0.375; -0.6875; -3.125; 2.1875; -0.75; 0.0625; 2.5625; -4.875; 1.1875; -0.3125; -1.25; 3.5; -2.75; -2.1875; 2.5; -1.875; 1.6875; 2.8125; -4.875; 1.1875; 0.9375; -1.25; 4.5625; -3.4375; -0.4375; 1.375 |]);
  ("conv2d_groups_stride", [| 5.6875; -0.8125; -3.75; 5.5625; -4.6875; 0.1875; 4.625; -4.9375; 2.75; 2.5; -2.875; 3.0625; -5.125; -1.5625; 4.5625; -4.9375 |]);
  ("avg_pool2d", [| -0.19444444444444445; 0.08333333333333333; -0.027777777777777776; 0.027777777777777776; -0.1111111111111111; -0.1388888888888889; 0.0; -0.08333333333333333; 0.027777777777777776; -0.08333333333333333; 0.05555555555555555; -0.25; 0.1388888888888889; -0.027777777777777776; 0.16666666666666666; 0.05555555555555555; 0.027777777777777776; 0.1111111111111111; 0.0; -0.05555555555555555; -0.08333333333333333; 0.05555555555555555; -0.1111111111111111; 0.25; -0.25; 0.1111111111111111; -0.05555555555555555; 0.08333333333333333; 0.05555555555555555; 0.0; -0.1111111111111111; -0.027777777777777776 |]);
  ("max_pool2d", [| 1.0; 1.25; 0.25; 0.5; 1.25; 1.0; 1.25; 0.25; 1.0; 1.25; 1.0; 1.25; 0.25; 1.0; 1.25; 1.0; 1.25; 0.75 |]);
  ("cumsum_long", [| -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5; 0.5; 0.5; -0.5; 0.25; 0.0; -1.25; -0.75; -1.25; 0.0; 0.25; -0.5 |]);
  ("cumsum_axis1", [| -1.25; -0.75; -1.25; 0.0; 0.25; -0.75; 0.25; 0.25; -0.75; 0.0; -0.25; -1.5; -1.0; -1.5; -0.25 |]);
  ("one_hot", [| 0.0; 0.0; 0.0; 0.0; 1.0; 0.0; 1.0; 0.0; 0.0; 0.0; 0.0; 0.0; 0.0; 0.0; 1.0; 0.0; 0.0; 0.0 |]);
  ("gather", [| -1.25; 0.25; 1.0; 1.0; -0.5; 0.5 |]);
  ("fancy", [| -0.25; -1.25; -1.25; 0.5; -0.25; -1.25; 0.25; -0.75 |]);
  ("slices", [| -1.0; -1.25; 1.25; -1.25; 1.25; 1.0; 1.25; 1.0; 0.75; 1.0; 0.75; 0.5; 0.75; 0.5; 0.25; 0.5; 0.25; 0.0 |]);
  ("triu_eye", [| -0.25; 0.5; -0.5; 1.25; 0.0; 0.25; 1.0; 0.0; 0.0; 0.0; 0.75; -1.25; 0.0; 0.0; 0.0; 1.25 |]);
  ("argmax", [| 3.0; 1.0; 4.0 |]);
  ("argmin", [| 0.0; 2.0; 0.0; 1.0; 0.0 |]);
  ("layernorm", [| -1.51634047794523; 0.5248870885195027; -0.641528663746059; 1.399698902718674; 0.23328315045311235; -0.9486757086752018; 1.264900944900269; 0.0; -1.264900944900269; 0.9486757086752018; -0.23328315045311238; -1.3996989027186741; 0.641528663746059; -0.5248870885195028; 1.5163404779452303 |]);
  ("sparse_ce", [| 1.9356844823168462 |]);
  ("cross_entropy", [| 1.9356844823168462 |]);
  ("linspace", [| -1.0; -0.5; 0.0; 0.5; 1.0 |]);
  ("arange_neg", [| 10.0; 7.0; 4.0; 1.0 |]);
]

let value_cases : (string * (unit -> Tensor.t)) list =
  let x () = data [ 3; 5 ] in
  let labels () = Tensor.of_int_array [| 3 |] [| 4; 0; 2 |] in
  [ ("softmax", fun () -> Tensor.softmax (x ()));
    ("log_softmax", fun () -> Tensor.log_softmax (x ()));
    ("logsumexp0", fun () -> Tensor.logsumexp ~axis:0 (x ()));
    ("matmul", fun () -> Tensor.matmul (x ()) (data [ 5; 4 ]));
    ("matvec", fun () -> Tensor.matmul (x ()) (data [ 5 ]));
    ("conv2d", fun () -> Tensor.conv2d ~padding:1 (data [ 1; 2; 5; 5 ]) (data [ 3; 2; 3; 3 ]));
    ("conv2d_groups_stride", fun () -> Tensor.conv2d ~stride:2 ~groups:2 (data [ 1; 4; 6; 6 ]) (data [ 4; 2; 3; 3 ]));
    ("avg_pool2d", fun () -> Tensor.avg_pool2d ~kernel_size:3 ~stride:2 ~padding:1 (data [ 1; 2; 7; 7 ]));
    ("max_pool2d", fun () -> Tensor.max_pool2d (data [ 1; 2; 6; 6 ]));
    ("cumsum_long", fun () -> Tensor.cumsum (data [ 600 ]));
    ("cumsum_axis1", fun () -> Tensor.cumsum ~axis:1 (x ()));
    ("one_hot", fun () -> Tensor.cast (Tensor.one_hot (Tensor.of_int_array [| 3 |] [| 4; 0; 2 |]) 6) Dtype.Float32);
    ("gather", fun () -> Tensor.gather (x ()) ~dim:1 (Tensor.of_int_array [| 3; 2 |] [| 0; 4; 1; 1; 3; 2 |]));
    ("fancy", fun () -> Tensor.getitem (data [ 6; 2 ]) [ T (Tensor.of_int_array [| 4 |] [| 5; 0; -1; 2 |]) ]);
    ("slices", fun () -> Tensor.getitem (data [ 6; 8 ]) [ S (None, None, Some (-1)); S (Some 1, None, Some 3) ]);
    ("triu_eye", fun () -> Tensor.add (Tensor.triu (data [ 4; 4 ])) (Tensor.eye 4));
    ("argmax", fun () -> Tensor.cast (Tensor.argmax ~axis:1 (x ())) Dtype.Float32);
    ("argmin", fun () -> Tensor.cast (Tensor.argmin ~axis:0 (x ())) Dtype.Float32);
    ("layernorm", fun () -> Tensor.layernorm (x ()));
    ("sparse_ce", fun () -> Tensor.sparse_categorical_crossentropy (x ()) (labels ()));
    ("cross_entropy", fun () -> Tensor.cross_entropy (x ()) (labels ()));
    ("linspace", fun () -> Tensor.linspace (-1.) 1. 5);
    ("arange_neg", fun () -> Tensor.cast (Tensor.arange ~start:10 ~step:(-3) 0) Dtype.Float32) ]

let value_tests : Test_util.case list =
  List.map (fun (name, expect) ->
      ("value_" ^ name, fun () ->
          let f = try List.assoc name value_cases with Not_found -> Test_util.fail "no OCaml value case for %s" name in
          let got = Tensor.to_float_array (f ()) in
          Test_util.check_int ~what:(name ^ " numel") (Array.length expect) (Array.length got);
          Array.iteri (fun i e ->
              let g = got.(i) in
              if Float.abs (g -. e) > 1e-5 +. 1e-5 *. Float.abs e then
                Test_util.fail "%s[%d]: expected %.9g, got %.9g" name i e g) expect))
    values_expected

let tests = tests @ value_tests
