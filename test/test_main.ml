(* the suites assume CPU unless DEV says otherwise (a linked GPU backend would otherwise become the default) *)
let () =
  let open Tinygrad.Compiler in
  if Helpers.dev_device () = "" then Helpers.set Helpers.dev (Helpers.dev_of_string "CPU")

let () =
  Test_util.run_suites
    [ ("dtype", Test_dtype.tests);
      ("uop", Test_uop.tests); ("spec", Test_spec.tests);
      ("pattern_matcher", Test_pattern_matcher.tests);
      ("graph_rewrite", Test_graph_rewrite.tests);
      ("uop_vmin_vmax", Test_uop_vmin_vmax.tests);
      ("uop_resolve", Test_uop_resolve.tests);
      ("uop_symbolic", Test_uop_symbolic.tests);
      ("simplify_valid_idx", Test_simplify_valid_idx.tests);
      ("runtime", Test_runtime.tests); ("multitensor_null", Test_multitensor_null.tests);
      ("simplify_ranges", Test_simplify_ranges.tests);
      ("codegen", Test_codegen.tests);
      ("codegen_golden", Test_codegen_golden.tests);
      ("opts", Test_opts.tests); ("search", Test_search.tests);
      ("kernels", Test_kernels.tests);
      ("renderer", Test_renderer.tests);
      ("transcendental", Test_transcendental.tests); ("mixin_op", Test_mixin_op.tests);
      ("corpus", Test_corpus.tests); ("errors", Test_errors.tests); ("schedule", Test_schedule.tests); ("indexing", Test_indexing.tests); ("rangeify", Test_rangeify.tests); ("tensor", Test_tensor.tests); ("gradient", Test_gradient.tests); ("ops_golden", Test_ops_golden.tests); ("bad_input", Test_bad_input.tests); ("rand", Test_rand.tests); ("nn", Test_nn.tests); ("state", Test_state.tests); ("datasets", Test_datasets.tests); ("hostile", Test_hostile.tests); ("jit", Test_jit.tests); ("training", Test_training.tests); ("gpu_opts", Test_gpu_opts.tests); ("gpu_render", Test_gpu_render.tests); ("gpu_runtime", Test_gpu_runtime.tests); ("docs", Test_docs.tests); ("diff_render", Test_diff_render.tests); ("decomp_dtype", Test_decomp_dtype.tests);
      ("bigarray", Test_bigarray.tests); ("gpt2_bpe", Test_gpt2_bpe.tests); ("gpt2", Test_gpt2.tests); ("fuzz", Test_fuzz.tests); ("bench_compare", Test_bench_compare.tests);
      ("symbolic_tensor", Test_symbolic_tensor.tests); ("realize_cache", Test_realize_cache.tests);
      ("setitem", Test_setitem.tests); ("torch_load", Test_torch_load.tests); ("multitensor", Test_multitensor.tests);
      ("llm", Test_llm.tests);
      ("emu", Test_emu.tests);
      ("sanitize", Test_sanitize.tests) ]
