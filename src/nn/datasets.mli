(** Datasets. tinygrad: [nn/datasets.py] ([mnist]). *)

(** Where Debian's [dataset-fashion-mnist] package installs Fashion-MNIST: [/usr/share/datasets/fashion-mnist]. *)
val default_dir : string

(** [mnist ?device ?dir ()]: [(x_train, y_train, x_test, y_test)], uint8 tensors of shapes (60000, 1, 28, 28),
    (60000,), (10000, 1, 28, 28), (10000,) for MNIST / Fashion-MNIST, read from the IDX files
    [train-images-idx3-ubyte], [train-labels-idx1-ubyte], [t10k-images-idx3-ubyte], [t10k-labels-idx1-ubyte] in [dir]
    (default {!default_dir}), each plain or gzip ([.gz]). Missing or malformed files raise [Invalid_argument].
    tinygrad [nn.datasets.mnist]. *)
val mnist : ?device:string -> ?dir:string -> unit -> Tensor.t * Tensor.t * Tensor.t * Tensor.t

(** [parse_idx name data]: the dims of an unsigned-byte IDX file and the offset of its data (checks the magic and
    the size). *)
val parse_idx : string -> string -> int array * int
