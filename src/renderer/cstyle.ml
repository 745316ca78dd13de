(* tinygrad: renderer/cstyle.py (CStyleLanguage, base_rewrite, ClangRenderer; CUDA/Metal/OpenCL later) *)

open Uop

(* ---------- small helpers (tinygrad: helpers.py) ---------- *)

(* Python's str.replace(sub, by) *)
let replace_all ~sub ~by s =
  let ls = String.length sub and n = String.length s in
  if ls = 0 then s
  else begin
    let b = Buffer.create n in
    let i = ref 0 in
    while !i < n do
      if !i + ls <= n && String.sub s !i ls = sub then (Buffer.add_string b by; i := !i + ls)
      else (Buffer.add_char b s.[!i]; incr i)
    done;
    Buffer.contents b
  end

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
      let re = replace_all ~sub:"float4" ~by:t f4 in
      let a, b = ctx.lang.float4_style in
      Some (re ^ a ^ String.concat "," (List.map (fun y -> ctx.%[y]) (Array.to_list x.src)) ^ b));
  (* load/store *)
  (P.pat Ops.Load ~src:(P.In_order [ P.var "bidx" ]), fun ctx c -> Some ("(" ^ render_access ctx (g c "bidx") ^ ")"));
  (P.pat Ops.Load ~src:(P.In_order [ P.var "bidx"; P.var "var"; P.var "gate" ]), fun ctx c ->
      Some (Printf.sprintf "(%s?%s:%s)" ctx.%[g c "gate"] (render_access ctx (g c "bidx")) ctx.%[g c "var"]));
  (P.pat Ops.Store ~src:(P.In_order [ P.var "bidx"; P.var "var" ]), fun ctx c ->
      Some (Printf.sprintf "%s = %s;" (render_access ctx (g c "bidx")) ctx.%[g c "var"]));
  (* alu/gep; WMMA is not ported yet (no tensor cores) *)
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
    | (pat, fn) :: rest ->
      let rec try_matches = function
        | [] -> go rest
        | m :: ms -> (match fn ctx m with Some s -> Some s | None -> try_matches ms) in
      try_matches (P.match_ pat u) in
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
  let typedef = replace_all ~sub:"{launch_bounds}" ~by:(string_of_int launch_bounds) lang.kernel_typedef in
  let prg =
    typedef ^ " " ^ function_name ^ "("
    ^ String.concat ", " (List.map (fun (name, t) -> t ^ " " ^ name) buftypes @ lang.extra_args)
    ^ ") {\n" ^ tmp ^ String.concat "\n" kernel ^ "\n}" in
  match prefix with None -> prg | Some p -> String.concat "\n" p ^ "\n" ^ prg

(* tinygrad: CStyleLanguage._render: name every value, render each with string_rewrite and inline the
   single-use ones. Returns (function name, kernel lines, bufs). *)
let render_lines lang (uops : Uop.t list) =
  let ctx = { lang; r = Uop.Tbl.create 64 } in
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
  let expand_ssa = Helpers.getenv "EXPAND_SSA" 0 <> 0 in
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
        let l = match string_rewrite ctx lang.string_rewrite u with
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

(* tinygrad: ClangRenderer.render_vector_prefix *)
let clang_render_vector_prefix lang dt count =
  (* round (down) to power of two (this is actually the default clang behavior) *)
  let alignment =
    if Helpers.getenv "ALIGNED" 1 <> 0 && not (Dtype.is_bool dt) then
      let n = Dtype.itemsize dt * count in
      let rec p2 k = if 2 * k <= n then p2 (2 * k) else k in p2 1
    else 1 in
  let vec = render_dtype_full ~sz:count ~addrspace:(Some Dtype.Reg) lang dt in
  Printf.sprintf "typedef %s %s __attribute__((aligned(%d),ext_vector_type(%d)));" (render_dtype lang dt) vec alignment count

(* tinygrad: ClangRenderer.render_kernel (_render_defines, _render_body, _render_entry) *)
let clang_render_kernel lang ?prefix function_name kernel bufs uops =
  let defines = String.concat "\n" (List.filter_map (fun (dt, count) ->
      if count > 1 then Some (lang.render_vector_prefix lang dt count) else None) (uops_to_dtypes uops)) in
  defines ^ "\n" ^ base_render_kernel lang ?prefix function_name kernel bufs uops ^ "\n" ^ ""

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
  matcher [ cast_rule Dtype.Float64 Dtype.Float16; cast_rule Dtype.Float64 Dtype.Bfloat16; cast_rule Dtype.Bfloat16 Dtype.Float16 ]
  @@@ create_non_native_float_pats [ Dtype.Bfloat16 ] @@@ pm_manual_bf16_cast

(* tinygrad: ClangRenderer(Target) *)
let clang_renderer () : Renderer.t =
  let lang = clang_language in
  { Renderer.default with
    device = "CPU";
    has_local = false;
    has_threads = Helpers.threads.value <> 0;
    (* tinygrad: the global_max property, (NUM_CPU_THREADS.value, 0, 0): the context var, read when the renderer is made *)
    global_max = Some [ Helpers.num_cpu_threads.value; 0; 0 ];
    code_for_op = List.map fst lang.code_for_op;
    extra_matcher = Some (P.lift clang_extra_matcher);
    (* ClangRenderer.supported_dtypes: bfloat16 only on x86/arm (assumed here), no fp8 *)
    supported_dtypes = List.filter (fun d -> not (List.memq d Dtype.fp8s)) (Renderer.base_supported_dtypes ());
    render = (fun _ uops -> render lang uops) }

(* ---------- room for the GPU languages ----------
   OpenCLRenderer, CUDARenderer, MetalRenderer, HIPRenderer: each is [cstyle_language] with its fields
   overridden (kernel_typedef, smem_prefix, code_for_workitem, type_map, string_rewrite = own rules @
   base_rewrite, render_kernel with its prefix lines) and a [Renderer.t] built like [clang_renderer]. *)
