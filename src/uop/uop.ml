(* tinygrad: uop/ops.py (the UOp class, its properties and python_alu) *)

open Dtype

type axis_type =
  | Device | Global | Warp | Local | Weak | Group_reduce | Reduce | Upcast | Unroll | Thread | Placeholder | Loop

(* tinygrad: a device is a str, or a tuple of str for a multi-device value *)
type device = One of string | Multi of string list

type param_arg = {
  slot : int;
  pdtype : Dtype.t;
  vmin_vmax : (const * const) option;
  multiple_of : int option;
  name : string option;
  addrspace : addrspace option;
  axis : int option;
  device : device option;
  volatile : bool;
  vector_acc : bool;
}

type arg =
  | No_arg
  | Const of const
  | Dtype of Dtype.t
  | Int of int
  | Str of string
  | Range of int list * axis_type
  | Param of param_arg
  | Reduce_arg of Ops.t * int
  | Ints of int list
  | Bools of bool list
  | Op of Ops.t
  | Bool of bool
  | Tuple of arg list
  | Kernel_info of kernel_info
  | Program_info of program_info
  | Bufferize_opts of bufferize_opts  (* the arg of STAGE *)
  | Wmma_arg of wmma_arg  (* the arg of WMMA *)

(* tinygrad UOp.wmma: arg=(dims, dtype_in, device, threads, tc_upcast_axes) *)
and wmma_arg = {
  wdims : int * int * int;  (* N, M, K *)
  wdtype_in : Dtype.t;
  wdevice : string;
  wthreads : int;
  wupcast_axes : (int * int) list list;  (* for A, B and C: (range number, size) pairs *)
}

(* tinygrad schedule/indexing.py BufferizeOpts: the arg of STAGE (on LOCAL, device is the id) *)
and bufferize_opts = { bdevice : bdevice; baddrspace : Dtype.addrspace; removable : bool }
and bdevice = Bdev_none | Bdev of device | Bdev_id of int

(* tinygrad KernelInfo: the arg of a kernel SINK *)
and kernel_info = {
  kname : string;
  axis_types : axis_type list;
  dont_use_locals : bool;
  applied_opts : Opt.t list;
  opts_to_apply : Opt.t list option;
  estimates : estimates option;
  beam : int;
}

(* tinygrad renderer Estimates: flops, bytes loaded/stored, bytes touched *)
and estimates = { ops : sint; lds : sint; mem : sint }

(* tinygrad ProgramInfo: the arg of PROGRAM *)
and program_info = {
  pname : string;
  global_size : sint list;
  local_size : sint list option;
  vars : t list;
  globals : int list;
  outs : int list;
  ins : int list;
}

and t = {
  op : Ops.t;
  dtype : Dtype.t;
  src : t array;
  arg : arg;
  tag : arg;
  id : int;
  hash : int;
  mutable shape_c : shape_cache;
  mutable minmax_c : (const * const) option;
  mutable ranges_c : t list option;
  mutable device_c : device option option;  (* None: not computed yet *)
  mutable addrspace_c : Dtype.addrspace option option;  (* None: not computed yet *)
}

and shape_cache = Unknown | No_shape | Shape of sint list
and sint = Sint of int | Suop of t

(* ---------- equality and hashing of args ---------- *)

let rec equal_arg a b =
  match a, b with
  | Const x, Const y -> equal_const x y
  | Param p, Param q ->
    p.slot = q.slot && p.pdtype = q.pdtype && p.multiple_of = q.multiple_of && p.name = q.name && p.addrspace = q.addrspace
    && p.axis = q.axis && p.device = q.device && p.volatile = q.volatile && p.vector_acc = q.vector_acc
    && (match p.vmin_vmax, q.vmin_vmax with
        | None, None -> true
        | Some (a, b), Some (c, d) -> equal_const a c && equal_const b d
        | _ -> false)
  | Tuple xs, Tuple ys -> List.length xs = List.length ys && List.for_all2 equal_arg xs ys
  | Kernel_info k, Kernel_info l ->
    k.kname = l.kname && k.axis_types = l.axis_types && k.dont_use_locals = l.dont_use_locals
    && k.applied_opts = l.applied_opts && k.opts_to_apply = l.opts_to_apply && k.beam = l.beam
    && (match k.estimates, l.estimates with
        | None, None -> true
        | Some e, Some f -> equal_sint e.ops f.ops && equal_sint e.lds f.lds && equal_sint e.mem f.mem
        | _ -> false)
  | Program_info p, Program_info q ->
    p.pname = q.pname && equal_sints p.global_size q.global_size && p.globals = q.globals && p.outs = q.outs
    && p.ins = q.ins && List.length p.vars = List.length q.vars && List.for_all2 ( == ) p.vars q.vars
    && (match p.local_size, q.local_size with None, None -> true | Some a, Some b -> equal_sints a b | _ -> false)
  | (No_arg | Dtype _ | Int _ | Str _ | Range _ | Reduce_arg _ | Ints _ | Bools _ | Op _ | Bool _), _ -> a = b
  | Bufferize_opts x, Bufferize_opts y -> x = y
  | Wmma_arg x, Wmma_arg y ->
    x.wdims = y.wdims && x.wdtype_in == y.wdtype_in && x.wdevice = y.wdevice && x.wthreads = y.wthreads
    && x.wupcast_axes = y.wupcast_axes
  | (Const _ | Param _ | Tuple _ | Kernel_info _ | Program_info _ | Bufferize_opts _ | Wmma_arg _), _ -> false

and equal_sint a b = match a, b with Sint x, Sint y -> x = y | Suop x, Suop y -> x == y | _ -> false
and equal_sints a b = List.length a = List.length b && List.for_all2 equal_sint a b

let rec hash_arg = function
  | No_arg -> 0
  | Const c -> 31 + hash_const c
  | Param p -> Hashtbl.hash (p.slot, p.name, p.device)
  | Tuple l -> List.fold_left (fun h a -> (h * 65599) + hash_arg a) 17 l
  | Kernel_info k -> Hashtbl.hash (k.kname, k.axis_types, k.beam)
  | Program_info p -> Hashtbl.hash (p.pname, p.globals, p.outs, p.ins)
  | Wmma_arg w -> Hashtbl.hash (w.wdims, w.wdevice, w.wthreads, w.wupcast_axes)
  | a -> Hashtbl.hash a

(* ---------- hash-consing: a weak set keyed by (op, dtype, src ids, arg, tag) ---------- *)

(* the same node: what the table compares once two hashes agree *)
let same_node a b =
  a.op == b.op && a.dtype == b.dtype && Array.length a.src = Array.length b.src
  && (let rec go i = i >= Array.length a.src || (a.src.(i) == b.src.(i) && go (i + 1)) in go 0)
  && equal_arg a.arg b.arg && equal_arg a.tag b.tag

(* the weak set of every live node, open addressing over two flat arrays: a weak slot per node and its hash
   beside it, so a lookup reads a node out of its slot ([Weak.get], which does not copy the node as Stdlib's
   [Weak.Make] does) only when the hashes agree, and a new node costs a probe of the hash array and one
   slot. A slot whose node died keeps its hash, so that a probe goes on past it (a node may have been put
   behind it); a new node takes the first such slot of its probe once the probe found it absent. Once the
   slots ever used pass half the table it is rebuilt from its live nodes at [fitted] size. A table grown
   by a big graph shrinks once its nodes died: at the first lookup after a major cycle (the GC clears dead
   slots there) it counts the live nodes of a sample of its slots, and one with fewer than one live node
   per [sparse] slots is rebuilt, so that the lookups of a later small program (an eager step's few new
   nodes) read a table of its own size, not one spread over the memory of the big graph *)
module Intern = struct
  module Wk = Stdlib.Weak  (* src/uop/weak.ml shadows Weak *)

  type tbl = {
    mutable slots : t Wk.t;
    mutable hashes : int array;  (* [unused] for a slot never used since the last rebuild *)
    mutable used : int;  (* the slots with a hash: live nodes and dead ones *)
    min_size : int;  (* the size it was created with, which it never shrinks below *)
    mutable cycle_ended : bool;  (* a major cycle ended since the last count of live nodes *)
  }

  let unused = -1  (* a hash is never negative *)

  (* the live nodes per slot under which a table shrinks, 1 / [sparse] *)
  let sparse = 16

  (* the slots counted after a major cycle: evenly spaced slots are a fair sample of hashed nodes, and a
     count of them costs the same whatever the table's size *)
  let sampled = 1024

  (* the smallest power of two at least [n], from 8 (a hash is masked to a slot) *)
  let pow2 n = let rec go k = if k >= n then k else go (2 * k) in go 8

  let empty size = (Wk.create size, Array.make size unused)

  (* the end of each major cycle raises [cycle_ended]: the finaliser of a dropped block too big for the minor
     heap (over 256 words) runs when a major cycle found it dead, and arms the next one. It only raises the
     flag, as it runs at an allocation, maybe inside a lookup. (Gc.create_alarm does the same, but OCaml 5
     keeps its record reachable from a Domain.at_exit closure, so there it never runs.) *)
  let rec arm_cycle_end tb =
    Gc.finalise_last (fun () -> tb.cycle_ended <- true; arm_cycle_end tb) (Array.make 257 0)

  (* at least [n] slots *)
  let create n =
    let size = pow2 n in
    let slots, hashes = empty size in
    let tb = { slots; hashes; used = 0; min_size = size; cycle_ended = false } in
    arm_cycle_end tb;
    tb

  (* the size for [n] live nodes: a quarter full, so that a rebuild comes after as many new nodes *)
  let fitted tb n = Stdlib.max tb.min_size (pow2 (4 * n))

  let put tb i (x : t) =
    Wk.set tb.slots i (Some x);
    tb.hashes.(i) <- x.hash

  (* the table rebuilt from its live nodes: counted first, then moved slot by slot (no list of them; a node
     that dies between the two passes is left behind) *)
  let rebuild tb =
    let old = tb.slots and old_hashes = tb.hashes in
    (* a slot never used holds no node: its weak slot is not read *)
    let holds i = Array.unsafe_get old_hashes i <> unused in
    let n = ref 0 in
    for i = 0 to Wk.length old - 1 do if holds i && Wk.check old i then incr n done;
    let size = fitted tb !n in
    let slots, hashes = empty size in
    tb.slots <- slots;
    tb.hashes <- hashes;
    tb.used <- 0;
    let mask = size - 1 in
    let rec free i = if hashes.(i) = unused then i else free ((i + 1) land mask) in
    for i = 0 to Wk.length old - 1 do
      if holds i then
        match Wk.get old i with
        | Some x -> put tb (free (x.hash land mask)) x; tb.used <- tb.used + 1
        | None -> ()
    done

  (* whether the sampled slots hold fewer than one live node per [sparse] slots *)
  let sparse_sample tb =
    let size = Wk.length tb.slots in
    let step = Stdlib.max 1 (size / sampled) in
    let live = ref 0 and counted = ref 0 and i = ref 0 in
    while !i < size do
      if Wk.check tb.slots !i then incr live;
      incr counted;
      i := !i + step
    done;
    !live * sparse < !counted

  (* after a major cycle, a table grown past its first size and left sparse shrinks *)
  let shrink_sparse tb =
    tb.cycle_ended <- false;
    if Wk.length tb.slots > tb.min_size && sparse_sample tb then rebuild tb

  (* [d] put in the probe's first dead slot [dead], else in the unused slot [i] that ended the probe *)
  let add tb ~dead i (d : t) =
    if dead >= 0 then put tb dead d
    else begin
      put tb i d;
      tb.used <- tb.used + 1;
      if 2 * tb.used > Wk.length tb.slots then rebuild tb
    end;
    d

  (* the first slot from [i] to [stop] whose node died, or -1 *)
  let rec first_dead tb mask i stop =
    if i = stop then -1
    else if not (Wk.check tb.slots i) then i
    else first_dead tb mask ((i + 1) land mask) stop

  (* the live node equal to [d], or [d] itself, added. The probe reads only the hash array (and a slot whose
     hash agrees); the slots are checked for a dead node to reuse only once [d] was found absent, since most
     lookups find their node *)
  let merge tb (d : t) =
    if tb.cycle_ended then shrink_sparse tb;
    let hashes = tb.hashes in
    let mask = Array.length hashes - 1 in
    let start = d.hash land mask in
    let rec probe i =
      let h = Array.unsafe_get hashes i in
      if h = unused then add tb ~dead:(first_dead tb mask start i) i d
      else if h = d.hash then
        match Wk.get tb.slots i with
        | Some x when same_node x d -> x
        | Some _ | None -> probe ((i + 1) land mask)
      else probe ((i + 1) land mask) in
    probe start

  let size tb = Wk.length tb.slots
end

let ucache = Intern.create 262144
let intern_size () = Intern.size ucache
let next_id = ref 0

let compute_hash op dtype src arg tag =
  let h = ref ((Ops.value op * 31) + Hashtbl.hash dtype) in
  Array.iter (fun s -> h := (!h * 65599) + s.id) src;
  h := (!h * 65599) + hash_arg arg;
  h := (!h * 31) + hash_arg tag;
  !h land max_int

let mk op dtype src arg tag =
  let cand = { op; dtype; src; arg; tag; id = !next_id; hash = compute_hash op dtype src arg tag;
               shape_c = Unknown; minmax_c = None; ranges_c = None; device_c = None; addrspace_c = None } in
  let r = Intern.merge ucache cand in
  if r == cand then incr next_id;
  r

(* ---------- forward declarations: Symbolic and Render (which need this module) set them when the library is
   linked (it is linked whole), as tinygrad imports them inside UOp.simplify / UOp.render ---------- *)

let simplify_hook : (t -> t) ref = ref (fun _ -> failwith "Uop.simplify: Symbolic is not linked")
let render_hook : (t -> string) ref = ref (fun _ -> failwith "Uop.render: Render is not linked")

(* ---------- small accessors ---------- *)

let is_const u = u.op == Ops.Const
let const_val u = match u.arg with Const c -> c | _ -> invalid_arg ("val: only for CONST, got " ^ Ops.to_string u.op)
let is_invalid u = u.op == Ops.Const && (match u.arg with Const Invalid -> true | _ -> false)

let rec base u =
  if Ops.Group.is_movement u.op || u.op == Ops.Detach then base u.src.(0) else u

let param_arg u = match u.arg with Param p -> p | _ -> invalid_arg "param_arg: not a PARAM/BUFFER"

(* ---------- dtype production rules: tinygrad dtype_from_uop ---------- *)

let promo_dtype src =
  let dts = Array.to_list (Array.map (fun x -> x.dtype) src) in
  match dts with
  | d :: rest when List.for_all (fun x -> x == d) rest -> d
  | _ -> least_upper_dtype dts

let dtype_from_uop op (src : t array) arg : Dtype.t option =
  let open Ops in
  match op with
  | Store | Linear | Sink | Program | Source | End | Barrier | Group | If | Endif | Tuple | Function
  | Custom_function | Rewrite_error | Pyliteral -> Some Void
  | Call -> if src.(0).dtype == Void then Some Void else None
  | Custom | Customi | Ins | Noop -> None
  | Index -> Some src.(0).dtype
  | Load | Unshard | Reduce | After | Range | Contiguous | Contiguous_backward | Copy | Stage | Detach | Mstack | Mselect
  | Allreduce | Special -> Some src.(0).dtype
  | Cmplt | Cmpne | Cmpeq -> Some Bool
  | Sin | Log2 | Exp2 | Sqrt | Reciprocal ->
    Some (if is_invalid (base src.(0)) then Bool else least_upper_float src.(0).dtype)
  | Where ->
    if src.(0).dtype != Bool then
      invalid_arg ("where: cond must be bool, got " ^ Dtype.to_string src.(0).dtype);
    Some (promo_dtype (Array.sub src 1 (Array.length src - 1)))
  | Stack -> if Array.length src = 0 then Some Void else Some (promo_dtype src)
  | Wmma -> Some src.(2).dtype
  | Gettuple ->
    let in_tuple = if src.(0).op == Function then src.(0).src.(0) else src.(0) in
    (match arg with Int i -> Some in_tuple.src.(i).dtype | _ -> None)
  | Getaddr -> Some Uint64
  | Shl | Shr ->
    if not (Array.for_all (fun x -> Dtype.is_int x.dtype || is_invalid (base x)) src) then
      invalid_arg ("shift: operands must be int, got "
                   ^ String.concat ", " (Array.to_list (Array.map (fun x -> Dtype.to_string x.dtype) src)));
    Some src.(0).dtype
  | Buffer | Param -> (match arg with Param p -> Some p.pdtype | _ -> invalid_arg "BUFFER/PARAM must have a param_arg")
  | Binary -> Some Uint8
  | Cast | Bitcast -> (match arg with Dtype d -> Some d | _ -> invalid_arg "CAST/BITCAST arg must be a dtype")
  | Const -> (match arg with Const c -> Some (from_const c) | _ -> invalid_arg "CONST arg must be a constant")
  | _ ->
    if Group.is_unary op then Some src.(0).dtype
    else if Group.is_broadcastable op then Some (promo_dtype src)
    else if Group.is_movement op then Some src.(0).dtype
    else invalid_arg ("no dtype for " ^ Ops.to_string op)

let create ?dtype ?(src = [||]) ?(arg = No_arg) ?(tag = No_arg) op =
  let dtype = match dtype with
    | Some d -> d
    | None -> (match dtype_from_uop op src arg with Some d -> d | None -> Void) in
  mk op dtype src arg tag

let replace ?op ?dtype ?src ?arg ?tag u =
  let op = Option.value op ~default:u.op and dtype = Option.value dtype ~default:u.dtype
  and src = Option.value src ~default:u.src and arg = Option.value arg ~default:u.arg
  and tag = Option.value tag ~default:u.tag in
  mk op dtype src arg tag

let rtag ?(tag = Bool true) u = replace ~tag u
let f op ?dtype ?(arg = No_arg) u = create op ~dtype:(Option.value dtype ~default:u.dtype) ~src:[| u |] ~arg

(* tinygrad _rebuild_dtype: re-derive the dtype only when a src dtype changed *)
let rebuild_dtype n new_src =
  let same = ref true in
  Array.iteri (fun i s -> if s.dtype != new_src.(i).dtype then same := false) n.src;
  if !same then n.dtype else match dtype_from_uop n.op new_src n.arg with Some d -> d | None -> n.dtype

(* ---------- constants ---------- *)

let const ?dtype (b : const) =
  let dtype = match dtype, b with None, _ | _, Invalid -> from_const b | Some d, _ -> d in
  create Ops.Const ~dtype ~arg:(Const (Dtype.const dtype b))

let const_int ?dtype i = const ?dtype (I (Z.of_int i))
let const_float ?dtype f = const ?dtype (F f)
let const_bool b = const (B b)
let invalid () = const Invalid

(* ---------- graph walks ---------- *)

module Tbl = Hashtbl.Make (struct type nonrec t = t let equal = ( == ) let hash x = x.id end)

(* the visited sets of the walks below, reused from one walk to the next *)
let seen_pool : Id_tbl.Set.pool = Id_tbl.Set.pool ()

(* the stack of a toposort, (node, visited) as two growable arrays: no allocation per push *)
type walk_stack = { mutable nodes : t array; mutable visited : Bytes.t; mutable high : int }

(* the stacks of the toposorts, reused from one walk to the next (a walk over a large graph grows its stack to
   many slots, and growing it afresh for every walk allocated most of the words a toposort made) *)
let stack_pool : walk_stack list ref = ref []

(* a stack this large is dropped rather than kept: its arrays would stay in the heap *)
let max_pooled_stack = 1 lsl 20

(* what the slots of a stack back in the pool hold, so that it keeps no node of its walk alive *)
let stack_filler = mk Ops.Noop Void [||] No_arg No_arg

(* iterative post-order DFS; tinygrad UOp.toposort. [gate] stops descent at a node (it is not emitted). *)
let toposort ?gate ?(enter_calls = true) root =
  Id_tbl.Set.with_set seen_pool @@ fun seen ->
  let out = ref [] in
  let st = match !stack_pool with
    | st :: rest -> stack_pool := rest; st
    | [] -> { nodes = Array.make 64 stack_filler; visited = Bytes.make 64 '\000'; high = 0 } in
  let sp = ref 0 in
  let push n v =
    if !sp >= Array.length st.nodes then begin
      let cap = 2 * !sp in
      let ns = Array.make cap stack_filler and vs = Bytes.make cap '\000' in
      Array.blit st.nodes 0 ns 0 !sp; Bytes.blit st.visited 0 vs 0 !sp;
      st.nodes <- ns; st.visited <- vs
    end;
    Array.unsafe_set st.nodes !sp n; Bytes.unsafe_set st.visited !sp (if v then '\001' else '\000'); incr sp;
    if !sp > st.high then st.high <- !sp in
  push root false;
  while !sp > 0 do
    decr sp;
    let node = Array.unsafe_get st.nodes !sp and was_visited = Bytes.unsafe_get st.visited !sp <> '\000' in
    if not (Id_tbl.Set.mem seen node.id) then begin
      if not was_visited then begin
        if (match gate with None -> true | Some g -> g node) then begin
          push node true;
          let srcs = node.src in
          let lo = if (not enter_calls) && (node.op == Ops.Call || node.op == Ops.Function) then 1 else 0 in
          for i = Array.length srcs - 1 downto lo do push srcs.(i) false done
        end
      end else begin
        Id_tbl.Set.add seen node.id;
        out := node :: !out
      end
    end
  done;
  Array.fill st.nodes 0 st.high stack_filler;
  st.high <- 0;
  if Array.length st.nodes <= max_pooled_stack then stack_pool := st :: !stack_pool;
  List.rev !out

let backward_slice u = List.filter (fun x -> x != u) (toposort u)

(* whether a node of [u]'s backward slice, [u] included, satisfies [p]: a walk that stops at the first one and does
   not enter the nodes [skip] rules out (the membership tests of the rewrite rules, without a whole toposort) *)
let exists_backward ?(skip = fun _ -> false) p u =
  Id_tbl.Set.with_set seen_pool @@ fun seen ->
  let rec loop = function
    | [] -> false
    | n :: rest when skip n || Id_tbl.Set.mem seen n.id -> loop rest
    | n :: rest ->
      p n || (Id_tbl.Set.add seen n.id; loop (Array.fold_left (fun acc s -> s :: acc) rest n.src)) in
  loop [ u ]

let op_in_backward_slice_with_self u ops = exists_backward (fun x -> List.memq x.op ops) u

(* ---------- symbolic helpers that need no rewriting ---------- *)

let simplify u =
  if u.op == Ops.Const then u
  else if u.op == Ops.Sink && Array.for_all (fun s -> s.op == Ops.Const || (s.op == Ops.Stack && Array.length s.src = 0)) u.src
  then u
  else !simplify_hook u

let sint_of_uop u = match u.op, u.arg with Ops.Const, Const (I z) -> Sint (Z.to_int z) | _ -> Suop u

(* tinygrad ssimplify on a UOp *)
let ssimplify u =
  let r = simplify u in
  match r.op with
  | Ops.Const -> r
  | Ops.Cast when r.src.(0).op == Ops.Const -> const ~dtype:r.dtype (const_val r.src.(0))
  | _ -> r

let sint_to_uop ?(dtype = Weakint) = function Sint i -> const_int ~dtype i | Suop u -> u
let sint_equal a b = match a, b with Sint x, Sint y -> x = y | Suop x, Suop y -> x == y | _ -> false
let sint_to_string = function Sint i -> string_of_int i | Suop u -> !render_hook u

let as_shape u =
  let one s = match s.op, s.arg with Ops.Const, Const (I z) -> Sint (Z.to_int z) | _ -> sint_of_uop (ssimplify s) in
  if u.op == Ops.Stack then Array.to_list (Array.map one u.src) else [ one u ]

let shape_to_shape_arg (l : sint list) =
  let src = List.map (sint_to_uop ~dtype:Weakint) l in
  List.iter (fun x -> if not (Dtype.is_int x.dtype) then invalid_arg "shape must be int") src;
  match src with [ x ] -> x | _ -> create Ops.Stack ~src:(Array.of_list src)

(* ---------- vmin / vmax: tinygrad UOp._min_max ---------- *)

let z_of = function I z -> Some z | B b -> Some (if b then Z.one else Z.zero) | _ -> None
let all_int l = List.for_all (function I _ | B _ -> true | _ -> false) l
let zi c = match z_of c with Some z -> z | None -> invalid_arg "vmin/vmax: expected an int"
let cmin a b = if compare_const a b <= 0 then a else b
let cmax a b = if compare_const a b >= 0 then a else b
let lmin l = List.fold_left cmin (List.hd l) l
let lmax l = List.fold_left cmax (List.hd l) l
let num_add a b = match a, b with
  | (I _ | B _), (I _ | B _) -> I (Z.add (zi a) (zi b))
  | _ -> F (const_to_float a +. const_to_float b)
let num_sub a b = match a, b with
  | (I _ | B _), (I _ | B _) -> I (Z.sub (zi a) (zi b))
  | _ -> F (const_to_float a -. const_to_float b)
let num_mul a b = match a, b with
  | (I _ | B _), (I _ | B _) -> I (Z.mul (zi a) (zi b))
  | _ ->
    (* python: 0 * inf is nan; keep that *)
    F (const_to_float a *. const_to_float b)

let zcdiv x y = if Z.equal y Z.zero then Z.zero else Z.div x y  (* truncating *)
let zcmod x y = Z.sub x (Z.mul (zcdiv x y) y)
let zfloordiv x y = if Z.equal y Z.zero then Z.zero else Z.fdiv x y
let zfloormod x y = Z.sub x (Z.mul (zfloordiv x y) y)

(* whether the bounds of [s] are known or its sources' are *)
let minmax_one_step s = s.minmax_c != None || Array.for_all (fun t -> t.minmax_c != None) s.src

let rec min_max u =
  match u.minmax_c with
  | Some r -> r
  | None when Array.for_all minmax_one_step u.src ->
    (* the sources known, or computed here from theirs: no walk. The unknown sources first, in the walk's
       order *)
    Array.iter (fun s -> if s.minmax_c = None then ignore (min_max s)) u.src;
    let r = compute_min_max u in
    u.minmax_c <- Some r; r
  | None ->
    (* compute children first iteratively to avoid deep recursion on long chains *)
    let todo = toposort ~gate:(fun n -> n.minmax_c = None) u in
    List.iter (fun n -> if n.minmax_c = None then n.minmax_c <- Some (compute_min_max n)) todo;
    (match u.minmax_c with Some r -> r | None -> let r = compute_min_max u in u.minmax_c <- Some r; r)

and vmin u = fst (min_max u)
and vmax u = snd (min_max u)

and compute_min_max u : const * const =
  let open Ops in
  let dt = u.dtype in
  let default () = (Dtype.min dt, Dtype.max dt) in
  let binary_int () =
    let s0min, s0max = min_max u.src.(0) and s1min, s1max = min_max u.src.(1) in
    let eq a b = compare_const a b = 0 in
    let ints = all_int [ s0min; s0max; s1min; s1max ] in
    match u.op with
    | Add -> Some (num_add s0min s1min, num_add s0max s1max)
    | Sub -> Some (num_sub s0min s1max, num_sub s0max s1min)
    | And when Dtype.is_int dt && eq s1min s1max && compare_const s1min (I Z.zero) >= 0 ->
      Some (I Z.zero, if compare_const s0min (I Z.zero) < 0 then s1max else cmin s0max s1max)
    | Mul -> let vals = [ num_mul s0min s1min; num_mul s0min s1max; num_mul s0max s1min; num_mul s0max s1max ] in
      Some (lmin vals, lmax vals)
    | Shl when eq s1min s1max && all_int [ s0min; s0max; s1min ] ->
      let sh = Z.to_int (zi s1min) in Some (I (Z.shift_left (zi s0min) sh), I (Z.shift_left (zi s0max) sh))
    | Shr when eq s1min s1max && all_int [ s0min; s0max; s1min ] ->
      let sh = Z.to_int (zi s1min) in Some (I (Z.shift_right (zi s0min) sh), I (Z.shift_right (zi s0max) sh))
    | Cmod when ints ->
      let a0 = zi s0min and a1 = zi s0max and b0 = zi s1min and b1 = zi s1max in
      let zero = Z.zero in
      if Z.equal b0 b1 && Z.gt b0 zero then
        let c = b0 in
        Some (I (if Z.gt a0 zero then zero else if Z.geq zero a0 && Z.gt a0 (Z.neg c) then a0 else Z.neg (Z.pred b1)),
              I (if Z.lt a1 zero then zero else if Z.leq zero a1 && Z.lt a1 c then a1 else Z.pred c))
      else if Z.gt b0 zero then
        Some (if Z.geq a0 zero then (I zero, I (Z.pred b1)) else if Z.leq a1 zero then (I (Z.neg (Z.pred b1)), I zero)
              else (I (Z.neg (Z.pred b1)), I (Z.pred b1)))
      else if Z.lt b1 zero then
        let m = Z.pred (Z.neg b0) in
        Some (if Z.geq a0 zero then (I zero, I m) else if Z.leq a1 zero then (I (Z.neg m), I zero) else (I (Z.neg m), I m))
      else None
    | Cdiv when ints ->
      let a0 = zi s0min and a1 = zi s0max and b0 = zi s1min and b1 = zi s1max in
      if Z.sign (Z.mul b0 b1) > 0 then
        let vals = [ zcdiv a0 b0; zcdiv a0 b1; zcdiv a1 b0; zcdiv a1 b1 ] in
        Some (I (List.fold_left Z.min (List.hd vals) vals), I (List.fold_left Z.max (List.hd vals) vals))
      else None
    | Floordiv when ints ->
      let a0 = zi s0min and a1 = zi s0max and b0 = zi s1min and b1 = zi s1max in
      if Z.gt a0 a1 then Some (I Z.zero, I Z.zero)
      else if Z.sign (Z.mul b0 b1) > 0 then
        let vals = [ Z.fdiv a0 b0; Z.fdiv a0 b1; Z.fdiv a1 b0; Z.fdiv a1 b1 ] in
        Some (I (List.fold_left Z.min (List.hd vals) vals), I (List.fold_left Z.max (List.hd vals) vals))
      else None
    | Floormod when ints ->
      let a0 = zi s0min and a1 = zi s0max and b0 = zi s1min and b1 = zi s1max in
      if Z.gt a0 a1 then Some (I Z.zero, I Z.zero)
      else if Z.equal b0 b1 && Z.sign b0 > 0 then
        let c = b0 in
        Some (if Z.equal (Z.fdiv a0 c) (Z.fdiv a1 c) then (I (zfloormod a0 c), I (zfloormod a1 c)) else (I Z.zero, I (Z.pred c)))
      else if Z.equal b0 b1 && Z.sign b0 < 0 then
        let c = b0 in
        Some (if Z.equal (Z.fdiv a0 c) (Z.fdiv a1 c) then (I (zfloormod a0 c), I (zfloormod a1 c)) else (I (Z.succ c), I Z.zero))
      else if Z.sign b0 > 0 then Some (I Z.zero, I (Z.pred b1))
      else if Z.sign b1 < 0 then Some (I (Z.succ b0), I Z.zero)
      else None
    | Xor when eq s1min s1max && eq s1min (I Z.minus_one) && (match s0min, s0max with I _, I _ -> true | _ -> false) ->
      Some (I (Z.lognot (zi s0max)), I (Z.lognot (zi s0min)))
    | Max -> Some (cmax s0min s1min, cmax s0max s1max)
    | Cmplt -> Some (B (compare_const s0max s1min < 0), B (compare_const s0min s1max < 0))
    | Cmpne ->
      Some (B (compare_const s0max s1min < 0 || compare_const s1max s0min < 0),
            B (not (eq s0min s0max && eq s0max s1min && eq s1min s1max)))
    | Or when dt == Bool -> Some (B (const_truthy s0min || const_truthy s1min), B (const_truthy s0max || const_truthy s1max))
    | And when dt == Bool -> Some (B (const_truthy s0min && const_truthy s1min), B (const_truthy s0max && const_truthy s1max))
    | _ -> None in
  let r =
    if Group.is_binary u.op && not (Dtype.is_float dt) then binary_int () else None in
  match r with
  | Some r -> r
  | None ->
    match u.op, u.arg with
    | Where, _ when Dtype.is_int dt ->
      (cmin (vmin u.src.(1)) (vmin u.src.(2)), cmax (vmax u.src.(1)) (vmax u.src.(2)))
    | (Param | Buffer), Param { vmin_vmax = Some (a, b); _ } -> (a, b)
    | (Range | Special), _ when dt != Void ->
      let e = u.src.(0) in
      (* tinygrad: (src[0]-1).vmax *)
      (I Z.zero, (match vmax e with I z -> I (Z.pred z) | c -> num_sub c (I Z.one)))
    | After, _ -> min_max u.src.(0)
    | Stack, _ when Array.length u.src > 0 ->
      let l = Array.to_list u.src in
      (lmin (List.map vmin l), lmax (List.map vmax l))
    | Const, Const c when c <> Invalid -> (c, c)
    | Index, _ -> min_max u.src.(0)
    | Cast, _ ->
      let smin, smax = min_max u.src.(0) in
      let finite c = match c with F f -> Float.is_finite f | _ -> true in
      let smin, smax =
        if finite smin && finite smax then
          if Dtype.is_float dt && dt != Weakfloat then (Dtype.truncate dt smin, Dtype.truncate dt smax)
          else if Dtype.is_int dt then
            let tr c = match c with F f -> I (Z.of_float (Float.trunc f)) | B b -> I (if b then Z.one else Z.zero) | c -> c in
            (tr smin, tr smax)
          else (smin, smax)
        else (smin, smax) in
      if Dtype.is_unsigned dt && compare_const (I Z.zero) smin <= 0 && compare_const smax (Dtype.max dt) <= 0 then (smin, smax)
      else if List.mem dt Dtype.floats || List.mem dt Dtype.sints || dt == Weakint then
        (cmax (Dtype.min dt) smin, cmin smax (Dtype.max dt))
      else default ()
    | _ -> default ()

let resolve ?(default = true) u =
  if u.dtype != Bool then invalid_arg "resolve: UOp must be bool";
  let sx = simplify u in
  let a, b = min_max sx in
  if equal_const a b then const_truthy a else default

(* ---------- python_alu / exec_alu ---------- *)

let is_num_int = function I _ | B _ -> true | _ -> false
let fl = const_to_float

let python_alu op (operands : const list) : const =
  let open Ops in
  let f1 g = match operands with [ x ] -> g x | _ -> invalid_arg "exec_alu: arity" in
  let f2 g = match operands with [ x; y ] -> g x y | _ -> invalid_arg "exec_alu: arity" in
  let f3 g = match operands with [ x; y; z ] -> g x y z | _ -> invalid_arg "exec_alu: arity" in
  let both_bool x y = (match x, y with B _, B _ -> true | _ -> false) in
  let int2 x y zf ff = if is_num_int x && is_num_int y then I (zf (zi x) (zi y)) else F (ff (fl x) (fl y)) in
  match op with
  | Log2 -> f1 (fun x -> let x = fl x in F (if x > 0.0 then Float.log2 x else if x = 0.0 then neg_infinity else nan))
  | Exp2 -> f1 (fun x -> F (Float.pow 2.0 (fl x)))
  | Sqrt -> f1 (fun x -> let x = fl x in F (if x >= 0.0 then Float.sqrt x else nan))
  | Reciprocal -> f1 (fun x -> let x = fl x in F (if x <> 0.0 then 1.0 /. x else Float.copy_sign infinity x))
  | Sin -> f1 (fun x -> let x = fl x in F (if Float.abs x = infinity then nan else Float.sin x))
  | Pow -> f2 (fun x y ->
      if is_num_int x && is_num_int y && Z.sign (zi y) >= 0 && Z.leq (zi y) (Z.of_int 100000) then I (Z.pow (zi x) (Z.to_int (zi y)))
      else let r = Float.pow (fl x) (fl y) in F r)
  (* math.trunc gives a python int for finite values (so trunc(-0.0) is 0) *)
  | Trunc -> f1 (function F f -> if Float.is_finite f then I (Z.of_float f) else F f | B b -> I (if b then Z.one else Z.zero) | c -> c)
  | Neg -> f1 (function F f -> F (-.f) | c -> I (Z.neg (zi c)))
  | Add -> f2 (fun x y -> int2 x y Z.add ( +. ))
  | Sub -> f2 (fun x y -> int2 x y Z.sub ( -. ))
  | Mul -> f2 (fun x y -> int2 x y Z.mul ( *. ))
  | Cmpne -> f2 (fun x y -> B (compare_const x y <> 0 || (match x, y with F a, F b -> Float.is_nan a || Float.is_nan b | _ -> false)))
  | Cmplt -> f2 (fun x y -> B (compare_const x y < 0 && not (match x, y with F a, _ when Float.is_nan a -> true | _, F b when Float.is_nan b -> true | _ -> false)))
  | Cmpeq -> f2 (fun x y -> B (compare_const x y = 0 && not (match x, y with F a, _ when Float.is_nan a -> true | _, F b when Float.is_nan b -> true | _ -> false)))
  | Xor -> f2 (fun x y -> if both_bool x y then B (const_truthy x <> const_truthy y) else I (Z.logxor (zi x) (zi y)))
  | Or -> f2 (fun x y -> if both_bool x y then B (const_truthy x || const_truthy y) else I (Z.logor (zi x) (zi y)))
  | And -> f2 (fun x y -> if both_bool x y then B (const_truthy x && const_truthy y) else I (Z.logand (zi x) (zi y)))
  | Shr -> f2 (fun x y -> I (Z.shift_right (zi x) (Z.to_int (zi y))))
  | Shl -> f2 (fun x y -> I (Z.shift_left (zi x) (Z.to_int (zi y))))
  (* python max(x, y) keeps x unless y > x; comparisons with nan are false *)
  | Max -> f2 (fun x y ->
      let is_nan = function F f -> Float.is_nan f | _ -> false in
      if (not (is_nan x || is_nan y)) && compare_const y x > 0 then y else x)
  | Cmod -> f2 (fun x y -> int2 x y zcmod (fun a b -> if b = 0.0 then 0.0 else a -. (Float.trunc (a /. b) *. b)))
  | Cdiv -> f2 (fun x y -> int2 x y zcdiv (fun a b -> if b = 0.0 then 0.0 else Float.trunc (a /. b)))
  | Floordiv -> f2 (fun x y -> int2 x y zfloordiv (fun a b -> if b = 0.0 then 0.0 else Float.floor (a /. b)))
  | Floormod -> f2 (fun x y -> int2 x y zfloormod (fun a b -> if b = 0.0 then 0.0 else a -. (Float.floor (a /. b) *. b)))
  | Mulacc -> f3 (fun x y z -> let p = int2 x y Z.mul ( *. ) in int2 p z Z.add ( +. ))
  | Where -> f3 (fun x y z -> if const_truthy x then y else z)
  | _ -> invalid_arg ("exec_alu: no python implementation of " ^ Ops.to_string op)

let exec_alu ?(truncate_output = true) op dtype operands =
  if Ops.Group.is_binary op && List.exists (fun x -> x = Invalid) operands then Invalid
  else
    let r = python_alu op operands in
    if truncate_output then Dtype.truncate dtype r else r

(* ---------- builders ---------- *)

let sink ?(arg = No_arg) srcs = create Ops.Sink ~src:(Array.of_list srcs) ~arg
let group srcs = match srcs with [ x ] -> x | _ -> create Ops.Group ~src:(Array.of_list srcs)
let stack srcs = create Ops.Stack ~src:(Array.of_list srcs)
let broadcast u count = if count = 1 then u else create Ops.Stack ~src:(Array.make count u)
let index ?dtype u idxs =
  match idxs with
  | [ i ] when u.op == Ops.Stack && i.op == Ops.Const -> u.src.(Z.to_int (zi (const_val i)))
  | _ -> create ?dtype Ops.Index ~src:(Array.of_list (u :: idxs))
let load ?dtype u srcs = create ?dtype Ops.Load ~src:(Array.of_list (u :: srcs))
let store ?gate u v = create Ops.Store ~src:(Array.of_list ([ u; v ] @ Option.to_list gate))
let end_ u rngs = if rngs = [] then u else create Ops.End ~src:(Array.of_list (u :: rngs))
let after u srcs = if srcs = [] then u else create Ops.After ~src:(Array.of_list (u :: srcs))
let barrier u srcs = create Ops.Barrier ~src:(Array.of_list (u :: srcs))
(* tinygrad: uop/spec.py's ALU rules, checked when the op is built instead of at realize: bitwise ops and shifts
   take no float operand, the integer divisions no float result *)
let check_alu_dtypes op srcs =
  let reject why =
    invalid_arg (Printf.sprintf "%s: %s (operands %s)" (Ops.to_string op) why
                   (String.concat ", " (List.map (fun s -> Dtype.to_string s.dtype) srcs))) in
  match op with
  | Ops.And | Ops.Or | Ops.Xor | Ops.Shl | Ops.Shr ->
    if List.exists (fun s -> Dtype.is_float s.dtype) srcs then reject "bitwise op on a float operand"
  | Ops.Cdiv | Ops.Cmod | Ops.Floordiv | Ops.Floormod ->
    if List.exists (fun s -> Dtype.is_float s.dtype) srcs && not (List.exists (fun s -> is_invalid (base s)) srcs) then
      reject "integer division of floats"
  | _ -> ()

let alu op srcs = check_alu_dtypes op srcs; create op ~src:(Array.of_list srcs)
let range ?(dtype = Weakint) ?(axis_type = Weak) ?(extra = []) (end_v : sint) axis_id =
  create Ops.Range ~src:[| sint_to_uop ~dtype end_v |] ~arg:(Range (axis_id :: extra, axis_type))
let special ?(dtype = Weakint) (end_v : sint) name = create Ops.Special ~src:[| sint_to_uop ~dtype end_v |] ~arg:(Str name)
let reduce ?(arg = Ops.Add) u rngs = create Ops.Reduce ~src:(Array.of_list (u :: rngs)) ~arg:(Reduce_arg (arg, 0))

let default_kernel_info = { kname = "test"; axis_types = []; dont_use_locals = false; applied_opts = [];
                            opts_to_apply = None; estimates = None; beam = 0 }

let default_param = { slot = -1; pdtype = Weakint; vmin_vmax = None; multiple_of = None; name = None;
                      addrspace = Some Dtype.Global; axis = None; device = None; volatile = false;
                      vector_acc = false }

let variable ?(dtype = Weakint) ?(multiple_of = 1) ?(param = false) name (min_v : const) (max_v : const) =
  let arg = Param { default_param with pdtype = dtype; name = Some name; vmin_vmax = Some (min_v, max_v);
                                       multiple_of = Some multiple_of; addrspace = Some Alu } in
  create (if param then Ops.Param else Ops.Buffer) ~src:[| shape_to_shape_arg [] |] ~arg

let variable_int ?dtype ?multiple_of ?param name lo hi = variable ?dtype ?multiple_of ?param name (I (Z.of_int lo)) (I (Z.of_int hi))

let is_variable u =
  u.op == Ops.Buffer && (match u.arg with Param { vmin_vmax = Some _; addrspace = Some Alu; _ } -> true | _ -> false)

let expr u = match u.arg with Param { name = Some n; _ } -> n | _ -> invalid_arg "expr: not a named PARAM/BUFFER"

let placeholder_param ?(addrspace = Dtype.Global) ?device ~slot dtype (size : int) =
  create Ops.Param ~src:[| shape_to_shape_arg [ Sint size ] |]
    ~arg:(Param { default_param with slot; pdtype = Dtype.strong_dtype dtype; addrspace = Some addrspace; device })

(* ---------- shapes: tinygrad UOp._shape ---------- *)

let sint_mul a b = match a, b with
  | Sint x, Sint y -> Sint (x * y)
  | _ -> sint_of_uop (ssimplify (alu Ops.Mul [ sint_to_uop a; sint_to_uop b ]))
let sprod l = List.fold_left sint_mul (Sint 1) l

let broadcast_shape (shapes : sint list list) =
  match shapes with
  | [] -> []
  | s0 :: rest when List.for_all (fun s -> List.length s = List.length s0 && List.for_all2 sint_equal s s0) rest -> s0
  | _ ->
    let n = List.fold_left (fun m s -> Stdlib.max m (List.length s)) 0 shapes in
    let aligned = List.map (fun s -> List.init (n - List.length s) (fun _ -> Sint 1) @ s) shapes in
    List.init n (fun i ->
        let sizes = List.map (fun s -> List.nth s i) aligned in
        let rest = List.fold_left (fun acc s -> match s with
            | Sint 1 -> acc
            | s -> if List.exists (sint_equal s) acc then acc else acc @ [ s ]) [] sizes in
        match rest with
        | [] -> Sint 1
        | [ x ] -> x
        | _ ->
          let str s = "(" ^ String.concat ", " (List.map sint_to_string s) ^ ")" in
          invalid_arg ("shape mismatch: objects cannot be broadcast to a single shape "
                       ^ String.concat " " (List.map str shapes)))

let marg u =
  match u.op with
  | Ops.Reshape | Ops.Expand -> `Shape (as_shape u.src.(1))
  | Ops.Pad | Ops.Shrink -> `Pairs (List.combine (as_shape u.src.(1)) (as_shape u.src.(2)))
  | Ops.Permute -> (match u.arg with Ints l -> `Perm l | _ -> invalid_arg "PERMUTE arg")
  | Ops.Flip -> (match u.arg with Bools l -> `Flip l | _ -> invalid_arg "FLIP arg")
  | _ -> invalid_arg (Ops.to_string u.op ^ " is not a MovementOp")

let sint_ge a b = match a, b with
  | Sint x, Sint y -> x >= y
  | _ -> resolve (alu Ops.Cmplt [ sint_to_uop a; sint_to_uop b ] |> fun lt -> create Ops.Cmpne ~src:[| lt; const_bool true |])

let shape_str s = "(" ^ String.concat ", " (List.map sint_to_string s) ^ (if List.length s = 1 then ",)" else ")")

(* whether the shape of [s] is known or its sources' are *)
let shape_one_step s = s.shape_c != Unknown || Array.for_all (fun t -> t.shape_c != Unknown) s.src

let rec shape_opt u : sint list option =
  match u.shape_c with
  | No_shape -> None
  | Shape s -> Some s
  | Unknown when Array.for_all shape_one_step u.src ->
    (* the sources known, or computed here from theirs (a node just built, or built on new leaves such as
       the constant indices of a lane): no walk. The unknown sources first, in the walk's order *)
    Array.iter (fun s -> if s.shape_c = Unknown then ignore (shape_opt s)) u.src;
    let c = compute_shape u in
    u.shape_c <- (match c with None -> No_shape | Some s -> Shape s);
    c
  | Unknown ->
    (* fill the cache bottom-up so long chains do not recurse deeply *)
    let todo = toposort ~gate:(fun n -> n.shape_c = Unknown) u in
    List.iter (fun n -> if n.shape_c = Unknown then
                  n.shape_c <- (match compute_shape n with None -> No_shape | Some s -> Shape s)) todo;
    (match u.shape_c with Shape s -> Some s | _ -> None)

and shape u =
  match shape_opt u with
  | Some s -> s
  | None -> invalid_arg ("shape requested, but " ^ Ops.to_string u.op ^ " doesn't have a shape")

and compute_shape u : sint list option =
  let open Ops in
  let src_shape i = shape_opt u.src.(i) in
  match u.op with
  | If | Barrier | Sink | Rewrite_error | Endif | Group | Linear | Program | Source | Tuple | Function -> None
  | Call -> if u.dtype == Void then None else Some []
  | Ins -> if u.dtype == Void then None else Some []
  | Reshape when u.src.(0).op == Noop -> (match marg u with `Shape s -> Some s | _ -> None)
  | Noop -> if Array.length u.src >= 1 then src_shape 0 else None
  | Gettuple ->
    let in_tuple = if u.src.(0).op == Function then u.src.(0).src.(0) else u.src.(0) in
    (match u.arg with Int i -> shape_opt in_tuple.src.(i) | _ -> None)
  | Index ->
    let idx = Array.to_list (Array.sub u.src 1 (Array.length u.src - 1)) in
    let shp = List.concat_map shape idx in
    let bs = shape u.src.(0) in
    Some (shp @ Helpers.drop (List.length idx) bs)
  | Stack -> if Array.length u.src = 0 then Some [] else Some (Sint (Array.length u.src) :: shape u.src.(0))
  | Const | Getaddr | Range | Special -> Some []
  | Binary -> (match u.arg with Str s -> Some [ Sint (String.length s) ] | _ -> Some [])
  | Buffer -> if Array.length u.src > 0 then Some (as_shape u.src.(0)) else Some []
  | Custom | Customi ->
    if u.dtype == Void then None
    else (match List.filter_map shape_opt (Array.to_list u.src) with [] -> None | l -> Some (broadcast_shape l))
  | Custom_function | Pyliteral -> None
  | Stage ->
    let rs = Array.to_list (Array.sub u.src 1 (Array.length u.src - 1)) in
    Some (List.map (fun r -> Sint (Z.to_int (zi (vmax r)) + 1)) rs @ shape u.src.(0))
  | Param -> Some (as_shape u.src.(0))
  | Wmma ->
    let but_last s = List.filteri (fun i _ -> i < List.length s - 1) s in
    let s2 = shape u.src.(2) in
    Some (broadcast_shape [ but_last (shape u.src.(0)); but_last (shape u.src.(1)); but_last s2 ] @ [ List.nth s2 (List.length s2 - 1) ])
  | Mstack | Mselect | Detach | Contiguous | Contiguous_backward | After | Load | Copy | Allreduce | Store | End -> src_shape 0
  | Bitcast ->
    (match src_shape 0 with
     | None -> None
     | Some ps ->
       let osz = Dtype.itemsize u.dtype and isz = Dtype.itemsize u.src.(0).dtype in
       if osz <> isz && ps <> [] then begin
         let last = Helpers.last ps and init = List.filteri (fun i _ -> i < List.length ps - 1) ps in
         match last with
         | Sint l -> if l * isz mod osz <> 0 then invalid_arg "bitcast: unsupported size" else Some (init @ [ Sint (l * isz / osz) ])
         | Suop l -> Some (init @ [ sint_of_uop (ssimplify (alu Floordiv [ alu Mul [ l; const_int isz ]; const_int osz ])) ])
       end else Some ps)
  | Unshard when Array.length u.src = 0 -> None
  | op when Group.is_movement op || op == Unshard || op == Reduce ->
    let ps = match src_shape 0 with
      | Some s -> s
      | None -> invalid_arg (Printf.sprintf "movement op %s requires shape, %s doesn't have one" (Ops.to_string op)
                               (Ops.to_string u.src.(0).op)) in
    (match op, u.arg with
     | Reshape, _ ->
       (match marg u with
        | `Shape s ->
          if List.exists (function Sint x -> x < 0 | _ -> false) s then
            invalid_arg ("reshape: shape can't contain negative numbers " ^ shape_str s);
          let p1 = sprod ps and p2 = sprod s in
          if not (sint_equal p1 p2) then invalid_arg (Printf.sprintf "reshape: bad reshape %s -> %s" (shape_str ps) (shape_str s));
          Some s
        | _ -> None)
     | Expand, _ -> (match marg u with `Shape s -> Some (s @ ps) | _ -> None)
     | Permute, Ints perm ->
       if List.sort Stdlib.compare perm <> List.init (List.length ps) (fun i -> i) then
         invalid_arg (Printf.sprintf "permute: invalid permutation (%s) of len %d"
                        (String.concat ", " (List.map string_of_int perm)) (List.length ps));
       Some (List.map (fun i -> List.nth ps i) perm)
     | (Pad | Shrink), _ ->
       (match marg u with
        | `Pairs pairs ->
          let ok =
            List.length ps = List.length pairs
            && List.for_all2 (fun s (o, sz) ->
                if op == Pad then sint_ge sz (Sint 0) && sint_ge o (Sint 0) && sint_ge sz (sint_add o s)
                else sint_ge o (Sint 0) && sint_ge sz (Sint 0) && sint_ge s (sint_add o sz)) ps pairs in
          if not ok then invalid_arg (Printf.sprintf "%s: invalid %s for %s" (String.lowercase_ascii (Ops.name op))
                                        (String.lowercase_ascii (Ops.name op)) (shape_str ps));
          Some (List.map (fun (_, sz) -> match sz with Suop x -> sint_of_uop (ssimplify x) | s -> s) pairs)
        | _ -> None)
     | Flip, Bools l ->
       if List.length l <> List.length ps then invalid_arg ("flip: bad flip on " ^ shape_str ps);
       Some ps
     | Reduce, Reduce_arg (_, n) ->
       if n < 0 || n > List.length ps then invalid_arg (Printf.sprintf "reduce: invalid number of axes %d" n);
       Some (List.filteri (fun i _ -> i >= n) ps)
     | Unshard, Ints axes ->
       Some (List.mapi (fun a s ->
           match (let rec fi k = function [] -> None | x :: t -> if x = a then Some k else fi (k + 1) t in fi 0 axes) with
           | Some k -> let r = u.src.(k + 1) in sint_mul s (Sint (Z.to_int (zi (vmax r)) + 1))
           | None -> s) ps)
     | _ -> invalid_arg ("shape: malformed " ^ Ops.to_string op))
  | op when Group.is_unary op || op == Cast -> src_shape 0
  | op when Group.is_broadcastable op ->
    let shapes = Array.to_list (Array.map (fun s ->
        match shape_opt s with Some x -> x
                             | None -> invalid_arg ("None input shape not supported for " ^ Ops.to_string op)) u.src) in
    Some (broadcast_shape shapes)
  | op -> invalid_arg ("no shape handling for " ^ Ops.to_string op)

and sint_add a b = match a, b with
  | Sint x, Sint y -> Sint (x + y)
  | _ -> sint_of_uop (ssimplify (alu Ops.Add [ sint_to_uop a; sint_to_uop b ]))

(* ---------- ranges ---------- *)

let range_start = function
  | Ops.Stage | Ops.Reduce | Ops.End | Ops.Call | Ops.Function -> Some 1
  | Ops.Wmma -> Some 3
  | Ops.Linear -> Some 0
  | _ -> None

let rec ended_ranges u =
  match range_start u.op with
  | Some i -> Array.to_list (Array.sub u.src i (Array.length u.src - i))
  | None ->
    if u.op == Ops.After then List.concat_map ended_ranges (List.tl (Array.to_list u.src))
    else if u.op == Ops.Unshard then List.tl (Array.to_list u.src)
    else []

let rec ranges u : t list =
  let r = inner_ranges u in
  if u.op == Ops.Range then u :: List.filter (fun x -> x != u) r else r

and inner_ranges u =
  match u.ranges_c with
  | Some r -> r
  | None ->
    let todo = toposort ~gate:(fun n -> n.ranges_c = None) u in
    List.iter (fun n -> if n.ranges_c = None then n.ranges_c <- Some (compute_ranges n)) todo;
    (match u.ranges_c with Some r -> r | None -> [])

and compute_ranges u =
  let acc = ref [] in
  Array.iter (fun s -> List.iter (fun r -> if not (List.memq r !acc) then acc := r :: !acc) (ranges s)) u.src;
  let ret = ref (List.rev !acc) in
  List.iter (fun er ->
      if er.op == Ops.Range then ret := List.filter (fun x -> x != er) !ret
      else List.iter (fun s -> ret := List.filter (fun x -> x != s) !ret) (ranges er)) (ended_ranges u);
  !ret

(* ---------- symbolic helpers: const_factor, divides, gcd ---------- *)

let rec const_factor u : Z.t =
  match u.op with
  | Ops.Const -> zi (const_val u)
  | Ops.Stack -> Array.fold_left (fun g x -> Z.gcd g (const_factor x)) Z.zero u.src
  | Ops.Add -> Z.gcd (const_factor u.src.(0)) (const_factor u.src.(1))
  | Ops.Mul ->
    if u.src.(0).op == Ops.Const then zi (const_val u.src.(0))
    else if u.src.(1).op == Ops.Const then zi (const_val u.src.(1)) else Z.one
  | Ops.Param | Ops.Buffer -> (match u.arg with Param { multiple_of = Some m; _ } -> Z.of_int m | _ -> Z.one)
  | _ -> Z.one

(* ---------- elementwise sugar: tinygrad mixin/elementwise.py on UOps ---------- *)

let cast dt u = if u.dtype == dt then u else create Ops.Cast ~src:[| u |] ~arg:(Dtype dt)
let bitcast dt u =
  if Dtype.is_weak u.dtype || Dtype.is_weak dt then
    invalid_arg (Printf.sprintf "bitcast: requires concrete dtypes, got %s -> %s" (Dtype.to_string u.dtype) (Dtype.to_string dt));
  if u.dtype == dt then u else create Ops.Bitcast ~src:[| u |] ~arg:(Dtype dt)

let rec mop op u (args : [ `Shape of sint list | `Pairs of (sint * sint) list | `Perm of int list | `Flip of bool list ]) =
  match op, args with
  | Ops.Expand, `Shape [] -> u
  | (Ops.Shrink | Ops.Pad), `Pairs [] -> u
  | (Ops.Reshape | Ops.Expand), `Shape s -> create op ~src:[| u; shape_arg s |]
  | (Ops.Pad | Ops.Shrink), `Pairs p ->
    create op ~src:[| u; shape_arg (List.map fst p); shape_arg (List.map snd p) |]
  | Ops.Permute, `Perm p -> create op ~src:[| u |] ~arg:(Ints p)
  | Ops.Flip, `Flip f -> create op ~src:[| u |] ~arg:(Bools f)
  | _ -> invalid_arg (Ops.to_string op ^ ": bad movement arguments")

and shape_arg s = let a = shape_to_shape_arg s in
  if a.op == Ops.Stack && not (Array.for_all is_const a.src) then
    (simplify (sink (Array.to_list a.src))).src |> fun srcs -> create Ops.Stack ~src:srcs
  else if a.op == Ops.Const then a else ssimplify a

let const_like ?dtype u (b : const) =
  let ret = const ~dtype:(Option.value dtype ~default:u.dtype) b in
  match shape_opt u with
  | Some (_ :: _ as s) -> (match shape_opt ret with Some rs when List.length rs = List.length s && List.for_all2 sint_equal rs s -> ret
                                                  | _ -> mop Ops.Expand ret (`Shape s))
  | _ -> ret

let const_like_int u i = const_like u (I (Z.of_int i))

(* tinygrad ElementwiseMixin._broadcasted on UOps *)
let broadcasted ?(reverse = false) x y =
  let x, y = if reverse then (y, x) else (x, y) in
  let out = least_upper_dtype [ x.dtype; y.dtype ] in
  let promote t =
    let b = base t in
    if is_invalid b then t
    else if Dtype.is_weak t.dtype && b.op == Ops.Const then const_like ~dtype:(weak_dtype out) t (const_val b)
    else cast out t in
  (promote x, promote y)

let binop op ?(reverse = false) x y = let a, b = broadcasted ~reverse x y in alu op [ a; b ]

let logical_not u = binop Ops.Cmpne (cast Bool u) (const_bool true)
let neg u = if u.dtype == Bool then logical_not u else binop Ops.Mul u (const_int (-1))
let add x y = binop Ops.Add x y
let sub x y = let a, b = broadcasted x y in alu Ops.Add [ a; neg b ]
let mul x y = binop Ops.Mul x y
let idiv x y =
  let a, b = broadcasted x y in
  if Dtype.is_int a.dtype && Dtype.is_int b.dtype then alu Ops.Floordiv [ a; b ]
  else invalid_arg "idiv: floor division of floats is composed by the Tensor frontend"
let cdiv x y = binop Ops.Cdiv x y
let mod_ x y =
  let a, b = broadcasted x y in
  if Dtype.is_int a.dtype && Dtype.is_int b.dtype then alu Ops.Floormod [ a; b ]
  else invalid_arg "mod: float modulo is composed by the Tensor frontend"
let cmod x y = binop Ops.Cmod x y
let lt x y = binop Ops.Cmplt x y
let gt x y = binop ~reverse:true Ops.Cmplt x y
let ge x y = logical_not (lt x y)
let le x y = logical_not (gt x y)
let ne x y = binop Ops.Cmpne x y
let eq x y = logical_not (ne x y)
let and_ x y = binop Ops.And x y
let or_ x y = binop Ops.Or x y
let xor x y = binop Ops.Xor x y
let shl x y = binop Ops.Shl x y
let shr x y = binop Ops.Shr x y
let maximum x y = binop Ops.Max x y
let bitwise_not u =
  if u.dtype == Bool then logical_not u
  else if Dtype.is_unsigned u.dtype then xor u (const (Dtype.max u.dtype))
  else xor u (const_int (-1))
let minimum x y =
  let t, x = broadcasted x y in
  let dt = least_upper_dtype [ t.dtype; x.dtype ] in
  if Dtype.is_float dt then neg (alu Ops.Max [ neg t; neg x ])
  else
    let k = const (Dtype.const dt (num_add (Dtype.min dt) (Dtype.max dt))) in
    xor (alu Ops.Max [ xor t k; xor x k ]) k
let where c x y = let x, y = broadcasted x y in alu Ops.Where [ c; x; y ]
let reciprocal u = alu Ops.Reciprocal [ u ]
let sqrt u = alu Ops.Sqrt [ u ]
let exp2 u = alu Ops.Exp2 [ u ]
let log2 u = alu Ops.Log2 [ u ]
let sin u = alu Ops.Sin [ u ]
let trunc u = alu Ops.Trunc [ u ]
let valid u cond = where cond u (const_like u Invalid)
let get_idx u = if u.op == Ops.Where && is_invalid u.src.(2) then u.src.(1) else u
let get_valid u = if u.op == Ops.Where && is_invalid u.src.(2) then u.src.(0) else const_bool (not (is_invalid u))

let rec divides u (v : Z.t) : t option =
  if Z.equal v Z.one then Some u
  else match u.op with
    | Ops.Const -> let c = zi (const_val u) in
      if Z.equal (zfloormod c v) Z.zero then Some (const_like u (I (Z.fdiv c v))) else None
    | Ops.Stack ->
      let l = Array.to_list (Array.map (fun s -> divides s v) u.src) in
      if List.exists Option.is_none l then None else Some (create Ops.Stack ~src:(Array.of_list (List.map Option.get l)))
    | Ops.Add ->
      (match divides u.src.(0) v, divides u.src.(1) v with Some a, Some b -> Some (add a b) | _ -> None)
    | Ops.Mul ->
      (match divides u.src.(0) v with
       | Some d0 -> Some (mul d0 u.src.(1))
       | None -> (match divides u.src.(1) v with Some d1 -> Some (mul u.src.(0) d1) | None -> None))
    | Ops.Param | Ops.Buffer ->
      (match u.arg with
       | Param { multiple_of = Some m; _ } ->
         if Z.equal (zfloormod (Z.of_int m) v) Z.zero then Some (idiv u (const (I v))) else None
       | _ -> None)
    | _ -> None

let identity_element op dt =
  match op with
  | Ops.Add -> Dtype.const dt (I Z.zero)
  | Ops.Mul -> Dtype.const dt (I Z.one)
  | Ops.Max -> Dtype.const dt (Dtype.min dt)
  | _ -> invalid_arg ("identity_element: " ^ Ops.to_string op)

let pop_const ?(op = Ops.Add) u =
  if u.op == op && u.src.(1).op == Ops.Const then (u.src.(0), const_val u.src.(1)) else (u, identity_element op u.dtype)

let rec split_uop u sep = if u.op == sep then List.concat_map (fun s -> split_uop s sep) (Array.to_list u.src) else [ u ]

(* not in tinygrad: the coefficient of [x] in the sum [idx], from its terms [x] and [x * c] with c a constant
   integer (0 when it is no such term); the CPU mode reads a buffer's stride along a range with it *)
let term_coefficient (x : t) (idx : t) =
  List.fold_left (fun acc (t : t) ->
      if t == x then acc + 1
      else if t.op == Ops.Mul && t.src.(0) == x && t.src.(1).op == Ops.Const then
        (match t.src.(1).arg with Const (Dtype.I c) -> acc + Z.to_int c | _ -> acc)
      else acc) 0 (split_uop idx Ops.Add)

(* multiset helpers over UOps, by identity, preserving first-seen order like collections.Counter *)
let counter l =
  List.fold_left (fun acc x ->
      match List.assq_opt x acc with
      | Some _ -> List.map (fun (k, n) -> if k == x then (k, n + 1) else (k, n)) acc
      | None -> acc @ [ (x, 1) ]) [] l

(* tinygrad: ElementwiseMixin.uprod ([start] folded with the rest, & for bools) *)
let uprod ~start l = List.fold_left (fun acc x -> if start.dtype == Bool then and_ acc x else mul acc x) start l

let gcd uops =
  let terms_factors = List.map (fun u -> let f = const_factor u in (Option.get (divides u f), f)) uops in
  let terms = List.map fst terms_factors and factors = List.map snd terms_factors in
  let counts = List.map (fun t -> counter (split_uop t Ops.Mul)) terms in
  let inter = List.fold_left (fun acc c ->
      List.filter_map (fun (k, n) -> match List.assq_opt k c with Some m -> Some (k, Stdlib.min n m) | None -> None) acc)
      (List.hd counts) (List.tl counts) in
  let elems = List.concat_map (fun (k, n) -> List.init n (fun _ -> k)) inter in
  let g = List.fold_left Z.gcd Z.zero factors in
  (* math.prod([*elements, const]) : the const goes last so it ends at the top *)
  match elems with
  | [] -> const_like (List.hd terms) (I g)
  | e :: rest -> List.fold_left mul e (rest @ [ const_like (List.hd terms) (I g) ])

let rec divide_exact u v =
  if u == v then Some (const_like u (I Z.one))
  else if v.op == Ops.Const then divides u (zi (const_val v))
  else match u.op with
    | Ops.Add ->
      (match divide_exact u.src.(0) v with
       | None -> None
       | Some s0 -> (match divide_exact u.src.(1) v with None -> None | Some s1 -> Some (add s0 s1)))
    | Ops.Mul ->
      let fac, c = pop_const ~op:Ops.Mul u and div_fac, div_c = pop_const ~op:Ops.Mul v in
      let cnt = counter (split_uop fac Ops.Mul) in
      let sub = List.fold_left (fun acc x ->
          if List.exists (fun (k, _) -> k == x) acc then List.map (fun (k, n) -> if k == x then (k, n - 1) else (k, n)) acc
          else acc @ [ (x, -1) ]) cnt (split_uop div_fac Ops.Mul) in
      let c = zi c and div_c = zi div_c in
      if Z.equal (zfloormod c div_c) Z.zero && List.for_all (fun (_, n) -> n >= 0) sub then
        let elems = List.concat_map (fun (k, n) -> List.init (Stdlib.max n 0) (fun _ -> k)) sub in
        Some (List.fold_left mul (const_like u (I (Z.fdiv c div_c))) elems)
      else None
    | _ -> None

let overflows u dt = compare_const (vmin u) (Dtype.min dt) < 0 || compare_const (Dtype.max dt) (vmax u) < 0

(* ---------- printing ---------- *)

let axis_type_to_string = function
  | Device -> "AxisType.DEVICE" | Global -> "AxisType.GLOBAL" | Warp -> "AxisType.WARP" | Local -> "AxisType.LOCAL"
  | Weak -> "AxisType.WEAK" | Group_reduce -> "AxisType.GROUP_REDUCE" | Reduce -> "AxisType.REDUCE"
  | Upcast -> "AxisType.UPCAST" | Unroll -> "AxisType.UNROLL" | Thread -> "AxisType.THREAD"
  | Placeholder -> "AxisType.PLACEHOLDER" | Loop -> "AxisType.LOOP"

let axis_letter = function
  | Device -> "d" | Global -> "g" | Thread -> "t" | Local -> "l" | Warp -> "w" | Weak | Loop -> "L" | Upcast -> "u"
  | Group_reduce -> "G" | Reduce -> "R" | Unroll -> "r" | Placeholder -> "p"

let axis_to_pos = function
  | Device -> -2 | Weak | Loop -> -1 | Thread | Global -> 0 | Warp -> 1 | Local | Group_reduce -> 2 | Upcast -> 3
  | Reduce -> 4 | Unroll -> 5 | Placeholder -> 6

let range_str u = match u.arg with
  | Range (ids, _) -> String.concat "_" (List.map (fun x -> if x >= 0 then string_of_int x else "m" ^ string_of_int (-x)) ids)
  | _ -> invalid_arg "range_str: not a RANGE"

let addrspace_to_string (a : Dtype.addrspace) = match a with
  | Global -> "AddrSpace.GLOBAL" | Local -> "AddrSpace.LOCAL" | Reg -> "AddrSpace.REG" | Alu -> "AddrSpace.ALU"

(* Python's repr of a device: 'CPU' or ('CPU', 'CPU:1') *)
let device_to_string = function
  | One d -> "'" ^ d ^ "'"
  | Multi ds -> "(" ^ String.concat ", " (List.map (fun d -> "'" ^ d ^ "'") ds) ^ (if List.length ds = 1 then ",)" else ")")

let rec arg_to_string = function
  | No_arg -> "None"
  | Const (F f) -> "ConstFloat(" ^ float_repr f ^ ")"  (* tinygrad: dtype.py ConstFloat.__repr__ *)
  | Const c -> const_to_string c
  | Dtype d -> Dtype.to_string d
  | Int i -> string_of_int i
  | Str s -> "'" ^ s ^ "'"
  | Range (ids, at) -> "(" ^ String.concat ", " (List.map string_of_int ids @ [ axis_type_to_string at ]) ^ ")"
  | Param p ->
    let opt = List.filter_map (fun x -> x) [
        Option.map (fun (a, b) -> Printf.sprintf "vmin_vmax=(%s, %s)" (const_to_string a) (const_to_string b)) p.vmin_vmax;
        Option.map (fun m -> Printf.sprintf "multiple_of=%d" m) p.multiple_of;
        Option.map (fun n -> Printf.sprintf "name='%s'" n) p.name;
        (match p.addrspace with Some Dtype.Global -> None | Some a -> Some ("addrspace=" ^ addrspace_to_string a) | None -> Some "addrspace=None");
        Option.map (fun a -> Printf.sprintf "axis=%d" a) p.axis;
        Option.map (fun d -> "device=" ^ device_to_string d) p.device;
        (if p.volatile then Some "volatile=True" else None);
        (if p.vector_acc then Some "vector_acc=True" else None) ] in
    Printf.sprintf "ParamArg(%s)" (String.concat ", " ([ string_of_int p.slot; Dtype.to_string p.pdtype ] @ opt))
  | Reduce_arg (op, n) -> Printf.sprintf "(%s, %d)" (Ops.to_string op) n
  | Ints l -> "(" ^ String.concat ", " (List.map string_of_int l) ^ (if List.length l = 1 then ",)" else ")")
  | Bools l -> "(" ^ String.concat ", " (List.map (fun b -> if b then "True" else "False") l) ^ (if List.length l = 1 then ",)" else ")")
  | Op o -> Ops.to_string o
  | Bool b -> if b then "True" else "False"
  | Tuple l -> "(" ^ String.concat ", " (List.map arg_to_string l) ^ (if List.length l = 1 then ",)" else ")")
  | Kernel_info k ->
    let at = String.concat ", " (List.map axis_type_to_string k.axis_types) in
    let opts l = "(" ^ String.concat ", " (List.map Opt.to_string l) ^ (if List.length l = 1 then ",)" else ")") in
    Printf.sprintf "KernelInfo(name='%s', axis_types=(%s%s), dont_use_locals=%s, applied_opts=%s, opts_to_apply=%s, beam=%d)"
      k.kname at (if List.length k.axis_types = 1 then "," else "") (if k.dont_use_locals then "True" else "False")
      (opts k.applied_opts) (match k.opts_to_apply with None -> "None" | Some l -> opts l) k.beam
  | Program_info p -> Printf.sprintf "ProgramInfo(name='%s')" p.pname
  | Wmma_arg w ->
    let (n, m, k) = w.wdims in
    let pairs l = "(" ^ String.concat ", " (List.map (fun (a, b) -> Printf.sprintf "(%d, %d)" a b) l) ^ (if List.length l = 1 then ",)" else ")") in
    Printf.sprintf "((%d, %d, %d), %s, '%s', %d, (%s))" n m k (Dtype.to_string w.wdtype_in) w.wdevice w.wthreads
      (String.concat ", " (List.map pairs w.wupcast_axes))
  | Bufferize_opts b ->
    Printf.sprintf "BufferizeOpts(device=%s, addrspace=%s, removable=%s)"
      (match b.bdevice with Bdev_none -> "None" | Bdev d -> device_to_string d | Bdev_id i -> string_of_int i)
      (addrspace_to_string b.baddrspace) (if b.removable then "True" else "False")

(* tinygrad pretty_print: shared nodes are named x<N>:= on first print, referenced after *)
let pretty_print root =
  let cache = Tbl.create 16 in  (* node -> (index, refcount, printed) *)
  let rec dfs x =
    Array.iter (fun s ->
        let (i, c, p) = match Tbl.find_opt cache s with Some v -> v | None -> (Tbl.length cache, 0, false) in
        Tbl.replace cache s (i, c + 1, p);
        if c + 1 = 1 then dfs s) x.src in
  dfs root;
  let buf = Buffer.create 256 in
  let rec pp x d =
    let (i, c, printed) = match Tbl.find_opt cache x with Some v -> v | None -> (0, 0, false) in
    if printed then Buffer.add_string buf (String.make d ' ' ^ "x" ^ string_of_int i)
    else begin
      Tbl.replace cache x (i, c, true);
      Buffer.add_string buf (String.make d ' ');
      if c > 1 then Buffer.add_string buf ("x" ^ string_of_int i ^ ":=");
      let argstr = match x.op, x.arg with
        | Ops.Reduce, Reduce_arg (o, n) -> Printf.sprintf "(%s, %d)" (Ops.to_string o) n
        | _ -> arg_to_string x.arg in
      Buffer.add_string buf (Printf.sprintf "UOp(%s, %s, arg=%s%s, src=(" (Ops.to_string x.op) (Dtype.to_string x.dtype) argstr
                               (if x.tag = No_arg then "" else ", tag=" ^ arg_to_string x.tag));
      Array.iter (fun s -> Buffer.add_char buf '\n'; pp s (d + 2); Buffer.add_char buf ',') x.src;
      Buffer.add_string buf "))"
    end in
  pp root 0;
  Buffer.contents buf

let to_string = pretty_print
let render u = !render_hook u

(* ---------- infix operators ---------- *)

module O = struct
  let ( + ) = add
  let ( - ) = sub
  let ( * ) = mul
  let ( // ) = idiv
  let ( mod ) = mod_
  let ( < ) = lt
  let ( > ) = gt
  let ( <= ) = le
  let ( >= ) = ge
  let ( <> ) = ne
  let ( = ) = eq
  let ( land ) = and_
  let ( lor ) = or_
  let ( lxor ) = xor
  let ( lsl ) = shl
  let ( lsr ) = shr
  let ( ~- ) = neg
  let i n = const_int n
  let f x = const_float x
  let b x = const_bool x
end

(* ---------- added by the render/tests helper: tinygrad UOp._eval, __bool__, __int__, __float__ ---------- *)

(* tinygrad: UOp._eval: the single value of [simplify u], or Invalid_argument (python: ValueError) for a range *)
let eval_const ~what ~dtype_ok u =
  if not (dtype_ok u.dtype) then invalid_arg (Printf.sprintf "%s: eval with wrong dtype %s" what (Dtype.to_string u.dtype));
  let s = simplify u in
  let lo, hi = min_max s in
  if compare_const lo hi <> 0 then
    invalid_arg (Printf.sprintf "eval failed to be a single number, range is %s to %s in %s"
                   (const_to_string lo) (const_to_string hi) (render s));
  lo

(* tinygrad: UOp.__bool__ *)
let to_bool u =
  match eval_const ~what:"bool" ~dtype_ok:(fun d -> d == Bool) u with
  | B b -> b
  | c -> invalid_arg ("bool: vmin is not a bool: " ^ const_to_string c)

(* tinygrad: UOp.__int__ *)
let to_int u =
  match eval_const ~what:"int" ~dtype_ok:Dtype.is_int u with
  | I z -> Z.to_int z
  | c -> invalid_arg ("int: vmin is not an int: " ^ const_to_string c)

(* tinygrad: UOp.__float__ *)
let to_float u =
  match eval_const ~what:"float" ~dtype_ok:Dtype.is_float u with
  | F f -> f
  | c -> invalid_arg ("float: vmin is not a float: " ^ const_to_string c)

(* ---------- added by the symbolic helper: tuplize ordering, usum/uprod, true division, pow, slices ---------- *)

(* Python's ordering of two args as they appear in tinygrad's UOp.tuplize (three-way). Where Python would
   raise TypeError (None against a value, two different enum members) we pick a fixed order instead. *)
let rec compare_arg_py a b =
  let cmp_opt f x y = match x, y with
    | None, None -> 0 | None, Some _ -> -1 | Some _, None -> 1 | Some x, Some y -> f x y in
  let rec lex = function [] -> 0 | c :: rest -> if c <> 0 then c else lex rest in
  match a, b with
  | Const x, Const y ->
    (match x, y with
     | Invalid, Invalid -> 0 | Invalid, _ -> 1 | _, Invalid -> -1
     | _ -> compare_const x y)
  | Param p, Param q ->
    lex [ Stdlib.compare p.slot q.slot; Dtype.compare p.pdtype q.pdtype;
          cmp_opt (fun (a0, a1) (b0, b1) -> lex [ compare_arg_py (Const a0) (Const b0); compare_arg_py (Const a1) (Const b1) ])
            p.vmin_vmax q.vmin_vmax;
          cmp_opt Stdlib.compare p.multiple_of q.multiple_of; cmp_opt String.compare p.name q.name;
          cmp_opt Stdlib.compare p.addrspace q.addrspace; cmp_opt Stdlib.compare p.axis q.axis;
          cmp_opt Stdlib.compare p.device q.device; Stdlib.compare p.volatile q.volatile ]
  | Range (i0 :: e0, t0), Range (i1 :: e1, t1) ->
    lex [ Stdlib.compare i0 i1; Stdlib.compare t0 t1; Stdlib.compare e0 e1 ]
  | Str x, Str y -> String.compare x y
  | Int x, Int y -> Stdlib.compare x y
  | Tuple xs, Tuple ys ->
    let rec go xs ys = match xs, ys with
      | [], [] -> 0 | [], _ -> -1 | _, [] -> 1
      | x :: xs, y :: ys -> let c = compare_arg_py x y in if c <> 0 then c else go xs ys in
    go xs ys
  | Dtype x, Dtype y -> Dtype.compare x y
  | _ -> if equal_arg a b then 0 else Stdlib.compare (Hashtbl.hash a) (Hashtbl.hash b)

(* tinygrad: UOp.tuplize = (op.value, arg, dtype, *[s.tuplize for s in src]), compared as Python tuples *)
let rec compare_tuplize a b =
  if a == b then 0
  else
    let c = Stdlib.compare (Ops.value a.op) (Ops.value b.op) in
    if c <> 0 then c
    else
      let c = compare_arg_py a.arg b.arg in
      if c <> 0 then c
      else
        let c = Dtype.compare a.dtype b.dtype in
        if c <> 0 then c
        else
          let la = Array.length a.src and lb = Array.length b.src in
          let rec go i =
            if i >= la || i >= lb then Stdlib.compare la lb
            else let c = compare_tuplize a.src.(i) b.src.(i) in if c <> 0 then c else go (i + 1) in
          go 0

(* tinygrad: ElementwiseMixin.usum: [start] folded with the rest, | for bools (uprod is above) *)
let usum ~start l = List.fold_left (if start.dtype == Bool then or_ else add) start l

(* tinygrad: ElementwiseMixin.div with rounding_mode=None (true division) *)
let div x y =
  let a, b = broadcasted x y in
  let a = if Dtype.is_int a.dtype || a.dtype == Bool then cast (Dtype.default_float ()) a else a in
  alu Ops.Mul [ a; reciprocal b ]

(* tinygrad: ElementwiseMixin.pow (the float-base check on Python constants is the caller's) *)
let pow x y = binop Ops.Pow x y

(* tinygrad: [x in u.backward_slice_with_self] *)
(* a node is made after its sources: one older than [x] neither is it nor reaches it *)
let in_backward_slice_with_self x u = x == u || exists_backward ~skip:(fun n -> n.id < x.id) (fun n -> n == x) u

(* tinygrad: UOp.param — a PARAM (kernel argument); weak dtypes are refused *)
let param ?shape ?device ?vmin_vmax ?multiple_of ?name ?(addrspace = Dtype.Global) ?axis ?(volatile = false) slot dtype =
  if Dtype.is_weak dtype then invalid_arg ("param: cannot create param for weak dtype " ^ Dtype.to_string dtype);
  (* a sharded PARAM is given its shard's shape and stands for the whole value *)
  let shape = match shape, axis, device with
    | Some s, Some a, Some (Multi ds) ->
      Some (List.mapi (fun i d -> if i = a then sint_mul d (Sint (List.length ds)) else d) s)
    | _ -> shape in
  let src = match shape with None -> create Ops.Noop | Some s -> shape_to_shape_arg s in
  create Ops.Param ~src:[| src |]
    ~arg:(Param { slot; pdtype = dtype; vmin_vmax; multiple_of; name; addrspace = Some addrspace; axis;
                  device; volatile; vector_acc = false })

(* tinygrad: UOp.bind — a bound Variable is AFTER(var, STORE(var, CONST)) *)
let bind u (value : t) =
  if not (is_variable u) then invalid_arg ("bind: op is " ^ Ops.to_string u.op ^ ", need Variable");
  if not (compare_const (vmin u) (vmin value) <= 0 && compare_const (vmax value) (vmax u) <= 0) then
    invalid_arg (Printf.sprintf "bind: %s not in range [%s, %s]" (render value) (const_to_string (vmin u))
                   (const_to_string (vmax u)));
  after u [ store u value ]

(* tinygrad: UOp.variables — the Variables (and ALU PARAMs) of the graph, sorted by name *)
let variables u =
  let vs = List.filter_map (fun x ->
      let alu_param = x.op == Ops.Param && (match x.arg with Param { addrspace = Some Dtype.Alu; _ } -> true | _ -> false) in
      match x.op, x.arg with
      | Ops.Range, Range (_, Device) -> Some (variable ~dtype:x.dtype ~param:true "_device_num" (I Z.zero) (vmax x))
      | _ when alu_param || is_variable x -> Some x
      | _ -> None) (toposort u) in
  let vs = Helpers.dedupq vs in
  List.stable_sort (fun a b -> String.compare (expr a) (expr b)) vs

(* tinygrad: UOp.sym_infer — the value of [simplify u] with the Variables bound by name (Python numbers:
   no wrap-around, CAST converts, BITCAST reinterprets) *)
let sym_infer u (var_vals : (string * const) list) : const =
  let memo = Tbl.create 64 in
  let rec ev x =
    match Tbl.find_opt memo x with
    | Some v -> v
    | None ->
      let r =
        match x.op with
        | Ops.Const -> const_val x
        | Ops.Param | Ops.Buffer ->
          (match List.assoc_opt (expr x) var_vals with Some v -> v | None -> invalid_arg ("sym_infer: no value for " ^ expr x))
        | Ops.After -> ev x.src.(0)
        | Ops.Cast ->
          let v = ev x.src.(0) in
          if Dtype.is_float x.dtype then F (const_to_float v)
          else if x.dtype == Bool then B (const_truthy v)
          else (match v with F f -> I (Z.of_float (Float.trunc f)) | B b -> I (if b then Z.one else Z.zero) | v -> v)
        | Ops.Bitcast -> Dtype.bitcast (ev x.src.(0)) x.src.(0).dtype x.dtype
        | op -> exec_alu ~truncate_output:false op x.dtype (Array.to_list (Array.map ev x.src)) in
      Tbl.replace memo x r;
      r in
  ev (simplify u)

(* ---------- added by the renderer helper: tinygrad UOp.addrspace, max_shape, max_numel ---------- *)

(* tinygrad: UOp.addrspace (a recursive_property; memoised per call here) *)
(* tinygrad: UOp.addrspace (a recursive_property: cached on the node, filled bottom-up without recursion) *)
let compute_addrspace u : Dtype.addrspace option =
  let go (s : t) = match s.addrspace_c with Some a -> a | None -> None in
  let open Ops in
  match u.op with
  | Param | Buffer -> (match u.arg with Param p -> p.addrspace | _ -> None)
  | Special | Range -> Some Dtype.Alu
  | Load -> Some Dtype.Alu  (* LOAD brings things into the ALU *)
  | Index | Cast | After | Reduce | Store | Mstack | Mselect | End | Unshard -> go u.src.(0)
  | op when Group.is_movement op -> go u.src.(0)
  | op when op == Stack || op == Wmma || op == Group || Group.is_elementwise op ->
    let ad = List.filter_map go (Array.to_list u.src) in
    (match ad with
     | a :: rest when List.for_all (fun b -> b = a) rest -> Some a
     | _ -> None)
  | _ -> None

let addrspace u : Dtype.addrspace option =
  match u.addrspace_c with
  | Some a -> a
  | None when Array.for_all (fun s -> s.addrspace_c != None) u.src ->
    let a = compute_addrspace u in
    u.addrspace_c <- Some a;
    a
  | None ->
    List.iter (fun n -> if n.addrspace_c = None then n.addrspace_c <- Some (compute_addrspace n))
      (toposort ~gate:(fun n -> n.addrspace_c = None) u);
    (match u.addrspace_c with Some a -> a | None -> None)

(* tinygrad: to_max_shape / MovementMixin.max_shape: symbolic dims replaced by their vmax *)
let max_shape u = List.map (function Sint i -> i | Suop x -> Z.to_int (zi (vmax x))) (shape u)

(* tinygrad: MovementMixin.max_numel *)
let max_numel u = List.fold_left ( * ) 1 (max_shape u)

(* ---------- devices and buffers: tinygrad UOp.device, is_virtual, has_buffer_identity, without_after ---------- *)

(* tinygrad: to_tuple over a device *)
let device_list = function One d -> [ d ] | Multi ds -> ds

(* the device an arg names: a COPY's target, the device of an ALLREDUCE *)
let device_of_arg = function
  | Str d -> Some (One d)
  | Tuple ds when ds <> [] && List.for_all (function Str _ -> true | _ -> false) ds ->
    Some (Multi (List.map (function Str d -> d | _ -> assert false) ds))
  | _ -> None

(* the arg a COPY to [d] carries *)
let arg_of_device = function One d -> Str d | Multi ds -> Tuple (List.map (fun d -> Str d) ds)

(* tinygrad: UOp.device (a recursive_property: cached on the node) *)
let compute_device u : device option =
  let go (s : t) = match s.device_c with Some d -> d | None -> None in
  let open Ops in
  match u.op, u.arg with
  | (Param | Buffer), Param p -> p.device
  | After, _ -> go u.src.(0)
  | Mselect, Int i ->
    (match go u.src.(0) with
     | Some (Multi ds) when i < List.length ds -> Some (One (List.nth ds i))
     | _ -> invalid_arg "mselect: the source must be on a tuple of devices")
  | Mstack, _ when Array.for_all (fun s -> go s = None) u.src -> None
  | Mstack, _ ->
    Some (Multi (List.map (fun s -> match go s with
        | Some (One d) -> d
        | _ -> invalid_arg "mstack: every source must be on one device") (Array.to_list u.src)))
  | Copy, a -> device_of_arg a
  | Allreduce, Tuple [ _; d ] -> device_of_arg d
  | _ ->
    let n = Array.length u.src in
    let rec first i = if i >= n then None else match go u.src.(i) with Some d -> Some d | None -> first (i + 1) in
    first 0

(* tinygrad: UOp.device, the whole device (a tuple for a multi-device value) *)
let mdevice u : device option =
  match u.device_c with
  | Some d -> d
  | None when Array.for_all (fun s -> s.device_c != None) u.src ->
    let d = compute_device u in
    u.device_c <- Some d;
    d
  | None ->
    List.iter (fun n -> if n.device_c = None then n.device_c <- Some (compute_device n))
      (toposort ~gate:(fun n -> n.device_c = None) u);
    (match u.device_c with Some d -> d | None -> None)

(* the single device of a node; a multi-device node is refused, so single-device code never sees a tuple *)
let device u : string option =
  match mdevice u with
  | None -> None
  | Some (One d) -> Some d
  | Some (Multi ds) ->
    invalid_arg (Printf.sprintf "%s: on the devices (%s) where one device is needed" (Ops.to_string u.op)
                   (String.concat ", " ds))

(* tinygrad: isinstance(u.device, tuple) *)
let is_multi u = match mdevice u with Some (Multi _) -> true | _ -> false

(* tinygrad: UOp.is_virtual — no device means no place to store, weak means no width to store *)
let is_virtual u = mdevice u = None || Dtype.is_weak u.dtype

(* tinygrad: UOp.has_buffer_identity — a RESHAPE/UNSHARD/MSELECT chain down to a BUFFER/PARAM *)
let rec has_buffer_identity ?(after_ok = false) u =
  match u.op with
  | Ops.Reshape | Ops.Unshard | Ops.Mselect -> has_buffer_identity ~after_ok u.src.(0)
  | Ops.After when after_ok -> has_buffer_identity ~after_ok u.src.(0)
  | op -> op == Ops.Buffer || op == Ops.Param

(* tinygrad: UOp.without_after *)
let without_after u = if u.op == Ops.After then u.src.(0) else u

(* ---------- multi-device: tinygrad UOp.unshard, sharding, axis, shard_shape ---------- *)

(* tinygrad: UOp.range(n, -1, AxisType.DEVICE) — hash-consed, so every DEVICE range over n devices is one node *)
let device_range n = range ~axis_type:Device (Sint n) (-1)

(* tinygrad: int(rng.vmax)+1, the number of shards a sharding range makes *)
let range_count r = Z.to_int (zi (vmax r)) + 1

(* tinygrad: UOp.unshard — the value and one sharding range per sharded axis, sorted by axis *)
let unshard u (axes : int list) (rngs : t list) =
  if List.length axes <> List.length rngs || List.length (List.sort_uniq Stdlib.compare axes) <> List.length axes then
    invalid_arg "unshard: one distinct axis per sharding range";
  let pairs = List.stable_sort (fun (a, _) (b, _) -> Stdlib.compare a b) (List.combine axes rngs) in
  create Ops.Unshard ~src:(Array.of_list (u :: List.map snd pairs)) ~arg:(Ints (List.map fst pairs))

(* tinygrad: UOp.unshard(axis) without a range: the DEVICE range over the node's devices *)
let unshard_devices u axis =
  match mdevice u with
  | Some (Multi ds) -> unshard u [ axis ] [ device_range (List.length ds) ]
  | _ -> invalid_arg (Printf.sprintf "unshard: %s is not on a tuple of devices" (Ops.to_string u.op))

(* tinygrad: UOp.sharding *)
let sharding u =
  match u.op, u.arg with
  | Ops.Unshard, Ints axes -> List.combine axes (List.tl (Array.to_list u.src))
  | _ -> []

(* tinygrad: UOp.axis (a cached_property there; memoised over one walk here) *)
let axis (root : t) : int option =
  let memo : int option Tbl.t = Tbl.create 16 in
  let rec go u =
    match Tbl.find_opt memo u with
    | Some a -> a
    | None -> let a = compute u in Tbl.replace memo u a; a
  and compute (u : t) =
    match u.op, u.arg with
    | Ops.Copy, _ -> None
    | Ops.Unshard, Ints [ a ] -> Some a
    | Ops.Unshard, _ -> invalid_arg "axis: the value is sharded on several axes, use its sharding"
    | Ops.Gettuple, Int i ->
      let t = if u.src.(0).op == Ops.Function then u.src.(0).src.(0) else u.src.(0) in
      if t.op == Ops.Tuple then go t.src.(i) else None
    | Ops.Param, Param p -> p.axis
    | op, _ when Ops.Group.is_alu op || op == Ops.Stack ->
      let n = match shape_opt u with Some s -> List.length s | None -> 0 in
      let axes = List.filter_map (fun (x : t) ->
          match go x, shape_opt x with
          | Some a, Some s -> Some (a + n - List.length s)
          | Some a, None -> Some a
          | None, _ -> None) (Array.to_list u.src) in
      (match List.rev (Helpers.dedup axes) with a :: _ -> Some a | [] -> None)
    | _ when Array.length u.src = 0 -> None
    | op, _ ->
      match go u.src.(0) with
      | None -> None
      | Some a ->
        let sshape = shape u.src.(0) in
        match op, marg_opt u with
        | Ops.Shrink, Some (`Pairs pairs) ->
          let (st, sz) = List.nth pairs a in
          if equal_sint st (Sint 0) && equal_sint sz (List.nth sshape a) then Some a else None
        | Ops.Reduce, _ -> (match u.arg with Reduce_arg (_, n) -> if a < n then None else Some (a - n) | _ -> None)
        | Ops.Reshape, Some (`Shape new_shape) ->
          let acc = List.rev (List.fold_left (fun l s -> sint_mul (List.hd l) s :: l) [ Sint 1 ] new_shape) in
          let target = sprod (List.filteri (fun i _ -> i < a) sshape) in
          let moved () = invalid_arg (Printf.sprintf "reshape %s -> %s moved items between shards"
                                        (shape_str sshape) (shape_str new_shape)) in
          let idxs = List.filteri (fun _ x -> x >= 0) (List.mapi (fun i s -> if equal_sint s target then i else -1) acc) in
          (match List.rev idxs with
           | [] -> moved ()
           | new_axis :: _ ->
             let dcount = match mdevice u with
               | Some (Multi ds) -> List.length ds
               | _ ->
                 (match List.find_opt (fun (x : t) -> x.op == Ops.Unshard) (toposort u.src.(0)) with
                  | Some m -> range_count m.src.(1)
                  | None -> 1) in
             (match List.nth new_shape new_axis with
              | Sint s when s mod dcount <> 0 -> moved ()
              | _ -> Some new_axis))
        | Ops.Permute, Some (`Perm p) ->
          let rec idx k = function [] -> None | x :: t -> if x = a then Some k else idx (k + 1) t in
          idx 0 p
        | Ops.Expand, Some (`Shape s) -> Some (a + List.length s)
        | _ -> Some a
  and marg_opt u = try Some (marg u) with Invalid_argument _ -> None in
  go root

(* tinygrad: UOp.shard_shape — the shape of one device's shard *)
let shard_shape u =
  match mdevice u, axis u with
  | Some (Multi ds), Some a ->
    let dcount = if u.op == Ops.Unshard then range_count u.src.(1) else List.length ds in
    List.mapi (fun i s -> if i <> a then s
      else match s with
        | Sint x -> Sint (x / dcount)
        | Suop x -> sint_of_uop (ssimplify (alu Ops.Floordiv [ x; const_int dcount ]))) (shape u)
  | _ -> shape u
