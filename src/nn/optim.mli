(** Optimizers. tinygrad: [nn/optim.py] ([Optimizer], [OptimizerGroup], [SGD], [Muon], [LARS], [AdamW], [Adam],
    [LAMB]). An optimizer keeps the tensors of its list that are parameters ([is_param]) and the others as buffers
    (e.g. BatchNorm running statistics) that each step also realizes; its learning rate is a float32 tensor (a
    one-element buffer, or a constant with CONST_LR=1) that may be reassigned. [step] updates the parameters in
    place by [Tensor.assign] and realizes them with the optimizer state in one schedule, as tinygrad's
    [Tensor.realize] of [schedule_step]. [?fused] (default FUSE_OPTIM) concatenates all parameters into one;
    OPTIM_DTYPE (default float32) is the dtype of the optimizer state. *)

(** An optimizer, or a group of them (tinygrad [OptimizerGroup]). *)
type t

(** Whether TRAINING is on: the TRAINING context var ([Helpers.training]). The step requires it. *)
val training_enabled : unit -> bool

(** [sgd params]: stochastic gradient descent; [lr] 0.001, [momentum] 0, [weight_decay] 0, [nesterov] false,
    [classic] false (the popular rule: momentum before the learning rate). tinygrad [SGD] (LARS with tcoef 0). *)
val sgd :
  ?lr:float -> ?momentum:float -> ?weight_decay:float -> ?nesterov:bool -> ?classic:bool -> ?device:string ->
  ?fused:bool -> Tensor.t list -> t

(** [lars params]: layer-wise adaptive rate scaling; [lr] 0.001, [momentum] 0.9, [weight_decay] 1e-4, [ns_steps] 0,
    [nesterov] false, [classic] true, [pre_wd] true, [tcoef] 0.001. tinygrad [LARS]. *)
val lars :
  ?lr:float -> ?momentum:float -> ?weight_decay:float -> ?ns_steps:int -> ?ns_coefficients:float list ->
  ?nesterov:bool -> ?classic:bool -> ?pre_wd:bool -> ?tcoef:float -> ?device:string -> ?fused:bool ->
  Tensor.t list -> t

(** [muon params]: SGD on the Newton-Schulz orthogonalised gradient with post-momentum weight decay; [lr] 0.001,
    [momentum] 0.95, [weight_decay] 0.1, [ns_steps] 5, [nesterov] true; [fused] must be false. tinygrad [Muon]. *)
val muon :
  ?lr:float -> ?momentum:float -> ?weight_decay:float -> ?ns_steps:int -> ?ns_coefficients:float list ->
  ?nesterov:bool -> ?device:string -> ?fused:bool -> Tensor.t list -> t

(** [lamb params]: LAMB; [lr] 0.001, [b1] 0.9, [b2] 0.999, [eps] 1e-6, [weight_decay] 0, [adam] false (true: no
    trust ratio, i.e. Adam/AdamW). tinygrad [LAMB]. *)
val lamb :
  ?lr:float -> ?b1:float -> ?b2:float -> ?eps:float -> ?weight_decay:float -> ?adam:bool -> ?device:string ->
  ?fused:bool -> Tensor.t list -> t

(** [adamw params]: Adam with decoupled weight decay; [lr] 0.001, [b1] 0.9, [b2] 0.999, [eps] 1e-8, [weight_decay]
    0.01. tinygrad [AdamW]. *)
val adamw :
  ?lr:float -> ?b1:float -> ?b2:float -> ?eps:float -> ?weight_decay:float -> ?device:string -> ?fused:bool ->
  Tensor.t list -> t

(** [adam params]: Adam; [lr] 0.001, [b1] 0.9, [b2] 0.999, [eps] 1e-8. tinygrad [Adam]. *)
val adam : ?lr:float -> ?b1:float -> ?b2:float -> ?eps:float -> ?device:string -> ?fused:bool -> Tensor.t list -> t

(** Several optimizers stepped as one. tinygrad [OptimizerGroup]. *)
val group : t list -> t

(** Sets the gradients of all the parameters to none. tinygrad [Optimizer.zero_grad]. *)
val zero_grad : t -> unit

(** Builds the update (assigns to the parameters and the optimizer state) and returns the tensors to realize: the
    optimizer state, the parameters, the buffers. Raises [Invalid_argument] when TRAINING is off or a parameter has
    no gradient. tinygrad [Optimizer.schedule_step]. *)
val schedule_step : t -> Tensor.t list

(** {!schedule_step}, realized in one schedule. tinygrad [Optimizer.step]. *)
val step : t -> unit

(** The parameters (deduplicated, in order). tinygrad [Optimizer.params]. *)
val params : t -> Tensor.t list

(** The non-parameter tensors given, realized with each step. tinygrad [Optimizer.buffers]. *)
val buffers : t -> Tensor.t list

(** The learning-rate tensor (shape [(1,)], float32); a group raises [Invalid_argument]. tinygrad [Optimizer.lr]. *)
val lr : t -> Tensor.t

(** [newton_schulz steps coefficients x]: the Newton-Schulz iteration for the odd polynomial with the coefficients,
    on the last two axes ([eps] 1e-7). tinygrad [Tensor.newton_schulz]. *)
val newton_schulz : ?eps:float -> int -> float list -> Tensor.t -> Tensor.t
