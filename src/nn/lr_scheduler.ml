(* tinygrad: extra/lr_scheduler.py — the LR_Scheduler base and OneCycleLR (linear annealing, no momentum
   cycling, the only modes tinygrad's OneCycleLR accepts). The epoch counter and the rate are tensors on the
   optimizer's devices, so a step is one schedule and a JIT can capture it. *)

module T = Tensor

type t = { optimizer : Optim.t; epoch_counter : T.t; get_lr : T.t -> T.t }

(* tinygrad: LR_Scheduler.__init__ — Tensor([0], device=optimizer.device), replicated on a tuple of devices *)
let create optimizer get_lr =
  let devices = T.devices (Optim.lr optimizer) in
  let counter = T.of_int_array ~device:(List.hd devices) [| 1 |] [| 0 |] in
  let counter = if List.length devices > 1 then T.to_devices counter devices else counter in
  { optimizer; epoch_counter = counter; get_lr }

let epoch_counter s = s.epoch_counter
let get_lr s = s.get_lr s.epoch_counter

(* tinygrad: LR_Scheduler.schedule_step — the rate is computed from the counter already advanced *)
let schedule_step s =
  let counter = T.assign s.epoch_counter (T.add s.epoch_counter (T.scalar_int 1)) in
  [ counter; T.assign (Optim.lr s.optimizer) (get_lr s) ]

(* tinygrad: LR_Scheduler.step *)
let step s = T.realize_all (schedule_step s)

(* tinygrad: OneCycleLR._annealing_linear *)
let annealing_linear start end_ pct = T.add (T.mul pct (T.scalar (end_ -. start))) (T.scalar start)

(* tinygrad: OneCycleLR — from max_lr / div_factor up to max_lr over the first pct_start of total_steps, then
   down to max_lr / div_factor / final_div_factor; the optimizer's rate is set to the first value at once *)
let one_cycle_lr optimizer ~max_lr ~div_factor ~final_div_factor ~total_steps ~pct_start =
  let initial_lr = max_lr /. div_factor in
  let min_lr = initial_lr /. final_div_factor in
  let warm = float_of_int total_steps *. pct_start in
  let rest = float_of_int total_steps *. (1. -. pct_start) in
  let lr_dtype = T.dtype (Optim.lr optimizer) in
  let lr epoch =
    let rising = annealing_linear initial_lr max_lr (T.div epoch (T.scalar warm)) in
    let falling = annealing_linear max_lr min_lr (T.div (T.sub epoch (T.scalar warm)) (T.scalar rest)) in
    T.cast (T.where (T.lt epoch (T.scalar warm)) rising falling) lr_dtype in
  let s = create optimizer lr in
  ignore (T.realize (T.assign (Optim.lr optimizer) (get_lr s)));
  s
