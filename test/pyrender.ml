(* An evaluator for tinygrad's pyrender output (tinygrad: uop/render.py pyrender / pm_pyrender). The text is Python:
   assignments `cN = <expr>` whose expressions use UOp(...), UOp.const/range/special, the UOp sugar methods
   (.index .store .end .sink .cast .bitcast .reduce .alu ...), ParamArg/KernelInfo and Python's operators, which
   tinygrad maps to its elementwise mixin; we map them to Uop's sugar, which ports that mixin. *)

open Tinygrad.Compiler

exception Error of string

let err fmt = Printf.ksprintf (fun s -> raise (Error s)) fmt

(* ---------- tokens ---------- *)

type tok =
  | Name of string
  | Int_lit of Z.t
  | Float_lit of float
  | Str_lit of string
  | Sym of string  (* operators and punctuation *)
  | Newline
  | Eof

let tok_to_string = function
  | Name s -> s | Int_lit z -> Z.to_string z | Float_lit f -> string_of_float f | Str_lit s -> Printf.sprintf "%S" s
  | Sym s -> s | Newline -> "<newline>" | Eof -> "<eof>"

let syms3 = [ "**=" ]
let syms2 = [ "//"; "<<"; ">>"; "<="; ">="; "=="; "!="; "**" ]
let syms1 = "()[],.=+-*/%&|^~<>:"

let tokenize (s : string) : tok array =
  let n = String.length s in
  let toks = ref [] in
  let depth = ref 0 in
  let push t = toks := t :: !toks in
  let i = ref 0 in
  while !i < n do
    let c = s.[!i] in
    if c = '\n' then begin
      if !depth = 0 then push Newline;
      incr i
    end else if c = ' ' || c = '\t' || c = '\r' then incr i
    else if c = '#' then (while !i < n && s.[!i] <> '\n' do incr i done)
    else if c = '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') then begin
      let st = !i in
      while !i < n && (match s.[!i] with 'a' .. 'z' | 'A' .. 'Z' | '0' .. '9' | '_' -> true | _ -> false) do incr i done;
      push (Name (String.sub s st (!i - st)))
    end else if (c >= '0' && c <= '9') || (c = '.' && !i + 1 < n && s.[!i + 1] >= '0' && s.[!i + 1] <= '9') then begin
      let st = !i in
      let is_float = ref false in
      while !i < n && (match s.[!i] with '0' .. '9' | '_' -> true | '.' -> is_float := true; true
                                         | 'e' | 'E' -> is_float := true; true
                                         | '+' | '-' -> (s.[!i - 1] = 'e' || s.[!i - 1] = 'E') && !is_float
                                         | 'x' | 'X' | 'a' .. 'd' | 'f' | 'A' .. 'D' | 'F' ->
                                           String.length s > st + 1 && (s.[st + 1] = 'x' || s.[st + 1] = 'X')
                                         | _ -> false) do incr i done;
      let t = String.sub s st (!i - st) in
      let t = String.concat "" (String.split_on_char '_' t) in
      if String.length t > 1 && (t.[1] = 'x' || t.[1] = 'X') then push (Int_lit (Z.of_string t))
      else if !is_float then push (Float_lit (float_of_string t))
      else push (Int_lit (Z.of_string t))
    end else if c = '\'' || c = '"' then begin
      let q = c in
      incr i;
      let buf = Buffer.create 16 in
      while !i < n && s.[!i] <> q do
        if s.[!i] = '\\' && !i + 1 < n then begin
          (match s.[!i + 1] with
           | 'n' -> Buffer.add_char buf '\n' | 't' -> Buffer.add_char buf '\t' | 'r' -> Buffer.add_char buf '\r'
           | '\\' -> Buffer.add_char buf '\\' | '\'' -> Buffer.add_char buf '\'' | '"' -> Buffer.add_char buf '"'
           | 'x' when !i + 3 < n ->
             Buffer.add_char buf (Char.chr (int_of_string ("0x" ^ String.sub s (!i + 2) 2))); i := !i + 2
           | c -> Buffer.add_char buf '\\'; Buffer.add_char buf c);
          i := !i + 2
        end else (Buffer.add_char buf s.[!i]; incr i)
      done;
      if !i >= n then err "pyrender: unterminated string";
      incr i;
      push (Str_lit (Buffer.contents buf))
    end else begin
      let try_sym l len = if !i + len <= n && List.mem (String.sub s !i len) l then Some (String.sub s !i len) else None in
      match try_sym syms3 3, try_sym syms2 2 with
      | Some t, _ | None, Some t -> push (Sym t); i := !i + String.length t
      | None, None ->
        if String.contains syms1 c then begin
          (match c with '(' | '[' -> incr depth | ')' | ']' -> decr depth | _ -> ());
          push (Sym (String.make 1 c)); incr i
        end else err "pyrender: unexpected character %C" c
    end
  done;
  push Newline; push Eof;
  Array.of_list (List.rev !toks)

(* ---------- values ---------- *)

type v =
  | U of Uop.t
  | V_int of Z.t
  | V_float of float
  | V_bool of bool
  | V_none
  | V_invalid
  | V_str of string
  | V_tuple of v list
  | V_dtype of Dtype.t
  | V_op of Ops.t
  | V_axis of Uop.axis_type
  | V_addrspace of Dtype.addrspace
  | V_optops of Opt.opt_ops
  | V_opt of Opt.t
  | V_arg of Uop.arg          (* ParamArg / KernelInfo *)
  | V_estimates of Uop.estimates
  | V_ns of string            (* a namespace or a global callable: dtypes, Ops, UOp, ParamArg, ... *)
  | V_meth of v * string      (* a bound method or a static function (V_ns "UOp", "const") *)

let rec describe = function
  | U u -> "UOp " ^ Ops.to_string u.op | V_int z -> Z.to_string z | V_float f -> Dtype.float_repr f
  | V_bool b -> if b then "True" else "False" | V_none -> "None" | V_invalid -> "Invalid" | V_str s -> "'" ^ s ^ "'"
  | V_tuple l -> "(" ^ String.concat ", " (List.map describe l) ^ ")" | V_dtype d -> Dtype.to_string d
  | V_op o -> Ops.to_string o | V_axis a -> Uop.axis_type_to_string a | V_addrspace _ -> "AddrSpace"
  | V_optops o -> Opt.opt_ops_to_string o | V_opt o -> Opt.to_string o | V_arg a -> Uop.arg_to_string a
  | V_estimates _ -> "Estimates" | V_ns s -> s | V_meth (_, m) -> "<method " ^ m ^ ">"

let op_of_name name =
  match Array.to_list Ops.all |> List.find_opt (fun o -> Ops.name o = name) with
  | Some o -> o
  | None -> err "pyrender: unknown Ops.%s" name

let axis_of_name = function
  | "DEVICE" -> Uop.Device | "GLOBAL" -> Uop.Global | "WARP" -> Uop.Warp | "LOCAL" -> Uop.Local | "WEAK" -> Uop.Weak
  | "GROUP_REDUCE" -> Uop.Group_reduce | "REDUCE" -> Uop.Reduce | "UPCAST" -> Uop.Upcast | "UNROLL" -> Uop.Unroll
  | "THREAD" -> Uop.Thread | "PLACEHOLDER" -> Uop.Placeholder | "LOOP" -> Uop.Loop
  | s -> err "pyrender: unknown AxisType.%s" s

let addrspace_of_name = function
  | "GLOBAL" -> Dtype.Global | "LOCAL" -> Dtype.Local | "REG" -> Dtype.Reg | "ALU" -> Dtype.Alu
  | s -> err "pyrender: unknown AddrSpace.%s" s

let optops_of_name = function
  | "TC" -> Opt.TC | "UPCAST" -> Opt.UPCAST | "UNROLL" -> Opt.UNROLL | "LOCAL" -> Opt.LOCAL | "THREAD" -> Opt.THREAD
  | "GROUP" -> Opt.GROUP | "GROUPTOP" -> Opt.GROUPTOP | "NOLOCALS" -> Opt.NOLOCALS | "PADTO" -> Opt.PADTO
  | "SWAP" -> Opt.SWAP | s -> err "pyrender: unknown OptOps.%s" s

let to_const = function
  | V_int z -> Dtype.I z | V_float f -> Dtype.F f | V_bool b -> Dtype.B b | V_invalid -> Dtype.Invalid
  | v -> err "pyrender: expected a constant, got %s" (describe v)

(* tinygrad UOp.ufix: Python numbers become UOp.const (dtype from the Python type) *)
let to_uop = function
  | U u -> u
  | (V_int _ | V_float _ | V_bool _ | V_invalid) as v -> Uop.const (to_const v)
  | v -> err "pyrender: expected a UOp, got %s" (describe v)

let to_int = function V_int z -> Z.to_int z | V_bool b -> if b then 1 else 0 | v -> err "pyrender: expected an int, got %s" (describe v)
let to_dtype = function V_dtype d -> d | v -> err "pyrender: expected a dtype, got %s" (describe v)
let to_bool = function V_bool b -> b | V_int z -> not (Z.equal z Z.zero) | v -> err "pyrender: expected a bool, got %s" (describe v)
let to_list = function V_tuple l -> l | v -> err "pyrender: expected a tuple, got %s" (describe v)
let opt_none f = function V_none -> None | v -> Some (f v)

(* a Python value as a UOp arg, for the op it is the arg of *)
let rec to_arg (op : Ops.t option) (v : v) : Uop.arg =
  match op, v with
  | _, V_none -> Uop.No_arg
  | _, V_arg a -> a
  | Some Ops.Reduce, V_op o -> Uop.Reduce_arg (o, 0)
  | Some (Ops.Reduce | Ops.Allreduce), V_tuple [ V_op o; V_int n ] -> Uop.Reduce_arg (o, Z.to_int n)
  | Some Ops.Range, V_tuple (V_int id :: rest) ->
    let rec split acc = function
      | [ V_axis a ] -> (List.rev acc, a)
      | V_axis a :: extra -> (List.rev acc @ List.map to_int extra, a)
      | V_int i :: r -> split (Z.to_int i :: acc) r
      | _ -> err "pyrender: bad RANGE arg %s" (describe v) in
    let ids, at = split [ Z.to_int id ] rest in
    Uop.Range (ids, at)
  | Some Ops.Const, _ -> Uop.Const (to_const v)
  | Some (Ops.Permute | Ops.Gettuple), V_tuple l when List.for_all (function V_int _ -> true | _ -> false) l ->
    Uop.Ints (List.map to_int l)
  | Some Ops.Flip, V_tuple l -> Uop.Bools (List.map to_bool l)
  | _, V_dtype d -> Uop.Dtype d
  | _, V_int z -> Uop.Int (Z.to_int z)
  | _, V_bool b -> Uop.Bool b
  | _, V_str s -> Uop.Str s
  | _, V_op o -> Uop.Op o
  | _, V_tuple l -> Uop.Tuple (List.map (to_arg None) l)
  | _, (V_float _ | V_invalid) -> Uop.Const (to_const v)
  | _, v -> err "pyrender: cannot use %s as an arg" (describe v)

(* ---------- calls ---------- *)

type args = { pos : v list; kw : (string * v) list }

(* Python's binding of positional and keyword arguments to named parameters with defaults *)
let bind ~fn (params : (string * v option) list) (a : args) : string -> v =
  let np = List.length params in
  if List.length a.pos > np then err "pyrender: %s: too many arguments" fn;
  let tbl = Hashtbl.create 8 in
  List.iteri (fun i v -> Hashtbl.replace tbl (fst (List.nth params i)) v) a.pos;
  List.iter (fun (k, v) ->
      if not (List.mem_assoc k params) then err "pyrender: %s: unexpected keyword %s" fn k;
      if Hashtbl.mem tbl k then err "pyrender: %s: %s given twice" fn k;
      Hashtbl.replace tbl k v) a.kw;
  fun name ->
    match Hashtbl.find_opt tbl name with
    | Some v -> v
    | None -> (match List.assoc_opt name params with
        | Some (Some d) -> d
        | Some None -> err "pyrender: %s: missing argument %s" fn name
        | None -> err "pyrender: %s: no parameter %s" fn name)

let no_kw ~fn a = if a.kw <> [] then err "pyrender: %s: unexpected keyword %s" fn (fst (List.hd a.kw))

let kw_dtype a = match List.assoc_opt "dtype" a.kw with None | Some V_none -> None | Some v -> Some (to_dtype v)
let kw_arg op a = match List.assoc_opt "arg" a.kw with None -> Uop.No_arg | Some v -> to_arg (Some op) v

(* the sugar methods pyrender emits as `src0.<op name lower>(srcs..., arg=...)` (render.py `sugar`) *)
let sugar_ops = [ Ops.Sink; Ops.End; Ops.Store; Ops.Load; Ops.Sqrt; Ops.Index; Ops.Reduce; Ops.After; Ops.Threefry;
                  Ops.Reciprocal; Ops.Exp2; Ops.Log2; Ops.Sin; Ops.Contiguous; Ops.Barrier; Ops.Detach ]

let call_static name (a : args) : v =
  match name with
  | "UOp" ->
    let g = bind ~fn:"UOp" [ ("op", None); ("dtype", Some V_none); ("src", Some (V_tuple [])); ("arg", Some V_none);
                             ("tag", Some V_none) ] a in
    let op = (match g "op" with V_op o -> o | v -> err "pyrender: UOp: expected an op, got %s" (describe v)) in
    let dtype = opt_none to_dtype (g "dtype") in
    let src = Array.of_list (List.map to_uop (to_list (g "src"))) in
    U (Uop.create ?dtype ~src ~arg:(to_arg (Some op) (g "arg")) ~tag:(to_arg None (g "tag")) op)
  | "UOp.const" ->
    let g = bind ~fn:"UOp.const" [ ("b", None); ("dtype", Some V_none) ] a in
    let dtype = opt_none to_dtype (g "dtype") in
    (match g "b" with
     | U u -> U (match dtype with Some d -> Uop.cast d u | None -> u)
     | V_tuple l -> U (Uop.stack (List.map (fun c -> Uop.const ?dtype (to_const c)) l))
     | b -> U (Uop.const ?dtype (to_const b)))
  | "UOp.range" ->
    (* tinygrad: UOp.range(end, axis_id, axis_type=AxisType.WEAK, *arg, dtype=dtypes.weakint, src=()) *)
    (match a.pos with
     | end_v :: axis_id :: rest ->
       let at, extra = match rest with [] -> (Uop.Weak, []) | V_axis t :: e -> (t, List.map to_int e)
                                       | v :: _ -> err "pyrender: UOp.range: bad axis type %s" (describe v) in
       let dtype = Option.value (kw_dtype a) ~default:Dtype.Weakint in
       let extra_src = match List.assoc_opt "src" a.kw with None -> [] | Some v -> List.map to_uop (to_list v) in
       List.iter (fun (k, _) -> if k <> "dtype" && k <> "src" then err "pyrender: UOp.range: keyword %s" k) a.kw;
       let end_u = match end_v with U u -> u | v -> Uop.const ~dtype (to_const v) in
       U (Uop.create Ops.Range ~src:(Array.of_list (end_u :: extra_src)) ~arg:(Uop.Range (to_int axis_id :: extra, at)))
     | _ -> err "pyrender: UOp.range needs end and axis_id")
  | "UOp.special" ->
    let g = bind ~fn:"UOp.special" [ ("end", None); ("name", None); ("dtype", Some (V_dtype Dtype.Weakint)) ] a in
    let dtype = to_dtype (g "dtype") in
    let end_u = match g "end" with U u -> u | v -> Uop.const ~dtype (to_const v) in
    let name = (match g "name" with V_str s -> s | v -> err "pyrender: UOp.special: bad name %s" (describe v)) in
    U (Uop.create Ops.Special ~src:[| end_u |] ~arg:(Uop.Str name))
  | "UOp.invalid" -> no_kw ~fn:name a; U (Uop.const Dtype.Invalid)
  | "UOp.sink" -> U (Uop.sink ~arg:(kw_arg Ops.Sink a) (List.filter_map (function V_none -> None | v -> Some (to_uop v)) a.pos))
  | "ParamArg" ->
    let g = bind ~fn:"ParamArg" [ ("slot", None); ("dtype", None); ("vmin_vmax", Some V_none); ("multiple_of", Some V_none);
                                  ("name", Some V_none); ("addrspace", Some (V_addrspace Dtype.Global)); ("axis", Some V_none);
                                  ("device", Some V_none); ("volatile", Some (V_bool false)) ] a in
    let vmm = opt_none (fun v -> match to_list v with [ x; y ] -> (to_const x, to_const y)
                                                  | _ -> err "pyrender: ParamArg: bad vmin_vmax") (g "vmin_vmax") in
    V_arg (Uop.Param { Uop.slot = to_int (g "slot"); pdtype = to_dtype (g "dtype"); vmin_vmax = vmm;
                       multiple_of = opt_none to_int (g "multiple_of");
                       name = opt_none (function V_str s -> s | v -> err "pyrender: ParamArg: bad name %s" (describe v)) (g "name");
                       addrspace = opt_none (function V_addrspace x -> x | v -> err "pyrender: bad addrspace %s" (describe v))
                           (g "addrspace");
                       axis = opt_none to_int (g "axis");
                       device = opt_none (function
                           | V_str s -> Uop.One s
                           | V_tuple l -> Uop.Multi (List.map (function V_str s -> s | v -> err "pyrender: bad device %s" (describe v)) l)
                           | v -> err "pyrender: ParamArg: bad device %s" (describe v))
                           (g "device");
                       volatile = to_bool (g "volatile");
                       vector_acc = false })
  | "Opt" ->
    let g = bind ~fn:"Opt" [ ("op", None); ("axis", Some V_none); ("arg", Some V_none) ] a in
    let op = (match g "op" with V_optops o -> o | v -> err "pyrender: Opt: bad op %s" (describe v)) in
    let arg = match g "arg" with
      | V_none -> Opt.No_arg | V_int z -> Opt.Int (Z.to_int z)
      | V_tuple [ x; y; z ] -> Opt.Tc (to_int x, to_int y, to_int z)
      | v -> err "pyrender: Opt: bad arg %s" (describe v) in
    V_opt { Opt.op; axis = opt_none to_int (g "axis"); arg }
  | "Estimates" ->
    let g = bind ~fn:"Estimates" [ ("ops", Some (V_int Z.zero)); ("lds", Some (V_int Z.zero)); ("mem", Some (V_int Z.zero)) ] a in
    let s v = match v with U u -> Uop.Suop u | v -> Uop.Sint (to_int v) in
    V_estimates { Uop.ops = s (g "ops"); lds = s (g "lds"); mem = s (g "mem") }
  | "KernelInfo" ->
    let g = bind ~fn:"KernelInfo" [ ("name", Some (V_str "test")); ("axis_types", Some (V_tuple [])); ("dont_use_locals", Some (V_bool false));
                                    ("applied_opts", Some (V_tuple [])); ("opts_to_apply", Some V_none); ("estimates", Some V_none);
                                    ("beam", Some (V_int Z.zero)) ] a in
    let opts v = List.map (function V_opt o -> o | v -> err "pyrender: KernelInfo: bad opt %s" (describe v)) (to_list v) in
    V_arg (Uop.Kernel_info {
        Uop.kname = (match g "name" with V_str s -> s | v -> err "pyrender: KernelInfo: bad name %s" (describe v));
        axis_types = List.map (function V_axis t -> t | v -> err "pyrender: bad axis type %s" (describe v)) (to_list (g "axis_types"));
        dont_use_locals = to_bool (g "dont_use_locals"); applied_opts = opts (g "applied_opts");
        opts_to_apply = opt_none opts (g "opts_to_apply");
        estimates = opt_none (function V_estimates e -> e | v -> err "pyrender: bad estimates %s" (describe v)) (g "estimates");
        beam = to_int (g "beam") })
  (* added by S-rangeify: schedule/indexing.py BufferizeOpts (the arg of STAGE) *)
  | "BufferizeOpts" ->
    let g = bind ~fn:"BufferizeOpts" [ ("device", None); ("addrspace", Some (V_addrspace Dtype.Global)); ("removable", Some (V_bool true)) ] a in
    V_arg (Uop.Bufferize_opts {
        Uop.bdevice = (match g "device" with V_none -> Uop.Bdev_none | V_str s -> Uop.Bdev (Uop.One s) | V_int i -> Uop.Bdev_id (Z.to_int i)
                                             | v -> err "pyrender: BufferizeOpts: bad device %s" (describe v));
        baddrspace = (match g "addrspace" with V_addrspace x -> x | v -> err "pyrender: BufferizeOpts: bad addrspace %s" (describe v));
        removable = to_bool (g "removable") })
  | _ -> err "pyrender: unsupported function %s" name

let call_method (self : v) (m : string) (a : args) : v =
  let u = to_uop self in
  let srcs () = List.filter_map (function V_none -> None | v -> Some (to_uop v)) a.pos in
  match m with
  | "index" ->
    List.iter (fun (k, _) -> if k <> "dtype" then err "pyrender: index: keyword %s" k) a.kw;
    (* tinygrad UOp.index: ints become UOp.const *)
    U (Uop.index ?dtype:(kw_dtype a) u (srcs ()))
  | "store" ->
    no_kw ~fn:m a;
    (match a.pos with
     | [ v ] | [ v; V_none ] -> U (Uop.store u (match v with U x -> x | c -> Uop.const_like u (to_const c)))
     | [ v; g ] -> U (Uop.store ~gate:(to_uop g) u (match v with U x -> x | c -> Uop.const_like u (to_const c)))
     | _ -> err "pyrender: store: bad arguments")
  | "end" -> no_kw ~fn:m a; U (Uop.end_ u (srcs ()))
  | "after" -> if a.kw <> [] then U (Uop.create Ops.After ~src:(Array.of_list (u :: srcs ())) ~arg:(kw_arg Ops.After a))
    else U (Uop.after u (srcs ()))
  | "sink" -> U (Uop.sink ~arg:(kw_arg Ops.Sink a) (u :: srcs ()))
  | "cast" -> no_kw ~fn:m a; (match a.pos with [ d ] -> U (Uop.cast (to_dtype d) u) | _ -> err "pyrender: cast: one dtype")
  | "bitcast" -> no_kw ~fn:m a; (match a.pos with [ d ] -> U (Uop.bitcast (to_dtype d) u) | _ -> err "pyrender: bitcast: one dtype")
  | "reduce" ->
    (* tinygrad UOp.reduce: arg=Ops.X means (Ops.X, 0) *)
    U (Uop.create Ops.Reduce ~src:(Array.of_list (u :: srcs ())) ~arg:(kw_arg Ops.Reduce a))
  | "alu" ->
    (match a.pos with
     | V_op op :: rest ->
       List.iter (fun (k, _) -> if k <> "dtype" && k <> "arg" then err "pyrender: alu: keyword %s" k) a.kw;
       U (Uop.create ?dtype:(kw_dtype a) op ~src:(Array.of_list (u :: List.map to_uop rest)) ~arg:(kw_arg op a))
     | _ -> err "pyrender: alu: needs an op")
  | "where" -> (match a.pos with [ x; y ] -> U (Uop.where u (to_uop x) (to_uop y)) | _ -> err "pyrender: where: two args")
  | "rtag" -> (match a.pos with [ t ] -> U (Uop.rtag ~tag:(to_arg None t) u) | [] -> U (Uop.rtag u) | _ -> err "pyrender: rtag")
  | "reciprocal" -> U (Uop.reciprocal u)
  | "sqrt" -> U (Uop.sqrt u)
  | "exp2" -> U (Uop.exp2 u)
  | "log2" -> U (Uop.log2 u)
  | "sin" -> U (Uop.sin u)
  | "trunc" -> U (Uop.trunc u)
  | "threefry" -> (match a.pos with [ s ] -> U (Uop.alu Ops.Threefry [ u; to_uop s ]) | _ -> err "pyrender: threefry: one arg")
  | "load" -> U (Uop.create ?dtype:(kw_dtype a) Ops.Load ~src:(Array.of_list (u :: srcs ())))
  | "maximum" -> (match a.pos with [ x ] -> U (Uop.maximum u (to_uop x)) | _ -> err "pyrender: maximum: one arg")
  | "ne" -> (match a.pos with [ x ] -> U (Uop.ne u (to_uop x)) | _ -> err "pyrender: ne: one arg")
  | "eq" -> (match a.pos with [ x ] -> U (Uop.eq u (to_uop x)) | _ -> err "pyrender: eq: one arg")
  | "logical_not" -> U (Uop.logical_not u)
  (* added by S-rangeify: tensor-graph methods (UOp._rop, copy_to_device, contiguous) *)
  | "_rop" ->
    (match a.pos with
     | [ V_op op; V_tuple axes ] -> U (Tinygrad.Compiler.Rangeify.rop u op (List.map to_int axes))
     | _ -> err "pyrender: _rop: needs an op and an axis tuple")
  | "copy_to_device" -> (match a.pos with [ V_str d ] -> U (Tinygrad.Compiler.Rangeify.copy_to_device u (Uop.One d)) | _ -> err "pyrender: copy_to_device")
  | "contiguous" -> no_kw ~fn:m a; U (Tinygrad.Compiler.Buffers.contiguous u)
  | _ ->
    (match List.find_opt (fun o -> String.lowercase_ascii (Ops.name o) = m) sugar_ops with
     | Some op -> U (Uop.create ?dtype:(kw_dtype a) op ~src:(Array.of_list (u :: srcs ())) ~arg:(kw_arg op a))
     | None -> err "pyrender: unsupported method .%s" m)

let call (f : v) (a : args) : v =
  match f with
  | V_ns name -> call_static name a
  | V_meth (V_ns "UOp", m) -> call_static ("UOp." ^ m) a
  | V_meth (self, m) -> call_method self m a
  | v -> err "pyrender: %s is not callable" (describe v)

let attr (v : v) (name : string) : v =
  match v with
  | V_ns "dtypes" -> (match Dtype.of_string name with Some d -> V_dtype d | None -> err "pyrender: unknown dtypes.%s" name)
  | V_ns "Ops" -> V_op (op_of_name name)
  | V_ns "AxisType" -> V_axis (axis_of_name name)
  | V_ns "AddrSpace" -> V_addrspace (addrspace_of_name name)
  | V_ns "OptOps" -> V_optops (optops_of_name name)
  | V_ns "UOp" | U _ -> V_meth (v, name)
  | v -> err "pyrender: no attribute %s on %s" name (describe v)

(* ---------- operators (Python semantics; UOp operands go through Uop's elementwise sugar) ---------- *)

let is_uop = function U _ -> true | _ -> false
let num_float = function V_int z -> Z.to_float z | V_float f -> f | V_bool b -> if b then 1.0 else 0.0
                         | v -> err "pyrender: not a number: %s" (describe v)
let num_int = function V_int z -> Some z | V_bool b -> Some (if b then Z.one else Z.zero) | _ -> None

let binop (o : string) (x : v) (y : v) : v =
  if is_uop x || is_uop y then begin
    match o with
    | "==" -> (match x, y with U a, U b -> V_bool (a == b) | _ -> V_bool false)  (* UOp.__eq__ is identity *)
    | "!=" when not (is_uop x) -> U (Uop.ne (to_uop y) (to_uop x))  (* the reflected __ne__ *)
    | _ ->
      let a = to_uop x and b = to_uop y in
      U (match o with
          | "+" -> Uop.add a b | "-" -> Uop.sub a b | "*" -> Uop.mul a b | "/" -> Uop.div a b
          | "//" -> Uop.idiv a b | "%" -> Uop.mod_ a b | "&" -> Uop.and_ a b | "|" -> Uop.or_ a b
          | "^" -> Uop.xor a b | "<<" -> Uop.shl a b | ">>" -> Uop.shr a b | "<" -> Uop.lt a b
          | ">" -> Uop.gt a b | "<=" -> Uop.le a b | ">=" -> Uop.ge a b | "!=" -> Uop.ne a b | "**" -> Uop.pow a b
          | _ -> err "pyrender: unsupported operator %s" o)
  end else
    match num_int x, num_int y with
    | Some a, Some b ->
      (match o with
       | "+" -> V_int (Z.add a b) | "-" -> V_int (Z.sub a b) | "*" -> V_int (Z.mul a b)
       | "//" -> V_int (Z.fdiv a b) | "%" -> V_int (Z.sub a (Z.mul (Z.fdiv a b) b))
       | "/" -> V_float (Z.to_float a /. Z.to_float b)
       | "&" -> V_int (Z.logand a b) | "|" -> V_int (Z.logor a b) | "^" -> V_int (Z.logxor a b)
       | "<<" -> V_int (Z.shift_left a (Z.to_int b)) | ">>" -> V_int (Z.shift_right a (Z.to_int b))
       | "<" -> V_bool (Z.lt a b) | ">" -> V_bool (Z.gt a b) | "<=" -> V_bool (Z.leq a b) | ">=" -> V_bool (Z.geq a b)
       | "==" -> V_bool (Z.equal a b) | "!=" -> V_bool (not (Z.equal a b))
       | "**" when Z.geq b Z.zero -> V_int (Z.pow a (Z.to_int b))
       | _ -> err "pyrender: unsupported int operator %s" o)
    | _ ->
      let a = num_float x and b = num_float y in
      (match o with
       | "+" -> V_float (a +. b) | "-" -> V_float (a -. b) | "*" -> V_float (a *. b) | "/" -> V_float (a /. b)
       | "**" -> V_float (Float.pow a b)
       | "<" -> V_bool (a < b) | ">" -> V_bool (a > b) | "<=" -> V_bool (a <= b) | ">=" -> V_bool (a >= b)
       | "==" -> V_bool (a = b) | "!=" -> V_bool (a <> b)
       | _ -> err "pyrender: unsupported float operator %s" o)

let unop (o : string) (x : v) : v =
  match o, x with
  | "-", U u -> U (Uop.neg u)
  | "-", V_int z -> V_int (Z.neg z)
  | "-", V_float f -> V_float (-.f)
  | "-", V_bool b -> V_int (if b then Z.minus_one else Z.zero)
  | "+", (V_int _ | V_float _ | U _) -> x
  | "~", U u -> U (Uop.bitwise_not u)
  | "~", V_int z -> V_int (Z.lognot z)
  | _ -> err "pyrender: unsupported unary %s on %s" o (describe x)

(* ---------- parser / evaluator (recursive descent with Python's precedence) ---------- *)

let globals = [ "dtypes"; "Ops"; "AxisType"; "AddrSpace"; "OptOps"; "UOp"; "ParamArg"; "KernelInfo"; "Opt"; "Estimates"; "BufferizeOpts" (* S-rangeify *) ]

let eval_tokens (env : (string, v) Hashtbl.t) (toks : tok array) (pos : int ref) : v =
  let peek () = toks.(!pos) in
  let advance () = incr pos in
  let expect t = if peek () = t then advance () else err "pyrender: expected %s, got %s" (tok_to_string t) (tok_to_string (peek ())) in
  let lookup name =
    match Hashtbl.find_opt env name with
    | Some v -> v
    | None ->
      if List.mem name globals then V_ns name
      else match name with
        | "None" -> V_none | "True" -> V_bool true | "False" -> V_bool false | "Invalid" -> V_invalid
        | "inf" -> V_float infinity | "nan" -> V_float nan
        | _ -> err "pyrender: unknown name %s" name in
  let rec expr () = comparison ()
  and comparison () =
    let l = bor () in
    match peek () with
    | Sym ("<" | ">" | "<=" | ">=" | "==" | "!=" as o) ->
      advance ();
      let r = bor () in
      (match peek () with
       | Sym ("<" | ">" | "<=" | ">=" | "==" | "!=") -> err "pyrender: chained comparisons are not supported"
       | _ -> ());
      binop o l r
    | _ -> l
  and left_assoc ops next () =
    let rec loop l = match peek () with
      | Sym o when List.mem o ops -> advance (); let r = next () in loop (binop o l r)
      | _ -> l in
    loop (next ())
  and bor () = left_assoc [ "|" ] bxor ()
  and bxor () = left_assoc [ "^" ] band ()
  and band () = left_assoc [ "&" ] shift ()
  and shift () = left_assoc [ "<<"; ">>" ] arith ()
  and arith () = left_assoc [ "+"; "-" ] term ()
  and term () = left_assoc [ "*"; "/"; "//"; "%" ] factor ()
  and factor () =
    match peek () with
    | Sym ("-" | "+" | "~" as o) -> advance (); unop o (factor ())
    | _ -> power ()
  and power () =
    let b = primary () in
    match peek () with
    | Sym "**" -> advance (); binop "**" b (factor ())
    | _ -> b
  and primary () =
    let rec trailers v =
      match peek () with
      | Sym "." -> advance (); (match peek () with Name n -> advance (); trailers (attr v n) | t -> err "pyrender: bad attribute %s" (tok_to_string t))
      | Sym "(" -> advance (); let a = arglist () in trailers (call v a)
      | _ -> v in
    trailers (atom ())
  and arglist () =
    (* after '(' ; up to and including ')' *)
    let pos_args = ref [] and kw = ref [] in
    let rec loop () =
      match peek () with
      | Sym ")" -> advance ()
      | _ ->
        (match peek (), toks.(!pos + 1) with
         | Name k, Sym "=" -> advance (); advance (); kw := (k, expr ()) :: !kw
         | Sym "*", _ -> advance (); pos_args := List.rev_append (to_list (expr ())) !pos_args
         | _ -> if !kw <> [] then err "pyrender: positional argument after keyword"; pos_args := expr () :: !pos_args);
        (match peek () with
         | Sym "," -> advance (); loop ()
         | Sym ")" -> advance ()
         | t -> err "pyrender: expected , or ) in call, got %s" (tok_to_string t)) in
    loop ();
    { pos = List.rev !pos_args; kw = List.rev !kw }
  and atom () =
    match peek () with
    | Name n -> advance (); lookup n
    | Int_lit z -> advance (); V_int z
    | Float_lit f -> advance (); V_float f
    | Str_lit s -> advance (); V_str s
    | Sym "(" ->
      advance ();
      if peek () = Sym ")" then (advance (); V_tuple [])
      else begin
        let first = expr () in
        match peek () with
        | Sym ")" -> advance (); first
        | Sym "," ->
          let items = ref [ first ] in
          let rec loop () =
            match peek () with
            | Sym "," -> advance (); if peek () = Sym ")" then advance () else (items := expr () :: !items; loop ())
            | Sym ")" -> advance ()
            | t -> err "pyrender: expected , or ) in tuple, got %s" (tok_to_string t) in
          loop ();
          V_tuple (List.rev !items)
        | t -> err "pyrender: expected ) got %s" (tok_to_string t)
      end
    | t -> err "pyrender: unexpected %s" (tok_to_string t) in
  let v = expr () in
  ignore expect;
  v

let eval_program_v (s : string) : (string * v) list =
  let toks = tokenize s in
  let env = Hashtbl.create 64 in
  let pos = ref 0 in
  let out = ref [] in
  let rec loop () =
    match toks.(!pos) with
    | Eof -> ()
    | Newline -> incr pos; loop ()
    | Name n when toks.(!pos + 1) = Sym "=" ->
      pos := !pos + 2;
      let v = eval_tokens env toks pos in
      (match toks.(!pos) with Newline | Eof -> () | t -> err "pyrender: trailing %s after %s = ..." (tok_to_string t) n);
      Hashtbl.replace env n v;
      out := (n, v) :: !out;
      loop ()
    | t -> err "pyrender: expected an assignment, got %s" (tok_to_string t) in
  loop ();
  List.rev !out

let eval_program s =
  List.filter_map (fun (n, v) -> match v with U u -> Some (n, u) | _ -> None) (eval_program_v s)

let parse_ast s =
  let b = eval_program s in
  match List.assoc_opt "ast" b with
  | Some u -> u
  | None -> (match List.rev b with (_, u) :: _ -> u | [] -> err "pyrender: no UOp assigned")

let eval_expr env s =
  let toks = tokenize s in
  let tbl = Hashtbl.create 16 in
  List.iter (fun (k, u) -> Hashtbl.replace tbl k (U u)) env;
  let pos = ref 0 in
  let v = eval_tokens tbl toks pos in
  (match toks.(!pos) with Newline | Eof -> () | t -> err "pyrender: trailing %s" (tok_to_string t));
  to_uop v
