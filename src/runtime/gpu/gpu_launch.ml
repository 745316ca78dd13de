(* tinygrad: the backend-independent parts of runtime/ops_cuda.py and runtime/ops_metal.py — the kernel signature
   (tinygrad's TinyELF.signature), encode_args' argument order (buffers, then int vars of their width), the launch
   dims (ProgramSpec.launch_dims with the vars substituted), the compiler's disk cache. The optional backends
   (src/runtime/cuda, src/runtime/metal) are thin layers over this module. *)

(* ---------- kernel signatures ---------- *)

type param = Ptr | Int32 | Int64

let param_to_string = function Ptr -> "ptr" | Int32 -> "i32" | Int64 -> "i64"

let param_of_string = function
  | "ptr" -> Ptr | "i32" -> Int32 | "i64" -> Int64
  | s -> invalid_arg ("Gpu_launch.param_of_string: " ^ s)

let is_ident_char c = match c with 'a' .. 'z' | 'A' .. 'Z' | '0' .. '9' | '_' -> true | _ -> false

(* the index of the bracket closing the one at [i] ('(' or '[') *)
let matching s i =
  let n = String.length s in
  let rec go j depth =
    if j >= n then invalid_arg "Gpu_launch.parse_signature: unbalanced parentheses"
    else match s.[j] with
      | '(' | '[' -> go (j + 1) (depth + 1)
      | ')' | ']' -> if depth = 1 then j else go (j + 1) (depth - 1)
      | _ -> go (j + 1) depth in
  go i 0

(* the comma-separated parts of s at bracket depth 0 *)
let split_top s =
  let parts = ref [] and depth = ref 0 and start = ref 0 in
  String.iteri (fun i c -> match c with
      | '(' | '[' | '<' -> incr depth
      | ')' | ']' | '>' -> decr depth
      | ',' when !depth = 0 -> parts := String.sub s !start (i - !start) :: !parts; start := i + 1
      | _ -> ()) s;
  List.rev (String.sub s !start (String.length s - !start) :: !parts)

let contains s sub =
  let n = String.length s and m = String.length sub in
  let rec go i = i + m <= n && (String.sub s i m = sub || go (i + 1)) in
  go 0

let rfind s sub =
  let n = String.length s and m = String.length sub in
  let rec go i = if i < 0 then None else if String.sub s i m = sub then Some i else go (i - 1) in
  go (n - m)

(* a parameter's kind from its declaration: pointers are buffers; Metal's [[...]] builtins are not arguments; an
   int var is 64-bit when its type says long *)
let classify decl =
  let d = String.trim decl in
  if d = "" || contains d "[[" then None
  else if String.contains d '*' then Some Ptr
  else if contains d "long" || contains d "int64" then Some Int64
  else Some Int32

(* tinygrad TinyELF.signature: the kernel's name and argument kinds, read from the rendered source: the last kernel
   declared with [marker] ("__global__" for CUDA, "kernel void" for Metal) *)
let parse_signature ~marker src =
  match rfind src marker with
  | None -> invalid_arg (Printf.sprintf "Gpu_launch.parse_signature: no %S kernel in the source" marker)
  | Some start ->
    let rec find_name i =
      match String.index_from_opt src i '(' with
      | None -> invalid_arg "Gpu_launch.parse_signature: no parameter list"
      | Some p ->
        let j = ref (p - 1) in
        while !j >= 0 && (src.[!j] = ' ' || src.[!j] = '\n' || src.[!j] = '\t') do decr j done;
        let e = !j + 1 in
        while !j >= 0 && is_ident_char src.[!j] do decr j done;
        let ident = String.sub src (!j + 1) (e - !j - 1) in
        if ident = "__launch_bounds__" || ident = "__attribute__" then find_name (matching src p + 1)
        else (ident, p) in
    let name, p = find_name (start + String.length marker) in
    let q = matching src p in
    let params = List.filter_map classify (split_top (String.sub src (p + 1) (q - p - 1))) in
    (name, params)

let header_tag = "// tinygrad-signature:"

let signature_header name params =
  Printf.sprintf "%s %s %s\n" header_tag name (String.concat " " (List.map param_to_string params))

let with_signature ~marker src lib =
  let name, params = parse_signature ~marker src in
  signature_header name params ^ lib

let split_signature lib =
  let n = String.length header_tag in
  if String.length lib < n || String.sub lib 0 n <> header_tag then
    invalid_arg "Gpu_launch.split_signature: the library has no signature header";
  let eol = match String.index_opt lib '\n' with Some i -> i | None -> String.length lib in
  match List.filter (( <> ) "") (String.split_on_char ' ' (String.sub lib n (eol - n))) with
  | name :: ps ->
    (name, List.map param_of_string ps, String.sub lib (min (eol + 1) (String.length lib)) (String.length lib - min (eol + 1) (String.length lib)))
  | [] -> invalid_arg "Gpu_launch.split_signature: empty signature header"

(* ---------- arguments ---------- *)

type buf_arg = { slot : int; mem : Device.opaque; address : nativeint; offset : int }

type arg = Buf of buf_arg | Var32 of int32 | Var64 of int64

(* tinygrad encode_args: the i-th pointer parameter gets the launch's i-th buffer, the j-th int parameter its j-th
   var (as a C int of the parameter's width); the list follows the parameters (buffers first in tinygrad's
   renderers). [addr] is the allocator's address of a base buffer, so the offset of a view is recovered. *)
let pack_args ~addr ~name params (l : Device.launch) =
  let nb = Bigarray.Array1.dim l.bufs and nv = Bigarray.Array1.dim l.vars in
  let bi = ref 0 and vi = ref 0 in
  List.map (fun p ->
      match p with
      | Ptr ->
        let i = !bi in
        incr bi;
        if i >= nb then invalid_arg (Printf.sprintf "%s: buffer argument %d missing (the launch has %d)" name i nb);
        (match l.keep.(i) with
         | None -> invalid_arg (Printf.sprintf "%s: buffer argument %d is not set" name i)
         | Some mem ->
           let address = l.bufs.{i} in
           Buf { slot = i; mem; address; offset = Nativeint.to_int (Nativeint.sub address (addr mem)) })
      | Int32 | Int64 ->
        let j = !vi in
        incr vi;
        if j >= nv then invalid_arg (Printf.sprintf "%s: int argument %d missing (the launch has %d)" name j nv);
        let v = l.vars.{j} in
        if p = Int32 then Var32 (Int64.to_int32 v) else Var64 v) params

(* ---------- launch dims ---------- *)

let dims3 ~what (a : int array) =
  if Array.length a > 3 then invalid_arg (Printf.sprintf "%s: %d dims, at most 3" what (Array.length a));
  Array.iter (fun d -> if d < 0 then invalid_arg (Printf.sprintf "%s: negative dim %d" what d)) a;
  let g i = if i < Array.length a then a.(i) else 1 in
  (g 0, g 1, g 2)

let launch_dims ~global_size ~local_size =
  (dims3 ~what:"global_size" global_size, dims3 ~what:"local_size" local_size)

let is_empty ((gx, gy, gz), (lx, ly, lz)) = gx * gy * gz * lx * ly * lz = 0

(* tinygrad ProgramSpec.launch_dims: the global/local sizes with the vars' values substituted (local size [None]
   when the program leaves it to the runtime) *)
let program_dims (info : Uop.program_info) (var_vals : (string * int) list) =
  let vv = List.map (fun (k, v) -> (k, Dtype.I (Z.of_int v))) var_vals in
  let value (s : Uop.sint) = match s with
    | Uop.Sint i -> i
    | Uop.Suop u -> Z.to_int (Uop.zi (Uop.sym_infer u vv)) in
  (Array.of_list (List.map value info.global_size), Option.map (fun l -> Array.of_list (List.map value l)) info.local_size)

let check_limits ~device ~max_block:(bx, by, bz) ~max_threads ~max_grid:(mx, my, mz) ((gx, gy, gz), (lx, ly, lz)) =
  let fail fmt = Printf.ksprintf (fun s -> invalid_arg (device ^ ": " ^ s)) fmt in
  if lx > bx || ly > by || lz > bz then fail "local size (%d,%d,%d) exceeds the block dims (%d,%d,%d)" lx ly lz bx by bz;
  if lx * ly * lz > max_threads then fail "local size (%d,%d,%d) has %d threads, at most %d" lx ly lz (lx * ly * lz) max_threads;
  if gx > mx || gy > my || gz > mz then fail "global size (%d,%d,%d) exceeds the grid dims (%d,%d,%d)" gx gy gz mx my mz

(* ---------- CUDA naming ---------- *)

let cuda_arch ~major ~minor = Printf.sprintf "sm_%d%d" major minor

let nvrtc_options ~major ~minor = [ Printf.sprintf "--gpu-architecture=compute_%d%d" major minor ]

(* ---------- compiler cache ---------- *)

let tmp_rng = lazy (Random.State.make_self_init ())

(* tinygrad: Compiler.compile_cached, the library text in cache_dir/<key>/<md5 of the source>; written by rename *)
let compile_cached ~cachekey ~compile src =
  match cachekey with
  | None -> compile src
  | Some key ->
    let path = Filename.concat (Filename.concat (Helpers.cache_dir ()) key) (Digest.to_hex (Digest.string src) ^ ".lib") in
    let read p = let ic = open_in_bin p in let s = really_input_string ic (in_channel_length ic) in close_in ic; s in
    if Sys.file_exists path then read path
    else begin
      let lib = compile src in
      (try
         Helpers.mkdir_p (Filename.dirname path);
         let tmp = Printf.sprintf "%s.tmp.%d" path (Random.State.bits (Lazy.force tmp_rng)) in
         let oc = open_out_bin tmp in
         output_string oc lib; close_out oc;
         Sys.rename tmp path
       with Sys_error _ -> ());
      lib
    end
