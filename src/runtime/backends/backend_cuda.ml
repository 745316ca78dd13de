(* The CUDA backend is a plugin: tinygrad.cuda, cudajit and ctypes linked into one tinygrad_cuda_plugin.cmxs
   (src/runtime/cuda/dune), loaded here with Dynlink when the executable starts. Linking cudajit into an executable
   would make libcuda.so.1 and libnvrtc a load-time dependency of the whole program: without an NVIDIA driver it
   would exit 127 before running anything, even on DEV=CPU. Loaded as a plugin, a missing library is an error of
   Dynlink.loadfile, which becomes the reason CUDA is listed unavailable, and the program runs on the CPU.
   A separate CUDA executable would double every binary; dlopen-ing libcuda lazily would need a change to cudajit's
   ctypes stubs, which are linked against -lcuda. *)

open Tinygrad.Compiler

let plugin = "tinygrad_cuda_plugin.cmxs"

(* Dynlink requires every unit the plugin imports to be in the program, and a program links only the standard
   modules it uses itself: these are the ones cudajit, ctypes and sexplib0 use (otherwise the load fails with
   "no implementation available for Stdlib__ListLabels"); values that OCaml 4.13 and 5 both have *)
let _linked_for_the_plugin =
  [ Obj.repr Lazy.from_val; Obj.repr Scanf.sscanf; Obj.repr Format.fprintf; Obj.repr Parsing.peek_val;
    Obj.repr Arg.parse; Obj.repr Queue.create; Obj.repr Stack.create; Obj.repr Bigarray.Genarray.create;
    Obj.repr Int32.to_int; Obj.repr Int64.to_int; Obj.repr Nativeint.to_int; Obj.repr Filename.concat;
    Obj.repr Printexc.to_string; Obj.repr Gc.full_major; Obj.repr ArrayLabels.map; Obj.repr ListLabels.map;
    Obj.repr BytesLabels.make; Obj.repr StringLabels.make; Obj.repr MoreLabels.Hashtbl.create; Obj.repr Atomic.make;
    Obj.repr Float.of_int; Obj.repr Option.map; Obj.repr Char.code ]

module _ = Ephemeron.K1.Make (struct type t = int let equal = Int.equal let hash = Hashtbl.hash end)

(* CUDA_PLUGIN, else beside the executable (a bundle), else the dune build tree (_build/default/DIR/x.exe) *)
let candidates () =
  let exe_dir = Filename.dirname Sys.executable_name in
  List.filter (fun p -> p <> "")
    [ Helpers.cuda_plugin.value; Filename.concat exe_dir plugin;
      List.fold_left Filename.concat exe_dir [ Filename.parent_dir_name; "src"; "runtime"; "cuda"; plugin ] ]

(* the CPU runtime's dlopen (src/runtime/cpu/cpu_stubs.c), to tell a missing driver from a missing NVRTC *)
external dlopen : string -> nativeint = "tg_dlopen"
external dlclose : nativeint -> unit = "tg_dlclose"

(* the loader's error when the driver library cannot be opened *)
let driver_missing () = match dlopen "libcuda.so.1" with
  | h -> dlclose h; None
  | exception Failure e -> Some e

let not_built = "backend not built (opam package cudajit >= 0.7.2 not installed)"

let load () =
  if not Dynlink.is_native then Device.set_unavailable "CUDA" "backend plugin needs a native executable"
  else
    match List.find_opt Sys.file_exists (candidates ()) with
    | None -> Device.set_unavailable "CUDA" not_built
    | Some path -> (
        match Dynlink.loadfile path with
        | () -> ()
        | exception Dynlink.Error e ->
          let text = Dynlink.error_message e in
          (* the loader names the first missing library it meets; the driver comes first for a user *)
          let text = match driver_missing () with
            | Some err when not (String.equal (Gpu_errors.plugin_failure ~plugin:path err) (Gpu_errors.plugin_failure ~plugin:path text)) ->
              err ^ "\n" ^ text
            | _ -> text in
          Device.set_unavailable "CUDA" (Gpu_errors.plugin_failure ~plugin:path text))

let () = load ()

let linked () = List.mem "CUDA" (Device.registered ())
