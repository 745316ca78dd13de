(** The CUDA backend, loaded at start-up as a Dynlink plugin ([tinygrad_cuda_plugin.cmxs], from [CUDA_PLUGIN],
    beside the executable, or the build tree), so that executables start without [libcuda.so.1]. When the plugin
    is missing or cannot load, CUDA is recorded in {!Tinygrad.Device} as unavailable, with the reason. *)

(** Whether the CUDA device registered itself (the plugin loaded and its device was created). *)
val linked : unit -> bool
