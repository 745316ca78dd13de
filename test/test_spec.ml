(* Tests for the UOp verifier (spec.ml, tinygrad uop/spec.py): hand-built graphs that tinygrad's type_verify rejects
   (the rule each one breaks is named next to it) are rejected with a message naming the bad node, well-formed
   ones are accepted, and a compiled program passes every spec on the way. *)

open Tinygrad.Compiler
open Test_util

let f32 x = Uop.const ~dtype:Dtype.Float32 (Dtype.F x)
let i32 n = Uop.const ~dtype:Dtype.Int32 (Dtype.I (Z.of_int n))
let buf = Uop.placeholder_param ~slot:0 Dtype.Float32 16
let idx = Uop.index buf [ i32 3 ]
let mk ?(dtype = Dtype.Float32) op src = Uop.create op ~dtype ~src:(Array.of_list src)

(* rejected, with the op and dtype of the bad node in the message *)
let rejects ~what spec u ~names =
  match Spec.type_verify spec u with
  | () -> fail "%s: the verifier accepted a malformed graph" what
  | exception Spec.Verification_failed msg ->
    check (String.length msg > 0 && List.for_all (fun s ->
        let n = String.length s and m = String.length msg in
        let rec at i = i + n <= m && (String.sub msg i n = s || at (i + 1)) in at 0) names)
      "%s: the message %S does not name %s" what msg (String.concat ", " names)

let accepts ~what spec u =
  match Spec.type_verify spec u with
  | () -> ()
  | exception Spec.Verification_failed msg -> fail "%s: rejected a well-formed graph: %s" what msg

let tests = [
  ("rejects_alu_with_mixed_dtypes", fun () ->
      (* spec_shared GroupOp.ALU: every operand has the result dtype *)
      rejects ~what:"float32 ADD of an int32" Spec.spec_tensor (mk Ops.Add [ f32 1.; i32 2 ]) ~names:[ "Ops.ADD"; "dtypes.int" ]);
  ("rejects_bitwise_on_floats", fun () ->
      (* spec_shared: AND/OR/XOR/SHL/SHR on a float source is False *)
      rejects ~what:"AND of floats" Spec.spec_tensor (mk Ops.And [ f32 1.; f32 2. ]) ~names:[ "Ops.AND" ];
      rejects ~what:"SHL of a float" Spec.spec_program (mk Ops.Shl [ f32 1.; f32 2. ]) ~names:[ "Ops.SHL" ]);
  ("rejects_comparison_of_mixed_dtypes", fun () ->
      (* spec_shared comparisons: one operand has the other's dtype (or is weak) *)
      rejects ~what:"CMPLT float/int" Spec.spec_tensor (mk ~dtype:Dtype.Bool Ops.Cmplt [ f32 1.; i32 2 ])
        ~names:[ "Ops.CMPLT" ]);
  ("rejects_float_division_op", fun () ->
      (* spec_shared: CDIV/CMOD/FLOORDIV/FLOORMOD are integer ops *)
      rejects ~what:"float CMOD" Spec.spec_tensor (mk Ops.Cmod [ f32 1.; f32 2. ]) ~names:[ "Ops.CMOD" ]);
  ("rejects_bad_index", fun () ->
      (* spec_shared INDEX: the indices are ints *)
      let bad = mk Ops.Index [ buf; f32 3. ] in
      rejects ~what:"INDEX by a float" Spec.spec_program (Uop.sink [ Uop.store bad (f32 1.) ]) ~names:[ "Ops.INDEX" ]);
  ("rejects_bad_store_and_load", fun () ->
      (* a STORE's gate is a bool *)
      rejects ~what:"STORE gated by an int" Spec.spec_program (mk ~dtype:Dtype.Void Ops.Store [ idx; f32 1.; i32 1 ])
        ~names:[ "Ops.STORE" ];
      (* a STORE that is not into an INDEX is the tensor graph's, and void *)
      rejects ~what:"float32 STORE into a const" Spec.spec_tensor (mk Ops.Store [ f32 0.; f32 1. ]) ~names:[ "Ops.STORE" ];
      (* a gated LOAD's alternative value has the load's dtype *)
      rejects ~what:"LOAD with an int alt" Spec.spec_program
        (mk Ops.Load [ idx; i32 0; Uop.const ~dtype:Dtype.Bool (Dtype.B true) ]) ~names:[ "Ops.LOAD" ]);
  ("rejects_program_only_violations", fun () ->
      (* spec_program: movement ops and weak dtypes are not allowed in programs, Invalid neither *)
      let r = Uop.mop Ops.Reshape buf (`Shape [ Uop.Sint 4; Uop.Sint 4 ]) in
      check (Spec.check Spec.spec_program r = Some false) "RESHAPE in a program is rejected";
      rejects ~what:"RESHAPE in a program" Spec.spec_program r ~names:[ "weakint" ];
      accepts ~what:"RESHAPE in the tensor graph" Spec.spec_tensor r;
      let w = Uop.const ~dtype:Dtype.Weakint (Dtype.I (Z.of_int 2)) in
      rejects ~what:"weakint ADD in a program" Spec.spec_program (mk ~dtype:Dtype.Weakint Ops.Add [ w; w ])
        ~names:[ "Ops.ADD"; "weakint" ]);
  ("rejects_unary_float_op_on_ints", fun () ->
      (* spec_tensor: SIN/LOG2/EXP2/SQRT/RECIPROCAL are float ops *)
      rejects ~what:"int32 SQRT" Spec.spec_tensor (mk ~dtype:Dtype.Int32 Ops.Sqrt [ i32 4 ]) ~names:[ "Ops.SQRT" ]);
  ("accepts_well_formed_graphs", fun () ->
      accepts ~what:"float ADD" Spec.spec_tensor (mk Ops.Add [ f32 1.; f32 2. ]);
      accepts ~what:"int SHL by a uint32" Spec.spec_program
        (mk ~dtype:Dtype.Int32 Ops.Shl [ i32 1; Uop.const ~dtype:Dtype.Uint32 (Dtype.I Z.one) ]);
      accepts ~what:"store of a load" Spec.spec_program
        (Uop.sink [ Uop.store (Uop.index buf [ i32 4 ]) (mk Ops.Add [ Uop.load idx []; f32 1. ]) ]);
      accepts ~what:"comparison" Spec.spec_program (mk ~dtype:Dtype.Bool Ops.Cmplt [ i32 1; i32 2 ]));
  ("compiled_kernels_pass_every_spec", fun () ->
      (* the tensor graph, kernel graph, kernel AST and program of a fused kernel, verified on the way *)
      Helpers.context [ Helpers.Bind (Helpers.spec, 1); Helpers.Bind (Helpers.scache, 0) ] (fun () ->
          let a = Tensor.of_float_array [| 3; 5 |] (Array.init 15 float_of_int) in
          let s = Tensor.sum ~axis:[ 1 ] (Tensor.mul (Tensor.add a a) a) in
          check (Tensor.to_float_array s = [| 60.; 510.; 1460. |]) "sum of 2a*a: %s" (Tensor.to_string s)));
  ("codegen_verifies_under_spec", fun () ->
      (* under SPEC the kernel AST is verified before codegen (tinygrad full_rewrite_to_sink): a malformed ALU in a
         kernel is a verifier error naming it *)
      let r = Uop.range (Uop.Sint 16) 0 in
      let bad = mk Ops.Add [ Uop.load (Uop.index buf [ r ]) []; i32 1 ] in
      let ast = Uop.sink ~arg:(Uop.Kernel_info Uop.default_kernel_info) [ Uop.end_ (Uop.store (Uop.index buf [ r ]) bad) [ r ] ] in
      match Helpers.context [ Helpers.Bind (Helpers.spec, 1) ] (fun () ->
          Codegen.full_rewrite_to_sink ast (Device.renderer "CPU")) with
      | _ -> fail "the malformed kernel compiled"
      | exception Spec.Verification_failed msg ->
        check (String.length msg > 30 && String.sub msg 0 26 = "UOp verification failed at") "message: %s" msg);
  ("default_float_follows_context", fun () ->
      (* DEFAULT_FLOAT is a context variable: an override changes the default float dtype *)
      check (Helpers.context [ Helpers.Bind (Helpers.default_float, "float16") ] Dtype.default_float == Dtype.Float16)
        "DEFAULT_FLOAT=float16 in a context";
      check (Dtype.default_float () == Dtype.Float32) "DEFAULT_FLOAT restored");
]
