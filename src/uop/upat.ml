(* tinygrad: uop/ops.py UPat, PatternMatcher, RewriteContext, graph_rewrite, _substitute.
   Matching is interpreted (upat_interpret); tinygrad's upat_compile is only a speed-up of the same
   semantics. *)

(* ---------- op sets as two-int bitsets (79 ops: values 1..62 in [lo], 63..79 in [hi]) ---------- *)

let lo_bit (o : Ops.t) = let v = Ops.value o in if v <= 62 then 1 lsl (v - 1) else 0
let hi_bit (o : Ops.t) = let v = Ops.value o in if v > 62 then 1 lsl (v - 63) else 0
let lo_of ops = List.fold_left (fun acc o -> acc lor lo_bit o) 0 ops
let hi_of ops = List.fold_left (fun acc o -> acc lor hi_bit o) 0 ops

(* ---------- patterns ---------- *)

type src =
  | In_order of t list
  | Permuted of t list
  | Repeat of t

and t = {
  op : Ops.t list option;
  op_match : op_match;  (* [op], for a fast test *)
  plain : bool;  (* no dtype, arg or tag to check *)
  match_dtype : Dtype.t list option;
  match_tag : Uop.arg list option;
  arg : Uop.arg option;
  name : string option;
  in_src : src option;  (* as given, for [named] *)
  psrc : psrc;
  is_any : bool;
  strict_length : bool;
  required_len : int;
  custom_early_reject : Ops.t list option;
  er_lo : int;  (* early_reject bitset *)
  er_hi : int;
}

(* tinygrad's [self.src]: one tuple, the permutations of a list, or a repeat *)
and psrc = No_src | Perms of t array list | Rep of t

and op_match = Any_op | One_op of Ops.t | Op_set of int * int  (* lo/hi bitsets *)

(* itertools.permutations order: lexicographic in the positions *)
let rec permutations = function
  | [] -> [ [] ]
  | l ->
    let rec picks before = function
      | [] -> []
      | x :: after -> (x, List.rev_append before after) :: picks (x :: before) after in
    List.concat_map (fun (x, rest) -> List.map (fun p -> x :: p) (permutations rest)) (picks [] l)

(* tinygrad all_same: UPat has no __eq__, so this is identity *)
let all_same = function [] -> true | x :: rest -> List.for_all (fun y -> y == x) rest

(* tinygrad: UPat.__init__ *)
let mk ?op ?dtype ?src ?arg ?name ?(allow_any_len = false) ?custom_early_reject ?tag ?(is_any = false) () =
  let psrc = match src with
    | None -> No_src
    | Some (In_order l) -> Perms [ Array.of_list l ]
    | Some (Permuted l) ->
      if all_same l then Perms [ Array.of_list l ] else Perms (List.map Array.of_list (permutations l))
    | Some (Repeat p) -> Rep p in
  let strict_length = not (allow_any_len || (match src with None | Some (Repeat _) -> true | _ -> false)) in
  let required_len =
    match src with None | Some (Repeat _) -> 0 | Some (In_order l | Permuted l) -> List.length l in
  let er = match custom_early_reject with
    | Some l -> l
    | None ->
      let upat_match =
        match src with None -> [] | Some (Repeat p) -> [ p ] | Some (In_order l | Permuted l) -> l in
      List.filter_map (fun pp -> match pp.op with Some [ o ] -> Some o | _ -> None) upat_match in
  let op_match =
    match op with None -> Any_op | Some [ o ] -> One_op o | Some l -> Op_set (lo_of l, hi_of l) in
  { op; op_match; plain = Option.is_none dtype && Option.is_none arg && Option.is_none tag;
    match_dtype = dtype; match_tag = tag; arg; name; in_src = src; psrc; is_any;
    strict_length; required_len; custom_early_reject; er_lo = lo_of er; er_hi = hi_of er }

let make ?op ?dtype ?src ?arg ?name ?allow_any_len ?custom_early_reject ?tag () =
  mk ?op ?dtype ?src ?arg ?name ?allow_any_len ?custom_early_reject ?tag ()

let pat ?dtype ?src ?arg ?name ?allow_any_len op = mk ~op:[ op ] ?dtype ?src ?arg ?name ?allow_any_len ()
let ops ?dtype ?src ?arg ?name ?allow_any_len l = mk ~op:l ?dtype ?src ?arg ?name ?allow_any_len ()

(* tinygrad caches UPat.var and UPat.cvar (functools.cache), so equal calls give the same object, which
   matters for the all_same check of permuted sources *)
let var_cache : (string option * Dtype.t list option, t) Hashtbl.t = Hashtbl.create 64
let cvar_cache : (string option * Dtype.t list option * Uop.arg option, t) Hashtbl.t = Hashtbl.create 64

let var_opt ?name ?dtype () =
  let key = (name, dtype) in
  match Hashtbl.find_opt var_cache key with
  | Some p -> p
  | None -> let p = mk ?dtype ?name () in Hashtbl.replace var_cache key p; p

let cvar_opt ?name ?dtype ?arg () =
  let arg = Option.map (fun c -> Uop.Const c) arg in
  let key = (name, dtype, arg) in
  match Hashtbl.find_opt cvar_cache key with
  | Some p -> p
  | None -> let p = mk ~op:[ Ops.Const ] ?dtype ?name ?arg () in Hashtbl.replace cvar_cache key p; p

let var ?dtype name = var_opt ~name ?dtype ()
let wild = mk ()
let cvar ?dtype ?arg name = cvar_opt ~name ?dtype ?arg ()
let const ?dtype b = mk ~op:[ Ops.Const ] ?dtype ~arg:(Uop.Const b) ()

(* tinygrad: UPat.any *)
let any l = mk ~src:(In_order l) ~is_any:true ()

(* tinygrad: UPat.named (is_any is not carried over, as in tinygrad) *)
let named name p =
  mk ?op:p.op ?dtype:p.match_dtype ?src:p.in_src ?arg:p.arg ~name ~allow_any_len:(not p.strict_length)
    ?custom_early_reject:p.custom_early_reject ?tag:p.match_tag ()

let or_casted ?name p =
  any [ (match name with None -> p | Some n -> named n p);
        mk ~op:[ Ops.Cast ] ?name ~src:(In_order [ p ]) () ]

let or_after ?name p =
  any [ (match name with None -> p | Some n -> named n p);
        mk ~op:[ Ops.After ] ?name ~src:(In_order [ p ]) ~allow_any_len:true () ]

let dtype p = match p.match_dtype with Some (d :: _) -> d | _ -> Dtype.Void

(* ---------- builders: tinygrad UPat methods and the OpMixin overloads as UPat sees them ---------- *)

(* tinygrad: UPat.alu *)
let alu op srcs =
  let last = match List.rev srcs with x :: _ -> x.match_dtype | [] -> None in
  let dtype = match op with Ops.Cmplt | Ops.Cmpne -> Some [ Dtype.Bool ] | _ -> last in
  let src = if Ops.Group.is_commutative op then Permuted srcs else In_order srcs in
  mk ~op:[ op ] ?dtype ~src ()

let cast ?dtype ?name p =
  match dtype, p.match_dtype with
  | Some d, Some [ d' ] when d == d' -> p
  | _ -> mk ~op:[ Ops.Cast ] ?dtype:(Option.map (fun d -> [ d ]) dtype) ~src:(In_order [ p ]) ?name ()

let bitcast ?dtype p =
  mk ~op:[ Ops.Bitcast ] ?dtype:(Option.map (fun d -> [ d ]) dtype) ~src:(In_order [ p ]) ()

(* tinygrad's [p.index(srcs)], [p.load(srcs)], ...: [p] first, then [srcs] in order *)
let with_srcs op ?name ?allow_any_len p srcs =
  mk ~op:[ op ] ~src:(In_order (p :: srcs)) ?name ?allow_any_len ()
let index ?name ?allow_any_len p srcs = with_srcs Ops.Index ?name ?allow_any_len p srcs
let load ?name ?allow_any_len p srcs = with_srcs Ops.Load ?name ?allow_any_len p srcs
let store ?name ?allow_any_len p srcs = with_srcs Ops.Store ?name ?allow_any_len p srcs

let reduce ?name ?allow_any_len ?arg p srcs =
  mk ~op:[ Ops.Reduce ] ?dtype:p.match_dtype ~src:(In_order (p :: srcs)) ?arg ?name ?allow_any_len ()

let after ?name ?allow_any_len p srcs =
  mk ~op:[ Ops.After ] ?dtype:p.match_dtype ~src:(In_order (p :: srcs)) ?name ?allow_any_len ()

let end_ ?name ?allow_any_len p srcs = with_srcs Ops.End ?name ?allow_any_len p srcs
let broadcast ?name p = mk ~op:[ Ops.Stack ] ?dtype:p.match_dtype ~src:(Repeat p) ?name ()
let sink ?name l = mk ~op:[ Ops.Sink ] ~src:(In_order l) ?name ()
let f ?dtype ?arg ?name op p = mk ~op:[ op ] ?dtype ?arg ?name ~src:(In_order [ p ]) ()

(* tinygrad: OpMixin.where; UPat's _broadcasted is a no-op *)
let where c x y = alu Ops.Where [ c; x; y ]

(* tinygrad: UPat._binop via ElementwiseMixin._binop *)
let binop ?(reverse = false) op x y = if reverse then alu op [ y; x ] else alu op [ x; y ]

let ne x y = binop Ops.Cmpne x y
(* tinygrad: ElementwiseMixin.logical_not = self.cast(bool).ne(True) *)
let logical_not x = ne (cast ~dtype:Dtype.Bool x) (cvar_opt ~arg:(Dtype.B true) ())
let eq x y = logical_not (ne x y)
(* tinygrad: ElementwiseMixin.neg *)
let neg x =
  if dtype x == Dtype.Bool then logical_not x else binop Ops.Mul x (cvar_opt ~arg:(Dtype.I Z.minus_one) ())
(* tinygrad: ElementwiseMixin.sub: a.alu(ADD, -b) *)
let sub x y = alu Ops.Add [ x; neg y ]
let maximum x y = binop Ops.Max x y
let reciprocal x = alu Ops.Reciprocal [ x ]
let trunc x = alu Ops.Trunc [ x ]
let sqrt x = alu Ops.Sqrt [ x ]

module O = struct
  let ( + ) x y = binop Ops.Add x y
  let ( * ) x y = binop Ops.Mul x y
  let ( - ) = sub
  let ( ~- ) = neg
  let ( // ) x y = binop Ops.Floordiv x y
  let ( mod ) x y = binop Ops.Floormod x y
  let ( < ) x y = binop Ops.Cmplt x y
  let ( > ) x y = binop ~reverse:true Ops.Cmplt x y
  let ( >= ) x y = logical_not (x < y)
  let ( <= ) x y = logical_not (x > y)
  let ( <> ) = ne
  let ( land ) x y = binop Ops.And x y
  let ( lor ) x y = binop Ops.Or x y
  let ( lxor ) x y = binop Ops.Xor x y
  let ( lsl ) x y = binop Ops.Shl x y
  let ( lsr ) x y = binop Ops.Shr x y
  let i n = cvar_opt ~arg:(Dtype.I (Z.of_int n)) ()
  let fl x = cvar_opt ~arg:(Dtype.F x) ()
  let bl x = cvar_opt ~arg:(Dtype.B x) ()
end

(* ---------- matching ---------- *)

type captures = (string * Uop.t) list

(* the capture bound to [name], or [default] (no option allocated: matching looks names up for every node) *)
let rec find_or (c : captures) name default =
  match c with
  | [] -> default
  | (k, v) :: rest -> if k == name || String.equal k name then v else find_or rest name default

(* the value no capture is bound to *)
let unbound = Uop.create Ops.Noop ~arg:(Uop.Str "unbound capture")

let find c name = let v = find_or c name unbound in if v == unbound then None else Some v

let get c name = let v = find_or c name unbound in if v == unbound then raise Not_found else v

(* Python [==] between args: numbers compare by value across int/float/bool (0 == 0.0 == False, -0.0 == 0.0);
   CONST floats are tinygrad ConstFloats, whose __eq__ makes nan equal nan *)
let py_num (a : Uop.arg) : Dtype.const option =
  match a with
  | Uop.Const c -> Some c
  | Uop.Int i -> Some (Dtype.I (Z.of_int i))
  | Uop.Bool b -> Some (Dtype.B b)
  | _ -> None

let py_const_eq (a : Dtype.const) (b : Dtype.const) =
  let zf z f = Float.is_integer f && Z.equal z (Z.of_float f) in
  let zb b = if b then Z.one else Z.zero in
  match a, b with
  | Dtype.Invalid, Dtype.Invalid -> true
  | Dtype.Invalid, _ | _, Dtype.Invalid -> false
  | Dtype.F x, Dtype.F y -> x = y || (Float.is_nan x && Float.is_nan y)  (* ConstFloat.__eq__ *)
  | Dtype.I x, Dtype.I y -> Z.equal x y
  | Dtype.B x, Dtype.B y -> x = y
  | Dtype.I z, Dtype.B b | Dtype.B b, Dtype.I z -> Z.equal z (zb b)
  | Dtype.I z, Dtype.F f | Dtype.F f, Dtype.I z -> zf z f
  | Dtype.B b, Dtype.F f | Dtype.F f, Dtype.B b -> zf (zb b) f

let rec py_eq (a : Uop.arg) (b : Uop.arg) =
  a == b ||
  match a, b with
  | Uop.Const (Dtype.I x), Uop.Const (Dtype.I y) -> Z.equal x y
  | _ ->
  match py_num a, py_num b with
  | Some x, Some y -> py_const_eq x y
  | Some _, None | None, Some _ -> false
  | None, None ->
    (match a, b with
     | Uop.Tuple xs, Uop.Tuple ys -> List.length xs = List.length ys && List.for_all2 py_eq xs ys
     | _ -> Uop.equal_arg a b)

let imin (a : int) b = if a < b then a else b

(* whether [p]'s op test accepts op [o] (inlined: every match attempt asks) *)
let[@inline] op_accepts p (o : Ops.t) =
  match p.op_match with
  | One_op o' -> o == o'
  | Any_op -> true
  | Op_set (lo, hi) ->
    let v = Ops.value o in
    if v <= 62 then lo land (1 lsl (v - 1)) <> 0 else hi land (1 lsl (v - 63)) <> 0

let op_ok p (u : Uop.t) = op_accepts p u.op

(* tinygrad: UPat.match, in continuation-passing style so a rule stops at its first accepted match; the
   matches are visited in the order tinygrad's list holds them *)
let rec go : 'r. t -> Uop.t -> captures -> (captures -> 'r option) -> 'r option =
  fun p u store k ->
  if p.is_any then
    match p.psrc with
    | Perms [ alts ] ->
      let n = Array.length alts in
      let rec alt i =
        if i >= n then None else match go alts.(i) u store k with Some _ as r -> r | None -> alt (i + 1) in
      alt 0
    | _ -> None
  else if not (op_ok p u) then None
  else
    match p.name with
    | None -> go_checks p u store k
    | Some nm ->
      let v = find_or store nm unbound in
      if v == unbound then go_checks p u ((nm, u) :: store) k
      else if v == u then go_checks p u store k
      else None

and go_checks : 'r. t -> Uop.t -> captures -> (captures -> 'r option) -> 'r option =
  fun p u store k ->
  let nsrc = Array.length u.src in
  if (if p.strict_length then nsrc <> p.required_len else nsrc < p.required_len)
  || ((not p.plain)
      && ((match p.match_dtype with None -> false | Some l -> not (List.memq u.dtype l))
          || (match p.arg with None -> false | Some a -> not (py_eq a u.arg))
          || (match p.match_tag with None -> false | Some l -> not (List.exists (fun t -> py_eq t u.tag) l))))
  then None
  else
    match p.psrc with
    | No_src -> k store
    | Rep q -> go_rep q u.src 0 nsrc store k
    | Perms [ vp ] -> go_srcs vp u.src 0 (imin nsrc (Array.length vp)) store k
    | Perms perms ->
      let rec each = function
        | [] -> None
        | vp :: rest ->
          (match go_srcs vp u.src 0 (imin nsrc (Array.length vp)) store k with
           | Some _ as r -> r
           | None -> each rest) in
      each perms

and go_srcs : 'r. t array -> Uop.t array -> int -> int -> captures -> (captures -> 'r option) -> 'r option =
  fun vp usrc i n store k ->
  if i >= n then k store
  else if i = n - 1 then go vp.(i) usrc.(i) store k
  else go vp.(i) usrc.(i) store (fun s -> go_srcs vp usrc (i + 1) n s k)

and go_rep : 'r. t -> Uop.t array -> int -> int -> captures -> (captures -> 'r option) -> 'r option =
  fun q usrc i n store k ->
  if i >= n then k store
  else if i = n - 1 then go q usrc.(i) store k
  else go q usrc.(i) store (fun s -> go_rep q usrc (i + 1) n s k)

let match_ p u =
  let acc = ref [] in
  ignore (go p u [] (fun s -> acc := s :: !acc; None));
  List.rev !acc

let first_match p u k = go p u [] k

(* whether [p] can match a node of op [o] (an alternation may match any op) *)
let may_match_op p (o : Ops.t) = p.is_any || op_accepts p o

let index_by_op pat_of l =
  let by_op = Array.make (Ops.count + 1) [] in
  Array.iter (fun o -> by_op.(Ops.value o) <- List.filter (fun r -> may_match_op (pat_of r) o) l) Ops.all;
  by_op

(* ---------- pattern matchers ---------- *)

type 'ctx rule = { rpat : t; fn : 'ctx -> captures -> Uop.t option }

let rule p fn = { rpat = p; fn = (fun _ c -> fn c) }
let rule_ctx p fn = { rpat = p; fn }

type 'ctx matcher = {
  rule_list : 'ctx rule list;
  pdict : 'ctx rule array array;  (* indexed by Ops.value *)
  mutable add_cache : ('ctx matcher * 'ctx matcher) list;  (* tinygrad caches PatternMatcher.__add__ *)
}

(* tinygrad: PatternMatcher.__init__ *)
let matcher rules =
  let buckets = Array.make (Ops.count + 1) [] in
  List.iter (fun r ->
      match r.rpat.op with
      | None -> invalid_arg "matcher: a rule's pattern must name its op(s)"
      | Some l -> List.iter (fun o -> let v = Ops.value o in buckets.(v) <- r :: buckets.(v)) l) rules;
  { rule_list = rules; pdict = Array.map (fun l -> Array.of_list (List.rev l)) buckets; add_cache = [] }

let ( @@@ ) a b =
  match List.assq_opt b a.add_cache with
  | Some m -> m
  | None ->
    let m = matcher (a.rule_list @ b.rule_list) in
    a.add_cache <- (b, m) :: (if List.length a.add_cache >= 16 then [] else a.add_cache);
    m

let lift (m : unit matcher) =
  matcher (List.map (fun r -> { rpat = r.rpat; fn = (fun _ c -> r.fn () c) }) m.rule_list)
let rules m = m.rule_list

(* the rules of [ents] from [i] on, tried on [u] whose sources' ops are the bitset [lo], [hi] *)
let rec rewrite_from ents ctx (u : Uop.t) lo hi i =
  if i >= Array.length ents then None
  else
    let r = Array.unsafe_get ents i in
    let p = r.rpat in
    if p.er_lo land lnot lo <> 0 || p.er_hi land lnot hi <> 0 then rewrite_from ents ctx u lo hi (i + 1)
    else match go p u [] (r.fn ctx) with
      | Some ret when ret != u -> Some ret
      | _ -> rewrite_from ents ctx u lo hi (i + 1)

(* tinygrad: PatternMatcher.rewrite *)
let rewrite pm ctx (u : Uop.t) =
  let ents = pm.pdict.(Ops.value u.op) in
  if Array.length ents = 0 then None
  else begin
    (* the set of src ops, as a bitset *)
    let lo = ref 0 and hi = ref 0 in
    for j = 0 to Array.length u.src - 1 do
      let v = Ops.value (Array.unsafe_get u.src j).op in
      if v <= 62 then lo := !lo lor (1 lsl (v - 1)) else hi := !hi lor (1 lsl (v - 63))
    done;
    rewrite_from ents ctx u !lo !hi 0
  end

(* ---------- graph rewrite ---------- *)

exception Bottom_up_gate


module Tbl = Uop.Tbl

(* tinygrad: UOp._OPAQUE_CALL_BODIES *)
let opaque_body (u : Uop.t) =
  match u.op with Ops.Sink | Ops.Program | Ops.Linear | Ops.Copy | Ops.Custom_function -> true | _ -> false

let is_opaque_call (n : Uop.t) = n.op == Ops.Function || (n.op == Ops.Call && opaque_body n.src.(0))

let rebuild (n : Uop.t) new_src = Uop.replace ~dtype:(Uop.rebuild_dtype n new_src) ~src:new_src n

(* tinygrad: RewriteContext.cached_bpm_rewrite (a raising callback caches nothing) *)
let cached_bpm cache f (x : Uop.t) =
  match Id_tbl.find_opt cache x.id with
  | Some r -> r
  | None -> let r = f x in Id_tbl.replace cache x.id r; r

(* a growable stack of (node, stage, new node) *)
type stack = {
  mutable ns : Uop.t array;
  mutable stages : int array;
  mutable news : Uop.t array;
  mutable sp : int;
}

let push st n stage nn =
  if st.sp >= Array.length st.ns then begin
    let cap = 2 * Array.length st.ns in
    let grow a = let b = Array.make cap a.(0) in Array.blit a 0 b 0 st.sp; b in
    st.ns <- grow st.ns; st.news <- grow st.news;
    let s = Array.make cap 0 in Array.blit st.stages 0 s 0 st.sp; st.stages <- s
  end;
  st.ns.(st.sp) <- n; st.stages.(st.sp) <- stage; st.news.(st.sp) <- nn; st.sp <- st.sp + 1

(* the tables of the walks, reused from one rewrite to the next *)
let node_pool : Uop.t Id_tbl.pool = Id_tbl.pool (Uop.create Ops.Noop)
let bpm_pool : Uop.t option Id_tbl.pool = Id_tbl.pool None
let set_pool : Id_tbl.Set.pool = Id_tbl.Set.pool ()
let wait_pool : (Uop.t * int * Uop.t) list Id_tbl.pool = Id_tbl.pool []

(* the sources of a node at its stage 1 *)
type sources_state = Same | Changed | Waiting_on of Uop.t

(* the value no node is rewritten to, for lookups without an option *)
let not_rewritten = Uop.create Ops.Noop ~arg:(Uop.Str "not rewritten")

(* every source from [i] on rewritten ([replace] binds it): [Same] (each to itself, as those before [i] if
   [same]) or [Changed]; else [Waiting_on] the first that is not *)
let rec sources_state replace (srcs : Uop.t array) i same =
  if i >= Array.length srcs then (if same then Same else Changed)
  else
    let x = Array.unsafe_get srcs i in
    let rx = Id_tbl.find_or replace x.id not_rewritten in
    if rx == not_rewritten then Waiting_on x else sources_state replace srcs (i + 1) (same && rx == x)

(* tinygrad: RewriteContext.unified_rewrite. [known] (not in tinygrad): the results of earlier rewrites with the
   same matcher and context, by node id. A top-down rewrite gives a node the same result wherever it meets it,
   so a node found there is finished at once, and each node finished is added *)
let unified_rewrite ?known ~pm ~bpm ~enter_calls (root : Uop.t) =
  Id_tbl.with_table node_pool @@ fun replace ->
  Id_tbl.with_table bpm_pool @@ fun bpm_cache ->
  Id_tbl.Set.with_set set_pool @@ fun on_stack ->
  (* entries waiting on a node, most recent first ([] once released); [waiting]: how many in all *)
  Id_tbl.with_table wait_pool @@ fun waitlist ->
  let waiting = ref 0 in
  let st = { ns = Array.make 16 root; stages = Array.make 16 0; news = Array.make 16 root; sp = 0 } in
  let wait (x : Uop.t) e =
    Id_tbl.replace waitlist x.id (e :: (match Id_tbl.find_opt waitlist x.id with Some l -> l | None -> []));
    incr waiting in
  let release (n : Uop.t) =
    (* most nodes finish with nothing waiting on them *)
    if !waiting > 0 then
      match Id_tbl.find_opt waitlist n.id with
      | None | Some [] -> ()
      | Some l ->
        Id_tbl.replace waitlist n.id [];
        waiting := !waiting - List.length l;
        List.iter (fun (a, s, b) -> push st a s b) (List.rev l) in
  let finish (n : Uop.t) v = Id_tbl.replace replace n.id v; release n in
  let finish_known = match known with
    | None -> finish
    | Some k -> fun n v -> Id_tbl.replace k n.id v; finish n v in
  let known_result (n : Uop.t) =
    match known with None -> not_rewritten | Some k -> Id_tbl.find_or k n.id not_rewritten in
  push st root 0 root;
  Id_tbl.Set.add on_stack root.id;
  while st.sp > 0 do
    if st.sp > Helpers.rewrite_stack_limit.value then failwith "infinite loop in graph_rewrite (stack too big)";
    st.sp <- st.sp - 1;
    let n = st.ns.(st.sp) and stage = st.stages.(st.sp) and new_n = st.news.(st.sp) in
    if not (Id_tbl.mem replace n.id) then begin
      let known_r = if stage = 0 then known_result n else not_rewritten in
      if known_r != not_rewritten then finish n known_r
      else if stage = 0 then begin
        (* bottom-up: apply bpm to a fixed point before descending *)
        let gated = ref false in
        let new_n = match bpm with
          | None -> n
          | Some f ->
            let cur = ref n and test = ref (Some n) and seen = ref [] in
            (try
               while (match !test with Some t -> cur := t; true | None -> false) do
                 let t = !cur in
                 if List.memq t !seen then failwith "infinite loop in fixed_point_rewrite";
                 seen := t :: !seen;
                 test := cached_bpm bpm_cache f t
               done
             with Bottom_up_gate -> gated := true);
            !cur in
        if !gated then finish n new_n
        else begin
          push st n 1 new_n;
          (* CALL/FUNCTION bodies are not part of the rewrite *)
          if (not enter_calls) && is_opaque_call new_n then
            Id_tbl.replace replace new_n.src.(0).id new_n.src.(0);
          let srcs = new_n.src in
          for i = Array.length srcs - 1 downto 0 do
            let x = srcs.(i) in
            if not (Id_tbl.Set.mem on_stack x.id) then begin push st x 0 x; Id_tbl.Set.add on_stack x.id end
          done
        end
      end
      else if stage = 1 then begin
        let srcs = new_n.src in
        match sources_state replace srcs 0 true with
        | Waiting_on x -> wait x (n, 1, new_n)
        | (Same | Changed) as state ->
          let next =
            if state = Same then (match pm with None -> None | Some f -> f new_n)
            else Some (rebuild new_n (Array.map (fun (x : Uop.t) -> Id_tbl.find_or replace x.id x) srcs)) in
          match next with
          | None -> finish_known n new_n
          | Some new_src_n -> push st n 2 new_src_n; push st new_src_n 0 new_src_n
      end
      else begin
        match Id_tbl.find_opt replace new_n.id with
        | None -> wait new_n (n, 2, new_n)
        | Some r -> finish_known n r
      end
    end
  done;
  match Id_tbl.find_opt replace root.id with Some r -> r | None -> raise Not_found

(* tinygrad: RewriteContext.walk_rewrite — single pass, no re-traversal of rewritten subtrees *)
let walk_rewrite ~pm ~bpm ~enter_calls (root : Uop.t) =
  Id_tbl.with_table node_pool @@ fun replace ->
  Id_tbl.with_table bpm_pool @@ fun bpm_cache ->
  let st = { ns = Array.make 16 root; stages = Array.make 16 0; news = Array.make 16 root; sp = 0 } in
  push st root 0 root;
  while st.sp > 0 do
    st.sp <- st.sp - 1;
    let n = st.ns.(st.sp) and processed = st.stages.(st.sp) = 1 in
    if not (Id_tbl.mem replace n.id) then begin
      if not processed then begin
        match (match bpm with None -> None | Some f -> cached_bpm bpm_cache f n) with
        | Some rewritten -> Id_tbl.replace replace n.id rewritten
        | None ->
          push st n 1 n;
          if (not enter_calls) && is_opaque_call n then Id_tbl.replace replace n.src.(0).id n.src.(0);
          for i = Array.length n.src - 1 downto 0 do
            let x = n.src.(i) in
            if not (Id_tbl.mem replace x.id) then push st x 0 x
          done
      end else begin
        let new_src = Array.map (fun (x : Uop.t) -> Id_tbl.find_or replace x.id x) n.src in
        let changed = ref false in
        Array.iteri (fun i x -> if x != n.src.(i) then changed := true) new_src;
        let new_n = if !changed then rebuild n new_src else n in
        let new_n =
          match pm with None -> new_n | Some f -> (match f new_n with Some r -> r | None -> new_n) in
        Id_tbl.replace replace n.id new_n
      end
    end
  done;
  match Id_tbl.find_opt replace root.id with Some r -> r | None -> root

let rewrite_fns ?known ?(walk = false) ?(enter_calls = false) ~pm ~bpm sink =
  if walk then walk_rewrite ~pm ~bpm ~enter_calls sink else unified_rewrite ?known ~pm ~bpm ~enter_calls sink

(* tinygrad: the name given to graph_rewrite is what VIZ shows; here an optional tracer sees each named pass *)
let rewrite_tracer : (string -> Uop.t -> (unit -> Uop.t) -> Uop.t) option ref = ref None

let with_rewrite_tracer trace f =
  rewrite_tracer := Some trace;
  Fun.protect ~finally:(fun () -> rewrite_tracer := None) f

(* tinygrad: graph_rewrite *)
let graph_rewrite ?(bottom_up = false) ?bpm ?walk ?enter_calls ?known ?name pm ctx sink =
  if Option.is_some known && (bottom_up || Option.is_some bpm || walk = Some true) then
    invalid_arg "graph_rewrite: known results are for a top-down rewrite only (no bpm, bottom_up or walk)";
  let run () =
    let f = Some (rewrite pm ctx) in
    let pm_f, bpm_f = if bottom_up then (None, f) else (f, Option.map (fun b -> rewrite b ctx) bpm) in
    rewrite_fns ?known ?walk ?enter_calls ~pm:pm_f ~bpm:bpm_f sink in
  match !rewrite_tracer, name with
  | Some trace, Some name -> trace name sink run
  | _ -> run ()

(* tinygrad: _substitute *)
let substitute_pm : Uop.t Tbl.t matcher =
  matcher [ rule_ctx (mk ~op:Ops.Group.all ~name:"x" ()) (fun ctx c -> Tbl.find_opt ctx (get c "x")) ]

(* tinygrad: UOp.substitute; (extra_pm + _substitute) is applied as one matcher, extra rules first *)
let substitute ?walk ?extra_pm ?enter_calls (u : Uop.t) pairs =
  let dvars : Uop.t Tbl.t = Tbl.create 16 in
  List.iter (fun (k, v) -> Tbl.replace dvars k v) pairs;
  let same = Tbl.fold (fun k v acc -> if k == v then k :: acc else acc) dvars [] in
  List.iter (Tbl.remove dvars) same;
  if Tbl.length dvars = 0 then u
  else
    let subst x = Tbl.find_opt dvars x in
    let bpm = match extra_pm with
      | None -> subst
      | Some pm -> fun x -> (match rewrite pm dvars x with Some _ as r -> r | None -> subst x) in
    rewrite_fns ?walk ?enter_calls ~pm:None ~bpm:(Some bpm) u
