(** Reverse-mode differentiation over UOp graphs. tinygrad: [mixin/gradient.py] ([pm_gradient],
    [compute_gradient]) and [OpMixin.gradient].

    A FUNCTION's gradient is [call_gradient]'s implicit one: the GETTUPLEs' gradients gathered into a TUPLE,
    one backward FUNCTION for the args on a target path. Deviation: CallInfo is not modelled, so there is no
    custom [grad_fxn] and no precompiled call; a CALL (an opaque body) raises [Invalid_argument], and
    AFTER(d, CALL) passes the gradient to [d] only. *)

(** [reduce_gradient ctx ret op]: the gradient of a REDUCE of [op] (ADD, MAX, MUL) given its output's
    gradient [ctx]. tinygrad [reduce_gradient]. *)
val reduce_gradient : Uop.t -> Uop.t -> Ops.t -> Uop.t option array

(** [pm_gradient ctx ret]: one optional gradient per source of [ret] given [ctx], the gradient of its output;
    [None] when no rule knows the op. The rules of tinygrad's [pm_gradient], in its order. *)
val pm_gradient : Uop.t -> Uop.t -> Uop.t option array option

(** [deepwalk root targets]: the nodes on a path from a target to [root] (sources first, DETACH excluded)
    and the in-target-path map of every visited node. tinygrad [_deepwalk]. *)
val deepwalk : Uop.t -> unit Uop.Tbl.t -> Uop.t list * bool Uop.Tbl.t

(** [compute_gradient root root_grad targets]: the gradient of every node on a target path, edges whose
    gradient is broadcast summed back to the source's shape. tinygrad [compute_gradient]. *)
val compute_gradient : Uop.t -> Uop.t -> Uop.t list -> Uop.t Uop.Tbl.t

(** [gradient ?gradient self targets]: d(self)/d(target) for each target (zeros for the unreached ones);
    [self] must be a scalar unless [gradient] is given; float dtypes only, no weak targets.
    tinygrad [OpMixin.gradient]. *)
val gradient : ?gradient:Uop.t -> Uop.t -> Uop.t list -> Uop.t list
