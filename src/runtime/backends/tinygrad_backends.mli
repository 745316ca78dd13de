(** The optional GPU backends: loads the CUDA plugin (tinygrad_cuda_plugin.cmxs, when cudajit was installed) and
    links tinygrad.metal (when built); they register their devices in {!Tinygrad.Device}, or record why they cannot
    ({!Tinygrad.Device.unavailable}). Depend on this library to run on a GPU. *)

(** The optional backends loaded or linked: a sublist of ["CUDA"; "METAL"]. *)
val linked : unit -> string list
