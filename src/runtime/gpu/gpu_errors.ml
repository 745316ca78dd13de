(* tinygrad: runtime/ops_cuda.py check (raises with the CUresult's name), support/compiler_cuda.py (compile errors
   carry the log). The hints say what a user can do about the statuses met when setting a GPU up. *)

let c_call_name s =
  let word, rest = match String.index_opt s ' ' with
    | Some i -> (String.sub s 0 i, String.sub s i (String.length s - i))
    | None -> (s, "") in
  let is_call = String.length word > 3 && (String.sub word 0 3 = "cu_" || (String.length word > 6 && String.sub word 0 6 = "nvrtc_")) in
  if not is_call then s
  else
    match String.split_on_char '_' word with
    | [] -> s
    | first :: parts -> String.concat "" (first :: List.map String.capitalize_ascii parts) ^ rest

let hint = function
  | "CUDA_ERROR_NO_DEVICE" -> Some "no CUDA-capable GPU is visible to the driver: check nvidia-smi and CUDA_VISIBLE_DEVICES"
  | "CUDA_ERROR_STUB_LIBRARY" ->
    Some "libcuda.so.1 is the CUDA toolkit's stub, not the driver's: install the NVIDIA driver, or take the toolkit's lib64/stubs off LD_LIBRARY_PATH"
  | "CUDA_ERROR_INSUFFICIENT_DRIVER" | "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" | "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" ->
    Some "the NVIDIA driver is older than the CUDA version this build needs: update the driver"
  | "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" | "CUDA_ERROR_INVALID_PTX" ->
    Some "NVRTC produced PTX the driver cannot load: use an NVRTC no newer than the driver's CUDA version (nvidia-smi shows it)"
  | "CUDA_ERROR_NO_BINARY_FOR_GPU" -> Some "the kernel was compiled for another GPU architecture"
  | "CUDA_ERROR_NOT_INITIALIZED" | "CUDA_ERROR_DEINITIALIZED" -> Some "the CUDA driver is not (or no longer) initialized"
  | "CUDA_ERROR_DEVICE_UNAVAILABLE" -> Some "the GPU is busy or in exclusive mode for another process"
  | "CUDA_ERROR_OUT_OF_MEMORY" -> Some "GPU memory exhausted: free tensors or use smaller batches"
  | "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" -> Some "the kernel asks for more registers or shared memory than a block can have"
  | "CUDA_ERROR_ILLEGAL_ADDRESS" -> Some "a kernel accessed memory out of bounds: the CUDA context is unusable now"
  | "NVRTC_ERROR_COMPILATION" -> Some "the kernel does not compile: NVRTC log below"
  | "NVRTC_ERROR_INVALID_OPTION" -> Some "this NVRTC does not know an option, likely the GPU's --gpu-architecture: use a newer NVRTC"
  | "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE" -> Some "libnvrtc-builtins is missing: it must sit beside libnvrtc"
  | _ -> None

let with_hint status msg = match hint status with Some h -> Printf.sprintf "%s (hint: %s)" msg h | None -> msg

let driver_error ~call ~status = with_hint status (Printf.sprintf "CUDA error: %s failed with %s" (c_call_name call) status)

let nvrtc_error ~call ~status =
  (* cudajit: "nvrtc_compile_program NAME: LOG"; the log goes last, on its own lines *)
  let head, log = match String.index_opt call ':' with
    | Some i -> (String.sub call 0 i, Some (String.trim (String.sub call (i + 1) (String.length call - i - 1))))
    | None -> (call, None) in
  let msg = with_hint status (Printf.sprintf "NVRTC error: %s failed with %s" (c_call_name head) status) in
  match log with Some l when l <> "" -> msg ^ "\n" ^ l | _ -> msg

(* the first "libX.so[.N]: cannot open shared object file" in a loader error *)
let missing_library text =
  let marker = ": cannot open shared object file" in
  let n = String.length text and m = String.length marker in
  let rec find i = if i + m > n then None else if String.sub text i m = marker then Some i else find (i + 1) in
  match find 0 with
  | None -> None
  | Some e ->
    let is_name c = match c with 'a' .. 'z' | 'A' .. 'Z' | '0' .. '9' | '.' | '_' | '-' | '+' | '/' -> true | _ -> false in
    let rec start i = if i > 0 && is_name text.[i - 1] then start (i - 1) else i in
    let s = start e in
    if s = e then None else Some (Filename.basename (String.sub text s (e - s)))

let starts_with ~prefix s = String.length s >= String.length prefix && String.sub s 0 (String.length prefix) = prefix

let plugin_failure ~plugin text =
  match missing_library text with
  | Some lib when starts_with ~prefix:"libcuda.so" lib ->
    Printf.sprintf "%s not found: no NVIDIA driver is installed (libcuda comes with the driver, not the toolkit)" lib
  | Some lib when starts_with ~prefix:"libnvrtc" lib ->
    Printf.sprintf "%s not found: install NVRTC from the CUDA toolkit or pip's nvidia-cuda-nvrtc wheel and put its lib folder on LD_LIBRARY_PATH" lib
  | Some lib -> Printf.sprintf "%s not found (needed by %s)" lib plugin
  | None -> Printf.sprintf "%s cannot be loaded: %s" plugin text
