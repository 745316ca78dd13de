(** UPat, PatternMatcher and graph_rewrite. tinygrad: [uop/ops.py] (UPat, PatternMatcher, RewriteContext,
    graph_rewrite) — the rewrite engine that every pass of the compiler is written in.

    A pass is a named list of rules (a pattern and a callback) and one [graph_rewrite] call. Rule order is
    priority: for a node, rules registered under its op are tried in list order, and the first callback that
    returns [Some u] with [u != node] wins. *)

(** {1 Patterns} *)

(** A pattern over UOps. *)
type t

(** How a pattern's sources are matched. tinygrad uses a tuple, a list or a single UPat. *)
type src =
  | In_order of t list  (** a Python tuple: sources match in order *)
  | Permuted of t list  (** a Python list: every permutation is tried (commutative match) *)
  | Repeat of t  (** a single UPat: it must match every source, any number of them *)

(** [make ?op ?dtype ?src ?arg ?name ?allow_any_len ?custom_early_reject ?tag ()] is tinygrad's
    [UPat(op, dtype, src, arg, name, allow_any_len, custom_early_reject, tag=...)]. [op] and [dtype] are
    sets ([None]: anything). A name binds the matched node; binding one name twice requires the same node. *)
val make :
  ?op:Ops.t list -> ?dtype:Dtype.t list -> ?src:src -> ?arg:Uop.arg -> ?name:string -> ?allow_any_len:bool ->
  ?custom_early_reject:Ops.t list -> ?tag:Uop.arg list -> unit -> t

(** [pat ?dtype ?src ?arg ?name op] is [make ~op:[op] ...], the common single-op case. *)
val pat : ?dtype:Dtype.t list -> ?src:src -> ?arg:Uop.arg -> ?name:string -> ?allow_any_len:bool -> Ops.t -> t

(** [ops ?dtype ?src ?arg ?name l] matches any op in [l]. *)
val ops : ?dtype:Dtype.t list -> ?src:src -> ?arg:Uop.arg -> ?name:string -> ?allow_any_len:bool -> Ops.t list -> t

(** [UPat.var(name, dtype)]: matches anything (optionally of the given dtypes) and binds it. *)
val var : ?dtype:Dtype.t list -> string -> t

(** An unnamed wildcard ([UPat()]). *)
val wild : t

(** [UPat.cvar(name, dtype, arg)]: a CONST, optionally with the given value. *)
val cvar : ?dtype:Dtype.t list -> ?arg:Dtype.const -> string -> t

(** [UPat.const(dtype, b)]: an unnamed CONST with value [b]. *)
val const : ?dtype:Dtype.t list -> Dtype.const -> t

(** [UPat.any(pats...)]: matches if any alternative matches (all matches are tried). *)
val any : t list -> t

(** A copy with a new name. *)
val named : string -> t -> t

(** [p.or_casted(name)]: [p] or [CAST(p)]. *)
val or_casted : ?name:string -> t -> t

(** [p.or_after(name)]: [p] or [AFTER(p, ...)]. *)
val or_after : ?name:string -> t -> t

(** The first dtype the pattern matches, or void ([UPat.dtype]). *)
val dtype : t -> Dtype.t

(** {2 Builders mirroring the UOp ones (tinygrad's UPat methods and OpMixin overloads)} *)

(** [UPat.alu(op, *src)]: commutative ops match their sources in any order. *)
val alu : Ops.t -> t list -> t

(** [p.cast(dtype)] (returns [p] itself if it already matches exactly that dtype). *)
val cast : ?dtype:Dtype.t -> ?name:string -> t -> t

(** [p.bitcast(dtype)]. *)
val bitcast : ?dtype:Dtype.t -> t -> t

(** [p.index(srcs...)]. *)
val index : ?name:string -> ?allow_any_len:bool -> t -> t list -> t

(** [p.load(srcs...)]. *)
val load : ?name:string -> ?allow_any_len:bool -> t -> t list -> t

(** [p.store(srcs...)]. *)
val store : ?name:string -> ?allow_any_len:bool -> t -> t list -> t

(** [p.reduce(srcs..., arg)]. *)
val reduce : ?name:string -> ?allow_any_len:bool -> ?arg:Uop.arg -> t -> t list -> t

(** [p.after(srcs...)]. *)
val after : ?name:string -> ?allow_any_len:bool -> t -> t list -> t

(** [p.end(srcs...)]. *)
val end_ : ?name:string -> ?allow_any_len:bool -> t -> t list -> t

(** [p.broadcast()]: a STACK whose sources all match [p]. *)
val broadcast : ?name:string -> t -> t

(** [UPat.sink(srcs...)]. *)
val sink : ?name:string -> t list -> t

(** [p.f(op)]: a single-source pattern. *)
val f : ?dtype:Dtype.t list -> ?arg:Uop.arg -> ?name:string -> Ops.t -> t -> t

(** [cond.where(x, y)]. *)
val where : t -> t -> t -> t

(** [x.ne(y)]: CMPNE over any permutation, dtype bool. *)
val ne : t -> t -> t

(** [x.eq(y)]: [logical_not (ne x y)], as tinygrad builds it. *)
val eq : t -> t -> t

(** [x.logical_not()]: [x.cast(bool).ne(True)] ([cast] keeps [x] if it is already exactly bool). *)
val logical_not : t -> t

(** [-x]: [x * -1], or [logical_not x] if the pattern's dtype is bool. *)
val neg : t -> t

(** [x - y]: [ADD(x, neg y)] over any permutation (tinygrad's ElementwiseMixin.sub). *)
val sub : t -> t -> t

(** [x.maximum(y)]: MAX over any permutation. *)
val maximum : t -> t -> t

(** [x.reciprocal()]. *)
val reciprocal : t -> t

(** [x.trunc()]. *)
val trunc : t -> t

(** [x.sqrt()]. *)
val sqrt : t -> t

(** Operator sugar, as Python's overloads on UPat build patterns: [var "x" + cvar "c"] is
    [ADD] over any permutation of the two. Integer literals become [cvar ~arg]. *)
module O : sig
  (** [x + y]. *)
  val ( + ) : t -> t -> t

  (** [x * y]. *)
  val ( * ) : t -> t -> t

  (** [x - y], built as tinygrad builds it: [x + (y * -1)]. *)
  val ( - ) : t -> t -> t

  (** [-x]: [x * -1] (or the logical not on bool patterns). *)
  val ( ~- ) : t -> t

  (** [x // y] (FLOORDIV). *)
  val ( // ) : t -> t -> t

  (** [x % y] (FLOORMOD). *)
  val ( mod ) : t -> t -> t

  (** [x < y] (CMPLT). *)
  val ( < ) : t -> t -> t

  (** [x > y]: CMPLT with the operands swapped. *)
  val ( > ) : t -> t -> t

  (** [x >= y]: [logical_not (x < y)]. *)
  val ( >= ) : t -> t -> t

  (** [x <= y]: [logical_not (x > y)]. *)
  val ( <= ) : t -> t -> t

  (** [x != y] (CMPNE). *)
  val ( <> ) : t -> t -> t

  (** [x & y]. *)
  val ( land ) : t -> t -> t

  (** [x | y]. *)
  val ( lor ) : t -> t -> t

  (** [x ^ y]. *)
  val ( lxor ) : t -> t -> t

  (** [x << y] (SHL). *)
  val ( lsl ) : t -> t -> t

  (** [x >> y] (SHR). *)
  val ( lsr ) : t -> t -> t

  (** An integer literal: [UPat.cvar(arg=n)]. *)
  val i : int -> t

  (** A float literal: [UPat.cvar(arg=x)] (matches any CONST equal to [x] in Python's sense). Not named
      [f] so that [O.( ... )] does not shadow {!f}. *)
  val fl : float -> t

  (** A bool literal: [UPat.cvar(arg=b)]. *)
  val bl : bool -> t
end

(** {1 Matching} *)

(** The named captures of one match. *)
type captures

(** The node bound to a name; raises [Not_found] if the pattern did not bind it. *)
val get : captures -> string -> Uop.t

(** The node bound to a name, if any (for patterns with [any] alternatives). *)
val find : captures -> string -> Uop.t option

(** Every way the pattern matches the node (permutations and [any] can fork), in tinygrad's order. An
    [arg] compares as Python's [==] does: CONST values by number across int/float/bool ([0 = 0.0 = False]),
    nan equal to nan (tinygrad's ConstFloat). *)
val match_ : t -> Uop.t -> captures list

(** [first_match p u k]: [k] applied to the matches of [p] on [u] in [match_]'s order, the first [Some] it
    returns (no list of matches built). *)
val first_match : t -> Uop.t -> (captures -> 'r option) -> 'r option

(** [index_by_op pat_of rules]: for each op (by {!Ops.value}), the rules whose pattern ([pat_of]) can match a
    node of that op, in their order: what a first-deciding scan over [rules] needs to look at. *)
val index_by_op : ('r -> t) -> 'r list -> 'r list array

(** {1 Pattern matchers} *)

(** A rule: a pattern and a callback from the pass context and the captures to a replacement. *)
type 'ctx rule

(** A context-free rule. *)
val rule : t -> (captures -> Uop.t option) -> 'ctx rule

(** A rule whose callback reads the pass context ([ctx] in tinygrad's lambdas). *)
val rule_ctx : t -> ('ctx -> captures -> Uop.t option) -> 'ctx rule

(** An ordered list of rules, indexed by op. tinygrad: [PatternMatcher]. *)
type 'ctx matcher

(** Build a matcher; a pattern must name its op(s). *)
val matcher : 'ctx rule list -> 'ctx matcher

(** [a @@@ b] concatenates (tinygrad's [pm1 + pm2]): [a]'s rules have priority. Cached per pair, like
    tinygrad's. *)
val ( @@@ ) : 'ctx matcher -> 'ctx matcher -> 'ctx matcher

(** Use a context-free matcher in a pass that has a context (this builds a new matcher: lift once, not
    per call). *)
val lift : unit matcher -> 'ctx matcher

(** The rules of a matcher, in order. *)
val rules : 'ctx matcher -> 'ctx rule list

(** [rewrite pm ctx u]: the first rule result for [u] that is not [u] itself. Rules registered under [u]'s op
    are tried in order, skipping those whose early-reject ops are not all among [u]'s src ops. Within a rule
    the matches are tried in order until the callback returns [Some]; [Some u] (the node itself) then ends
    that rule and the next rule is tried (tinygrad's upat_interpret and PatternMatcher.rewrite). *)
val rewrite : 'ctx matcher -> 'ctx -> Uop.t -> Uop.t option

(** {1 Graph rewrite} *)

(** Raised by a bottom-up callback to keep a node as it is and not descend into it (tinygrad's
    [BottomUpGate]). *)
exception Bottom_up_gate

(** The body stays behind a CALL rather than being wrapped in a value FUNCTION: SINK, PROGRAM, LINEAR, COPY
    and CUSTOM_FUNCTION. tinygrad [UOp._OPAQUE_CALL_BODIES]. *)
val opaque_body : Uop.t -> bool

(** [graph_rewrite ?bottom_up ?bpm ?walk ?enter_calls ?name pm ctx sink] with tinygrad's exact semantics:
    [pm] runs post-order to a fixed point (a result is itself rewritten again); [bpm] (or [pm] with
    [~bottom_up:true]) runs pre-order until no change before descending; [~walk:true] is a single pass with
    no re-traversal. Bodies of FUNCTION and opaque CALLs are not entered unless [~enter_calls:true].
    Iterative: graphs of 10^5 nodes do not overflow the stack. [~known] (not in tinygrad) holds the results of
    earlier rewrites with the same [pm], [ctx] and [enter_calls], by node id: a node found there takes that
    result unvisited, and every node rewritten is added. It serves a pure top-down rewrite only (a node's result
    then depends on the node alone); with [bpm], [~bottom_up:true] or [~walk:true] it raises
    [Invalid_argument]. *)
val graph_rewrite :
  ?bottom_up:bool -> ?bpm:'ctx matcher -> ?walk:bool -> ?enter_calls:bool -> ?known:Uop.t Id_tbl.t -> ?name:string ->
  'ctx matcher -> 'ctx -> Uop.t -> Uop.t

(** [with_rewrite_tracer trace f] runs [f] with a tracer of named passes (tinygrad's VIZ /
    TRACK_MATCH_STATS in spirit): every [graph_rewrite] given a [~name] calls [trace name input run], where
    [run ()] performs the rewrite and returns its result; the tracer must return that result. Without a
    tracer (outside [f]) a rewrite costs one test more. docs/gen_tour.ml prints the passes with it. *)
val with_rewrite_tracer : (string -> Uop.t -> (unit -> Uop.t) -> Uop.t) -> (unit -> 'a) -> 'a

(** tinygrad's [_substitute]: every node found in the context table is replaced by its value. *)
val substitute_pm : Uop.t Uop.Tbl.t matcher

(** [substitute ?walk ?extra_pm ?enter_calls u pairs] replaces nodes (bottom-up, by identity; a later pair
    for the same key wins, pairs [(k, k)] are dropped, and no pairs left returns [u]). [extra_pm]'s rules
    are tried before the table, with the table (the pairs left) as their context. tinygrad: [UOp.substitute]. *)
val substitute :
  ?walk:bool -> ?extra_pm:Uop.t Uop.Tbl.t matcher -> ?enter_calls:bool -> Uop.t -> (Uop.t * Uop.t) list -> Uop.t
