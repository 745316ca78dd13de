(** Neural-network layers. tinygrad: [nn/__init__.py]. Each layer is a record of its tensors (parameters, and for
    BatchNorm the running statistics, which are not parameters); [create] draws them with tinygrad's default
    initialisation, in tinygrad's order (the threefry RNG gives tinygrad's values for the same seed); [forward] is
    tinygrad's [__call__]; [state_dict] names the tensors as tinygrad's attributes, in their order (what
    [State.get_state_dict] finds in a tinygrad object). TRAINING (the context var [Helpers.training]) switches
    BatchNorm to batch statistics and running-statistics updates. *)

(** The optimizers ({!Optim}). *)
module Optim = Optim

(** State dicts and safetensors ({!State}). *)
module State = State

(** Datasets ({!Datasets}). *)
module Datasets = Datasets

(** [sequential layers x]: the layers applied in order. tinygrad [Tensor.sequential]. *)
val sequential : (Tensor.t -> Tensor.t) list -> Tensor.t -> Tensor.t

(** Batch normalisation over axis 1 of a 2-d or more input. tinygrad [BatchNorm] (= BatchNorm2d, BatchNorm3d). *)
module BatchNorm : sig
  (** The layer: [weight]/[bias] when affine, [running_mean]/[running_var] when tracking running statistics. *)
  type t = {
    eps : float;
    track_running_stats : bool;
    momentum : float;
    weight : Tensor.t option;
    bias : Tensor.t option;
    num_batches_tracked : Tensor.t;
    running_mean : Tensor.t option;
    running_var : Tensor.t option;
  }

  (** [create sz]: weight ones, bias zeros, running mean 0 and variance 1, [num_batches_tracked] an int64 scalar
      ([eps] 1e-5, [affine] true, [track_running_stats] true, [momentum] 0.1). *)
  val create : ?eps:float -> ?affine:bool -> ?track_running_stats:bool -> ?momentum:float -> int -> t

  (** The (mean, variance) used: the running ones when tracking and not training, else the batch's.
      tinygrad [BatchNorm.calc_stats]. *)
  val calc_stats : t -> Tensor.t -> Tensor.t * Tensor.t

  (** Normalises; when tracking and training, also assigns the new running statistics and counts the batch. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias, num_batches_tracked, running_mean, running_var (those present). *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Same as {!BatchNorm}. *)
module BatchNorm2d = BatchNorm

(** Same as {!BatchNorm}. *)
module BatchNorm3d = BatchNorm

(** Convolution over any number of spatial dims. tinygrad [Conv2d]. *)
module Conv2d : sig
  (** tinygrad's padding: ints (one for all sides, one per spatial dim, or one per side) or ['same']. *)
  type padding = Padding of int list | Same

  (** The layer; [padding] is the resolved tinygrad padding tuple. *)
  type t = {
    kernel_size : int list;
    stride : int;
    dilation : int;
    groups : int;
    padding : int list;
    weight : Tensor.t;
    bias : Tensor.t option;
  }

  (** [create in_channels out_channels k]: a [k x k] kernel; weight (out, in/groups, k, k) and bias uniform in
      [+-1/sqrt(in * k * k)] ([stride] 1, [padding] 0, [dilation] 1, [groups] 1, [bias] true). *)
  val create :
    ?stride:int -> ?padding:int -> ?dilation:int -> ?groups:int -> ?bias:bool -> int -> int -> int -> t

  (** [create_nd in_channels out_channels kernel_size] with tinygrad's kernel tuple (one size per spatial dim) and
      tinygrad's padding. tinygrad [Conv2d(..., kernel_size=tuple, padding=...)]. *)
  val create_nd :
    ?stride:int -> ?padding:padding -> ?dilation:int -> ?groups:int -> ?bias:bool -> int -> int -> int list -> t

  (** tinygrad [make_tuple]: a one-element list repeated [n] times, other lists as they are. *)
  val make_tuple : int list -> int -> int list

  (** The convolution. tinygrad [Conv2d.__call__]. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** 1-d convolution: a {!Conv2d} with a one-element kernel. tinygrad [Conv1d]. *)
module Conv1d : sig
  (** The layer. *)
  type t = Conv2d.t

  (** [create in_channels out_channels k] (['same'] padding: {!Conv2d.create_nd} with a one-element kernel). *)
  val create :
    ?stride:int -> ?padding:int -> ?dilation:int -> ?groups:int -> ?bias:bool -> int -> int -> int -> t

  (** The convolution. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Transposed convolution. tinygrad [ConvTranspose2d]. *)
module ConvTranspose2d : sig
  (** The layer: the convolution fields with the weight (in, out/groups, *k), and the output padding. *)
  type t = { conv : Conv2d.t; output_padding : int }

  (** [create in_channels out_channels k]: a [k x k] kernel; as tinygrad, the Conv2d weight and bias are drawn first,
      then the transposed weight. *)
  val create :
    ?stride:int -> ?padding:int -> ?output_padding:int -> ?dilation:int -> ?groups:int -> ?bias:bool -> int -> int ->
    int -> t

  (** With a kernel tuple. *)
  val create_nd :
    ?stride:int -> ?padding:int -> ?output_padding:int -> ?dilation:int -> ?groups:int -> ?bias:bool -> int -> int ->
    int list -> t

  (** The transposed convolution. tinygrad [ConvTranspose2d.__call__]. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** 1-d transposed convolution. tinygrad [ConvTranspose1d]. *)
module ConvTranspose1d : sig
  (** The layer. *)
  type t = ConvTranspose2d.t

  (** [create in_channels out_channels k]. *)
  val create :
    ?stride:int -> ?padding:int -> ?output_padding:int -> ?dilation:int -> ?groups:int -> ?bias:bool -> int -> int ->
    int -> t

  (** The transposed convolution. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Fully connected layer. tinygrad [Linear]. *)
module Linear : sig
  (** The layer: weight (out, in), bias (out). *)
  type t = { weight : Tensor.t; bias : Tensor.t option }

  (** [create in_features out_features]: weight and bias uniform in [+-1/sqrt(in)] ([bias] true). *)
  val create : ?bias:bool -> int -> int -> t

  (** [x @ weight.T + bias]. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Group normalisation. tinygrad [GroupNorm]. *)
module GroupNorm : sig
  (** The layer. *)
  type t = { num_groups : int; num_channels : int; eps : float; weight : Tensor.t option; bias : Tensor.t option }

  (** [create num_groups num_channels] ([eps] 1e-5, [affine] true: weight ones, bias zeros). *)
  val create : ?eps:float -> ?affine:bool -> int -> int -> t

  (** Normalises each group of channels, then the per-channel affine. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Instance normalisation. tinygrad [InstanceNorm]. *)
module InstanceNorm : sig
  (** The layer. *)
  type t = { num_features : int; eps : float; weight : Tensor.t option; bias : Tensor.t option }

  (** [create num_features] ([eps] 1e-5, [affine] true). *)
  val create : ?eps:float -> ?affine:bool -> int -> t

  (** Normalises each (sample, channel), then the per-channel affine. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Layer normalisation over the last axes. tinygrad [LayerNorm]. *)
module LayerNorm : sig
  (** The layer. *)
  type t = { normalized_shape : int array; axis : int list; eps : float; weight : Tensor.t option; bias : Tensor.t option }

  (** [create n]: over the last axis of size [n] ([eps] 1e-5, [elementwise_affine] true). *)
  val create : ?eps:float -> ?elementwise_affine:bool -> int -> t

  (** [create_shape shape]: over the last axes, which must have this shape. *)
  val create_shape : ?eps:float -> ?elementwise_affine:bool -> int array -> t

  (** Normalises; raises [Invalid_argument] when the last axes do not match. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Layer normalisation over the channels of an NCHW input. tinygrad [LayerNorm2d]. *)
module LayerNorm2d : sig
  (** The layer. *)
  type t = LayerNorm.t

  (** [create channels]. *)
  val create : ?eps:float -> ?elementwise_affine:bool -> int -> t

  (** With a shape. *)
  val create_shape : ?eps:float -> ?elementwise_affine:bool -> int array -> t

  (** Channels last, {!LayerNorm.forward}, channels back. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight, bias. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Root-mean-square normalisation. tinygrad [RMSNorm]. *)
module RMSNorm : sig
  (** The layer. *)
  type t = { eps : float; weight : Tensor.t option }

  (** [create dim] ([eps] 1e-6, [elementwise_affine] true: weight ones). *)
  val create : ?eps:float -> ?elementwise_affine:bool -> int -> t

  (** [x * rsqrt(mean(x^2, -1) + eps)], computed in float32 and cast back. *)
  val norm : t -> Tensor.t -> Tensor.t

  (** {!norm} times the weight. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Lookup table. tinygrad [Embedding] (without the USE_ATOMICS custom-kernel backward). *)
module Embedding : sig
  (** The layer: weight (vocab, embed). *)
  type t = { weight : Tensor.t }

  (** [create vocab_size embed_size]: glorot-uniform weight. *)
  val create : int -> int -> t

  (** [(arange == idx[..., None])[..., None].where(weight, 0).sum(-2)]. tinygrad [_embedding_fwd]. *)
  val embedding_fwd : Tensor.t -> Tensor.t -> Tensor.t

  (** The rows of the int indices (shape idx.shape + (embed,)); float indices raise [Invalid_argument]. *)
  val forward : t -> Tensor.t -> Tensor.t

  (** weight. *)
  val state_dict : t -> (string * Tensor.t) list
end

(** Long short-term memory cell. tinygrad [LSTMCell]. *)
module LSTMCell : sig
  (** The cell. *)
  type t = { weight_ih : Tensor.t; weight_hh : Tensor.t; bias_ih : Tensor.t option; bias_hh : Tensor.t option }

  (** [create input_size hidden_size]: weights uniform in [+-1/sqrt(hidden)], biases zeros ([bias] true). *)
  val create : ?bias:bool -> int -> int -> t

  (** [forward ?hc cell x]: the new (h, c); [hc] defaults to zeros. *)
  val forward : ?hc:Tensor.t * Tensor.t -> t -> Tensor.t -> Tensor.t * Tensor.t

  (** weight_ih, weight_hh, bias_ih, bias_hh. *)
  val state_dict : t -> (string * Tensor.t) list
end
