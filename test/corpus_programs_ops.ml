(* The corpus programs that use the nn-style functions (T-ops' Mixin_op, wrapped by Tensor): matmul, softmax, layernorm, conv2d,
   pools, getitem, gather, one_hot, cumsum, triu/eye, float arange, sparse_categorical_crossentropy. The tinygrad
   source is quoted above each one (see test/corpus_programs.ml). *)

module T = Tinygrad.Tensor
let s x = T.scalar x

let programs : (string * Corpus_programs.program) list = [
  ("nm_softmax", fun i -> [ T.softmax ~axis:(-1) (i "a") ]);
  ("nm_log_softmax", fun i -> [ T.log_softmax ~axis:(-1) (i "a") ]);
  ("nm_logsumexp", fun i -> [ T.logsumexp ~axis:1 (i "a") ]);
  (* x.layernorm() * w + b *)
  ("nm_layernorm", fun i -> [ T.add (T.mul (T.layernorm (i "x")) (i "w")) (i "b") ]);
  ("mm_square", fun i -> [ T.matmul (i "a") (i "b") ]);
  ("mm_rect", fun i -> [ T.matmul (i "a") (i "b") ]);
  ("mm_matvec", fun i -> [ T.matmul (i "a") (i "v") ]);
  ("mm_vecmat", fun i -> [ T.matmul (i "v") (i "a") ]);
  ("mm_large", fun i -> [ T.matmul (i "a") (i "b") ]);
  ("mm_half_out", fun i -> [ T.matmul (i "a") (i "b") ]);
  ("mm_dot_1d", fun i -> [ T.dot (i "a") (i "b") ]);
  (* (x @ w1) @ w2 *)
  ("mm_chain", fun i -> [ T.matmul (T.matmul (i "x") (i "w1")) (i "w2") ]);
  ("cv_conv2d", fun i -> [ T.conv2d (i "x") (i "w") ]);
  ("cv_conv2d_1x1", fun i -> [ T.conv2d (i "x") (i "w") ]);
  (* x.conv2d(w, groups=2, padding=1) *)
  ("cv_conv2d_groups", fun i -> [ T.conv2d ~groups:2 ~padding:1 (i "x") (i "w") ]);
  (* x.avg_pool2d((3,3), stride=2, padding=1) *)
  ("cv_avg_pool2d", fun i -> [ T.avg_pool2d ~kernel_size:3 ~stride:2 ~padding:1 (i "x") ]);
  (* x.conv2d(w, padding=1).relu().max_pool2d((2,2)) *)
  ("cv_conv_relu_pool", fun i -> [ T.max_pool2d ~kernel_size:2 (T.relu (T.conv2d ~padding:1 (i "x") (i "w"))) ]);
  (* [a[1:5, ::2] + 0, a[-2:, 3] + 0, a[::-1, 1::3] + 0] *)
  ("ix_slice_basic", fun i ->
      let a = i "a" in
      [ T.add (T.getitem a [ T.S (Some 1, Some 5, None); T.S (None, None, Some 2) ]) (s 0.);
        T.add (T.getitem a [ T.S (Some (-2), None, None); T.I 3 ]) (s 0.);
        T.add (T.getitem a [ T.S (None, None, Some (-1)); T.S (Some 1, None, Some 3) ]) (s 0.) ]);
  (* table[idx] *)
  ("ix_fancy_rows", fun i -> [ T.getitem (i "table") [ T.T (i "idx") ] ]);
  (* a.gather(1, idx) *)
  ("ix_gather", fun i -> [ T.gather (i "a") ~dim:1 (i "idx") ]);
  (* y.one_hot(10) *)
  ("ix_one_hot", fun i -> [ T.one_hot (i "y") 10 ]);
  (* a.cumsum(0) *)
  ("ix_cumsum_long", fun i -> [ T.cumsum ~axis:0 (i "a") ]);
  (* idx.one_hot(6).float() @ table *)
  ("ix_where_scatter_like", fun i -> [ T.matmul (T.float (T.one_hot (i "idx") 6)) (i "table") ]);
  (* (x @ w1 + b1).relu() @ w2 + b2 *)
  ("tr_mlp_forward", fun i ->
      [ T.add (T.matmul (T.relu (T.add (T.matmul (i "x") (i "w1")) (i "b1"))) (i "w2")) (i "b2") ]);
  (* logits.sparse_categorical_crossentropy(y) *)
  ("tr_sparse_ce", fun i -> [ T.sparse_categorical_crossentropy (i "logits") (i "y") ]);
  (* a.triu() + Tensor.eye(8) *)
  ("ix_triu_eye", fun i -> [ T.add (T.triu (i "a")) (T.eye 8) ]);
  (* Tensor.arange(0, 2, 0.25) *)
  ("ix_arange_float_alone", fun _ -> [ T.arange_float ~step:0.25 2.0 ]);
]
