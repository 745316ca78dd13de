(** Messages for failures of the optional GPU backends: a CUDA driver call or NVRTC returning an error status, and a
    backend plugin that cannot be loaded (its shared libraries missing). Pure string formatting over the status's
    name, so that it builds (and is tested) without cudajit or a GPU; [tinygrad.cuda] feeds it cudajit's
    exceptions. (tinygrad: runtime/ops_cuda.py check, support/compiler_cuda.py NVRTCCompiler's error) *)

(** The C entry point named by cudajit's snake-case call: ["cu_mem_alloc"] -> ["cuMemAlloc"],
    ["nvrtc_compile_program"] -> ["nvrtcCompileProgram"]; other text is returned unchanged. *)
val c_call_name : string -> string

(** What to do about a CUresult / nvrtcResult, by its name ("CUDA_ERROR_NO_DEVICE"), if there is advice. *)
val hint : string -> string option

(** [driver_error ~call ~status]: "CUDA error: cuInit failed with CUDA_ERROR_NO_DEVICE (hint: ...)"; [call] is
    cudajit's message (a call name, possibly followed by details), [status] the CUresult's name. *)
val driver_error : call:string -> status:string -> string

(** [nvrtc_error ~call ~status]: the same for NVRTC; cudajit's message carries the compile log after the call name
    ("nvrtc_compile_program NAME: LOG"), which is kept. *)
val nvrtc_error : call:string -> status:string -> string

(** Why a backend plugin could not be loaded, from the loader's error text: a missing shared library becomes
    ["libcuda.so.1 not found: ..."] with what installs it (driver, NVRTC); anything else is returned with a
    prefix naming the plugin. *)
val plugin_failure : plugin:string -> string -> string
