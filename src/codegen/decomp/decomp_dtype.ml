(* tinygrad: codegen/decomp/dtype.py (emulation of dtypes the renderer lacks: long as two ints, floats via
   integer bit manipulation).

   PORTED: the detection pass [pm_dtype_decomps] and [do_dtype_decomps]'s choice of what to emulate.
   NOT PORTED YET: the rewrites themselves (l2i / pm_long_decomp, f2f / pm_float_decomp); a program that
   needs one fails loudly. With ClangRenderer and no EMULATED_DTYPES nothing is emulated but fp8. *)

type ctx = (Dtype.t, unit) Hashtbl.t * Renderer.t

(* tinygrad: EMULATED_DTYPES.tolist(dtypes): a comma separated list of dtype names *)
let emulated_dtypes () =
  match Sys.getenv_opt "EMULATED_DTYPES" with
  | None | Some "" -> []
  | Some s ->
    List.filter_map (fun n ->
        let n = String.trim n in
        if n = "" then None
        else match Dtype.of_string n with Some d -> Some d | None -> invalid_arg ("EMULATED_DTYPES: unknown dtype " ^ n))
      (String.split_on_char ',' s)

(* tinygrad: do_dtype_decomps *)
let do_dtype_decomps (sink : Uop.t) ((dts, ren) : ctx) : Uop.t =
  let emulated = emulated_dtypes () in
  let should_emulate dt = List.memq dt emulated || not (List.memq dt ren.Renderer.supported_dtypes) in
  let todo = List.sort Dtype.compare (List.filter should_emulate (Hashtbl.fold (fun d () acc -> d :: acc) dts [])) in
  List.iter (fun fr ->
      let to_ =
        if fr == Dtype.Int64 then Dtype.Int32
        else if (not (should_emulate Dtype.Float16)) && List.memq fr Dtype.fp8s then Dtype.Float16
        else Dtype.Float32 in
      invalid_arg (Printf.sprintf "dtype decomposition: emulating %s as %s is not ported yet" (Dtype.to_string fr)
                     (Dtype.to_string to_))) todo;
  Hashtbl.reset dts;
  sink

(* tinygrad: pm_dtype_decomps *)
let pm_dtype_decomps : ctx Upat.matcher =
  Upat.matcher [
    (* detect dtypes to decompose *)
    Upat.rule_ctx (Upat.make ~op:Ops.Group.all ~dtype:(Dtype.fp8s @ [ Dtype.Bfloat16; Dtype.Float16; Dtype.Int64; Dtype.Uint64 ])
                     ~name:"x" ())
      (fun ((dts, _) : ctx) c ->
         let dt = (Upat.get c "x").dtype in
         Hashtbl.replace dts (if dt == Dtype.Uint64 then Dtype.Int64 else dt) ();
         None);
    (* do the rewrites *)
    Upat.rule_ctx (Upat.pat Ops.Sink ~name:"sink") (fun ctx c ->
        let s = Upat.get c "sink" in
        let r = do_dtype_decomps s ctx in
        if r == s then None else Some r) ]
