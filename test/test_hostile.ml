(* Hostile files: safetensors, IDX and gzip datasets, the kernel disk cache and the BEAM cache, each fed truncated,
   corrupted and oversized-header variants. Every variant must raise Invalid_argument (naming the file and, where
   one is involved, the tensor) or, for the caches, be rebuilt; never crash, never return wrong values. Oracles: the
   bytes Python's safetensors / gzip write (pasted as hex, with their generators) and values derived by hand. *)
open Tinygrad.Compiler
open Test_util

let tmp name = Filename.concat (Filename.get_temp_dir_name ()) (Printf.sprintf "tg_hostile_%d_%s" (Random.bits ()) name)
let write_file fn s = let oc = open_out_bin fn in output_string oc s; close_out oc
let read_file fn = let ic = open_in_bin fn in let s = really_input_string ic (in_channel_length ic) in close_in ic; s

let contains s sub =
  let n = String.length s and m = String.length sub in
  let rec go i = i + m <= n && (String.sub s i m = sub || go (i + 1)) in
  go 0

(* f raises Invalid_argument whose message holds every one of [words] *)
let check_rejects ~what words f =
  match f () with
  | _ -> fail "%s: expected Invalid_argument" what
  | exception Invalid_argument m ->
    List.iter (fun w -> check (contains m w) "%s: message %S does not name %S" what m w) words
  | exception e -> fail "%s: expected Invalid_argument, got %s" what (Printexc.to_string e)

let le64 n = String.init 8 (fun i -> Char.chr ((n lsr (8 * i)) land 0xff))

(* a safetensors file from a header text and data bytes *)
let st header data = le64 (String.length header) ^ header ^ data

let f32_bytes (xs : float list) =
  String.concat "" (List.map (fun x ->
      let b = Int32.bits_of_float x in
      String.init 4 (fun i -> Char.chr (Int32.to_int (Int32.shift_right_logical b (8 * i)) land 0xff))) xs)

(* ---------- safetensors ---------- *)

let safetensors_variants =
  let h = Printf.sprintf in
  let ok_data = f32_bytes [ 1.; 2.; 3.; 4. ] in
  let one k dt shape a b = h {|{"%s":{"dtype":"%s","shape":%s,"data_offsets":[%d,%d]}}|} k dt shape a b in
  [ (* truncated *)
    ("empty file", "", [ "too short" ]);
    ("3 bytes", "\x10\x00\x00", [ "too short" ]);
    ("header length only", le64 16, [ "past the end" ]);
    ("header cut", String.sub (st (one "w" "F32" "[4]" 0 16) ok_data) 0 30, [ "past the end" ]);
    (let hd = one "w" "F32" "[4]" 0 16 in
     ("data cut", String.sub (st hd ok_data) 0 (8 + String.length hd + 8), [ "\"w\""; "out of range" ]));
    (* oversized header lengths *)
    ("header length 2^62", le64 (1 lsl 62) ^ "{}", [ "past the end" ]);
    ("header length 2^64-1", String.make 8 '\xff' ^ "{}", [ "past the end" ]);
    ("header length one past", le64 3 ^ "{}", [ "past the end" ]);
    (* corrupted headers *)
    ("header not JSON", st "\x00\x01garbage" "", [ "not JSON" ]);
    ("header JSON cut", st {|{"w":{"dtype":|} "", [ "not JSON" ]);
    ("header a JSON list", st "[1,2]" "", [ "not a JSON object" ]);
    ("entry not an object", st {|{"w":3}|} "", [ "\"w\""; "not a JSON object" ]);
    ("unknown dtype", st (one "w" "F99" "[4]" 0 16) ok_data, [ "\"w\""; "unknown dtype"; "F99" ]);
    ("dtype not a string", st {|{"w":{"dtype":7,"shape":[4],"data_offsets":[0,16]}}|} ok_data, [ "\"w\""; "dtype" ]);
    ("no dtype", st {|{"w":{"shape":[4],"data_offsets":[0,16]}}|} ok_data, [ "\"w\""; "dtype" ]);
    ("no shape", st {|{"w":{"dtype":"F32","data_offsets":[0,16]}}|} ok_data, [ "\"w\""; "shape" ]);
    ("negative dim", st (one "w" "F32" "[-4]" 0 16) ok_data, [ "\"w\""; "shape" ]);
    ("float dim", st (one "w" "F32" "[4.0]" 0 16) ok_data, [ "\"w\""; "shape" ]);
    ("shape not a list", st (one "w" "F32" "4" 0 16) ok_data, [ "\"w\""; "shape" ]);
    ("three offsets", st {|{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,8,16]}}|} ok_data, [ "\"w\""; "data_offsets" ]);
    ("negative offset", st (one "w" "F32" "[4]" (-16) 0) ok_data, [ "\"w\""; "data_offsets" ]);
    ("offsets reversed", st (one "w" "F32" "[0]" 16 0) ok_data, [ "\"w\""; "out of range" ]);
    ("offsets past the end", st (one "w" "F32" "[4]" 16 32) ok_data, [ "\"w\""; "out of range" ]);
    ("shape/size mismatch", st (one "w" "F32" "[5]" 0 16) ok_data, [ "\"w\""; "16 bytes"; "(5,)" ]);
    ("shape overflow", st (one "w" "F32" "[4294967296,4294967296,4294967296]" 0 16) ok_data, [ "\"w\""; "too large" ]);
    ("overlapping offsets",
     st {|{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}|} ok_data,
     [ "\"a\""; "\"b\""; "overlap" ]);
    ("same offsets twice",
     st {|{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"I32","shape":[4],"data_offsets":[0,16]}}|} ok_data,
     [ "\"a\""; "\"b\""; "overlap" ]) ]

let safetensors_cases : case list = [
  (Printf.sprintf "safetensors: %d malformed variants rejected" (List.length safetensors_variants), fun () ->
      List.iter (fun (what, bytes, words) ->
          let fn = tmp "bad.safetensors" in
          write_file fn bytes;
          check_rejects ~what ("safe_load" :: fn :: words) (fun () -> State.safe_load fn);
          (* the same bytes as a uint8 tensor (tinygrad's safe_load(Tensor)) *)
          if String.length bytes > 0 then
            check_rejects ~what:(what ^ " (tensor)") [ "safe_load" ] (fun () ->
                State.safe_load_tensor (State.tensor_of_bytes bytes));
          Sys.remove fn) safetensors_variants;
      check_rejects ~what:"missing file" [ "safe_load"; "/nonexistent/x.safetensors" ]
        (fun () -> State.safe_load "/nonexistent/x.safetensors");
      check_rejects ~what:"a directory" [ "safe_load" ] (fun () -> State.safe_load (Filename.get_temp_dir_name ())));
  ("safetensors: every truncation of a valid file is rejected", fun () ->
      (* the data section holds exactly the tensors, so every shorter prefix is malformed *)
      let bytes = st {|{"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"I8","shape":[3],"data_offsets":[16,19]}}|}
          (f32_bytes [ 1.; -2.; 3.5; 0.25 ] ^ "\x01\xff\x7f") in
      let fn = tmp "trunc.safetensors" in
      for n = 0 to String.length bytes - 1 do
        write_file fn (String.sub bytes 0 n);
        check_rejects ~what:(Printf.sprintf "prefix of %d bytes" n) [ "safe_load" ] (fun () -> State.safe_load fn)
      done;
      write_file fn bytes;
      let sd = State.safe_load fn in
      check (Tensor.to_float_array (List.assoc "a" sd) = [| 1.; -2.; 3.5; 0.25 |]) "whole file: a";
      check (Tensor.to_int_array (List.assoc "b" sd) = [| 1; -1; 127 |]) "whole file: b";
      Sys.remove fn);
  ("safetensors: aligned tensors view the mapping, writes stay out of the file", fun () ->
      (* header padded so the data start at byte 64: "a" (16 bytes) at 64 is aligned, "b" at 80 too, "c" at 84 not *)
      let header = {|{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[1],"data_offsets":[16,20]},"c":{"dtype":"F32","shape":[3],"data_offsets":[20,32]}}|} in
      let pad = 56 - String.length header mod 64 in
      let pad = if pad < 0 then pad + 64 else pad in
      let header = header ^ String.make pad ' ' in
      check_int ~what:"data start" 0 ((8 + String.length header) mod 64);
      let bytes = st header (f32_bytes [ 1.; 2.; 3.; 4.; 5.; 6.; 7.; 8. ]) in
      let fn = tmp "aligned.safetensors" in
      write_file fn bytes;
      let sd = State.safe_load fn in
      let a = List.assoc "a" sd and c = List.assoc "c" sd in
      check (Tensor.to_float_array a = [| 1.; 2.; 3.; 4. |]) "a";
      check (Tensor.to_float_array c = [| 6.; 7.; 8. |]) "c (copied: 84 is not 16-byte aligned)";
      ignore (Tensor.realize (Tensor.assign a (Tensor.of_float_array [| 4 |] [| 9.; 9.; 9.; 9. |])));
      check (Tensor.to_float_array a = [| 9.; 9.; 9.; 9. |]) "a after assign";
      ignore (Tensor.realize (Tensor.assign c (Tensor.of_float_array [| 3 |] [| 0.; 0.; 0. |])));
      check_str ~what:"the file after writes into its tensors" bytes (read_file fn);
      let again = State.safe_load fn in
      check (Tensor.to_float_array (List.assoc "a" again) = [| 1.; 2.; 3.; 4. |]) "reloaded a";
      Sys.remove fn);
  ("Device.Buffer.of_bigarray: a view when aligned, a copy otherwise", fun () ->
      let open Bigarray in
      let fn = tmp "ba.bin" in
      write_file fn (f32_bytes [ 1.; 2.; 3.; 4.; 5.; 6.; 7.; 8.; 9. ]);
      let fd = Unix.openfile fn [ Unix.O_RDWR ] 0 in
      let m = array1_of_genarray (Unix.map_file fd float32 c_layout false [| 9 |]) in
      Unix.close fd;
      let view = Device.Buffer.of_bigarray Dtype.Float32 (genarray_of_array1 (Array1.sub m 0 8)) in
      check (Device.Buffer.shares_memory view (genarray_of_array1 m)) "page-aligned memory is viewed";
      check (Device.Buffer.to_floats view = [| 1.; 2.; 3.; 4.; 5.; 6.; 7.; 8. |]) "view values";
      let odd = genarray_of_array1 (Array1.sub m 1 8) in
      let copy = Device.Buffer.of_bigarray Dtype.Float32 odd in
      check (not (Device.Buffer.shares_memory copy odd)) "4 bytes past a page is copied";
      check (Device.Buffer.to_floats copy = [| 2.; 3.; 4.; 5.; 6.; 7.; 8.; 9. |]) "copy values";
      (* a kernel writing into the view writes into the Bigarray (private mapping: not into the file) *)
      let t = Tensor_base.wrap ~op:"test" (Mixin_movement.reshape (Buffers.from_buffer view) [ Uop.Sint 8 ]) in
      ignore (Tensor.realize (Tensor.assign t (Tensor.mul t (Tensor.scalar 2.))));
      check (m.{0} = 2. && m.{7} = 16. && m.{8} = 9.) "kernel writes reach the Bigarray";
      check_str ~what:"file untouched" (f32_bytes [ 1.; 2.; 3.; 4.; 5.; 6.; 7.; 8.; 9. ]) (read_file fn);
      check_rejects ~what:"odd byte size" [ "of_bigarray" ] (fun () ->
          Device.Buffer.of_bigarray Dtype.Float32 (genarray_of_array1 (Array1.create char c_layout 6)));
      Sys.remove fn);
]

(* ---------- IDX and gzip ---------- *)

(* python: gzip.compress(bytes([0,0,8,1]) + struct.pack('>I', 40) + bytes((i*7)%10 for i in range(40)), mtime=0)
   (a fixed-Huffman block) *)
let gz_labels = "1f8b08000000000002036360e060646060d060606761e46065e26463c6cf02006866ac5230000000"
let labels_idx = "\x00\x00\x08\x01\x00\x00\x00\x28" ^ String.init 40 (fun i -> Char.chr (i * 7 mod 10))

(* python: words = b'the quick brown fox jumps over lazy dogs and cats while birds sing '
   body = bytes(words[(i*i+3*i) % len(words)] for i in range(600))
   gzip.compress(bytes([0,0,8,3]) + struct.pack('>III', 6, 10, 10) + body, compresslevel=9, mtime=0)
   (a dynamic-Huffman block) *)
let gz_images = "1f8b0800000000000203ed8cbb09c0300c050581103285569365d92885857fe0f1a3d459c1c5f18ac71dc07500c0e9dc1fa386252838491f629338636a583aa36951c58eea6bc8bd604bfe8a313d4ad31d59a18e9c7762277e8917008a401068020000"
let images_idx =
  let words = "the quick brown fox jumps over lazy dogs and cats while birds sing " in
  "\x00\x00\x08\x03\x00\x00\x00\x06\x00\x00\x00\x0a\x00\x00\x00\x0a"
  ^ String.init 600 (fun i -> words.[(i * i + 3 * i) mod String.length words])

(* python: gzip.compress(that file[:60], compresslevel=0, mtime=0) (a stored block) *)
let gz_stored = "1f8b0800000000000403013c00c3ff00000803000000060000000a0000000a74716278652065207561696a61636f656475646672206e7363206f696e696920732069696e696f2063736e207d60cb263c000000"

let of_hex h = String.init (String.length h / 2) (fun i -> Char.chr (int_of_string ("0x" ^ String.sub h (2 * i) 2)))

let be32 n = String.init 4 (fun i -> Char.chr ((n lsr (8 * (3 - i))) land 0xff))

let idx_variants =
  [ ("empty", "", [ "not an IDX file" ]);
    ("2 bytes", "\x00\x00", [ "not an IDX file" ]);
    ("bad magic byte 0", "\x01" ^ String.sub labels_idx 1 (String.length labels_idx - 1), [ "not an IDX file" ]);
    ("bad magic byte 1", "\x00\x01" ^ String.sub labels_idx 2 (String.length labels_idx - 2), [ "not an IDX file" ]);
    ("float IDX", "\x00\x00\x0d\x01" ^ String.sub labels_idx 4 (String.length labels_idx - 4), [ "data type" ]);
    ("header cut", String.sub images_idx 0 10, [ "truncated IDX header" ]);
    ("data cut", String.sub labels_idx 0 30, [ "data bytes" ]);
    ("extra data", labels_idx ^ "\x00", [ "data bytes" ]);
    ("dims too large", "\x00\x00\x08\x01" ^ be32 41 ^ String.sub labels_idx 8 40, [ "data bytes" ]);
    ("255 dims", "\x00\x00\x08\xff" ^ String.make 16 '\x00', [ "truncated IDX header" ]);
    ("dims overflow", "\x00\x00\x08\x04" ^ be32 0x10000 ^ be32 0x10000 ^ be32 0x10000 ^ be32 0x10000, [ "too large" ]) ]

let gz_corrupt_variants () =
  let lab = of_hex gz_labels in
  let set s i c = String.mapi (fun j x -> if j = i then c else x) s in
  let n = String.length lab in
  [ ("bad gzip method", set lab 2 '\x07', [ "compression method" ]);
    ("bad CRC", set lab (n - 8) (Char.chr (Char.code lab.[n - 8] lxor 1)), [ "CRC" ]);
    ("bad length", set lab (n - 4) '\x29', [ "length" ]);
    ("no trailer", String.sub lab 0 (n - 8), [ "end of data" ]);
    ("block type 3", set lab 10 (Char.chr (Char.code lab.[10] lor 6)), [ "block type" ]);
    ("second member garbage", lab ^ "\x1f\x8b\x08\x00junk", [ "end of data" ]) ]

(* a dataset directory with the four files (labels: 40, images: 6 items) *)
let mnist_dir ~images ~labels =
  let dir = tmp "mnist" in
  Sys.mkdir dir 0o755;
  List.iter (fun (name, s) -> write_file (Filename.concat dir name) s)
    [ ("train-images-idx3-ubyte.gz", images); ("train-labels-idx1-ubyte.gz", labels);
      ("t10k-images-idx3-ubyte.gz", images); ("t10k-labels-idx1-ubyte.gz", labels) ];
  dir

let rm_dir dir = Array.iter (fun f -> Sys.remove (Filename.concat dir f)) (Sys.readdir dir); Sys.rmdir dir

let datasets_cases : case list = [
  ("gzip fixtures decode to the bytes Python compressed", fun () ->
      check_str ~what:"fixed Huffman" labels_idx (Inflate.gunzip (of_hex gz_labels));
      check_str ~what:"dynamic Huffman" images_idx (Inflate.gunzip (of_hex gz_images));
      check_str ~what:"stored" (String.sub images_idx 0 60) (Inflate.gunzip (of_hex gz_stored)));
  (Printf.sprintf "IDX: %d malformed variants rejected" (List.length idx_variants), fun () ->
      List.iter (fun (what, s, words) ->
          check_rejects ~what ("mnist" :: "f.idx" :: words) (fun () -> Datasets.parse_idx "f.idx" s)) idx_variants);
  ("gzip: every truncation, every byte flipped: an error or the right bytes", fun () ->
      (* a flipped bit in a header field the decoder ignores (mtime, xfl, os) may still decode: then the bytes must be
         right; anything else must raise Inflate.Error *)
      let count = ref 0 and errors = ref 0 in
      List.iter (fun (hex, expected) ->
          let gz = of_hex hex in
          let n = String.length gz in
          let try_one s =
            incr count;
            match Inflate.gunzip s with
            | out -> check (out = expected) "a corrupted stream decoded to wrong bytes (%d bytes in)" (String.length s)
            | exception Inflate.Error _ -> incr errors in
          (* no bytes at all: no members, "" (Python's gzip.decompress(b'') too) *)
          check (Inflate.gunzip "" = "") "empty input";
          for k = 1 to n - 1 do try_one (String.sub gz 0 k) done;
          for i = 0 to n - 1 do
            List.iter (fun bit ->
                try_one (String.mapi (fun j c -> if j = i then Char.chr (Char.code c lxor bit) else c) gz)) [ 1; 0x80 ]
          done) [ (gz_labels, labels_idx); (gz_images, images_idx); (gz_stored, String.sub images_idx 0 60) ];
      check (!errors > !count / 2) "most variants must be errors (%d of %d)" !errors !count;
      Printf.printf "  gzip: %d truncated/flipped variants, %d rejected, the rest decoded right\n%!" !count !errors);
  (Printf.sprintf "gzip: %d corrupted streams rejected" (List.length (gz_corrupt_variants ())), fun () ->
      List.iter (fun (what, s, words) ->
          match Inflate.gunzip s with
          | _ -> fail "%s: expected Inflate.Error" what
          | exception Inflate.Error m -> List.iter (fun w -> check (contains m w) "%s: %S does not name %S" what m w) words)
        (gz_corrupt_variants ()));
  ("mnist: a corrupt gzip or IDX in the directory raises Invalid_argument naming the file", fun () ->
      let good_images = of_hex gz_images and good_labels = of_hex gz_labels in
      (* the good directory loads (6 images and 40 labels disagree: that is itself an error naming both counts) *)
      let dir = mnist_dir ~images:good_images ~labels:good_labels in
      check_rejects ~what:"counts" [ "mnist"; "counts" ] (fun () -> Datasets.mnist ~dir ());
      rm_dir dir;
      List.iter (fun (what, images) ->
          let dir = mnist_dir ~images ~labels:good_labels in
          check_rejects ~what [ "mnist"; "train-images-idx3-ubyte" ] (fun () -> Datasets.mnist ~dir ());
          rm_dir dir)
        [ ("truncated gzip", String.sub good_images 0 50);
          ("CRC flipped", String.mapi (fun i c -> if i = String.length good_images - 6 then Char.chr (Char.code c lxor 4) else c) good_images);
          ("plain garbage", "garbage that is not IDX");
          ("gzip of a bad IDX", of_hex gz_labels) ]);
]

(* ---------- the kernel disk cache and the compiler ---------- *)

let nonce () =
  Printf.sprintf "/* %d.%d.%f */\n" (Compiler_cpu.getpid_for_tests ()) (Random.State.bits (Random.State.make_self_init ()))
    (Helpers.perf_counter ())

(* out[i] = a[i] + 1, i < 4 *)
let inc_src = "void E_4(float* restrict data0_4, float* restrict data1_4) {\n\
              \  for (int Lidx0 = 0; Lidx0 < 4; Lidx0++) {\n\
              \    *(data0_4+Lidx0) = ((*(data1_4+Lidx0))+1.0f);\n\
              \  }\n\
              }"

let run_inc lib =
  let p = Ops_cpu.load ~name:"E_4" ~lib ~runtimevars:[] in
  let a = Device.Buffer.create "CPU" 4 Dtype.Float32 and o = Device.Buffer.create "CPU" 4 Dtype.Float32 in
  Device.Buffer.copyin_floats a [| 1.; 2.; -3.; 0.5 |];
  Ops_cpu.call p (Device.Launch.of_buffers [ o; a ] []) ~global_size:[| 1; 1; 1 |];
  Device.Buffer.to_floats o

let kernel_cache_variants (so : string) =
  let n = String.length so in
  [ ("empty", "");
    ("truncated to half", String.sub so 0 (n / 2));
    ("last byte cut", String.sub so 0 (n - 1));
    ("garbage of the same size", String.make n '\x5a');
    ("one byte flipped", String.mapi (fun i c -> if i = n / 3 then Char.chr (Char.code c lxor 0xff) else c) so);
    ("an object without the digest", String.sub so 0 (n - 16)) ]

let compiler_cases : case list = [
  ("kernel cache: damaged entries are rebuilt, never loaded", fun () -> Helpers.(context [ Bind (ccache, 1) ]) @@ fun () ->
      let c = Compiler_cpu.create () in
      let src = nonce () ^ inc_src in
      let path = Compiler_cpu.compile_cached c src in
      check (Compiler_cpu.intact path) "a fresh entry is intact";
      check (run_inc path = [| 2.; 3.; -2.; 1.5 |]) "fresh entry runs";
      let good = read_file path in
      let variants = kernel_cache_variants good in
      List.iter (fun (what, bytes) ->
          (* a new file renamed over the entry: the loaded library keeps its own pages (writing in place under a
             mapped library would be a SIGBUS of the test's own making) *)
          let tmp = path ^ ".damaged" in
          write_file tmp bytes; Sys.rename tmp path;
          check (not (Compiler_cpu.intact path)) "%s: seen as intact" what;
          let n0 = (Compiler_cpu.compile_count ()) in
          let lib = Compiler_cpu.compile_cached c src in
          check_int ~what:(what ^ ": compiles again") (n0 + 1) (Compiler_cpu.compile_count ());
          check (Compiler_cpu.intact lib) "%s: rebuilt entry intact" what) variants;
      (* the rebuilt library loads and runs (a fresh path each time would be loaded once: here the same file) *)
      check (run_inc path = [| 2.; 3.; -2.; 1.5 |]) "rebuilt entry runs";
      Printf.printf "  kernel cache: %d damaged variants rebuilt\n%!" (List.length variants));
  ("compiler: a failure is retried without -march=native, DEBUG says so", fun () ->
      let c = Compiler_cpu.create () in
      if Compiler_cpu.safe_args c = c.args then Test_util.skip "no native-arch flag to drop"
      else begin
        (* fails only where the native flags define __AVX__ (x86 with AVX: the retry targets baseline x86-64) *)
        let src = nonce () ^ "#ifdef __AVX__\n#error native only\n#endif\n" ^ inc_src in
        let n0 = (Compiler_cpu.compile_count ()) in
        let lib = Helpers.(context [ Bind (debug, 1) ]) (fun () -> Compiler_cpu.compile c src) in
        check (run_inc lib = [| 2.; 3.; -2.; 1.5 |]) "the retried kernel runs";
        Printf.printf "  compiler runs: %d (2 where the native flags define __AVX__)\n%!" ((Compiler_cpu.compile_count ()) - n0)
      end;
      (* both fail: the first error, with the source and clang's message *)
      let bad = nonce () ^ "void E_1(float* restrict data0_1) { *data0_1 = undefined_thing; }" in
      (match Compiler_cpu.compile c bad with
       | _ -> fail "a bad source compiled"
       | exception Device.Compile_error { source; output } ->
         check (contains source "undefined_thing") "source in the error";
         check (contains output "undefined_thing") "compiler message in the error: %s" output));
  ("compiler: a missing compiler is reported with the install hint", fun () ->
      let c = { (Compiler_cpu.create ()) with cc = "/nonexistent/bin/clang" } in
      let n0 = (Compiler_cpu.compile_count ()) in
      (match Compiler_cpu.compile c (nonce () ^ inc_src) with
       | _ -> fail "compiled without a compiler"
       | exception Device.Compile_error { source; output } ->
         check (contains output "not found" && contains output "apt-get install clang") "message: %s" output;
         check (contains source "E_4") "source in the error");
      check_int ~what:"no compiler run" n0 (Compiler_cpu.compile_count ()));
  ("the clang-crashing cast (expand to (3,7,7), cast to bool) runs", fun () ->
      (* tinygrad: Tensor([0,1,-2,.5,0,3,0]).reshape(1,7).expand(3,7,7).cast(dtypes.bool).numpy(): clang 14 crashes on
         it under -march=native ("Cannot select: v16i8 X86ISD::VBROADCAST"); numpy's x != 0, broadcast *)
      let x = Tensor.of_float_array [| 7 |] [| 0.; 1.; -2.; 0.5; 0.; 3.; 0. |] in
      let y = Tensor.cast (Tensor.expand (Tensor.reshape x [| 1; 7 |]) [| 3; 7; 7 |]) Dtype.Bool in
      let row = [| 0; 1; 1; 1; 0; 1; 0 |] in
      check (Tensor.to_int_array y = Array.init 147 (fun i -> row.(i mod 7))) "values");
]

(* ---------- the BEAM cache ---------- *)

let beam_cases : case list = [
  ("BEAM cache: damaged entries are ignored and searched again", fun () ->
      match List.find_opt (fun (p, j, _) -> p = "red_sum_axis1" && j = 0) (Test_opts.kernels ()) with
      | None -> Test_util.skip "corpus absent"
      | Some (_, _, k) ->
        let ast = Pyrender.parse_ast (Golden.to_str (Golden.member "ast" k)) in
        let sched () = let s = Postrange.create ast (Device.renderer "CPU") in Postrange.convert_loop_to_global s; s in
        (* beam width 3: a key of its own (the opts suite searches with 2) *)
        let amt = 3 in
        let path = Search.cache_path (sched ()) amt true in
        let search () = Search.beam_search ~allow_test_size:true (sched ()) amt in
        let found = (search ()).applied_opts in
        let good = read_file path in
        let n0 = (Search.searches ()) in
        check (List.map Opt.to_string (search ()).applied_opts = List.map Opt.to_string found) "the entry answers";
        check_int ~what:"an intact entry: no search" n0 (Search.searches ());
        let variants =
          [ ("empty", ""); ("garbage", "\x00\xff\x13garbage\n");
            ("cut before the end line", String.sub good 0 (String.length good - 4));
            ("cut inside a line", String.sub good 0 (String.length "beam_search v2\n") ^ "UPC");
            ("the old format", "beam_search v1\n");
            ("unknown op", "beam_search v2\nFROB 0 4\nend\n");
            ("not a number", "beam_search v2\nUPCAST x 4\nend\n");
            ("opts that do not apply", "beam_search v2\nUPCAST 99 4\nend\n") ] in
        List.iter (fun (what, bytes) ->
            write_file path bytes;
            let n = (Search.searches ()) in
            let r = Helpers.(context [ Bind (debug, 1) ]) search in
            check_int ~what:(what ^ ": searched again") (n + 1) (Search.searches ());
            (* the search is timed, so its opts may differ from the first one's: the entry it wrote answers next *)
            let r2 = search () in
            check_int ~what:(what ^ ": the rewritten entry answers") (n + 1) (Search.searches ());
            check (List.map Opt.to_string r2.applied_opts = List.map Opt.to_string r.applied_opts) "%s: opts of the rewritten entry" what) variants;
        Printf.printf "  BEAM cache: %d damaged variants searched again\n%!" (List.length variants));
]

(* ---------- illegal builds ---------- *)

let build_cases : case list = [
  ("cat of 0-d tensors raises Invalid_argument naming cat", fun () ->
      (* tinygrad: Tensor(1.0).cat(Tensor(2.0)) raises IndexError; torch: "zero-dimensional tensor ... cannot be
         concatenated" *)
      check_rejects ~what:"two scalars" [ "cat"; "zero-dimensional" ] (fun () ->
          Tensor.cat [ Tensor.scalar 1.; Tensor.scalar 2. ]);
      check_rejects ~what:"one scalar" [ "cat"; "zero-dimensional" ] (fun () ->
          Tensor.cat [ Tensor.of_float_array [| 1 |] [| 1. |]; Tensor.scalar 2. ]));
  ("cat with a bool first: numpy's values (tinygrad builds an OR of floats)", fun () ->
      let b = Tensor.of_float_array [| 3 |] [| 1.; -2.; 3. |] in
      let neg = Tensor.lt b (Tensor.scalar 0.) in
      (* numpy: np.concatenate([b < 0, b[0:1]]) = [0., 1., 0., 1.] (float64 there, float32 here as tinygrad) *)
      let r = Tensor.cat [ neg; Tensor.shrink b [| (0, 1) |] ] in
      check (Tensor.dtype r == Dtype.Float32) "dtype %s" (Dtype.to_string (Tensor.dtype r));
      check (Tensor.to_float_array r = [| 0.; 1.; 0.; 1. |]) "bool then float";
      (* tinygrad: (b<0).cat(Tensor([1,2], dtype=dtypes.int32)) = [0 1 0 1 2] int32 *)
      let r = Tensor.cat [ neg; Tensor.of_int_array ~dtype:Dtype.Int32 [| 2 |] [| 1; 2 |] ] in
      check (Tensor.dtype r == Dtype.Int32 && Tensor.to_int_array r = [| 0; 1; 0; 1; 2 |]) "bool then int";
      (* tinygrad: (b<0).cat(Tensor([True]) ) stays bool *)
      let r = Tensor.cat [ neg; Tensor.of_int_array ~dtype:Dtype.Bool [| 1 |] [| 1 |] ] in
      check (Tensor.dtype r == Dtype.Bool && Tensor.to_int_array r = [| 0; 1; 0; 1 |]) "bool then bool");
  ("bitwise ops and shifts on floats are rejected when built", fun () ->
      (* tinygrad's UOp spec: AND/OR/XOR/SHL/SHR with a float source fail verification (at realize there) *)
      let f = Uop.const_float ~dtype:Dtype.Float32 1.5 and i = Uop.const_int ~dtype:Dtype.Int32 3 in
      List.iter (fun (what, op, name) ->
          check_rejects ~what [ name; "float" ] (fun () -> op f f);
          check_rejects ~what:(what ^ " int/float") [ name; "float" ] (fun () -> op i f))
        [ ("or", Uop.or_, "OR"); ("and", Uop.and_, "AND"); ("xor", Uop.xor, "XOR"); ("shl", Uop.shl, "SHL");
          ("shr", Uop.shr, "SHR") ];
      check_rejects ~what:"cdiv" [ "CDIV"; "float" ] (fun () -> Uop.cdiv f f);
      (* ints and bools still build *)
      ignore (Uop.or_ i i); ignore (Uop.xor (Uop.const_bool true) (Uop.const_bool false)); ignore (Uop.shl i i);
      (* through Tensor: tinygrad raises on a float xor / or at realize, on float shifts at once *)
      let x = Tensor.of_float_array [| 2 |] [| 1.; 2. |] in
      check_rejects ~what:"Tensor xor" [ "xor"; "float" ] (fun () -> Tensor.realize (Tensor.bitwise_xor x x)));
]

let tests : case list = build_cases @ safetensors_cases @ datasets_cases @ compiler_cases @ beam_cases
