(** Learning-rate schedulers. tinygrad: [extra/lr_scheduler.py] ([LR_Scheduler], [OneCycleLR]; the other
    schedulers of that file are not ported). The epoch counter (int32, shape [(1,)]) lives on the optimizer's
    devices, and a step assigns the advanced counter and the new rate to the optimizer's [lr] tensor in one
    schedule. *)

(** A scheduler over one optimizer. *)
type t

(** [create optimizer get_lr]: a scheduler whose rate is [get_lr epoch_counter], the counter at 0. tinygrad
    [LR_Scheduler.__init__] with the subclass's [get_lr]. *)
val create : Optim.t -> (Tensor.t -> Tensor.t) -> t

(** The epoch counter tensor (the steps taken). tinygrad [LR_Scheduler.epoch_counter]. *)
val epoch_counter : t -> Tensor.t

(** The rate for the current counter, unrealized. tinygrad [get_lr]. *)
val get_lr : t -> Tensor.t

(** The counter advanced by one and the optimizer's rate assigned from it, to realize together. tinygrad
    [LR_Scheduler.schedule_step]. *)
val schedule_step : t -> Tensor.t list

(** {!schedule_step}, realized. tinygrad [LR_Scheduler.step]. *)
val step : t -> unit

(** [one_cycle_lr optimizer ~max_lr ~div_factor ~final_div_factor ~total_steps ~pct_start]: the rate rises
    linearly from [max_lr /. div_factor] to [max_lr] over the first [pct_start] of [total_steps], then falls
    linearly to [max_lr /. div_factor /. final_div_factor]; the optimizer's rate is set to the first value at
    once. tinygrad [OneCycleLR] (its only modes: linear annealing, no momentum cycling). *)
val one_cycle_lr :
  Optim.t -> max_lr:float -> div_factor:float -> final_div_factor:float -> total_steps:int -> pct_start:float ->
  t
