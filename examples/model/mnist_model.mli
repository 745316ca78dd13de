(** tinygrad's beautiful_mnist [Model] (examples/beautiful_mnist.py): two conv/conv/batchnorm/maxpool blocks and
    a linear layer. Shared by the example, its training test and the benchmark. *)

(** The layers, applied in order, and the state [get_parameters] walks (tinygrad's [model.layers]). *)
type t = { layers : (Tinygrad.Tensor.t -> Tinygrad.Tensor.t) list; state : Tinygrad.Nn.State.obj }

(** [Model()]: the parameters are drawn in tinygrad's order. *)
val create : unit -> t

(** [model(x)]: [x.sequential(model.layers)]. *)
val forward : t -> Tinygrad.Tensor.t -> Tinygrad.Tensor.t

(** [get_parameters(model)], in tinygrad's order. *)
val parameters : t -> Tinygrad.Tensor.t list
