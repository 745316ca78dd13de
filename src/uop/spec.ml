(* tinygrad: uop/spec.py — what a well-formed UOp graph looks like at each stage. A spec is an ordered list of
   rules; a node is valid when the first rule that decides on it (returns [Some]) says [true]. *)

module P = Upat

type rule = P.t * (P.captures -> bool option)

(* for each op (by [Ops.value]), the rules that can match a node of that op, in order *)
type t = rule list array

let make rules : t = P.index_by_op fst rules

exception Verification_failed of string

let g = P.get
let v = P.var
let pat = P.pat
let src l = P.In_order l
let yes _ = Some true
let no _ = Some false

(* tinygrad: spec.py matches_dtype — Invalid matches any dtype *)
let matches_dtype (x : Uop.t) dt = x.dtype == dt || Uop.is_invalid (Uop.base x)
let matches_or_weak (x : Uop.t) dt = matches_dtype x dt || Dtype.is_weak x.dtype
let srcs_from i (u : Uop.t) = Array.to_list (Array.sub u.src i (Array.length u.src - i))
let is_int_or_invalid (y : Uop.t) = Dtype.is_int y.dtype || Uop.is_invalid (Uop.base y)

let same_shape a b =
  match Uop.shape_opt a, Uop.shape_opt b with
  | None, None -> true
  | Some x, Some y ->
    List.length x = List.length y
    && List.for_all2 (fun (p : Uop.sint) (q : Uop.sint) ->
        match p, q with Sint i, Sint j -> i = j | Suop a, Suop b -> a == b | _ -> false) x y
  | _ -> false

let param_arg (u : Uop.t) = match u.arg with Uop.Param p -> Some p | _ -> None
let is_param_arg u = param_arg u <> None
let in_addrspaces (u : Uop.t) l = match Uop.addrspace u with Some a -> List.mem a l | None -> false

(* tinygrad: spec.py validate_index. CHECK_OOB proves indices in bounds with vmin/vmax only: tinygrad's z3 step is
   not ported, so an index the bounds cannot decide is accepted. *)
let validate_index (uidx : Uop.t) =
  if Array.length uidx.src <> 2 then true
  else
    let buf = uidx.src.(0) and idx = uidx.src.(1) in
    if Uop.is_invalid idx || Helpers.check_oob.value = 0 then true
    else
      match Uop.vmin idx, Uop.vmax idx with
      | Dtype.I lo, Dtype.I hi when Z.sign lo >= 0 && Z.lt hi (Z.of_int (Uop.max_numel buf)) -> true
      | Dtype.I lo, Dtype.I _ when Z.sign lo < 0 -> false
      | _ -> true

let index_or_shrink = P.or_casted (P.ops ~name:"uidx" [ Ops.Index; Ops.Shrink ])

(* tinygrad: spec.py spec_shared — ops that can be in the tensor graph and in programs *)
let spec_shared_rules : rule list =
  [ (* NOTE: for testing, sinks can be anything *)
    (pat ~dtype:[ Dtype.Void ] Ops.Sink, yes);
    (pat Ops.Noop, yes);
    (* CONST is everywhere; Invalid is a bool const *)
    (pat ~src:(src []) ~name:"x" Ops.Const, fun m ->
        let x = g m "x" in
        Some (match Uop.const_val x, x.dtype with
            | Dtype.Invalid, dt -> dt == Dtype.Bool
            | Dtype.B _, dt -> dt == Dtype.Bool
            | Dtype.I _, dt -> Dtype.is_int dt
            | Dtype.F _, dt -> Dtype.is_float dt));
    (pat ~dtype:[ Dtype.Void ] ~src:(src []) Ops.Stack, yes);
    (pat ~src:(src [ P.wild ]) ~allow_any_len:true ~name:"s" Ops.Stack, fun m ->
        let s = g m "s" in
        let l = Array.to_list s.src in
        Some (List.for_all (same_shape (List.hd l)) l && List.for_all (fun x -> matches_or_weak x s.dtype) l));
    (* ALUs: operands match the result dtype, except comparisons/WHERE; lowered shifts may use a uint32 count *)
    (pat ~name:"w" ~src:(src [ P.make ~dtype:[ Dtype.Bool ] (); P.wild; P.wild ]) Ops.Where, fun m ->
        let w = g m "w" in
        Some (List.for_all (fun s -> matches_or_weak s w.dtype) (srcs_from 1 w)));
    (P.ops ~dtype:[ Dtype.Bool ] ~src:(src [ v "x"; v "y" ]) Ops.Group.comparison, fun m ->
        let x = g m "x" and y = g m "y" in
        Some (matches_dtype x y.dtype || matches_dtype y x.dtype || Dtype.is_weak x.dtype || Dtype.is_weak y.dtype));
    (P.ops ~name:"x" [ Ops.And; Ops.Or; Ops.Xor; Ops.Shl; Ops.Shr ], fun m ->
        if Array.exists (fun (s : Uop.t) -> Dtype.is_float s.dtype) (g m "x").src then Some false else None);
    (P.ops ~name:"a" ~src:(src [ v "x"; v "c" ]) [ Ops.Shl; Ops.Shr ], fun m ->
        let a = g m "a" and x = g m "x" and c = g m "c" in
        Some ((matches_dtype x a.dtype || x.dtype == Dtype.Weakint)
              && (matches_dtype c a.dtype || c.dtype == Dtype.Uint32 || c.dtype == Dtype.Weakint
                  || Uop.is_invalid (Uop.base x))));
    (P.ops ~name:"x" [ Ops.Cdiv; Ops.Cmod; Ops.Floordiv; Ops.Floormod ], fun m ->
        let x = g m "x" in
        if Dtype.is_int x.dtype || Array.exists (fun s -> Uop.is_invalid (Uop.base s)) x.src then None
        else Some false);
    (P.ops ~name:"x" Ops.Group.alu, fun m ->
        let x = g m "x" in
        Some (Array.for_all (fun y -> matches_or_weak y x.dtype) x.src));
    (* CAST *)
    (P.ops ~src:(src [ P.wild ]) ~name:"x" [ Ops.Bitcast; Ops.Cast ], fun m ->
        Some (match (g m "x").arg with Uop.Dtype _ -> true | _ -> false));
    (* RANGE: the arg is (axis ids..., axis type) *)
    (pat ~src:(src [ v "x" ]) ~allow_any_len:true ~name:"rng" Ops.Range, fun m ->
        let rng = g m "rng" in
        Some (matches_dtype (g m "x") rng.dtype && (match rng.arg with Uop.Range (_ :: _, _) -> true | _ -> false)));
    (pat ~name:"x" Ops.Index, fun m ->
        let x = g m "x" in
        if Array.length x.src > 0 && List.for_all is_int_or_invalid (srcs_from 1 x) then Some true else None);
    (* END closes RANGEs *)
    (pat ~src:(src [ P.wild ]) ~allow_any_len:true ~name:"x" Ops.End, fun m ->
        if List.for_all (fun (u : Uop.t) -> u.op == Ops.Range) (srcs_from 1 (g m "x")) then Some true else None);
    (* a loop-ended END has a trailing bool condition for the backedge *)
    (pat ~src:(src [ P.wild; pat ~dtype:[ Dtype.Void ] Ops.Range; P.make ~dtype:[ Dtype.Bool ] () ]) Ops.End, yes);
    (* PARAM *)
    (pat ~name:"x" Ops.Param, fun m -> Some (is_param_arg (g m "x")));
    (pat ~src:(src [ P.wild ]) ~name:"x" Ops.Buffer, fun m ->
        let x = g m "x" in Some (is_param_arg x && in_addrspaces x [ Dtype.Reg; Dtype.Local ]));
    (* GROUP of stores (or groups, or NOOPs) *)
    (pat ~dtype:[ Dtype.Void ] ~src:(P.Repeat (P.ops [ Ops.Group; Ops.Store; Ops.Noop; Ops.Ins; Ops.End ])) Ops.Group,
     yes);
    (* AFTER on a movement op, PARAM, BUFFER, CONTIGUOUS, or another AFTER *)
    (pat ~src:(src [ P.ops (Ops.Group.movement @ Ops.[ Param; Buffer; Contiguous; Index; After; Unshard; Bitcast; Ins ]) ])
       ~allow_any_len:true ~name:"x" Ops.After, fun m ->
        let x = g m "x" in Some (matches_dtype x.src.(0) x.dtype));
    (* CUSTOM (inline and non inline) *)
    (P.ops [ Ops.Customi; Ops.Custom ], yes);
    (* CALL of an external function *)
    (pat ~src:(src [ P.wild ]) ~allow_any_len:true ~name:"x" Ops.Call, fun m ->
        let x = g m "x" in
        if x.src.(0).dtype != Dtype.Void then Some (matches_dtype x.src.(0) Dtype.Uint64) else None);
    (pat Ops.Pyliteral, yes);
    (pat ~dtype:[ Dtype.Void ] Ops.Barrier, yes);
    (pat Ops.Ins, yes);
    (* LOAD(idx) / STORE(idx, val) with gates on the LOAD/STORE *)
    (P.load index_or_shrink [], fun m -> Some (validate_index (g m "uidx")));
    (P.load ~name:"load" index_or_shrink [ v "alt"; v ~dtype:[ Dtype.Bool ] "gate" ], fun m ->
        Some (matches_dtype (g m "alt") (g m "load").dtype && validate_index (g m "uidx")));
    (* not in tinygrad: a vector LOAD under a mask of lanes (CPU_OPT=fast, codegen/late/coalesce.ml) *)
    (P.load ~name:"load" index_or_shrink [ v "alt"; v ~dtype:[ Dtype.Uint32 ] "mask" ], fun m ->
        Some (matches_dtype (g m "alt") (g m "load").dtype && validate_index (g m "uidx")));
    (P.store index_or_shrink [ P.wild ], fun m -> Some (validate_index (g m "uidx")));
    (P.store index_or_shrink [ P.wild; v ~dtype:[ Dtype.Bool ] "gate" ], fun m -> Some (validate_index (g m "uidx")));
    (* STORE in the tensor graph: a value into a target *)
    (pat ~dtype:[ Dtype.Void ] ~src:(src [ P.wild; P.wild ]) Ops.Store, yes);
    (* WMMA has <a, b, acc> *)
    (pat ~src:(src [ P.wild; P.wild; P.wild ]) ~name:"x" Ops.Wmma, fun m ->
        Some (match (g m "x").arg with Uop.Wmma_arg _ -> true | _ -> false)) ]

(* an MSTACK of device buffers, or of one device-less node *)
let valid_mstack (x : Uop.t) =
  Array.for_all (fun s -> match Uop.mdevice s with Some (Uop.One _) -> true | _ -> false) x.src
  || (Helpers.all_same (Array.to_list (Array.map (fun (s : Uop.t) -> s.id) x.src)) && Uop.mdevice x.src.(0) = None)

(* tinygrad: spec.py valid_gettuple *)
let valid_gettuple (gt : Uop.t) (t : Uop.t) =
  match gt.arg with
  | Uop.Int i -> 0 <= i && i < Array.length t.src && matches_dtype t.src.(i) gt.dtype
  | _ -> false

(* tinygrad: spec.py spec_tensor — ops that can be in the tensor graph but not in programs (movement ops) *)
let spec_tensor_rules : rule list =
  [ (P.ops ~src:(src [ P.wild ]) ~name:"u" Ops.[ Sin; Log2; Exp2; Sqrt; Reciprocal ], fun m ->
        let u = g m "u" in Some (Dtype.is_float u.dtype || Uop.is_invalid (Uop.base u.src.(0))));
    (* BUFFER: a real buffer has a weakint size and a device *)
    (pat ~src:(src [ P.wild ]) ~name:"buf" Ops.Buffer, fun m ->
        let buf = g m "buf" in
        match param_arg buf with
        | Some p when Uop.addrspace buf = Some Dtype.Global ->
          Some (matches_dtype buf.src.(0) Dtype.Weakint && p.device <> None)
        | _ -> None);
    (* a Variable is a 0-d ALU BUFFER with a value range and no device *)
    (pat ~src:(src [ P.wild ]) ~name:"buf" Ops.Buffer, fun m ->
        let buf = g m "buf" in
        if Uop.is_variable buf then Some ((Option.get (param_arg buf)).device = None) else None);
    (pat ~name:"x" Ops.Custom_function, fun m -> Some (match (g m "x").arg with Uop.Str _ -> true | _ -> false));
    (pat ~dtype:[ Dtype.Void ] ~allow_any_len:true
       ~src:(src [ P.ops Ops.[ Sink; Linear; Program; Copy; Custom_function ] ]) Ops.Call, yes);
    (* FUNCTION and TUPLE are void; GETTUPLE is on a FUNCTION or a TUPLE *)
    (pat ~dtype:[ Dtype.Void ] ~src:(src [ pat Ops.Tuple ]) ~allow_any_len:true Ops.Function, yes);
    (pat ~dtype:[ Dtype.Void ] Ops.Tuple, yes);
    (pat ~name:"g" ~src:(src [ pat ~allow_any_len:true ~src:(src [ pat ~name:"t" Ops.Tuple ]) Ops.Function ])
       Ops.Gettuple, fun m -> Some (valid_gettuple (g m "g") (g m "t")));
    (pat ~name:"g" ~src:(src [ pat ~name:"t" Ops.Tuple ]) Ops.Gettuple,
     fun m -> Some (valid_gettuple (g m "g") (g m "t")));
    (* SPECIAL is an index before index lowering *)
    (pat ~src:(src [ v ~dtype:[ Dtype.Weakint ] "x" ]) ~name:"s" Ops.Special, fun m ->
        let s = g m "s" in Some (matches_dtype (g m "x") s.dtype && (match s.arg with Uop.Str _ -> true | _ -> false)));
    (* movement ops *)
    (P.ops ~src:(src [ P.wild; P.wild ]) Ops.[ Reshape; Expand ], yes);
    (P.ops ~src:(src [ P.wild; P.wild; P.wild ]) ~name:"x" Ops.[ Pad; Shrink ], fun m ->
        let x = g m "x" in Some (same_shape x.src.(1) x.src.(2)));
    (P.ops ~name:"mv" ~src:(src [ P.wild ]) Ops.[ Permute; Flip ], fun m ->
        Some (match (g m "mv").arg with Uop.Ints _ | Uop.Bools _ -> true | _ -> false));
    (* REDUCE: arg (op, number of axes), src[1:] are ranges after lowering *)
    (pat ~src:(src [ P.wild ]) ~allow_any_len:true ~name:"x" Ops.Reduce, fun m ->
        let x = g m "x" in
        Some ((match x.arg with Uop.Reduce_arg (op, _) -> Ops.Group.is_reduce op | _ -> false)
              && List.for_all (fun (y : Uop.t) -> y.dtype == Dtype.Weakint || y.dtype == Dtype.Int32) (srcs_from 1 x)));
    (* COPY *)
    (pat ~name:"copy" ~src:(src [ v "x" ]) Ops.Copy, fun m ->
        let c = g m "copy" in
        Some (matches_dtype (g m "x") c.dtype && Uop.device_of_arg c.arg <> None));
    (pat ~name:"red" ~src:(src [ v "x" ]) Ops.Allreduce, fun m ->
        let r = g m "red" in
        Some (matches_dtype (g m "x") r.dtype
              && (match r.arg with
                  | Uop.Tuple [ Uop.Op op; d ] -> Ops.Group.is_reduce op && Uop.device_of_arg d <> None
                  | _ -> false)));
    (* UNSHARD carries the value and one sharding range per sharded axis *)
    (pat ~name:"multi" Ops.Unshard, fun m ->
        let u = g m "multi" in
        Some (match u.arg with
            | Uop.Ints l -> Array.length u.src = 1 + List.length l && matches_dtype u.src.(0) u.dtype
                            && List.for_all (fun (r : Uop.t) -> Dtype.is_weak r.dtype) (srcs_from 1 u)
            | _ -> false));
    (* an MSELECT picks one device of its source's tuple *)
    (pat ~name:"x" Ops.Mselect, fun m ->
        let x = g m "x" in
        Some (match Uop.mdevice x.src.(0), x.arg with
            | Some (Uop.Multi ds), Uop.Int i -> i >= 0 && i < List.length ds
            | _ -> false));
    (pat ~name:"x" Ops.Mstack, fun m -> Some (valid_mstack (g m "x")));
    (* CONTIGUOUS makes the source realize *)
    (P.ops ~name:"root" ~src:(src [ v "x" ]) ~arg:Uop.No_arg Ops.[ Detach; Contiguous; Contiguous_backward ], fun m ->
        Some (matches_dtype (g m "x") (g m "root").dtype));
    (pat ~src:(src [ P.wild ]) ~allow_any_len:true Ops.Stage, yes);
    (* codegen: PROGRAM with progressive sources (SINK, LINEAR?, SOURCE?, BINARY?) *)
    (pat ~dtype:[ Dtype.Void ] Ops.Linear, yes);
    (pat ~dtype:[ Dtype.Void ] ~src:(src []) Ops.Source, yes);
    (pat ~dtype:[ Dtype.Uint8 ] ~src:(src []) ~name:"x" Ops.Binary, fun m ->
        Some (match (g m "x").arg with Uop.Str _ -> true | _ -> false));
    (pat ~dtype:[ Dtype.Void ] ~src:(src [ pat Ops.Sink ]) Ops.Program, yes);
    (pat ~dtype:[ Dtype.Void ] ~src:(src [ pat Ops.Sink; pat Ops.Linear ]) Ops.Program, yes);
    (pat ~dtype:[ Dtype.Void ] ~src:(src [ pat Ops.Sink; pat Ops.Linear; pat Ops.Source ]) Ops.Program, yes);
    (pat ~dtype:[ Dtype.Void ] ~src:(src [ pat Ops.Sink; pat Ops.Linear; pat Ops.Source; pat Ops.Binary ]) Ops.Program,
     yes) ]
  @ spec_shared_rules

(* tinygrad: spec.py spec_program — ops that can be in programs but not in the tensor graph (LOAD) *)
let spec_program_rules : rule list =
  [ (* a literal is CAST(dt, CONST(value)): its inner CONST is the one weak node a program may contain *)
    (pat ~dtype:Dtype.[ Weakint; Weakfloat ] ~name:"x" Ops.Const, fun m ->
        let x = g m "x" in
        Some (match Uop.const_val x with
            | Dtype.I _ -> x.dtype == Dtype.Weakint
            | Dtype.F _ -> x.dtype == Dtype.Weakfloat
            | Dtype.B _ | Dtype.Invalid -> false));
    (* index and weak dtypes are not allowed in programs *)
    (P.make ~op:Ops.Group.all ~dtype:Dtype.[ Weakint; Weakfloat ] (), no);
    (* the special SHRINK of a buffer *)
    (pat ~src:(src [ P.ops Ops.[ Param; Buffer; After ]; P.wild; P.or_casted (pat Ops.Const) ]) Ops.Shrink, yes);
    (* movement ops are not allowed in programs *)
    (P.ops Ops.Group.movement, no);
    (* REG/LOCAL buffer *)
    (pat ~name:"x" Ops.Buffer, fun m -> let x = g m "x" in Some (is_param_arg x && in_addrspaces x [ Dtype.Reg; Dtype.Local ]));
    (* Invalid is not allowed in programs *)
    (pat ~arg:(Uop.Const Dtype.Invalid) Ops.Const, no);
    (* IF has <gate, index_for_dedup> *)
    (pat ~dtype:[ Dtype.Void ] ~src:(src [ P.make ~dtype:[ Dtype.Bool ] (); P.ops Ops.[ Cast; Index; Shrink ] ]) Ops.If,
     yes);
    (pat ~dtype:[ Dtype.Void ] ~src:(src [ pat Ops.If ]) Ops.Endif, yes);
    (* SPECIAL is int32 after index lowering *)
    (pat ~src:(src [ v ~dtype:[ Dtype.Int32 ] "x" ]) ~name:"s" Ops.Special, fun m ->
        let s = g m "s" in Some (matches_dtype (g m "x") s.dtype && (match s.arg with Uop.Str _ -> true | _ -> false))) ]
  @ spec_shared_rules

let is_bound_var (u : Uop.t) =
  u.op == Ops.After && Array.length u.src = 2 && Uop.is_variable u.src.(0) && u.src.(1).op == Ops.Store
  && u.src.(1).src.(0) == u.src.(0) && u.src.(1).src.(1).op == Ops.Const

(* tinygrad: spec.py spec_kernel_graph — the graph of kernel CALLs the scheduler produces *)
let spec_kernel_graph_rules : rule list =
  [ (pat ~dtype:[ Dtype.Void ] Ops.Sink, yes);
    (* the store of a bound Variable binds it: AFTER(BUFFER, STORE(BUFFER, CONST)) in call args *)
    (pat ~dtype:[ Dtype.Void ] ~src:(src [ pat ~name:"b" Ops.Buffer; pat Ops.Const ]) Ops.Store, fun m ->
        Some (Uop.is_variable (g m "b")));
    (pat ~src:(src []) Ops.Const, yes);
    (pat ~name:"s" Ops.Stack, fun m ->
        if Array.for_all (fun (x : Uop.t) -> x.op == Ops.Const || x.op == Ops.Param || Uop.is_variable x || is_bound_var x)
            (g m "s").src then Some true else None);
    (* PARAM is an outside buffer, BUFFER a local one *)
    (pat ~name:"x" Ops.Param, fun m -> Some (is_param_arg (g m "x")));
    (pat ~name:"x" Ops.Buffer, fun m -> let x = g m "x" in Some (is_param_arg x && in_addrspaces x [ Dtype.Global; Dtype.Alu ]));
    (* RESHAPE/BITCAST are NOOPs in the kernel graph *)
    (P.ops Ops.[ Reshape; Bitcast ], yes);
    (pat ~name:"x" Ops.Mselect, fun m ->
        let x = g m "x" in
        Some (match Uop.mdevice x.src.(0), x.arg with
            | Some (Uop.Multi ds), Uop.Int i -> i >= 0 && i < List.length ds
            | _ -> false));
    (pat ~name:"x" Ops.Mstack, fun m -> Some (valid_mstack (g m "x")));
    (* all calls are on sinks *)
    (pat ~src:(src [ P.ops Ops.[ Sink; Linear; Program; Custom_function ] ]) ~allow_any_len:true Ops.Call, yes);
    (* AFTER on a PARAM or an AFTER *)
    (pat ~src:(src [ P.ops (Ops.Group.movement @ Ops.[ Param; After; Buffer; Mstack; Mselect; Bitcast; Reshape ]) ])
       ~allow_any_len:true ~name:"x" Ops.After, fun m -> let x = g m "x" in Some (matches_dtype x.src.(0) x.dtype)) ]

let spec_shared = make spec_shared_rules
let spec_tensor = make spec_tensor_rules
let spec_program = make spec_program_rules
let spec_kernel_graph = make spec_kernel_graph_rules

(* PatternMatcher.rewrite over a spec: the first rule (and, within it, the first match) that decides; only the
   rules that can match the node's op are tried *)
let check (spec : t) (u : Uop.t) : bool option =
  let rec rules = function
    | [] -> None
    | (p, f) :: rest -> (match P.first_match p u f with Some _ as r -> r | None -> rules rest) in
  rules spec.(Ops.value u.op)

let describe (u : Uop.t) =
  Printf.sprintf "%s %s %d [%s] %s" (Ops.to_string u.op) (Dtype.to_string u.dtype) (Array.length u.src)
    (String.concat "; " (Array.to_list (Array.map (fun (x : Uop.t) ->
         Printf.sprintf "(%s, %s, %s)" (Ops.to_string x.op) (Dtype.to_string x.dtype) (Uop.arg_to_string x.arg)) u.src)))
    (Uop.arg_to_string u.arg)

(* tinygrad: spec.py type_verify *)
let type_verify_list (spec : t) (lst : Uop.t list) =
  List.iteri (fun i u ->
      if check spec u <> Some true then
        raise (Verification_failed (Printf.sprintf "UOp verification failed at %d on %s" i (describe u)))) lst

let type_verify ?(enter_calls = true) (spec : t) (ast : Uop.t) =
  type_verify_list spec (Uop.toposort ~enter_calls ast)
