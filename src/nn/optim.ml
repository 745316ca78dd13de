(* tinygrad: nn/optim.py — Optimizer, OptimizerGroup, SGD/Muon/LARS, AdamW/Adam/LAMB. The step updates the
   parameters in place by [assign]; the learning rate is a tensor; [schedule_step] returns the tensors to realize. *)

module T = Tensor

(* tinygrad's TRAINING context var *)
let training_enabled () = Helpers.training.value <> 0

type lars = {
  momentum : float;
  lars_wd : float;
  ns_steps : int;
  ns_coefficients : float list option;
  nesterov : bool;
  classic : bool;
  pre_wd : bool;
  tcoef : float;
  b : T.t list;
}

type lamb = {
  b1 : float;
  b2 : float;
  eps : float;
  lamb_wd : float;
  adam : bool;
  b1_t : T.t;
  b2_t : T.t;
  m : T.t list;
  v : T.t list;
}

type algo = Lars of lars | Lamb of lamb

type optimizer = {
  params : T.t list;
  buffers : T.t list;
  devices : string list;  (* one device, or the tuple of devices of sharded params *)
  param_dtype : Dtype.t;
  fused : bool;
  lr : T.t;
  pos_params : int list;
  algo : algo;
}

type t = Optimizer of optimizer | Group of t list

(* tinygrad: helpers.dedup — first occurrence, by identity *)
let dedup (l : T.t list) =
  List.rev (List.fold_left (fun acc x -> if List.exists (fun y -> y == x) acc then acc else x :: acc) [] l)

let scalar = T.scalar

(* a tuple of devices (tinygrad: isinstance(self.device, tuple)) *)
let is_multi devices = List.length devices > 1

(* a tensor made on the first device, replicated when the optimizer's params live on several *)
let on_devices devices t = if is_multi devices then T.to_devices t devices else t

(* tinygrad: up.to(t.device) — onto the devices (and axis) of [t] *)
let to_like (up : T.t) (t : T.t) =
  if T.devices up = T.devices t then up else if T.is_sharded t then T.shard_like up t else T.to_device up (T.device t)

(* tinygrad: Optimizer.__init__ *)
let base ~op ?device ?fused (params : T.t list) lr =
  if lr < 0. then invalid_arg (Printf.sprintf "%s: Invalid learning rate: %g" op lr);
  let ps = dedup (List.filter (fun (x : T.t) -> Tensor_base.is_param x) params) in
  if ps = [] then invalid_arg (op ^ ": optimizer must have at least one param");
  let buffers = dedup (List.filter (fun (x : T.t) -> not (Tensor_base.is_param x)) params) in
  let devices = match device with Some d -> [ d ] | None -> T.devices (List.hd ps) in
  let device = List.hd devices in
  let param_dtype =
    let s = Helpers.optim_dtype.value in
    match Dtype.of_string s with Some d -> d | None -> invalid_arg (op ^ ": unknown OPTIM_DTYPE " ^ s) in
  let fused = match fused with Some f -> f | None -> Helpers.fuse_optim.value <> 0 in
  (* store lr in at least float32 precision *)
  let lr_dtype = Dtype.least_upper_dtype [ Dtype.default_float (); Dtype.float32 ] in
  let lr_t =
    if Helpers.const_lr.value <> 0 then T.full ~dtype:lr_dtype ~device [||] lr
    else Tensor_base.from_py_floats ~device lr_dtype [| lr |] in
  let lr_t = on_devices devices lr_t in
  let pos_params =
    if fused then List.rev (List.fold_left (fun acc p -> (List.hd acc + T.numel p) :: acc) [ 0 ] ps) else [] in
  fun algo -> { params = ps; buffers; devices; param_dtype; fused; lr = lr_t; pos_params; algo }

(* tinygrad: Optimizer._new_optim_param *)
let new_optim_param ~devices ~param_dtype ~fused ~pos_params params =
  let device = List.hd devices in
  if fused then [ on_devices devices (T.zeros ~dtype:param_dtype ~device [| Helpers.last pos_params |]) ]
  else if is_multi devices then List.map (fun p -> T.zeros_like ~dtype:param_dtype p) params
  else List.map (fun p -> T.zeros ~dtype:param_dtype ~device (T.shape p)) params

let rec params = function Optimizer o -> o.params | Group os -> List.concat_map params os
let rec buffers = function Optimizer o -> o.buffers | Group os -> List.concat_map buffers os

let lr = function Optimizer o -> o.lr | Group _ -> invalid_arg "Optim.lr: an OptimizerGroup has no single lr"

let rec zero_grad = function
  | Optimizer o -> List.iter (fun (p : T.t) -> Tensor_base.set_grad p None) o.params
  | Group os -> List.iter zero_grad os

(* tinygrad: mixin/op.py newton_schulz *)
let rec newton_schulz ?(eps = 1.0e-7) steps (params : float list) (x : T.t) =
  if T.ndim x <= 1 then invalid_arg "newton_schulz: NS only works for two or more dims";
  let sh = T.shape x in
  let n = Array.length sh in
  if sh.(n - 2) > sh.(n - 1) then
    T.transpose ~dim0:(-2) ~dim1:(-1)
      (newton_schulz ~eps steps params (T.transpose ~dim0:(-2) ~dim1:(-1) x))
  else begin
    let g = ref (T.div x (T.add (T.sqrt (T.sum ~axis:[ -2; -1 ] ~keepdim:true (T.square x))) (scalar eps))) in
    for _ = 1 to steps do
      let gg = !g in
      let term i p =
        let rec apply k acc = if k = 0 then acc else apply (k - 1) (T.matmul (T.matmul gg (T.transpose ~dim0:(-2) ~dim1:(-1) gg)) acc) in
        T.mul (scalar p) (apply i gg) in
      let terms = List.mapi term params in
      g := List.fold_left T.add (List.hd terms) (List.tl terms)
    done;
    !g
  end

(* tinygrad: LARS._step *)
let lars_step (o : optimizer) (l : lars) (params : T.t list) (grads : T.t list) =
  let ret = List.mapi (fun i (t, g) ->
      let r =
        if l.tcoef <> 0. then begin
          let r1 = T.sqrt (T.sum (T.square (T.detach t))) in
          let r2 = T.sqrt (T.sum (T.square g)) in
          let zero = scalar 0. in
          T.where (T.gt r1 zero)
            (T.where (T.gt r2 zero)
               (T.div (T.mul (scalar l.tcoef) r1) (T.add r2 (T.mul (scalar l.lars_wd) r1))) (scalar 1.0))
            (scalar 1.0)
        end else scalar 1.0 in
      let g = if l.pre_wd && l.lars_wd > 0. then T.add g (T.mul (scalar l.lars_wd) (T.detach t)) else g in
      (* classic momentum does post learning rate update *)
      let g = if l.classic then T.mul (T.mul g r) o.lr else g in
      let g =
        if l.momentum <> 0. then begin
          let b = List.nth l.b i in
          (* NOTE: b is zero on the first run, no if required *)
          ignore (T.assign b (T.add (T.mul (scalar l.momentum) b) g));
          if l.nesterov then T.add g (T.mul (scalar l.momentum) b) else b
        end else g in
      let g = match l.ns_coefficients with
        | Some c when c <> [] ->
          let sh = T.shape g in
          T.reshape (newton_schulz l.ns_steps c (T.reshape g [| sh.(0); -1 |])) sh
        | _ -> g in
      (* popular momentum does pre learning rate update *)
      let g = if not l.classic then T.mul (T.mul g r) o.lr else g in
      (* muon does post momentum weight decay *)
      let g = if (not l.pre_wd) && l.lars_wd > 0. then T.add g (T.mul (T.mul (scalar l.lars_wd) o.lr) (T.detach t)) else g in
      T.cast g (T.dtype t)) (List.combine params grads) in
  (ret, l.b)

(* tinygrad: LAMB._step *)
let lamb_step (o : optimizer) (l : lamb) (params : T.t list) (grads : T.t list) =
  ignore (T.assign l.b1_t (T.mul l.b1_t (scalar l.b1)));
  ignore (T.assign l.b2_t (T.mul l.b2_t (scalar l.b2)));
  let ret = List.mapi (fun i (t, g) ->
      let m = List.nth l.m i and v = List.nth l.v i in
      let g = if T.devices g <> T.devices m then to_like (T.contiguous g) m else g in
      ignore (T.assign m (T.cast (T.add (T.mul (scalar l.b1) m) (T.mul (scalar (1.0 -. l.b1)) g)) (T.dtype m)));
      ignore (T.assign v (T.cast (T.add (T.mul (scalar l.b2) v) (T.mul (scalar (1.0 -. l.b2)) (T.mul g g))) (T.dtype v)));
      let m_hat = T.div m (T.sub (scalar 1.0) l.b1_t) in
      let v_hat = T.div v (T.sub (scalar 1.0) l.b2_t) in
      let up = T.add (T.div m_hat (T.add (T.sqrt v_hat) (scalar l.eps))) (T.mul (scalar l.lamb_wd) (T.detach t)) in
      let r =
        if not l.adam then begin
          let r1 = T.sqrt (T.sum (T.square (T.detach t))) in
          let r2 = T.sqrt (T.sum (T.square up)) in
          let zero = scalar 0. in
          T.where (T.gt r1 zero) (T.where (T.gt r2 zero) (T.div r1 r2) (scalar 1.0)) (scalar 1.0)
        end else scalar 1.0 in
      T.cast (T.mul (T.mul o.lr r) up) (T.dtype t)) (List.combine params grads) in
  (ret, [ l.b1_t; l.b2_t ] @ l.m @ l.v)

let step_algo o params grads = match o.algo with Lars l -> lars_step o l params grads | Lamb l -> lamb_step o l params grads

let grad_of (t : T.t) = match T.grad t with
  | Some g -> g
  | None -> invalid_arg (Printf.sprintf "Optim.step: a parameter of shape %s has no grad (run backward first)"
                           (String.concat "x" (Array.to_list (Array.map string_of_int (T.shape t)))))

(* tinygrad: Optimizer.schedule_step / OptimizerGroup.schedule_step *)
let rec schedule_step = function
  | Group os -> List.concat_map schedule_step os
  | Optimizer o ->
    if not (training_enabled ()) then
      invalid_arg "Optim.schedule_step: TRAINING must be enabled to use the optimizer (Helpers.context [ Bind (Helpers.training, 1) ] or TRAINING=1)";
    let updates, extra =
      if o.fused then begin
        (* optimizer fusion just concatenates all the buffers, runs the _step, then splits them back up *)
        let out, extra =
          step_algo o [ T.cat ~dim:0 (List.map (fun t -> T.flatten t) o.params) ]
            [ T.cat ~dim:0 (List.map (fun t -> T.flatten (T.contiguous (grad_of t))) o.params) ] in
        let out0 = List.hd out in
        let pos = Array.of_list o.pos_params in
        (List.mapi (fun i tt ->
             T.reshape (T.getitem out0 [ T.S (Some pos.(i), Some pos.(i + 1), None) ]) (T.shape tt)) o.params, extra)
      end else step_algo o o.params (List.map grad_of o.params) in
    (* tinygrad: Optimizer._apply_update *)
    List.iter2 (fun tt up -> ignore (T.assign tt (T.sub (T.detach tt) (to_like up tt)))) o.params updates;
    extra @ o.params @ o.buffers

(* tinygrad: Optimizer.step *)
let step t = T.realize_all (schedule_step t)

(* tinygrad: OptimizerGroup *)
let group os = Group os

(* tinygrad: LARS.__init__ *)
let lars ?(lr = 0.001) ?(momentum = 0.9) ?(weight_decay = 1e-4) ?(ns_steps = 0) ?ns_coefficients ?(nesterov = false)
    ?(classic = true) ?(pre_wd = true) ?(tcoef = 0.001) ?device ?fused params =
  if momentum < 0. then invalid_arg (Printf.sprintf "lars: Invalid momentum value: %g" momentum);
  let mk = base ~op:"lars" ?device ?fused params lr in
  let o0 = mk (Lars { momentum; lars_wd = weight_decay; ns_steps; ns_coefficients; nesterov; classic; pre_wd; tcoef; b = [] }) in
  let b = if momentum <> 0. then
      new_optim_param ~devices:o0.devices ~param_dtype:o0.param_dtype ~fused:o0.fused ~pos_params:o0.pos_params o0.params
    else [] in
  Optimizer { o0 with algo = Lars { momentum; lars_wd = weight_decay; ns_steps; ns_coefficients; nesterov; classic; pre_wd;
                                    tcoef; b } }

(* tinygrad: SGD — LARS with the trust coefficient 0 *)
let sgd ?(lr = 0.001) ?(momentum = 0.0) ?(weight_decay = 0.0) ?(nesterov = false) ?(classic = false) ?device ?fused params =
  lars ~lr ~momentum ~weight_decay ~ns_steps:0 ~nesterov ~classic ~pre_wd:true ~tcoef:0.0 ?device ?fused params

(* tinygrad: Muon — LARS with Newton-Schulz on the gradient and post-momentum weight decay *)
let muon ?(lr = 0.001) ?(momentum = 0.95) ?(weight_decay = 0.1) ?(ns_steps = 5)
    ?(ns_coefficients = [ 3.4445; -4.775; 2.0315 ]) ?(nesterov = true) ?device ?(fused = false) params =
  if fused then invalid_arg "muon: FUSE_OPTIM not allowed for Muon optimizer";
  lars ~lr ~momentum ~weight_decay ~ns_steps ~ns_coefficients ~nesterov ~classic:false ~pre_wd:false ~tcoef:0.0 ?device
    ~fused params

(* tinygrad: LAMB.__init__ *)
let lamb ?(lr = 0.001) ?(b1 = 0.9) ?(b2 = 0.999) ?(eps = 1e-6) ?(weight_decay = 0.0) ?(adam = false) ?device ?fused params =
  if weight_decay < 0. then invalid_arg (Printf.sprintf "lamb: Invalid weight_decay value: %g" weight_decay);
  let mk = base ~op:"lamb" ?device ?fused params lr in
  let dummy = T.scalar 0. in
  let o0 = mk (Lamb { b1; b2; eps; lamb_wd = weight_decay; adam; b1_t = dummy; b2_t = dummy; m = []; v = [] }) in
  let ones () =
    let t = on_devices o0.devices (T.ones ~dtype:Dtype.float32 ~device:(List.hd o0.devices) [| 1 |]) in
    Tensor_base.set_is_param t false; t in
  let b1_t = ones () in
  let b2_t = ones () in
  let npar () = new_optim_param ~devices:o0.devices ~param_dtype:o0.param_dtype ~fused:o0.fused ~pos_params:o0.pos_params o0.params in
  let m = npar () in
  let v = npar () in
  Optimizer { o0 with algo = Lamb { b1; b2; eps; lamb_wd = weight_decay; adam; b1_t; b2_t; m; v } }

(* tinygrad: AdamW — LAMB with adam=True *)
let adamw ?(lr = 0.001) ?(b1 = 0.9) ?(b2 = 0.999) ?(eps = 1e-8) ?(weight_decay = 0.01) ?device ?fused params =
  lamb ~lr ~b1 ~b2 ~eps ~weight_decay ~adam:true ?device ?fused params

(* tinygrad: Adam — LAMB with adam=True and no weight decay *)
let adam ?(lr = 0.001) ?(b1 = 0.9) ?(b2 = 0.999) ?(eps = 1e-8) ?device ?fused params =
  lamb ~lr ~b1 ~b2 ~eps ~weight_decay:0.0 ~adam:true ?device ?fused params
