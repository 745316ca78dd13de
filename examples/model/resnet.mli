(** tinygrad's ResNet (extra/models/resnet.py): torchvision's v1.5 layout with BasicBlock (ResNet-18, 34) or
    Bottleneck (ResNet-50, 101, 152) blocks, BatchNorm after every convolution. Used by the multi-device
    tests. *)

(** A residual block's kind. tinygrad [BasicBlock] (two 3x3 convs, expansion 1) and [Bottleneck] (1x1, 3x3,
    1x1, expansion 4). *)
type block_kind = Basic_block | Bottleneck

(** A block: its convolutions with their BatchNorms, in order, and the downsample of the shortcut when the
    block changes the stride or the width. *)
type block = {
  convs : (Tinygrad.Nn.Conv2d.t * Tinygrad.Nn.BatchNorm.t) list;
  downsample : (Tinygrad.Nn.Conv2d.t * Tinygrad.Nn.BatchNorm.t) option;
}

(** The model: the 7x7 stem, the four stages ([layer1] .. [layer4]) and the classifier when it has one. *)
type t = {
  num : int;
  conv1 : Tinygrad.Nn.Conv2d.t;
  bn1 : Tinygrad.Nn.BatchNorm.t;
  layers : block list list;
  fc : Tinygrad.Nn.Linear.t option;
}

(** [create num] (18, 34, 50, 101 or 152; another depth raises [Invalid_argument]); parameters drawn in
    tinygrad's order; no classifier without [num_classes]. tinygrad [ResNet(num, num_classes, groups,
    width_per_group, stride_in_1x1)]. *)
val create : ?num_classes:int -> ?groups:int -> ?width_per_group:int -> ?stride_in_1x1:bool -> int -> t

(** tinygrad [ResNet18] (1000 classes unless [num_classes]). *)
val resnet18 : ?num_classes:int -> unit -> t

(** tinygrad [ResNet34]. *)
val resnet34 : ?num_classes:int -> unit -> t

(** tinygrad [ResNet50]. *)
val resnet50 : ?num_classes:int -> unit -> t

(** A block applied to its input. tinygrad [BasicBlock.__call__] / [Bottleneck.__call__]. *)
val block_forward : block -> Tinygrad.Tensor.t -> Tinygrad.Tensor.t

(** The logits of an NCHW batch; [Invalid_argument] for a model without a classifier. tinygrad
    [ResNet.forward]. *)
val forward : t -> Tinygrad.Tensor.t -> Tinygrad.Tensor.t

(** The outputs of the four stages. tinygrad [ResNet.forward] of a model without a classifier. *)
val features : t -> Tinygrad.Tensor.t -> Tinygrad.Tensor.t list

(** The state tinygrad's [get_state_dict] walks, with torchvision's names ([layer1.0.conv1.weight],
    [layer2.0.downsample.1.running_mean], [fc.weight], ...). *)
val state : t -> Tinygrad.Nn.State.obj

(** [get_parameters(model)], in tinygrad's order. *)
val parameters : t -> Tinygrad.Tensor.t list
