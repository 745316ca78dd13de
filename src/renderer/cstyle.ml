(* tinygrad: renderer/cstyle.py (CStyleLanguage, base_rewrite, ClangRenderer, MetalRenderer, CUDARenderer) *)

open Uop

(* ---------- small helpers (tinygrad: helpers.py) ---------- *)

(* Python's str.format with positional "{}" / "{N}" fields and "{{" "}}" escapes *)
let py_format fmt (args : string list) =
  let b = Buffer.create (String.length fmt + 16) in
  let n = String.length fmt and auto = ref 0 in
  let i = ref 0 in
  while !i < n do
    let c = fmt.[!i] in
    if c = '{' && !i + 1 < n && fmt.[!i + 1] = '{' then (Buffer.add_char b '{'; i := !i + 2)
    else if c = '}' && !i + 1 < n && fmt.[!i + 1] = '}' then (Buffer.add_char b '}'; i := !i + 2)
    else if c = '{' then begin
      let j = match String.index_from_opt fmt !i '}' with Some j -> j | None -> invalid_arg ("format: unmatched { in " ^ fmt) in
      let field = String.sub fmt (!i + 1) (j - !i - 1) in
      let k = if field = "" then (let k = !auto in incr auto; k) else int_of_string field in
      Buffer.add_string b (List.nth args k);
      i := j + 1
    end else (Buffer.add_char b c; incr i)
  done;
  Buffer.contents b

(* tinygrad: helpers.is_image_shape *)
let is_image_shape = function
  | Some s -> List.length s = 3 && (match List.nth s 2 with Sint 4 -> true | _ -> false)
  | None -> false

(* ---------- the language record ---------- *)

(* tinygrad: class CStyleLanguage. Each class attribute is a field; subclasses are records built from
   [cstyle_language] with fields overridden. *)
type lang = {
  abi : string;
  kernel_typedef : string;  (** may contain "{launch_bounds}" *)
  buffer_prefix : string;
  buffer_suffix : string;
  smem_align : string;
  smem_prefix : string;
  smem_prefix_for_cast : bool;
  var_prefix : string;
  var_suffix : string;
  barrier : string;
  code_for_workitem : (char * (string -> string)) list;
  extra_args : string list;
  float4 : string option;
  float4_style : string * string;
  gep_arr_threshold : int;
  type_map : (Dtype.t * string) list;
  infinity : string;
  nan : string;
  code_for_op : (Ops.t * (string list -> Dtype.t -> string)) list;
  string_rewrite : rule list;
  render_kernel : lang -> ?prefix:string list -> string -> string list -> (string * (Uop.t * bool)) list -> Uop.t list -> string;
  render_vector_prefix : lang -> Dtype.t -> int -> string;
}

(* the state [_render] keeps while it walks the program (tinygrad: self.r) *)
and ctx = { lang : lang; r : string Uop.Tbl.t }

(* a string_rewrite rule: tinygrad's (UPat, lambda ctx, ...: str|None) *)
and rule = Upat.t * (ctx -> Upat.captures -> string option)

(* tinygrad: self[key] *)
let ( .%[] ) ctx (u : Uop.t) =
  match Uop.Tbl.find_opt ctx.r u with
  | Some s -> s
  | None -> invalid_arg (Printf.sprintf "render: no name for %s %s" (Ops.to_string u.op) (Dtype.to_string u.dtype))

let type_name lang dt = match List.assq_opt dt lang.type_map with Some s -> s | None -> Dtype.name dt

(* tinygrad: CStyleLanguage._render_dtype *)
let render_dtype_full ?(sz = 1) ?(addrspace = Some Dtype.Alu) ?(mutable_ = true) ?(override_ptr = false) ?shape lang dt =
  if is_image_shape shape then (if mutable_ then "write_only" else "read_only") ^ " image2d_t"
  else begin
    let prefix = match addrspace with
      | Some Dtype.Local when lang.smem_prefix_for_cast -> lang.smem_prefix
      | Some Dtype.Global -> lang.buffer_prefix
      | _ -> "" in
    let suffix = match addrspace with Some (Dtype.Local | Dtype.Global) -> "*" | _ -> if override_ptr then "*" else "" in
    if sz > 1 then prefix ^ String.map (fun c -> if c = ' ' then '_' else c) (type_name lang dt) ^ string_of_int sz ^ suffix
    else prefix ^ type_name lang dt ^ suffix
  end

(* tinygrad: CStyleLanguage.render_type *)
let render_type lang (u : Uop.t) =
  render_dtype_full ~sz:(Uop.max_numel u) ~addrspace:(Uop.addrspace u) ?shape:(Uop.shape_opt u) lang u.dtype

(* tinygrad: CStyleLanguage.render_dtype (LEGACY) *)
let render_dtype lang dt = render_dtype_full ~sz:1 ~addrspace:(Some Dtype.Reg) lang dt

(* tinygrad: CStyleLanguage.render_access *)
let render_access ctx (u : Uop.t) =
  if Uop.max_numel u > 1 || u.dtype != u.src.(0).dtype then
    Printf.sprintf "*((%s)(%s))"
      (render_dtype_full ~sz:(Uop.max_numel u) ~addrspace:(Uop.addrspace u) ~override_ptr:true ?shape:(Uop.shape_opt u) ctx.lang u.dtype)
      ctx.%[u]
  else "*" ^ ctx.%[u]

(* tinygrad: CStyleLanguage.render_cast *)
let render_cast lang (u : Uop.t) v = Printf.sprintf "(%s)(%s)" (render_type lang u) v

(* tinygrad: CStyleLanguage.render_index *)
let render_index ctx (buf : Uop.t) (idx : Uop.t) =
  if Uop.addrspace buf = Some Dtype.Alu then begin
    (* this is lane access in C *)
    if not (idx.op == Ops.Cast && idx.src.(0).op == Ops.Const) then Printf.sprintf "(%s)[%s]" ctx.%[buf] ctx.%[idx]
    else
      let v = Z.to_int (Uop.zi (Uop.const_val idx.src.(0))) in
      ctx.%[buf] ^ (if Uop.max_numel buf > ctx.lang.gep_arr_threshold then Printf.sprintf "[%d]" v
                    else "." ^ String.make 1 "xyzwabcd".[v])
  end else
    Printf.sprintf "(%s+%s)" ctx.%[buf] (if Uop.equal_arg idx.arg (Op Ops.Add) then Helpers.strip_parens ctx.%[idx] else ctx.%[idx])

(* tinygrad: CStyleLanguage.render_buffer *)
let render_buffer ctx (x : Uop.t) =
  let lanes = 1 in
  let prefix = if Uop.addrspace x = Some Dtype.Local then ctx.lang.smem_align ^ ctx.lang.smem_prefix else "" in
  let suffix = Printf.sprintf "[%d]" (Uop.max_numel x) in
  Printf.sprintf "%s%s %s%s;" prefix (render_dtype_full ~sz:lanes ctx.lang x.dtype) ctx.%[x] suffix

(* ---------- base_rewrite ---------- *)

module P = Upat

let g = P.get
let cval c = Uop.const_val (g c "c")
let cstr c = Dtype.const_to_string (cval c)  (* python str(c.val) *)
let const_cast ?name dts = P.make ~op:[ Ops.Cast ] ?dtype:dts ~src:(P.In_order [ P.cvar "c" ]) ?name ()

(* tinygrad: _wmma_name. Spaces of DType.name are sanitized (int8 = "signed char"). *)
let wmma_name (u : Uop.t) =
  match u.arg with
  | Wmma_arg w ->
    let n, m, k = w.wdims in
    Helpers.replace_all ~sub:" " ~by:"_"
      (Printf.sprintf "WMMA_%d_%d_%d_%s_%s" n m k (Dtype.name w.wdtype_in) (Dtype.name u.dtype))
  | _ -> invalid_arg "render: WMMA arg must be a Wmma_arg"

let base_rewrite : rule list = [
  (* local/reg buffers *)
  (P.pat Ops.Buffer ~name:"x", fun ctx c -> Some (render_buffer ctx (g c "x")));
  (* range/loop/if/endif *)
  (P.pat Ops.Range ~dtype:[ Dtype.Void ] ~name:"x", fun _ _ -> Some "for (;;) {");
  (P.pat Ops.Range ~name:"x", fun ctx c ->
      let x = g c "x" in
      Some (Printf.sprintf "for (%s %s = 0; %s < %s; %s++) {" (render_dtype ctx.lang x.dtype) ctx.%[x] ctx.%[x] ctx.%[x.src.(0)] ctx.%[x]));
  (P.pat Ops.End ~src:(P.In_order [ P.wild; P.pat Ops.Range; P.make ~name:"c" ~dtype:[ Dtype.Bool ] () ]), fun ctx c ->
      Some (Printf.sprintf "  if (!(%s)) { break; }\n}" ctx.%[g c "c"]));
  (P.pat Ops.If ~name:"x", fun ctx c -> Some (Printf.sprintf "if (%s) {" ctx.%[(g c "x").src.(0)]));
  (P.ops [ Ops.Endif; Ops.End ], fun _ _ -> Some "}");
  (* const *)
  (const_cast ~name:"x" (Some Dtype.floats), fun ctx c ->
      match cval c with
      | Dtype.F v when not (Float.is_finite v) ->
        let s = if Float.is_nan v then ctx.lang.nan else if v > 0.0 then ctx.lang.infinity else "-" ^ ctx.lang.infinity in
        Some ("(" ^ render_cast ctx.lang (g c "x") s ^ ")")
      | _ -> None);
  (const_cast (Some [ Dtype.Float32 ]), fun _ c -> Some (cstr c ^ "f"));
  (const_cast (Some [ Dtype.Int64 ]), fun _ c -> Some (cstr c ^ "l"));
  (const_cast ~name:"x" (Some [ Dtype.Uint64 ]), fun _ c ->
      Some (Dtype.const_to_string (Dtype.truncate (g c "x").dtype (cval c)) ^ "ul"));
  (const_cast ~name:"x" (Some [ Dtype.Uint32 ]), fun _ c ->
      Some (Dtype.const_to_string (Dtype.truncate (g c "x").dtype (cval c)) ^ "u"));
  (const_cast (Some [ Dtype.Bool ]), fun _ c -> Some (if Dtype.const_truthy (cval c) then "1" else "0"));
  (* consts are rendered to larger type and casted *)
  (const_cast ~name:"x" (Some (Dtype.fp8s @ [ Dtype.Bfloat16; Dtype.Float16 ])), fun ctx c ->
      Some ("(" ^ render_cast ctx.lang (g c "x") (cstr c ^ "f") ^ ")"));
  (const_cast ~name:"x" (Some [ Dtype.Uint8; Dtype.Uint16 ]), fun ctx c ->
      Some ("(" ^ render_cast ctx.lang (g c "x") (cstr c ^ "u") ^ ")"));
  (const_cast ~name:"x" (Some [ Dtype.Int8; Dtype.Int16 ]), fun ctx c -> Some ("(" ^ render_cast ctx.lang (g c "x") (cstr c) ^ ")"));
  (* default const render *)
  (const_cast None, fun _ c -> Some (cstr c));
  (* casting *)
  (P.pat Ops.Cast ~name:"x", fun ctx c ->
      let x = g c "x" in
      if Uop.max_numel x > 1 && Uop.addrspace x = Some Dtype.Reg then
        Some (Printf.sprintf "__builtin_convertvector(%s, %s)" ctx.%[x.src.(0)] (render_type ctx.lang x))
      else None);
  (P.pat Ops.Cast ~name:"x", fun ctx c -> let x = g c "x" in Some ("(" ^ render_cast ctx.lang x ctx.%[x.src.(0)] ^ ")"));
  (P.pat Ops.Bitcast ~name:"x", fun ctx c ->
      let x = g c "x" in
      match Uop.addrspace x with
      | Some (Dtype.Global | Dtype.Local) as a ->
        Some (Printf.sprintf "((%s)(%s))" (render_dtype_full ~addrspace:a ctx.lang x.dtype) ctx.%[x.src.(0)])
      | _ -> None);
  (P.pat Ops.Bitcast ~name:"x", fun ctx c ->
      let x = g c "x" in
      Some (Printf.sprintf "__builtin_bit_cast(%s, (%s)(%s))" (render_type ctx.lang x) (render_type ctx.lang x.src.(0)) ctx.%[x.src.(0)]));
  (* GPU stuff *)
  (P.pat Ops.Barrier, fun ctx _ -> Some ctx.lang.barrier);
  (P.pat Ops.Special ~name:"x", fun ctx c ->
      let x = g c "x" in
      let a = match x.arg with Str s -> s | _ -> invalid_arg "render: SPECIAL arg must be a string" in
      let f = match List.assoc_opt a.[0] ctx.lang.code_for_workitem with
        | Some f -> f | None -> invalid_arg ("render: no code_for_workitem for " ^ a) in
      Some (Printf.sprintf "%s; /* %s */" (f (String.make 1 a.[String.length a - 1])) (Uop.render x.src.(0))));
  (* SHRINK/INDEX *)
  (P.pat Ops.Index ~src:(P.In_order [ P.var "buf"; P.var "idx" ]) ~name:"x", fun ctx c ->
      Some (render_index ctx (g c "buf") (g c "idx")));
  (P.pat Ops.Shrink ~src:(P.In_order [ P.var "buf"; P.var "idx"; P.pat Ops.Cast ~src:(P.In_order [ P.pat Ops.Const ]) ]) ~name:"x",
   fun ctx c -> Some (render_index ctx (g c "buf") (g c "idx")));
  (P.pat Ops.Stack ~name:"x", fun ctx c ->
      let x = g c "x" in
      let f4 = match ctx.lang.float4 with Some s -> s | None -> invalid_arg "render: this language has no vector constructor" in
      let t = render_type ctx.lang x in
      let re = Helpers.replace_all ~sub:"float4" ~by:t f4 in
      let a, b = ctx.lang.float4_style in
      Some (re ^ a ^ String.concat "," (List.map (fun y -> ctx.%[y]) (Array.to_list x.src)) ^ b));
  (* load/store *)
  (P.pat Ops.Load ~src:(P.In_order [ P.var "bidx" ]), fun ctx c -> Some ("(" ^ render_access ctx (g c "bidx") ^ ")"));
  (P.pat Ops.Load ~src:(P.In_order [ P.var "bidx"; P.var "var"; P.var "gate" ]), fun ctx c ->
      Some (Printf.sprintf "(%s?%s:%s)" ctx.%[g c "gate"] (render_access ctx (g c "bidx")) ctx.%[g c "var"]));
  (P.pat Ops.Store ~src:(P.In_order [ P.var "bidx"; P.var "var" ]), fun ctx c ->
      Some (Printf.sprintf "%s = %s;" (render_access ctx (g c "bidx")) ctx.%[g c "var"]));
  (* alu/gep *)
  (P.pat Ops.Wmma ~name:"x", fun ctx c ->
      let x = g c "x" in
      Some (Printf.sprintf "__%s(%s, %s, %s)" (wmma_name x) ctx.%[x.src.(0)] ctx.%[x.src.(1)] ctx.%[x.src.(2)]));
  (P.ops Ops.Group.alu ~name:"x", fun ctx c ->
      let x = g c "x" in
      let f = match List.assq_opt x.op ctx.lang.code_for_op with
        | Some f -> f | None -> invalid_arg ("render: no code_for_op for " ^ Ops.to_string x.op) in
      let assoc = List.memq x.op [ Ops.Add; Ops.Mul; Ops.Xor; Ops.Or; Ops.And ] in
      Some (f (List.map (fun (v : Uop.t) -> if v.op == x.op && assoc then Helpers.strip_parens ctx.%[v] else ctx.%[v]) (Array.to_list x.src))
              x.dtype));
  (* call an external function *)
  (P.pat Ops.Call ~src:(P.In_order [ P.wild ]) ~allow_any_len:true ~name:"x", fun ctx c ->
      let x = g c "x" in
      let args = List.tl (Array.to_list x.src) in
      Some (Printf.sprintf "(((%s%s(*)(%s))(%s))(%s))%s" ctx.lang.abi (render_dtype ctx.lang x.dtype)
              (String.concat ", " (List.map (render_type ctx.lang) args)) ctx.%[x.src.(0)]
              (String.concat ", " (List.map (fun y -> Printf.sprintf "(%s)(%s)" (render_type ctx.lang y) ctx.%[y]) args))
              (if x.dtype == Dtype.Void then ";" else "")));
  (* custom passes through with format *)
  (P.ops [ Ops.Custom; Ops.Customi ] ~name:"x", fun ctx c ->
      let x = g c "x" in
      let fmt = match x.arg with Str s -> s | _ -> invalid_arg "render: CUSTOM arg must be a format string" in
      Some (py_format fmt (List.map (fun y -> ctx.%[y]) (Array.to_list x.src))));
]

(* tinygrad: PatternMatcher.rewrite over string rules: the first non-None result *)
let string_rewrite ctx (rules : rule list) (u : Uop.t) =
  let rec go = function
    | [] -> None
    | (pat, fn) :: rest -> (match P.first_match pat u (fn ctx) with Some _ as r -> r | None -> go rest) in
  go rules

(* ---------- kernel assembly ---------- *)

(* tinygrad: uops_to_dtypes *)
let uops_to_dtypes (uops : Uop.t list) =
  Helpers.dedup (List.filter_map (fun (u : Uop.t) ->
      match Uop.addrspace u with
      | (Some Dtype.Alu | None) when u.dtype != Dtype.Void && Uop.shape_opt u <> None -> Some (u.dtype, Uop.max_numel u)
      | _ -> None) uops)

(* tinygrad: CStyleLanguage.render_kernel *)
let base_render_kernel lang ?prefix function_name kernel (bufs : (string * (Uop.t * bool)) list) (uops : Uop.t list) =
  let tmp =
    if List.exists (fun (_, ((u : Uop.t), _)) -> is_image_shape (Uop.shape_opt u)) bufs then
      "const sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n"
    else "" in
  let buftypes = List.map (fun (name, ((u : Uop.t), mutable_)) ->
      let a = Uop.addrspace u in
      let volatile = match u.arg with Param p -> p.volatile | _ -> false in
      (name, (if volatile then "volatile " else "") ^ (if a = Some Dtype.Alu then lang.var_prefix else "")
             ^ render_dtype_full ~sz:1 ~addrspace:a ~mutable_ ?shape:(Uop.shape_opt u) lang u.dtype
             ^ (if a = Some Dtype.Alu then lang.var_suffix else lang.buffer_suffix))) bufs in
  let local_dims = List.filter_map (fun (u : Uop.t) ->
      match u.op, u.arg with Ops.Special, Str s when s <> "" && s.[0] = 'l' -> Some u.src.(0) | _ -> None) uops in
  let launch_bounds = List.fold_left (fun acc d -> acc * Z.to_int (Uop.zi (Uop.vmax d))) 1 local_dims in
  let typedef = Helpers.replace_all ~sub:"{launch_bounds}" ~by:(string_of_int launch_bounds) lang.kernel_typedef in
  (* one concatenation: a chain of [^] copies the kernel's text once a link *)
  let prg =
    let params = List.map (fun (name, t) -> t ^ " " ^ name) buftypes @ lang.extra_args in
    String.concat "" [ typedef; " "; function_name; "("; String.concat ", " params; ") {\n"; tmp;
                       String.concat "\n" kernel; "\n}" ] in
  match prefix with None -> prg | Some p -> String.concat "" [ String.concat "\n" p; "\n"; prg ]

(* tinygrad: CStyleLanguage._render: name every value, render each with string_rewrite and inline the
   single-use ones. Returns (function name, kernel lines, bufs). *)
let render_lines lang (uops : Uop.t list) =
  let ctx = { lang; r = Uop.Tbl.create 64 } in
  (* a line is rendered by the first rule that returns a string: only those that can match its op are tried *)
  let rules_by_op = P.index_by_op fst lang.string_rewrite in
  let child_count = Uop.Tbl.create 64 in
  List.iter (fun (ru : Uop.t) -> Array.iter (fun v ->
      Uop.Tbl.replace child_count v (1 + Option.value (Uop.Tbl.find_opt child_count v) ~default:0)) ru.src) uops;
  let cc u = Option.value (Uop.Tbl.find_opt child_count u) ~default:0 in
  (* find which PARAMs are stored to with a single toposort *)
  let writable = Uop.Tbl.create 8 in
  let stores = List.filter_map (fun (u : Uop.t) -> if u.op == Ops.Store then Some u.src.(0) else None) uops in
  List.iter (fun (u : Uop.t) -> if u.op == Ops.Param then Uop.Tbl.replace writable u ())
    (Uop.toposort ~gate:(fun (u : Uop.t) -> u.op != Ops.End) (Uop.sink stores));
  let bufs = ref [] in
  let kernel = ref [] in
  let depth = ref 1 in
  let counters = Hashtbl.create 8 in
  let cnt p = Option.value (Hashtbl.find_opt counters p) ~default:0 in
  let name = ref "test" in
  let expand_ssa = Helpers.expand_ssa.value <> 0 in
  List.iter (fun (u : Uop.t) ->
      let skip =
        match u.op with
        | Ops.Noop | Ops.Group | Ops.Const -> true
        | Ops.Stack when Array.length u.src = 0 -> true
        | Ops.After -> Uop.Tbl.replace ctx.r u ctx.%[u.src.(0)]; true
        | Ops.Sink ->
          (match u.arg with Kernel_info k -> name := Helpers.to_function_name k.kname | _ -> ());
          true
        | Ops.Param ->
          let shp = String.concat "_" (List.map Uop.sint_to_string (Uop.shape u)) in
          let slot = (Uop.param_arg u).slot in
          let nm = Printf.sprintf "data%d_%s" slot shp in
          Uop.Tbl.replace ctx.r u nm;
          if not (List.exists (fun (_, (b, _)) -> b == u) !bufs) then bufs := !bufs @ [ (nm, (u, Uop.Tbl.mem writable u)) ];
          true
        | _ -> false in
      if not skip then begin
        (* naming *)
        let prefix =
          match u.op with
          | Ops.Special -> (match u.arg with Str s -> Uop.Tbl.replace ctx.r u s | _ -> invalid_arg "SPECIAL arg"); None
          | Ops.Range ->
            let at = match u.arg with Range (_, at) -> at | _ -> invalid_arg "RANGE arg" in
            Uop.Tbl.replace ctx.r u (Uop.axis_letter at ^ "idx" ^ Uop.range_str u); None
          | op ->
            let p = match op with
              | Ops.Wmma -> "wmma" | Ops.Buffer -> "buf" | Ops.Cast | Ops.Bitcast | Ops.Stack -> "cast"
              | Ops.Index -> "bidx" | Ops.Load -> "val" | _ -> "alu" in
            Uop.Tbl.replace ctx.r u (p ^ string_of_int (cnt p));
            Some p in
        let l = match string_rewrite ctx rules_by_op.(Ops.value u.op) u with
          | Some l -> l
          | None ->
            invalid_arg (Printf.sprintf "failed to render %s %s [%s] %s" (Ops.to_string u.op) (Dtype.to_string u.dtype)
                           (String.concat ", " (List.map (fun (x : Uop.t) ->
                                Printf.sprintf "(%s, %s)" (Ops.to_string x.op) (Dtype.to_string x.dtype)) (Array.to_list u.src)))
                           (Uop.arg_to_string u.arg)) in
        if u.op == Ops.Endif || u.op == Ops.End then decr depth;
        let op = u.op in
        let inline =
          (op != Ops.Cast || Uop.max_numel u = 1)
          && ((op == Ops.Cast && u.src.(0).op == Ops.Const)
              || op == Ops.Index || op == Ops.Shrink || op == Ops.Customi
              || (op == Ops.Load && Uop.addrspace u.src.(0) = Some Dtype.Reg && cc u = 1)
              || ((op == Ops.Cast || op == Ops.Bitcast) && (match Uop.addrspace u with Some (Dtype.Global | Dtype.Local) -> true | _ -> false))
              || ((op == Ops.Stack || (Ops.Group.is_alu op && op != Ops.Where) || op == Ops.Cast || op == Ops.Bitcast)
                  && cc u = 1 && not expand_ssa)) in
        if inline then Uop.Tbl.replace ctx.r u l
        else begin
          let l =
            if not (op == Ops.Range || op == Ops.Store || op == Ops.Buffer) && u.dtype != Dtype.Void then
              Printf.sprintf "%s %s = %s%s" (render_type lang u) ctx.%[u] l (if op != Ops.Special then ";" else "")
            else l in
          let ind = String.concat "" (List.init !depth (fun _ -> "  ")) in
          kernel := String.concat "\n" (List.map (fun line -> ind ^ line) (String.split_on_char '\n' l)) :: !kernel;
          match prefix with Some p -> Hashtbl.replace counters p (cnt p + 1) | None -> ()
        end;
        if op == Ops.If || op == Ops.Range then incr depth
      end) uops;
  (!name, List.rev !kernel, !bufs)

(* tinygrad: CStyleLanguage.render *)
let render lang uops =
  let name, kernel, bufs = render_lines lang uops in
  lang.render_kernel lang name kernel bufs uops

(* ---------- CStyleLanguage defaults ---------- *)

let base_code_for_op : (Ops.t * (string list -> Dtype.t -> string)) list =
  let un f = fun args _ -> match args with [ x ] -> f x | _ -> invalid_arg "code_for_op: arity" in
  let bin f = fun args _ -> match args with [ a; b ] -> f a b | _ -> invalid_arg "code_for_op: arity" in
  let p = Printf.sprintf in
  [ (Ops.Sqrt, un (p "sqrt(%s)")); (Ops.Reciprocal, un (p "(1/%s)")); (Ops.Neg, un (p "-%s"));
    (Ops.Exp2, un (p "exp2(%s)")); (Ops.Log2, un (p "log2(%s)")); (Ops.Sin, un (p "sin(%s)"));
    (Ops.Trunc, un (p "trunc(%s)"));
    (Ops.And, bin (p "(%s&%s)")); (Ops.Xor, bin (p "(%s^%s)")); (Ops.Or, bin (p "(%s|%s)"));
    (Ops.Add, bin (p "(%s+%s)")); (Ops.Sub, bin (p "(%s-%s)")); (Ops.Mul, bin (p "(%s*%s)"));
    (Ops.Cmod, bin (p "(%s%%%s)")); (Ops.Cdiv, bin (p "(%s/%s)")); (Ops.Cmpne, bin (p "(%s!=%s)"));
    (Ops.Shr, bin (p "(%s>>%s)")); (Ops.Shl, bin (p "(%s<<%s)")); (Ops.Cmplt, bin (p "(%s<%s)"));
    (Ops.Where, (fun args _ -> match args with [ a; b; c ] -> p "(%s?%s:%s)" a b c | _ -> invalid_arg "code_for_op: arity"));
    (Ops.Cmpeq, bin (p "(%s==%s)")) ]

let cstyle_language : lang = {
  abi = "";
  kernel_typedef = "void";
  buffer_prefix = "";
  buffer_suffix = "";
  smem_align = "";
  smem_prefix = "";
  smem_prefix_for_cast = true;
  var_prefix = "const ";
  var_suffix = "";
  barrier = "";
  code_for_workitem = [];
  extra_args = [];
  float4 = None;
  float4_style = ("(", ")");
  gep_arr_threshold = 4;
  type_map = [];
  infinity = "INFINITY";
  nan = "NAN";
  code_for_op = base_code_for_op;
  string_rewrite = base_rewrite;
  render_kernel = base_render_kernel;
  render_vector_prefix = (fun _ _ _ -> invalid_arg "render_vector_prefix: not defined for this language");
}

(* ---------- extra matchers shared by renderers ---------- *)

(* tinygrad: create_non_native_float_pats *)
let create_non_native_float_pats ?(casting = true) (dts : Dtype.t list) : unit P.matcher =
  let open Uop in
  let f32 = Dtype.Float32 in
  let rules = [
    P.rule (P.pat Ops.Where ~dtype:dts ~src:(P.In_order [ P.var "b"; P.var "x"; P.var "y" ]) ~name:"w") (fun c ->
        let w = g c "w" in
        Some (cast w.dtype (where (g c "b") (cast f32 (g c "x")) (cast f32 (g c "y")))));
    P.rule (P.ops (List.filter (fun o -> o != Ops.Where) Ops.Group.alu) ~dtype:dts ~name:"x") (fun c ->
        let x = g c "x" in
        Some (cast x.dtype (create x.op ~src:(Array.map (cast f32) x.src) ~arg:x.arg)));
    P.rule (P.ops Ops.Group.alu ~dtype:[ Dtype.Bool ] ~name:"alu" ~src:(P.In_order [ P.var ~dtype:dts "x"; P.var ~dtype:dts "y" ]))
      (fun c -> let alu = g c "alu" in Some (create alu.op ~src:[| cast f32 (g c "x"); cast f32 (g c "y") |] ~arg:alu.arg)) ] in
  let casting_rules = if not casting then [] else [
      P.rule (P.pat Ops.Cast ~dtype:dts ~src:(P.In_order [ P.var "x" ]) ~name:"y") (fun c ->
          let x = g c "x" and y = g c "y" in if x.dtype != f32 then Some (cast y.dtype (cast f32 x)) else None);
      P.rule (P.pat Ops.Cast ~name:"x" ~src:(P.In_order [ P.var ~dtype:dts "y" ])) (fun c ->
          let x = g c "x" and y = g c "y" in if x.dtype != f32 then Some (cast x.dtype (cast f32 y)) else None) ] in
  P.matcher (rules @ casting_rules)

(* tinygrad: cast_float_to_bf16 *)
let cast_float_to_bf16 (x : Uop.t) =
  if x.dtype != Dtype.Float32 then invalid_arg "cast float -> bf16 must start with float";
  let open Uop.O in
  let x = Uop.bitcast Dtype.Uint32 x in
  let x = Uop.where (Uop.ne (Uop.and_ (neg x) (i 0x7f800000)) (i 0))
      (x + ((x lsr i 16) land i 1) + i 0x7fff)
      (Uop.where (Uop.ne (x land i 0xffff) (i 0)) (x lor i 0x10000) x) in
  Uop.bitcast Dtype.Bfloat16 (Uop.cast Dtype.Uint16 (x lsr i 16))

(* tinygrad: pm_manual_bf16_cast *)
let pm_manual_bf16_cast : unit P.matcher =
  P.matcher [
    P.rule (P.pat Ops.Cast ~dtype:[ Dtype.Float32 ] ~src:(P.In_order [ P.var ~dtype:[ Dtype.Bfloat16 ] "x" ])) (fun c ->
        let x = g c "x" in
        Some (Uop.bitcast Dtype.Float32 (Uop.shl (Uop.cast Dtype.Uint32 (Uop.bitcast Dtype.Uint16 x)) (Uop.const_int 16))));
    P.rule (P.pat Ops.Cast ~dtype:[ Dtype.Bfloat16 ] ~src:(P.In_order [ P.var ~dtype:[ Dtype.Float32 ] "x" ])) (fun c ->
        Some (cast_float_to_bf16 (g c "x"))) ]

(* ---------- ClangRenderer ---------- *)

(* the vector typedef of ClangRenderer.render_vector_prefix, [alignment] computed from the vector's bytes,
   rounded (down) to a power of two *)
let vector_typedef ~alignment lang dt count =
  let alignment =
    if Helpers.aligned.value <> 0 && not (Dtype.is_bool dt) then
      let n = Dtype.itemsize dt * count in
      let rec p2 k = if 2 * k <= n then p2 (2 * k) else k in
      alignment dt (p2 1)
    else 1 in
  let vec = render_dtype_full ~sz:count ~addrspace:(Some Dtype.Reg) lang dt in
  Printf.sprintf "typedef %s %s __attribute__((aligned(%d),ext_vector_type(%d)));" (render_dtype lang dt) vec alignment count

(* tinygrad: ClangRenderer.render_vector_prefix *)
let clang_render_vector_prefix lang dt count =
  (* round (down) to power of two (this is actually the default clang behavior) *)
  vector_typedef ~alignment:(fun _ p2 -> p2) lang dt count

(* not in tinygrad: the CPU mode's vector typedefs (cpu_fast_lang): float32, float16 and uint8 vectors are
   assumed aligned to their element only (they coalesce at any offset, late/coalesce_cpu.ml), other vectors
   wider than float4 to 16 bytes (what buffer views guarantee), so clang loads them with unaligned moves *)
let cpu_render_vector_prefix lang dt count =
  let element_aligned = dt == Dtype.Float32 || dt == Dtype.Float16 || dt == Dtype.Uint8 in
  vector_typedef ~alignment:(fun dt p2 -> if element_aligned then Dtype.itemsize dt else min 16 p2) lang dt count

(* not in tinygrad: a float32 vector load under a mask of lanes (late/coalesce.ml lane-gated loads,
   CPU_OPT=fast): [uint32] bit i set loads lane i, a clear bit gives 0 and reads nothing (a lane may lie
   outside the buffer). *)
let is_masked_load (u : Uop.t) = u.op == Ops.Load && Array.length u.src = 3 && u.src.(2).dtype == Dtype.Uint32

(* the name of the function that loads [n] float32 lanes under a mask *)
let masked_load_name n = Printf.sprintf "tg_maskload%d" n

(* its definition: the AVX-512 masked load (fault-suppressing) where the target has it, else AVX's, else lane
   by lane *)
let masked_load_function n =
  let p = Printf.sprintf in
  let zeros = String.concat "," (List.init n (fun _ -> "0.0f")) in
  let vt = p "tg_v%d" n in
  let vector = p "typedef float %s __attribute__((vector_size(%d)));" vt (4 * n) in
  let isa = match n with
    | 16 -> [ ("__AVX512F__", p "return (float16)__builtin_ia32_loadups512_mask(p, (%s){%s}, (unsigned short)m);" vt zeros) ]
    | 8 | 4 ->
      let suffix = if n = 8 then "256" else "128" in
      let mask = String.concat "," (List.init n (fun i -> p "-(int)((m>>%d)&1u)" i)) in
      [ ("__AVX512VL__", p "return (float%d)__builtin_ia32_loadups%s_mask((const %s*)p, (%s){%s}, (unsigned char)m);" n suffix vt vt zeros);
        ("__AVX__", p "return (float%d)__builtin_ia32_maskloadps%s((const %s*)p, (int __attribute__((vector_size(%d)))){%s});"
                     n (if n = 8 then "256" else "") vt (4 * n) mask) ]
    | _ -> [] in
  let generic = p "float%d r = (float%d){%s}; for (int i = 0; i < %d; i++) if ((m>>i)&1u) r[i] = p[i]; return r;" n n zeros n in
  let body = match isa with
    | [] -> generic
    | (c, b) :: rest ->
      p "\n#if defined(%s)\n  %s\n%s#else\n  %s\n#endif\n" c b
        (String.concat "" (List.map (fun (c, b) -> p "#elif defined(%s)\n  %s\n" c b) rest)) generic in
  p "%s\nstatic inline float%d %s(const float* p, unsigned int m) {%s}" vector n (masked_load_name n) body

(* the vector typedefs of ClangRenderer._render_defines *)
let clang_defines lang uops =
  String.concat "\n" (List.filter_map (fun (dt, count) ->
      if count > 1 then Some (lang.render_vector_prefix lang dt count) else None) (uops_to_dtypes uops))

(* tinygrad: ClangRenderer.render_kernel (_render_defines, _render_body, _render_entry) *)
let clang_render_kernel lang ?prefix function_name kernel bufs uops =
  String.concat ""
    [ clang_defines lang uops; "\n"; base_render_kernel lang ?prefix function_name kernel bufs uops; "\n" ]

(* not in tinygrad: the CPU mode's render_kernel (cpu_fast_lang): the functions of its masked loads after the
   vector typedefs *)
let cpu_render_kernel lang ?prefix function_name kernel bufs uops =
  let masked = List.sort_uniq compare (List.filter_map (fun u -> if is_masked_load u then Some (Uop.max_numel u) else None) uops) in
  let defines = String.concat "\n" (clang_defines lang uops :: List.map masked_load_function masked) in
  String.concat "" [ defines; "\n"; base_render_kernel lang ?prefix function_name kernel bufs uops; "\n" ]

(* not in tinygrad: under CPU_OPT=fast, a gated scalar load from a global buffer loads unconditionally, from
   its index where the gate holds and from the buffer's first element where it does not, and then selects:
   [({float t=*(data+(gate?idx:0)); gate?t:alt;})]. tinygrad's [(gate?*(data+idx):alt)] is a branch to clang
   (it may not speculate the load), which keeps clang from vectorizing the straight-line code around it (a
   convolution's input gradient, whose loads are gated by the window, stays scalar). NOOPT kernels keep
   tinygrad's form. *)
let cpu_masked_load : rule =
  (P.pat Ops.Load ~name:"x" ~src:(P.In_order [ P.var "bidx"; P.var "var"; P.var ~dtype:[ Dtype.Uint32 ] "mask" ]), fun ctx c ->
      let x = g c "x" in
      Some (Printf.sprintf "%s((float*)%s, %s)" (masked_load_name (Uop.max_numel x)) ctx.%[g c "bidx"] ctx.%[g c "mask"]))

let cpu_gated_load : rule =
  (P.pat Ops.Load ~name:"x" ~src:(P.In_order [ P.pat Ops.Index ~name:"bidx" ~src:(P.In_order [ P.var "buf"; P.var "idx" ]);
                                               P.var "var"; P.var "gate" ]), fun ctx c ->
      let x = g c "x" and bidx = g c "bidx" and buf = g c "buf" in
      if Uop.max_numel bidx = 1 && bidx.dtype == buf.dtype
         && Uop.addrspace buf = Some Dtype.Global && Uop.max_numel x = 1
         (* the first element exists: a buffer of size 0 (a pad of an empty tensor) keeps tinygrad's branch *)
         && List.for_all (function Uop.Sint n -> n > 0 | Uop.Suop _ -> false) (Uop.shape buf) then
        let gate = ctx.%[g c "gate"] in
        Some (Printf.sprintf "({%s t=*(%s+(%s?%s:0)); %s?t:%s;})" (render_dtype ctx.lang x.dtype) ctx.%[buf] gate
                ctx.%[g c "idx"] gate ctx.%[g c "var"])
      else None)

(* not in tinygrad: under CPU_OPT=fast, the address of an element at a sum of indices is rendered without the
   sum's parentheses, [(data0+alu1+9)], which C reads as the pointer [data0+alu1] moved by [9]. tinygrad's
   render_index means to strip them (its test [idx.arg == Ops.ADD] never holds: an ALU's arg is None) and
   renders [(data0+(alu1+9))], an int sum widened to a pointer offset. clang then proves for each such offset
   apart that the int sum does not overflow: a kernel storing a tile of 128 values at [alu1+9], [alu1+18], ...
   spends most of its compile in that (induction variable and loop strength passes), where the pointer form
   shares [data0+alu1] among the stores (the same machine code, or tighter). *)
let cpu_index : rule =
  (P.pat Ops.Index ~src:(P.In_order [ P.var "buf"; P.pat Ops.Add ~name:"idx" ]), fun ctx c ->
      let buf = g c "buf" in
      if Uop.addrspace buf = Some Dtype.Alu then None
      else Some (Printf.sprintf "(%s+%s)" ctx.%[buf] (Helpers.strip_parens ctx.%[g c "idx"])))

(* not in tinygrad: under CPU_OPT=fast, a float select whose sides are expressions computes both sides first
   and then selects: [({float ta=a; float tb=b; c?ta:tb;})]. C's [c?a:b] evaluates one side only, so clang
   keeps an expensive side (exp2's polynomial beside the NaN it returns for a NaN input) behind a branch, and
   a branch stops its SLP vectorizer: the GELU after a matrix-vector tile then ran one output lane at a time.
   Computed first, the sides are plain values and the lanes of a tile vectorize together. A side that
   divides integers by a value other than a constant keeps tinygrad's form: the select may guard a division
   by zero. *)
let cpu_select : rule =
  (P.pat Ops.Where ~name:"w" ~src:(P.In_order [ P.var "c"; P.var "a"; P.var "b" ]), fun ctx c ->
      let w = g c "w" and a = g c "a" and b = g c "b" in
      let constant (u : Uop.t) = u.op == Ops.Const || (u.op == Ops.Cast && u.src.(0).op == Ops.Const) in
      let divides_by_value (u : Uop.t) = List.exists (fun (v : Uop.t) ->
          (v.op == Ops.Cdiv || v.op == Ops.Cmod) && not (constant v.src.(1)))
          (Uop.toposort ~gate:(fun (v : Uop.t) -> v.op != Ops.Load && v.op != Ops.Range) u) in
      let expression (u : Uop.t) = String.contains ctx.%[u] '(' in
      if Dtype.is_float w.dtype && Uop.max_numel w = 1 && (expression a || expression b)
         && not (divides_by_value a || divides_by_value b) then
        let t = render_dtype ctx.lang w.dtype in
        Some (Printf.sprintf "({%s ta=%s; %s tb=%s; %s?ta:tb;})" t ctx.%[a] t ctx.%[b] ctx.%[g c "c"])
      else None)

let clang_language : lang =
  let p = Printf.sprintf in
  let un f = fun args dt -> match args with [ x ] -> f x dt | _ -> invalid_arg "code_for_op: arity" in
  let removed = [ Ops.Exp2; Ops.Sin; Ops.Log2; Ops.Trunc; Ops.Reciprocal ] in
  let base = List.filter (fun (k, _) -> not (List.memq k removed)) base_code_for_op in
  (* python dict update: an existing key keeps its position, new keys go last *)
  let upd l (k, v) = if List.mem_assq k l then List.map (fun (k', v') -> if k' == k then (k, v) else (k', v')) l else l @ [ (k, v) ] in
  let code_for_op = List.fold_left upd base [
      (Ops.Sqrt, un (fun x dt -> if dt == Dtype.Float64 then p "__builtin_sqrt(%s)" x else p "__builtin_sqrtf(%s)" x));
      (Ops.Trunc, un (fun x dt -> if dt == Dtype.Float64 then p "__builtin_trunc(%s)" x else p "__builtin_truncf(%s)" x));
      (Ops.Fdiv, fun args _ -> match args with [ a; b ] -> p "(%s/%s)" a b | _ -> invalid_arg "code_for_op: arity") ] in
  { cstyle_language with
    float4 = Some "(float4)";
    float4_style = ("{", "}");
    gep_arr_threshold = 0;
    infinity = "__builtin_inff()";
    nan = "__builtin_nanf(\"\")";
    barrier = "__atomic_thread_fence(__ATOMIC_SEQ_CST);";
    buffer_suffix = " restrict";
    type_map = [ (Dtype.Bool, "_Bool"); (Dtype.Float16, "__fp16") ];
    code_for_op;
    render_kernel = clang_render_kernel;
    render_vector_prefix = clang_render_vector_prefix }

(* tinygrad: ClangRenderer.extra_matcher *)
let clang_extra_matcher : unit P.matcher =
  let open P in
  let cast_rule src_dt dst_dt =
    rule (pat Ops.Cast ~dtype:[ dst_dt ] ~src:(In_order [ var ~dtype:[ src_dt ] "x" ])) (fun c ->
        Some (Uop.cast dst_dt (Uop.cast Dtype.Float32 (get c "x")))) in
  (* not in tinygrad: under CPU_OPT=fast, a float cast to an unsigned int of 32 bits or fewer goes through a
     signed int twice as wide (int for uint8/uint16): C leaves a negative float converted to an unsigned type
     undefined, and clang's vector conversions then give lanes that change from run to run, where a signed
     conversion followed by an unsigned one wraps modulo 2^n, as numpy and clang's scalar code do *)
  let unsigned_rule =
    rule (pat Ops.Cast ~dtype:[ Dtype.Uint8; Dtype.Uint16; Dtype.Uint32 ] ~src:(In_order [ var ~dtype:[ Dtype.Float16; Dtype.Bfloat16; Dtype.Float32; Dtype.Float64 ] "x" ]) ~name:"y")
      (fun c ->
         if Helpers.cpu_opt.value <> Helpers.Cpu_fast then None
         else
           let y = get c "y" in
           let wide = if y.dtype == Dtype.Uint32 then Dtype.Int64 else Dtype.Int32 in
           Some (Uop.cast y.dtype (Uop.cast wide (get c "x")))) in
  matcher [ cast_rule Dtype.Float64 Dtype.Float16; cast_rule Dtype.Float64 Dtype.Bfloat16; cast_rule Dtype.Bfloat16 Dtype.Float16;
            unsigned_rule ]
  @@@ create_non_native_float_pats [ Dtype.Bfloat16 ] @@@ pm_manual_bf16_cast

(* not in tinygrad: the C language of a kernel of the CPU mode (clang_renderer asks Renderer.cpu_fast: NOOPT
   kernels keep [lang]): vectors are typedef'd element-aligned ([cpu_render_vector_prefix]), masked loads get
   their functions ([cpu_render_kernel]), gated loads render branch-free ([cpu_gated_load]), and a kernel left
   rolled (no upcast nor unroll among its opts, no vector value: what the heuristic does to a kernel with a
   decomposed transcendental, opt/heuristic.ml) marks its reduce loops [clang loop vectorize(enable)]: the
   pragma lets clang's loop vectorizer reorder the accumulation, which it may not do by itself without
   -ffast-math, so the whole body (exp2's polynomial included) runs on full-width vectors. Loops without a
   reduction are vectorized by clang unmarked. NOOPT kernels and kernels with tinygrad's upcasts are never
   marked (forced on those loops, the vectorizer slows a convolution kernel down), nor kernels with a float
   MAX: reordered, a max drops or keeps a NaN by where it falls in the order (tinygrad's loop keeps a NaN that
   becomes the accumulator), where a sum only rounds differently. *)
(* a float accumulator updated by a max: a REG store of a max of floats (MAX, or its decomposition a < b ? b :
   a) *)
let max_accumulation (u : Uop.t) =
  u.op == Ops.Store && Uop.addrspace u.src.(0) = Some Dtype.Reg && Dtype.is_float u.src.(1).dtype
  && (let v = u.src.(1) in v.op == Ops.Max || (v.op == Ops.Where && v.src.(0).op == Ops.Cmplt))

(* a rolled reduce that loads float16 (a matrix-vector product over float16 weights, x @ W.T) streams its
   weights behind one chain of FMAs into a single vector accumulator, as clang vectorizes it by itself; with
   this many interleaved accumulators the chain's latency no longer bounds the loop *)
let float16_reduce_interleave = 4

let loads_float16 (uops : Uop.t list) =
  List.exists (fun (u : Uop.t) -> u.op == Ops.Load && u.dtype == Dtype.Float16) uops

(* a float dependency chain this deep (exp2's decomposition is about 20 operations) leaves a rolled loop that
   clang vectorizes one vector per iteration waiting on the chain's latency; [chain_interleave] vectors per
   iteration overlap their chains. In a loop without a reduction each element is computed as before; in a
   reduce loop, which the vectorize pragma already lets clang reorder, the sum is split among more
   accumulators *)
let long_float_chain = 16
let chain_interleave = 8

(* a loop of fewer iterations than [chain_interleave] vectors of 16 lanes, twice over, would leave clang's
   interleaved vector loop unused and run in its scalar remainder: such a loop is not marked. A symbolic bound
   is taken to be long *)
let long_trip (x : Uop.t) =
  (* the bound, a constant cast to the loop's int type *)
  let bound = match x.src.(0) with { op = Ops.Cast; src = [| b |]; _ } -> b | b -> b in
  bound.op != Ops.Const || Z.geq (Uop.zi (Uop.const_val bound)) (Z.of_int (2 * 16 * chain_interleave))

(* the depth of the longest chain of float ALU operations among [uops] *)
let float_chain_depth (uops : Uop.t list) =
  let depth = Hashtbl.create 64 in
  let at (u : Uop.t) = Option.value (Hashtbl.find_opt depth u.id) ~default:0 in
  List.fold_left (fun deepest (u : Uop.t) ->
      let below = Array.fold_left (fun m s -> max m (at s)) 0 u.src in
      let d = if Ops.Group.is_alu u.op && Dtype.is_float u.dtype then below + 1 else below in
      Hashtbl.replace depth u.id d;
      max deepest d) 0 uops

(* the ranges that hold no other range: the first RANGE or END after each one is an END *)
let innermost_ranges (uops : Uop.t list) =
  let rec go acc = function
    | [] -> acc
    | (u : Uop.t) :: rest when u.op == Ops.Range ->
      let innermost = match List.find_opt (fun (v : Uop.t) -> v.op == Ops.Range || v.op == Ops.End) rest with
        | Some v -> v.op == Ops.End
        | None -> false in
      go (if innermost then u.id :: acc else acc) rest
    | _ :: rest -> go acc rest in
  go [] uops

(* the uops of [x]'s loop body: those after the RANGE [x] up to the END that closes it *)
let loop_body (uops : Uop.t list) (x : Uop.t) =
  let rec from = function [] -> [] | (u : Uop.t) :: rest -> if u == x then rest else from rest in
  let rec upto acc = function
    | [] -> List.rev acc
    | (u : Uop.t) :: rest ->
      if u.op == Ops.End && Array.exists (fun s -> s == x) u.src then List.rev acc
      else upto (u :: acc) rest in
  upto [] (from uops)

(* a kernel holding a local buffer: on the CPU, the stack row buffer of a STAGE (the partial-contiguous
   rangeify keeps a row between a reduce and its consumers, Heuristic_cpu.multiblock_optimizations) *)
let has_local_buffer (uops : Uop.t list) =
  List.exists (fun (u : Uop.t) -> u.op == Ops.Buffer && Uop.addrspace u = Some Dtype.Local) uops

(* a rolled sum: a reduce loop whose body is scalar, updates a float REG accumulator by an ADD and holds no
   max accumulation nor other loop *)
let rolled_sum_loop (uops : Uop.t list) (x : Uop.t) =
  let body = loop_body uops x in
  List.for_all (fun (_, n) -> n <= 1) (uops_to_dtypes body)
  && List.for_all (fun (u : Uop.t) -> u.op != Ops.Range && not (max_accumulation u)) body
  && List.exists (fun (u : Uop.t) ->
      u.op == Ops.Store && Uop.addrspace u.src.(0) = Some Dtype.Reg && Dtype.is_float u.src.(1).dtype
      && u.src.(1).op == Ops.Add) body

let cpu_fast_lang lang (uops : Uop.t list) =
  let rolled (u : Uop.t) = match u.arg with
    | Kernel_info ki -> List.for_all (fun (o : Opt.t) -> List.mem o.op Opt.[ THREAD; PADTO; NOLOCALS ]) ki.applied_opts
    | _ -> true in
  let scalar = List.for_all (fun (_, n) -> n <= 1) (uops_to_dtypes uops) in
  (* the selects computed first only where upcast lanes leave straight-line code to clang's SLP vectorizer: a
     scalar kernel's loops go to its loop vectorizer, which takes tinygrad's form as it is *)
  let select = if scalar then [] else [ cpu_select ] in
  let lang = { lang with string_rewrite = cpu_index :: cpu_masked_load :: cpu_gated_load :: select
                                          @ lang.string_rewrite;
                         render_kernel = cpu_render_kernel; render_vector_prefix = cpu_render_vector_prefix } in
  let rolled_scalar = scalar && List.for_all (fun (u : Uop.t) -> u.op != Ops.Sink || rolled u) uops in
  (* the loops that [pragma] gives a clang loop pragma, rendered before them *)
  let marked pragma = (P.pat Ops.Range ~dtype:[ Dtype.Int32; Dtype.Int64 ] ~name:"x", fun ctx c ->
      let x = g c "x" in
      Option.map (fun p ->
          Printf.sprintf "_Pragma(\"clang loop %s\") for (%s %s = 0; %s < %s; %s++) {" p
            (render_dtype ctx.lang x.dtype) ctx.%[x] ctx.%[x] ctx.%[x.src.(0)] ctx.%[x]) (pragma x)) in
  let interleave n = Printf.sprintf "interleave_count(%d)" n in
  if rolled_scalar
     && List.exists (fun (u : Uop.t) -> match u.arg with Range (_, Reduce) -> true | _ -> false) uops
     && not (List.exists max_accumulation uops) then
    let long_chain = float_chain_depth uops >= long_float_chain in
    let hint (x : Uop.t) = if loads_float16 uops then " " ^ interleave float16_reduce_interleave
      else if long_chain && long_trip x then " " ^ interleave chain_interleave
      else "" in
    let reduce_loop = marked (fun (x : Uop.t) -> match x.arg with
        | Range (_, Reduce) -> Some ("vectorize(enable)" ^ hint x)
        | _ -> None) in
    { lang with string_rewrite = reduce_loop :: lang.string_rewrite }
  else if rolled_scalar && float_chain_depth uops >= long_float_chain then
    let inner = innermost_ranges uops in
    let interleaved_loop = marked (fun (x : Uop.t) -> match x.arg with
        | Range (_, at) when at <> Reduce && List.mem x.id inner && long_trip x ->
          Some (interleave chain_interleave)
        | _ -> None) in
    { lang with string_rewrite = interleaved_loop :: lang.string_rewrite }
  else if has_local_buffer uops then
    (* a row held in a stack buffer: its rolled sums are marked as a rolled kernel's are, the other reduces
       being unrolled into vector accumulators; its long chains without a reduction are interleaved. The
       buffer is the stack array of the one thread that writes and reads it, so the barriers around it need
       no fence: C's program order already holds, where a fence would drain the store buffer every row *)
    let long_chain = float_chain_depth uops >= long_float_chain in
    let inner = innermost_ranges uops in
    let row_loop = marked (fun (x : Uop.t) -> match x.arg with
        | Range (_, Reduce) when rolled_sum_loop uops x -> Some "vectorize(enable)"
        | Range (_, at) when at <> Reduce && long_chain && List.mem x.id inner && long_trip x ->
          Some (interleave chain_interleave)
        | _ -> None) in
    { lang with barrier = ""; string_rewrite = row_loop :: lang.string_rewrite }
  else lang

(* tinygrad: ClangRenderer(Target) *)
let clang_renderer ?(vector_width = 4) () : Renderer.t =
  let lang = clang_language in
  { Renderer.default with
    device = "CPU";
    vector_width;
    has_local = false;
    has_threads = Helpers.threads.value <> 0;
    (* tinygrad: the global_max property, (NUM_CPU_THREADS.value, 0, 0): the context var, read when the
       renderer is made *)
    global_max = Some [ Helpers.num_cpu_threads.value; 0; 0 ];
    code_for_op = List.map fst lang.code_for_op;
    extra_matcher = Some (P.lift clang_extra_matcher);
    (* ClangRenderer.supported_dtypes: bfloat16 only on x86/arm (assumed here), no fp8 *)
    supported_dtypes = List.filter (fun d -> not (List.memq d Dtype.fp8s)) (Renderer.base_supported_dtypes ());
    (* not in tinygrad: the CPU mode's language where the kernel may deviate (Renderer.cpu_fast) *)
    render = (fun r uops -> render (if Renderer.cpu_fast r then cpu_fast_lang lang uops else lang) uops) }

(* ---------- tensor core helpers ---------- *)

(* one WMMA helper function to emit (tinygrad: the tuple of wmma_args) *)
type wmma_fn = {
  fname : string;  (** _wmma_name *)
  fdims : int * int * int;  (** (N, M, K) *)
  fdtype_in : Dtype.t;
  fdtype_out : Dtype.t;
  fdevice : string;
  fthreads : int;
  fupcast_sizes : int * int * int;  (** the last dim of the shapes of A, B and C *)
}

(* tinygrad: wmma_args *)
let wmma_args (uops : Uop.t list) =
  let last (u : Uop.t) = match List.rev (Uop.shape u) with
    | Sint n :: _ -> n
    | _ -> invalid_arg "wmma_args: WMMA source needs a concrete last dim" in
  Helpers.dedup (List.filter_map (fun (u : Uop.t) ->
      match u.op, u.arg with
      | Ops.Wmma, Wmma_arg w ->
        Some { fname = wmma_name u; fdims = w.wdims; fdtype_in = w.wdtype_in; fdtype_out = u.dtype; fdevice = w.wdevice;
               fthreads = w.wthreads; fupcast_sizes = (last u.src.(0), last u.src.(1), last u.src.(2)) }
      | _ -> None) uops)

(* python dict update: an existing key keeps its position, new keys go last *)
let dict_update l kvs =
  List.fold_left (fun l (k, v) ->
      if List.mem_assq k l then List.map (fun (k', v') -> if k' == k then (k, v) else (k', v')) l else l @ [ (k, v) ]) l kvs

(* chr(120+int(x)): the .x/.y/.z of a dim letter *)
let xyz d = String.make 1 (Char.chr (120 + int_of_string d))

let fp8_ocp = [ Dtype.Fp8e4m3; Dtype.Fp8e5m2 ]
let fp8_fnuz = [ Dtype.Fp8e4m3fnuz; Dtype.Fp8e5m2fnuz ]

(* ---------- MetalRenderer ---------- *)

(* tinygrad: MetalRenderer.render_kernel: the metal_stdlib prefix and one simdgroup 8x8x8 helper per WMMA *)
let metal_render_kernel lang ?prefix:_ function_name kernel bufs uops =
  let deduped = Helpers.dedup (List.map (fun w -> (w.fname, w.fdtype_in, w.fdtype_out)) (wmma_args uops)) in
  let helpers = List.map (fun (name, dtype_in, dtype_out) ->
      let dstr_out = render_dtype_full ~sz:2 ~addrspace:(Some Dtype.Reg) lang dtype_out
      and dstr_in = render_dtype_full ~sz:2 ~addrspace:(Some Dtype.Reg) lang dtype_in in
      Printf.sprintf
        "%s __%s(%s a, %s b, %s c){\n\
        \  simdgroup_%s8x8 mat_a, mat_b; simdgroup_%s8x8 mat_c;\n\
        \  mat_a.thread_elements()[0] = a[0]; mat_b.thread_elements()[0] = b[0]; mat_c.thread_elements()[0] = c[0];\n\
        \  mat_a.thread_elements()[1] = a[1]; mat_b.thread_elements()[1] = b[1]; mat_c.thread_elements()[1] = c[1];\n\
        \  simdgroup_multiply_accumulate(mat_c, mat_a, mat_b, mat_c);\n\
        \  return %s(mat_c.thread_elements()[0], mat_c.thread_elements()[1]);\n}"
        dstr_out name dstr_in dstr_in dstr_out (render_dtype lang dtype_in) (render_dtype lang dtype_out) dstr_out) deduped in
  let prefix = [ "#include <metal_stdlib>"; "using namespace metal;" ] @ helpers in
  base_render_kernel lang ~prefix function_name kernel bufs uops

(* the register BITCAST rule of MetalRenderer / CUDARenderer: [fn<to>((from)(x))], fn = as_type / tg_bitcast *)
let bitcast_rule fn : rule =
  (P.pat Ops.Bitcast ~name:"x", fun ctx c ->
      let x = g c "x" in
      match Uop.addrspace x with
      | Some (Dtype.Global | Dtype.Local) -> None
      | _ -> Some (Printf.sprintf "%s<%s>((%s)(%s))" fn (render_dtype ctx.lang x.dtype) (render_dtype ctx.lang x.src.(0).dtype)
                     ctx.%[x.src.(0)]))

(* tinygrad: MetalRenderer.string_rewrite (its own rule, then base_rewrite) *)
let metal_string_rewrite : rule list = bitcast_rule "as_type" :: base_rewrite

let metal_language : lang =
  { cstyle_language with
    kernel_typedef = "kernel void";
    buffer_prefix = "device ";
    smem_prefix = "threadgroup __attribute__((aligned(16))) ";
    var_prefix = "constant ";
    var_suffix = "&";
    barrier = "threadgroup_barrier(mem_flags::mem_threadgroup);";
    float4 = Some "float4";
    code_for_workitem = [ ('g', fun x -> "gid." ^ xyz x); ('l', fun x -> "lid." ^ xyz x) ];
    (* uint3 used for gid/lid - TODO: this should probably be `ushort3 lid [[thread_position_in_threadgroup]]` *)
    extra_args = [ "uint3 gid [[threadgroup_position_in_grid]]"; "uint3 lid [[thread_position_in_threadgroup]]" ];
    type_map = [ (Dtype.Uint32, "uint"); (Dtype.Bfloat16, "bfloat") ];
    (* precise::sin *)
    code_for_op = dict_update base_code_for_op
        [ (Ops.Sin, fun args _ -> match args with [ x ] -> Printf.sprintf "precise::sin(%s)" x | _ -> invalid_arg "code_for_op: arity") ];
    string_rewrite = metal_string_rewrite;
    render_kernel = metal_render_kernel }

(* tinygrad: MetalRenderer.extra_matcher: upcast to float32 all the ops that don't support bfloat16 *)
let metal_extra_matcher : unit P.matcher =
  let open P in
  matcher [
    (* NOTE: this is copied from PTX *)
    P.rule (P.ops [ Ops.Sqrt; Ops.Exp2; Ops.Log2; Ops.Sin ] ~dtype:[ Dtype.Bfloat16 ] ~name:"x") (fun c ->
        let x = g c "x" in
        Some (Uop.cast Dtype.Bfloat16 (Uop.create x.op ~src:(Array.map (Uop.cast Dtype.Float32) x.src) ~arg:x.arg))) ]
  @@@ pm_manual_bf16_cast

(* tinygrad: MetalRenderer.__init__ (tensor cores on Apple7+) and supported_dtypes *)
let metal_renderer ?(arch = "Apple9") () : Renderer.t =
  let lang = metal_language in
  let apple_ge n =
    String.length arch > 5 && String.sub arch 0 5 = "Apple"
    && (match int_of_string_opt (String.sub arch 5 (String.length arch - 5)) with Some v -> v >= n | None -> false) in
  { Renderer.default with
    device = "METAL";
    tensor_cores = (if apple_ge 7 then Tc.metal else []);
    code_for_op = List.map fst lang.code_for_op;
    extra_matcher = Some (P.lift metal_extra_matcher);
    supported_dtypes = List.filter (fun d ->
        (d != Dtype.Bfloat16 || apple_ge 6) && not (List.memq d (Dtype.fp8s @ [ Dtype.Float64 ])))
        (Renderer.base_supported_dtypes ());
    render = (fun _ uops -> render lang uops) }

(* ---------- CUDARenderer ---------- *)

let nms = List.map (String.make 1) (List.init 16 (fun i -> "xyzwabcdefghijkl".[i])) @ List.init 16 (fun i -> Printf.sprintf "v%d" (i + 16))

let rec take n = function x :: r when n > 0 -> x :: take (n - 1) r | _ -> []
let rec drop n = function _ :: r when n > 0 -> drop (n - 1) r | l -> l

(* tinygrad: CUDARenderer.render_vector_prefix: a struct and its make_ constructor *)
let cuda_render_vector_prefix lang dt count =
  let vec = render_dtype_full ~sz:count ~addrspace:(Some Dtype.Reg) lang dt and scal = render_dtype lang dt in
  let ns = take count nms in
  let elems = String.concat ", " ns and header = String.concat ", " (List.map (fun x -> scal ^ " " ^ x) ns) in
  Printf.sprintf "struct __align__(%d) %s { %s %s; }; __device__ %s make_%s(%s) { %s r={%s}; return r; }"
    (Dtype.itemsize dt * count) vec scal elems vec vec header vec elems

(* tinygrad: CUDARenderer.render_kernel: the prefix lines, the vector structs and one mma.sync helper per WMMA *)
let cuda_render_kernel lang ?prefix:_ function_name kernel bufs uops =
  let prefix = ref [ "typedef unsigned int uint;"; "#define INFINITY (__int_as_float(0x7f800000))";
                     "#define NAN (__int_as_float(0x7fffffff))";
                     "template <class T, class F> __device__ __forceinline__ T tg_bitcast(F v) { union U { F f; T t; }; U u; u.f = v; return u.t; }" ] in
  let add l = prefix := !prefix @ l in
  let used_dtypes = uops_to_dtypes uops in
  if List.exists (fun (dt, _) -> List.memq dt Dtype.fp8s) used_dtypes then add [ "#include <cuda_fp8.h>" ];
  if List.exists (fun (dt, _) -> dt == Dtype.Float16) used_dtypes then add [ "#include <cuda_fp16.h>" ];
  if List.exists (fun (dt, _) -> dt == Dtype.Bfloat16) used_dtypes then add [ "#include <cuda_bf16.h>" ];
  add (List.filter_map (fun (dt, count) ->
      if ((count = 4 || count = 8) && (dt == Dtype.Float16 || dt == Dtype.Bfloat16))
      || (List.mem count [ 2; 4; 8; 16 ] && List.memq dt Dtype.fp8s)
      then Some (lang.render_vector_prefix lang dt count) else None) used_dtypes);
  let dt_map_in = function
    | Dtype.Float32 -> "tf32" | Dtype.Float16 -> "f16" | Dtype.Bfloat16 -> "bf16" | Dtype.Fp8e4m3 -> "e4m3" | Dtype.Fp8e5m2 -> "e5m2"
    | d -> invalid_arg ("CUDA WMMA: no mma input type for " ^ Dtype.to_string d) in
  let dt_map_out = function
    | Dtype.Float32 -> "f32" | Dtype.Float16 -> "f16"
    | d -> invalid_arg ("CUDA WMMA: no mma output type for " ^ Dtype.to_string d) in
  List.iter (fun w ->
      let n, m, k = w.fdims in
      let sa, sb, sc = w.fupcast_sizes in
      let dts = [ (w.fdtype_in, sa); (w.fdtype_in, sb); (w.fdtype_out, sc) ] in
      let wmma_dtypes = List.map (fun (dt, sz) -> render_dtype_full ~sz ~addrspace:(Some Dtype.Reg) lang dt) dts in
      (* 4 => CUDA reg size in bytes *)
      let n_ops = List.map (fun (dt, sz) -> sz * Dtype.itemsize dt / 4) dts in
      let n0 = List.nth n_ops 0 and n1 = List.nth n_ops 1 and n2 = List.nth n_ops 2 in
      let operands = List.init (n0 + n1 + n2) (fun i -> "%" ^ string_of_int i) in
      let total = List.length operands in
      let j = String.concat ", " in
      let din = dt_map_in w.fdtype_in and dout = dt_map_out w.fdtype_out in
      (* mma operands => {c}, {a}, {b}, {c} *)
      add [ Printf.sprintf
              "__device__ %s __%s(%s a, %s b, %s c){\n\
              \  int *a_pk = (int *)(&a), *b_pk = (int *)(&b), *c_pk = (int *)(&c);\n\
              \  asm(\"mma.sync.aligned.m%dn%dk%d.row.col.%s.%s.%s.%s\"\n\
              \      \"{%s}, {%s},\"\n\
              \      \"{%s}, {%s};\"\n\
              \    : %s\n\
              \    : %s, %s);\n\
              \  return c;\n}"
              (List.nth wmma_dtypes 2) w.fname (List.nth wmma_dtypes 0) (List.nth wmma_dtypes 1) (List.nth wmma_dtypes 2)
              m n k dout din din dout
              (j (take n2 operands)) (j (take n0 (drop n2 operands)))
              (j (drop (if n1 = 0 then 0 else total - n1) operands)) (j (take n2 operands))
              (j (List.init n2 (fun i -> Printf.sprintf "\"+r\"(c_pk[%d])" i)))
              (j (List.init n0 (fun i -> Printf.sprintf "\"r\"(a_pk[%d])" i)))
              (j (List.init n1 (fun i -> Printf.sprintf "\"r\"(b_pk[%d])" i))) ]) (wmma_args uops);
  base_render_kernel lang ~prefix:!prefix function_name kernel bufs uops

(* tinygrad: CUDARenderer.string_rewrite (its own rule, then base_rewrite) *)
let cuda_string_rewrite : rule list = bitcast_rule "tg_bitcast" :: base_rewrite

let cuda_language : lang =
  let p = Printf.sprintf in
  let h name fallback = fun args dt -> match args with
    | [ x ] -> if dt == Dtype.Float16 || dt == Dtype.Bfloat16 then p "%s(%s)" name x else fallback x
    | _ -> invalid_arg "code_for_op: arity" in
  { cstyle_language with
    (* https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html *)
    kernel_typedef = "extern \"C\" __global__ void __launch_bounds__({launch_bounds})";
    smem_prefix = "__shared__ __align__(16) ";
    smem_prefix_for_cast = false;
    barrier = "__syncthreads();";
    float4 = Some "make_float4";
    gep_arr_threshold = 8;
    code_for_workitem = [ ('g', fun x -> "blockIdx." ^ xyz x); ('l', fun x -> "threadIdx." ^ xyz x);
                          ('i', fun x -> p "(blockIdx.%s*blockDim.%s+threadIdx.%s)" (xyz x) (xyz x) (xyz x)) ];
    code_for_op = dict_update base_code_for_op [
        (Ops.Trunc, h "htrunc" (p "trunc(%s)")); (Ops.Sin, h "hsin" (p "sin(%s)")); (Ops.Log2, h "hlog2" (p "log2(%s)"));
        (Ops.Exp2, h "hexp2" (p "exp2(%s)")); (Ops.Sqrt, h "hsqrt" (p "sqrt(%s)")); (Ops.Reciprocal, h "hrcp" (p "(1/%s)")) ];
    type_map = [ (Dtype.Uint32, "uint"); (Dtype.Bfloat16, "nv_bfloat16"); (Dtype.Fp8e4m3, "__nv_fp8_e4m3");
                 (Dtype.Fp8e5m2, "__nv_fp8_e5m2") ];
    string_rewrite = cuda_string_rewrite;
    render_kernel = cuda_render_kernel;
    render_vector_prefix = cuda_render_vector_prefix }

(* tinygrad: CUDARenderer.extra_matcher *)
let cuda_extra_matcher : unit P.matcher =
  let open P in
  create_non_native_float_pats ~casting:false Dtype.fp8s
  @@@ matcher [
    P.rule (P.pat Ops.Cast ~dtype:Dtype.fp8s ~src:(P.Repeat (P.var ~dtype:Dtype.fp8s "x")) ~name:"y") (fun c ->
        let x = g c "x" and y = g c "y" in
        if x.dtype != y.dtype then Some (Uop.cast y.dtype (Uop.cast Dtype.Float32 x)) else None) ]

(* tinygrad: CUDARenderer(Target) (tensor cores tc.get_cuda(arch)) and supported_dtypes *)
let cuda_renderer ~arch : Renderer.t =
  let lang = cuda_language in
  let ver = match int_of_string_opt (if String.length arch > 3 then String.sub arch 3 (String.length arch - 3) else "") with
    | Some v -> v | None -> invalid_arg ("cuda_renderer: arch must look like sm_89, got " ^ arch) in
  { Renderer.default with
    device = "CUDA";
    global_max = Some [ 2147483647; 65535; 65535 ];
    local_max = Some [ 1024; 1024; 64 ];
    shared_max = 49152;
    tensor_cores = Tc.get_cuda arch;
    code_for_op = List.map fst lang.code_for_op;
    extra_matcher = Some (P.lift cuda_extra_matcher);
    supported_dtypes = List.filter (fun d ->
        (d != Dtype.Float16 || ver >= 53) && (d != Dtype.Bfloat16 || ver >= 80)
        && (not (List.memq d fp8_ocp) || ver >= 89) && not (List.memq d fp8_fnuz))
        (Renderer.base_supported_dtypes ());
    render = (fun _ uops -> render lang uops) }
