(* tinygrad: nn/__init__.py — the layers, with tinygrad's default initialisations. Each layer is a record of its
   tensors; [create] draws them in tinygrad's order (let-bound: OCaml evaluates record fields and arguments right to
   left), [forward] is tinygrad's __call__, [state_dict] lists its tensors under tinygrad's attribute names in
   tinygrad's attribute order (what nn.state.get_state_dict finds). *)

module T = Tensor
module Optim = Optim
module State = State
module Datasets = Datasets

(* tinygrad's TRAINING context var *)
let training () = Optim.training_enabled ()

(* the named tensors of optional attributes, skipping the absent ones (get_state_dict skips None) *)
let opt_entries l = List.filter_map (fun (k, v) -> Option.map (fun t -> (k, t)) v) l

let not_param (t : T.t) = Tensor_base.set_is_param t false; t

(* tinygrad: Tensor.sequential *)
let sequential (layers : (T.t -> T.t) list) (x : T.t) = List.fold_left (fun x f -> f x) x layers

(* tinygrad: math.prod *)
let prod l = List.fold_left ( * ) 1 l

let shape_str s = "(" ^ String.concat ", " (List.map string_of_int (Array.to_list s)) ^ ")"

(* the optional affine pair of the norms: ones and zeros *)
let affine_params affine n =
  if affine then begin
    let w = T.ones [| n |] in
    let b = T.zeros [| n |] in
    (Some w, Some b)
  end else (None, None)

module BatchNorm = struct
  type t = {
    eps : float;
    track_running_stats : bool;
    momentum : float;
    weight : T.t option;
    bias : T.t option;
    num_batches_tracked : T.t;
    running_mean : T.t option;
    running_var : T.t option;
  }

  (* tinygrad: BatchNorm.__init__ *)
  let create ?(eps = 1e-5) ?(affine = true) ?(track_running_stats = true) ?(momentum = 0.1) sz =
    let weight, bias = affine_params affine sz in
    let num_batches_tracked = not_param (T.zeros ~dtype:Dtype.int64 [||]) in
    let running_mean, running_var =
      if track_running_stats then begin
        let m = not_param (T.zeros [| sz |]) in
        let v = not_param (T.ones [| sz |]) in
        (Some m, Some v)
      end else (None, None) in
    { eps; track_running_stats; momentum; weight; bias; num_batches_tracked; running_mean; running_var }

  let get name = function Some t -> t | None -> invalid_arg ("BatchNorm: no " ^ name)

  (* tinygrad: BatchNorm.calc_stats *)
  let calc_stats b (x : T.t) =
    let nd = T.ndim x in
    let shape_mask = Array.init nd (fun i -> if i = 0 then 1 else if i = 1 then -1 else 1) in
    if b.track_running_stats && not (training ()) then
      (get "running_mean" b.running_mean, T.reshape (get "running_var" b.running_var) shape_mask)
    else begin
      (* this requires two full memory accesses to x *)
      let reduce_axes = List.filter (fun a -> a <> 1) (List.init nd Fun.id) in
      let batch_mean = T.mean ~axis:reduce_axes x in
      let y = T.sub x (T.reshape (T.detach batch_mean) shape_mask) in  (* d(var)/d(mean) = 0 *)
      let batch_var = T.mean ~axis:reduce_axes (T.mul y y) in
      (batch_mean, batch_var)
    end

  (* tinygrad: BatchNorm.__call__ — in training the running statistics are updated by assign *)
  let forward b (x : T.t) =
    if T.ndim x < 2 then invalid_arg (Printf.sprintf "BatchNorm: input of shape %s has no channel axis" (shape_str (T.shape x)));
    let batch_mean, batch_var = calc_stats b x in
    if b.track_running_stats && training () then begin
      let rm = get "running_mean" b.running_mean and rv = get "running_var" b.running_var in
      let s = T.scalar in
      ignore (T.assign rm (T.add (T.mul (s (1. -. b.momentum)) rm) (T.mul (s b.momentum) (T.detach batch_mean))));
      let n = T.numel x and c = (T.shape x).(1) in
      let k = b.momentum *. float_of_int n /. float_of_int (n - c) in
      ignore (T.assign rv (T.add (T.mul (s (1. -. b.momentum)) rv) (T.mul (s k) (T.detach batch_var))));
      ignore (T.assign b.num_batches_tracked (T.add b.num_batches_tracked (T.scalar_int 1)))
    end;
    T.batchnorm ?weight:b.weight ?bias:b.bias x ~mean:batch_mean ~invstd:(T.rsqrt (T.add batch_var (T.scalar b.eps)))

  let state_dict b =
    opt_entries [ ("weight", b.weight); ("bias", b.bias); ("num_batches_tracked", Some b.num_batches_tracked);
                  ("running_mean", b.running_mean); ("running_var", b.running_var) ]
end

module BatchNorm2d = BatchNorm
module BatchNorm3d = BatchNorm

module Conv2d = struct
  type padding = Padding of int list | Same

  type t = {
    kernel_size : int list;
    stride : int;
    dilation : int;
    groups : int;
    padding : int list;
    weight : T.t;
    bias : T.t option;
  }

  (* tinygrad: helpers.make_tuple *)
  let make_tuple ks n = match ks with [ k ] -> List.init n (fun _ -> k) | l -> l

  (* tinygrad: Conv2d.__init__ *)
  let create_nd ?(stride = 1) ?(padding = Padding [ 0 ]) ?(dilation = 1) ?(groups = 1) ?(bias = true) in_channels
      out_channels kernel_size =
    let padding = match padding with
      | Padding p -> p
      | Same ->
        if stride <> 1 then invalid_arg "Conv2d: padding='same' is not supported for strided convolutions";
        List.concat_map (fun k -> let t = dilation * (k - 1) in [ t / 2; t - t / 2 ]) (List.rev kernel_size) in
    if groups <= 0 || in_channels mod groups <> 0 then
      invalid_arg (Printf.sprintf "Conv2d: in_channels %d is not divisible by groups %d" in_channels groups);
    let scale = 1. /. sqrt (float_of_int (in_channels * prod kernel_size)) in
    let weight = T.uniform ~low:(-.scale) ~high:scale (Array.of_list (out_channels :: (in_channels / groups) :: kernel_size)) in
    let bias = if bias then Some (T.uniform ~low:(-.scale) ~high:scale [| out_channels |]) else None in
    { kernel_size; stride; dilation; groups; padding; weight; bias }

  (* tinygrad's int kernel_size: a square 2-d kernel (make_tuple(kernel_size, 2)) *)
  let create ?stride ?padding ?dilation ?groups ?bias in_channels out_channels kernel_size =
    create_nd ?stride ?padding:(Option.map (fun p -> Padding [ p ]) padding) ?dilation ?groups ?bias in_channels
      out_channels (make_tuple [ kernel_size ] 2)

  (* tinygrad: Conv2d.__call__ *)
  let forward c x =
    T.conv_nd ?bias:c.bias ~groups:c.groups ~stride:[ c.stride ] ~dilation:[ c.dilation ] ~padding:c.padding x c.weight

  let state_dict c = opt_entries [ ("weight", Some c.weight); ("bias", c.bias) ]
end

module Conv1d = struct
  type t = Conv2d.t

  (* tinygrad: Conv1d — a Conv2d with a 1-tuple kernel *)
  let create ?stride ?padding ?dilation ?groups ?bias in_channels out_channels kernel_size =
    Conv2d.create_nd ?stride ?padding:(Option.map (fun p -> Conv2d.Padding [ p ]) padding) ?dilation ?groups ?bias
      in_channels out_channels [ kernel_size ]

  let forward = Conv2d.forward
  let state_dict = Conv2d.state_dict
end

module ConvTranspose2d = struct
  type t = { conv : Conv2d.t; output_padding : int }

  (* tinygrad: ConvTranspose2d.__init__ — Conv2d's weight and bias are drawn first, then the weight again *)
  let create_nd ?(stride = 1) ?(padding = 0) ?(output_padding = 0) ?(dilation = 1) ?(groups = 1) ?(bias = true)
      in_channels out_channels kernel_size =
    let c = Conv2d.create_nd ~stride ~padding:(Conv2d.Padding [ padding ]) ~dilation ~groups ~bias in_channels
        out_channels kernel_size in
    let scale = 1. /. sqrt (float_of_int (in_channels * prod c.Conv2d.kernel_size)) in
    if out_channels mod groups <> 0 then
      invalid_arg (Printf.sprintf "ConvTranspose2d: out_channels %d is not divisible by groups %d" out_channels groups);
    let weight = T.uniform ~low:(-.scale) ~high:scale
        (Array.of_list (in_channels :: (out_channels / groups) :: c.Conv2d.kernel_size)) in
    { conv = { c with Conv2d.weight }; output_padding }

  let create ?stride ?padding ?output_padding ?dilation ?groups ?bias in_channels out_channels kernel_size =
    create_nd ?stride ?padding ?output_padding ?dilation ?groups ?bias in_channels out_channels
      (Conv2d.make_tuple [ kernel_size ] 2)

  (* tinygrad: ConvTranspose2d.__call__ *)
  let forward t x =
    let c = t.conv in
    T.conv_transpose2d ?bias:c.Conv2d.bias ~groups:c.Conv2d.groups ~stride:[ c.Conv2d.stride ]
      ~dilation:[ c.Conv2d.dilation ] ~padding:c.Conv2d.padding ~output_padding:[ t.output_padding ] x c.Conv2d.weight

  let state_dict t = Conv2d.state_dict t.conv
end

module ConvTranspose1d = struct
  type t = ConvTranspose2d.t

  (* tinygrad: ConvTranspose1d *)
  let create ?stride ?padding ?output_padding ?dilation ?groups ?bias in_channels out_channels kernel_size =
    ConvTranspose2d.create_nd ?stride ?padding ?output_padding ?dilation ?groups ?bias in_channels out_channels
      [ kernel_size ]

  let forward = ConvTranspose2d.forward
  let state_dict = ConvTranspose2d.state_dict
end

module Linear = struct
  type t = { weight : T.t; bias : T.t option }

  (* tinygrad: Linear.__init__ — weight (out, in) and bias uniform in +-1/sqrt(in) *)
  let create ?(bias = true) in_features out_features =
    let bound = 1. /. sqrt (float_of_int in_features) in
    let weight = T.uniform ~low:(-.bound) ~high:bound [| out_features; in_features |] in
    let bias = if bias then Some (T.uniform ~low:(-.bound) ~high:bound [| out_features |]) else None in
    { weight; bias }

  (* tinygrad: Linear.__call__ *)
  let forward l x = T.linear ?bias:l.bias x (T.transpose l.weight)

  let state_dict l = opt_entries [ ("weight", Some l.weight); ("bias", l.bias) ]
end

(* the channel affine of GroupNorm / InstanceNorm: x * w.reshape(1, -1, 1...) + b.reshape(1, -1, 1...) *)
let channel_affine weight bias x =
  match weight, bias with
  | Some w, Some b ->
    let sh = Array.init (T.ndim x) (fun i -> if i = 1 then -1 else 1) in
    T.add (T.mul x (T.reshape w sh)) (T.reshape b sh)
  | _ -> x

(* GroupNorm / InstanceNorm: layernorm over (batch, groups, rest), then the channel affine *)
let grouped_norm ~eps ~groups weight bias x =
  let sh = T.shape x in
  channel_affine weight bias (T.reshape (T.layernorm ~eps (T.reshape x [| sh.(0); groups; -1 |])) sh)

module GroupNorm = struct
  type t = { num_groups : int; num_channels : int; eps : float; weight : T.t option; bias : T.t option }

  (* tinygrad: GroupNorm.__init__ *)
  let create ?(eps = 1e-5) ?(affine = true) num_groups num_channels =
    let weight, bias = affine_params affine num_channels in
    { num_groups; num_channels; eps; weight; bias }

  (* tinygrad: GroupNorm.__call__ — reshape for layernorm to work as group norm *)
  let forward g x = grouped_norm ~eps:g.eps ~groups:g.num_groups g.weight g.bias x

  let state_dict g = opt_entries [ ("weight", g.weight); ("bias", g.bias) ]
end

module InstanceNorm = struct
  type t = { num_features : int; eps : float; weight : T.t option; bias : T.t option }

  (* tinygrad: InstanceNorm.__init__ *)
  let create ?(eps = 1e-5) ?(affine = true) num_features =
    let weight, bias = affine_params affine num_features in
    { num_features; eps; weight; bias }

  (* tinygrad: InstanceNorm.__call__ *)
  let forward n x = grouped_norm ~eps:n.eps ~groups:n.num_features n.weight n.bias x

  let state_dict n = opt_entries [ ("weight", n.weight); ("bias", n.bias) ]
end

module LayerNorm = struct
  type t = { normalized_shape : int array; axis : int list; eps : float; weight : T.t option; bias : T.t option }

  (* tinygrad: LayerNorm.__init__ with a tuple *)
  let create_shape ?(eps = 1e-5) ?(elementwise_affine = true) normalized_shape =
    let axis = List.init (Array.length normalized_shape) (fun i -> -1 - i) in
    let weight = if elementwise_affine then Some (T.ones normalized_shape) else None in
    let bias = if elementwise_affine then Some (T.zeros normalized_shape) else None in
    { normalized_shape; axis; eps; weight; bias }

  (* tinygrad: LayerNorm.__init__ with an int *)
  let create ?eps ?elementwise_affine n = create_shape ?eps ?elementwise_affine [| n |]

  (* tinygrad: LayerNorm.__call__ *)
  let forward l x =
    let sh = T.shape x and k = Array.length l.normalized_shape in
    if Array.length sh < k || Array.sub sh (Array.length sh - k) k <> l.normalized_shape then
      invalid_arg (Printf.sprintf "LayerNorm: last dimensions of %s must match %s" (shape_str sh)
                     (shape_str l.normalized_shape));
    let x = T.layernorm ~eps:l.eps ~axis:l.axis x in
    match l.weight, l.bias with Some w, Some b -> T.add (T.mul x w) b | _ -> x

  let state_dict l = opt_entries [ ("weight", l.weight); ("bias", l.bias) ]
end

module LayerNorm2d = struct
  type t = LayerNorm.t

  let create = LayerNorm.create
  let create_shape = LayerNorm.create_shape

  (* tinygrad: LayerNorm2d.__call__ — channels last, normalised, channels back *)
  let forward l x = T.permute (LayerNorm.forward l (T.permute x [| 0; 2; 3; 1 |])) [| 0; 3; 1; 2 |]

  let state_dict = LayerNorm.state_dict
end

module RMSNorm = struct
  type t = { eps : float; weight : T.t option }

  (* tinygrad: RMSNorm.__init__ *)
  let create ?(eps = 1e-6) ?(elementwise_affine = true) dim =
    { eps; weight = (if elementwise_affine then Some (T.ones [| dim |]) else None) }

  (* tinygrad: RMSNorm._norm *)
  let norm r x = T.mul x (T.rsqrt (T.add (T.mean ~axis:[ -1 ] ~keepdim:true (T.square x)) (T.scalar r.eps)))

  (* tinygrad: RMSNorm.__call__ *)
  let forward r x =
    let y = T.cast (norm r (T.float x)) (T.dtype x) in
    match r.weight with None -> y | Some w -> T.mul y w

  let state_dict r = opt_entries [ ("weight", r.weight) ]
end

module Embedding = struct
  type t = { weight : T.t }

  (* tinygrad: Embedding.__init__ — glorot uniform *)
  let create vocab_size embed_size = { weight = T.glorot_uniform [| vocab_size; embed_size |] }

  (* tinygrad: _embedding_fwd *)
  let embedding_fwd (weight : T.t) (idx : T.t) =
    let arange = T.arange (T.shape weight).(0) in
    let sel = T.where (T.unsqueeze (T.eq arange (T.unsqueeze idx (-1))) (-1)) weight (T.scalar_int 0) in
    Tensor_base.wrap ~op:"Embedding" (Mixin_reduce.sum ~axis:[ -2 ] ~dtype:(T.dtype weight) (T.uop sel))

  (* tinygrad: Embedding.__call__ (the USE_ATOMICS custom-kernel backward is not ported) *)
  let forward e idx =
    if not (Dtype.is_int (T.dtype idx)) then
      invalid_arg ("Embedding: Expected integer dtype for index in embedding, got " ^ Dtype.to_string (T.dtype idx));
    embedding_fwd e.weight idx

  let state_dict e = [ ("weight", e.weight) ]
end

module LSTMCell = struct
  type t = { weight_ih : T.t; weight_hh : T.t; bias_ih : T.t option; bias_hh : T.t option }

  (* tinygrad: LSTMCell.__init__ *)
  let create ?(bias = true) input_size hidden_size =
    let stdv = 1.0 /. sqrt (float_of_int hidden_size) in
    let weight_ih = T.uniform ~low:(-.stdv) ~high:stdv [| hidden_size * 4; input_size |] in
    let weight_hh = T.uniform ~low:(-.stdv) ~high:stdv [| hidden_size * 4; hidden_size |] in
    let bias_ih = if bias then Some (T.zeros [| hidden_size * 4 |]) else None in
    let bias_hh = if bias then Some (T.zeros [| hidden_size * 4 |]) else None in
    { weight_ih; weight_hh; bias_ih; bias_hh }

  (* tinygrad: LSTMCell.__call__ — returns (h, c) *)
  let forward ?hc l x =
    let h, c = match hc with
      | Some hc -> hc
      | None -> let z = T.zeros ~dtype:(T.dtype x) [| (T.shape x).(0); (T.shape l.weight_hh).(1) |] in (z, z) in
    let gates = T.add (T.linear ?bias:l.bias_ih x (T.transpose l.weight_ih)) (T.linear ?bias:l.bias_hh h (T.transpose l.weight_hh)) in
    match T.chunk ~dim:1 gates 4 with
    | [ i; f; g; o ] ->
      let i = T.sigmoid i and f = T.sigmoid f and g = T.tanh g and o = T.sigmoid o in
      let new_c = T.add (T.mul f c) (T.mul i g) in
      (T.mul o (T.tanh new_c), new_c)
    | _ -> invalid_arg "LSTMCell: gates did not split in 4"

  let state_dict l =
    opt_entries [ ("weight_ih", Some l.weight_ih); ("weight_hh", Some l.weight_hh); ("bias_ih", l.bias_ih);
                  ("bias_hh", l.bias_hh) ]
end
