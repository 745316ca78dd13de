(** State dicts and the safetensors format. tinygrad: [nn/state.py] ([get_state_dict], [get_parameters],
    [load_state_dict], [safe_load_metadata], [safe_load], [safe_save]). A state dict is an association list in
    insertion order, as Python's dict. tinygrad reads and writes through DISK tensors; here the file is mapped
    ([Unix.map_file], private: nothing written through a tensor reaches the file) and each tensor is a CPU buffer
    viewing the mapping where its data are aligned ({!Device.Buffer.of_bigarray}), else one copy made at load. *)

(** The JSON of a safetensors header, read and written as Python's [json] ([separators=(',', ':')], ASCII output). *)
module Json : sig
  (** A JSON value; numbers without a fraction or exponent are [Int]. *)
  type t = Null | Bool of bool | Int of int | Float of float | String of string | List of t list
         | Assoc of (string * t) list

  (** Raised by {!of_string} with the reason and byte position. *)
  exception Parse_error of string

  (** Compact JSON text, non-ASCII escaped as [\uXXXX], as Python's [json.dumps(v, separators=(',', ':'))]. *)
  val to_string : t -> string

  (** Parses JSON text (keys keep their order). *)
  val of_string : string -> t
end

(** A model as tinygrad's [get_state_dict] sees a Python object: a tensor, a list (keys ["0"], ["1"], ...), a dict
    or an object's attributes (keys the attribute names, in order), or something without tensors. *)
type obj = Tensor of Tensor.t | List of obj list | Dict of (string * obj) list | Nothing

(** A layer's named tensors (e.g. [Nn.Linear.state_dict l]) as a {!Dict} of {!module-Tensor}s. *)
val of_named : (string * Tensor.t) list -> obj

(** The tensors of a model keyed by dotted paths (["l1.weight"]), in order; a repeated key keeps its first place and
    its last tensor. tinygrad [get_state_dict(obj, prefix)]. *)
val get_state_dict : ?prefix:string -> obj -> (string * Tensor.t) list

(** Same as {!get_state_dict} (torch's name). *)
val state_dict : ?prefix:string -> obj -> (string * Tensor.t) list

(** The tensors of {!get_state_dict}, in order. tinygrad [get_parameters]. *)
val get_parameters : obj -> Tensor.t list

(** [replace v x]: [v] now stands for [x]'s graph (same shape). tinygrad [Tensor.replace]. *)
val replace : Tensor.t -> Tensor.t -> unit

(** [load_state_dict model sd]: every tensor of the model takes the state dict's tensor of the same key (moved to its
    device; to a sharded model tensor's devices, split along its axis; a [()] / [(1,)] shape difference reshaped; realized unless [realize] is false); returns the loaded tensors.
    A missing key raises [Invalid_argument] unless [strict] is false (default true); a shape mismatch raises
    [Invalid_argument]. [verbose] (default true) prints the time taken, as tinygrad's [Timing].
    tinygrad [load_state_dict] (no [consume]). *)
val load_state_dict :
  ?strict:bool -> ?verbose:bool -> ?realize:bool -> obj -> (string * Tensor.t) list -> Tensor.t list

(** The safetensors dtype names and dtypes. tinygrad [safe_dtypes]. *)
val safe_dtypes : (string * Dtype.t) list

(** A uint8 tensor (1-d) holding the bytes, on [device] (the default device). *)
val tensor_of_bytes : ?device:string -> string -> Tensor.t

(** The bytes of a tensor in C order, little-endian (realizes). tinygrad [Tensor.data()]. *)
val tensor_data : Tensor.t -> string

(** [safe_load_metadata fn]: the file as a uint8 tensor (a view of the mapped file on CPU), the byte offset where the
    data start and the JSON header. A file too short, or whose header length runs past its end or whose header is
    not JSON, raises [Invalid_argument] naming the file and the problem. tinygrad [safe_load_metadata]. *)
val safe_load_metadata : ?device:string -> string -> Tensor.t * int * Json.t

(** {!safe_load_metadata} of a 1-d uint8 tensor holding a safetensors file. *)
val safe_load_metadata_tensor : Tensor.t -> Tensor.t * int * Json.t

(** [safe_load fn]: the state dict of a [.safetensors] file, in header order. Each tensor is a buffer of its own:
    on CPU a view of the mapped file when its data are aligned to {!Device.Buffer.host_view_alignment} (no copy, the
    pages are read when a kernel reads them), else a copy made now (the mapped pages it was copied from then leave
    the resident set); on another device a copy. Loading a 500 MB file peaks at about 1.0x its size in RSS.
    A malformed file raises [Invalid_argument] naming the file, the tensor and the problem: too short, header length
    past the end, header not JSON or not an object, unknown dtype, bad shape or offsets, offsets past the end, byte
    size not matching shape and dtype, overlapping tensors. tinygrad [safe_load]. *)
val safe_load : ?device:string -> string -> (string * Tensor.t) list

(** {!safe_load} of a 1-d uint8 tensor holding a safetensors file. *)
val safe_load_tensor : Tensor.t -> (string * Tensor.t) list

(** [safe_save sd fn]: writes the tensors (realized) to a [.safetensors] file with optional string [metadata] (the
    ["__metadata__"] entry); the header is padded with spaces to a multiple of 8. Weak dtypes raise
    [Invalid_argument]. tinygrad [safe_save]. *)
val safe_save : ?metadata:(string * string) list -> (string * Tensor.t) list -> string -> unit

(** {1 Archives and torch checkpoints} *)

(** [zip_extract fn]: the files of a zip archive, in its order, as 1-d uint8 tensors: stored files view the mapped
    file (as {!safe_load}), deflated ones are inflated now. zip64 included. A malformed archive (no end of central
    directory, headers or data past the end, unknown compression) raises [Invalid_argument]. tinygrad
    [zip_extract]. *)
val zip_extract : ?device:string -> string -> (string * Tensor.t) list

(** {!zip_extract} of a 1-d uint8 tensor holding the archive. *)
val zip_extract_tensor : Tensor.t -> (string * Tensor.t) list

(** [tar_extract fn]: the regular files of a tar archive (ustar prefixes, GNU and pax long names) as 1-d uint8
    views of the mapped file. A bad header checksum or a file past the end raises [Invalid_argument]. tinygrad
    [tar_extract]. *)
val tar_extract : ?device:string -> string -> (string * Tensor.t) list

(** {!tar_extract} of a 1-d uint8 tensor holding the archive. *)
val tar_extract_tensor : Tensor.t -> (string * Tensor.t) list

(** [torch_load fn]: the tensors of a checkpoint written by [torch.save]: the zip format (the default), the legacy
    format ([_use_new_zipfile_serialization=False]) and the tar format of torch before 0.1.10. Returns the tensors
    of the saved object keyed by their dotted paths (a state dict's own keys; nested dicts and lists add
    ["outer.inner"], ["list.0"]), in pickle order; other values (ints, strings, optimizer settings) are left out.
    Tensors that share a storage share one buffer, a view of the mapped file where it is aligned; strides and
    offsets (transposed, sliced, expanded tensors) become movement ops on it. Every dtype torch writes that has a
    tinygrad dtype loads (float64 to float8, bool, int8 to uint64); complex and quantized storages raise.
    A malformed file (truncated, a pickle opcode outside the subset torch writes, a storage missing or too short,
    strides that no view of a block can give) raises [Invalid_argument] naming the file. tinygrad [torch_load]. *)
val torch_load : ?device:string -> string -> (string * Tensor.t) list

(** {!torch_load} of a 1-d uint8 tensor holding the checkpoint. *)
val torch_load_tensor : Tensor.t -> (string * Tensor.t) list
