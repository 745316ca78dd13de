(* Nn.State (tinygrad nn/state.py): state dicts and safetensors. Oracles: the bytes tinygrad 0.14.0's safe_save
   writes (generated once with the venv, pasted here), tinygrad's documented key names, and Python's safetensors
   package (run when available). *)
open Tinygrad.Compiler
open Test_util

let of_hex h = String.init (String.length h / 2) (fun i -> Char.chr (int_of_string ("0x" ^ String.sub h (2 * i) 2)))

(* a fresh name in every process (Random.bits unseeded gives every process the same one) *)
let tmp name = Filename.temp_file "tg_state_" ("_" ^ name)

let read_file fn = let ic = open_in_bin fn in let s = really_input_string ic (in_channel_length ic) in close_in ic; s

let floats t = Tensor.to_float_array t
let ints t = Tensor.to_int_array t

(* tinygrad: safe_save({'a': Tensor([1,2,3], dtype=dtypes.int32), 'b': Tensor([[1.5,-2.0]], dtype=dtypes.float32)},
   fn, metadata={"format":"pt","é":"x"}) *)
let tinygrad_file = "a0000000000000007b225f5f6d657461646174615f5f223a7b22666f726d6174223a227074222c225c7530306539223a2278227d2c2261223a7b226474797065223a22493332222c227368617065223a5b335d2c22646174615f6f666673657473223a5b302c31325d7d2c2262223a7b226474797065223a22463332222c227368617065223a5b312c325d2c22646174615f6f666673657473223a5b31322c32305d7d7d202020200100000002000000030000000000c03f000000c0"

let sample () =
  [ ("a", Tensor.of_int_array ~dtype:Dtype.Int32 [| 3 |] [| 1; 2; 3 |]);
    ("b", Tensor.of_float_array [| 1; 2 |] [| 1.5; -2.0 |]) ]

(* a Python with safetensors and numpy: SAFETENSORS_PYTHON, PYTHON or python3 *)
let python = lazy (
  let env k = match Sys.getenv_opt k with Some p when p <> "" -> [ p ] | _ -> [] in
  let cands = env "SAFETENSORS_PYTHON" @ env "PYTHON" @ [ "python3" ] in
  List.find_opt (fun p ->
      Sys.command (Printf.sprintf "%s -c 'import safetensors.numpy, numpy' >/dev/null 2>&1" (Filename.quote p)) = 0) cands)

let run_python py script =
  let f = tmp "script.py" in
  let oc = open_out f in output_string oc script; close_out oc;
  let out = tmp "out.txt" in
  let rc = Sys.command (Printf.sprintf "%s %s > %s 2>&1" (Filename.quote py) (Filename.quote f) (Filename.quote out)) in
  let o = read_file out in
  Sys.remove f; Sys.remove out;
  if rc <> 0 then fail "python failed (rc %d): %s" rc o;
  o

let net () =
  (* tinygrad's docstring Net: l1 = Linear(4, 5), l2 = Linear(5, 6) *)
  let t sh = Tensor.zeros sh in
  State.Dict [ ("l1", State.Dict [ ("weight", State.Tensor (t [| 5; 4 |])); ("bias", State.Tensor (t [| 5 |])) ]);
               ("l2", State.Dict [ ("weight", State.Tensor (t [| 6; 5 |])); ("bias", State.Tensor (t [| 6 |])) ]) ]

(* ---------- zero-copy loading ---------- *)

let rss_kb = Test_training.rss_kb

(* a file of [k] float32 tensors of [n] elements each, element i = (i mod 7) - 3, its data starting at a multiple of
   64 plus [shift] bytes (written in chunks, never whole in memory) *)
let write_big fn ~k ~n ~shift =
  let entries = List.init k (fun t ->
      Printf.sprintf {|"t%d":{"dtype":"F32","shape":[%d],"data_offsets":[%d,%d]}|} t n (t * n * 4) ((t + 1) * n * 4)) in
  let header = "{" ^ String.concat "," entries ^ "}" in
  let pad = (shift - (8 + String.length header)) mod 64 in
  let header = header ^ String.make (if pad < 0 then pad + 64 else pad) ' ' in
  let oc = open_out_bin fn in
  let n8 = String.length header in
  output_string oc (String.init 8 (fun i -> Char.chr ((n8 lsr (8 * i)) land 0xff)));
  output_string oc header;
  let chunk = Bytes.create (7 * 4 * 4096) in
  for i = 0 to (7 * 4096) - 1 do
    let b = Int32.bits_of_float (float_of_int ((i mod 7) - 3)) in
    for j = 0 to 3 do Bytes.set chunk ((4 * i) + j) (Char.chr (Int32.to_int (Int32.shift_right_logical b (8 * j)) land 0xff)) done
  done;
  for _ = 1 to k do
    let left = ref n in
    while !left > 0 do
      let m = min !left (7 * 4096) in
      output oc chunk 0 (4 * m); left := !left - m
    done
  done;
  close_out oc;
  8 + String.length header + (k * n * 4)

let zero_copy_tests : case list = [
  ("safe_load of 32 MB: tensors view the file, resident memory grows by at most 1.2x its size", fun () ->
      let k = 4 and n = 2 * 1024 * 1024 in
      (* sum over i < n of (i mod 7) - 3, by hand: full cycles sum to 0 *)
      let expect = let r = n mod 7 in float_of_int (List.fold_left ( + ) 0 (List.init r (fun i -> i - 3))) in
      List.iter (fun (what, shift) ->
          let fn = tmp "big.safetensors" in
          let size = write_big fn ~k ~n ~shift in
          Gc.full_major ();
          let before = rss_kb () in
          let sd = State.safe_load fn in
          let loaded = rss_kb () in
          let sums = List.map (fun (_, t) -> Tensor.item (Tensor.sum t)) sd in
          let after = rss_kb () in
          (* a view costs nothing until read; a copy is made at load *)
          if shift = 0 then
            check (float_of_int (loaded - before) < 0.1 *. float_of_int size /. 1024.) "%s: RSS grew %d kB at load" what (loaded - before);
          List.iter (fun s -> check (s = expect) "%s: a tensor sums to %g, expected %g" what s expect) sums;
          let grown = after - before and limit = 1.2 *. float_of_int size /. 1024. in
          Printf.printf "  %s: file %d kB, RSS grew %d kB\n%!" what (size / 1024) grown;
          check (float_of_int grown <= limit) "%s: RSS grew %d kB for a %d kB file" what grown (size / 1024);
          ignore (Sys.opaque_identity sd);
          Sys.remove fn) [ ("aligned (viewed)", 0); ("8 bytes off (copied)", 8) ]);
]

(* float32 [1.5; -2.25; 3e-3; 7; -0; 1e30; 6.5; -8] as bytes; numpy: a[1:5].view(np.int32) *)
let view_floats = [| 1.5; -2.25; 3.0e-3; 7.0; -0.0; 1e30; 6.5; -8.0 |]
let view_ints = [| -1072693248; 994352038; 1088421888; -2147483648 |]

let float_bytes fs =
  String.concat "" (Array.to_list (Array.map (fun f ->
      let b = Int32.bits_of_float f in
      String.init 4 (fun j -> Char.chr (Int32.to_int (Int32.shift_right_logical b (8 * j)) land 0xff))) fs))

(* the bytes of [view_floats] as a uint8 tensor over a mapped file (a view of the mapping) *)
let mapped_bytes () =
  let fn = tmp "view.bin" in
  let oc = open_out_bin fn in
  output_string oc (float_bytes view_floats);
  close_out oc;
  let fd = Unix.openfile fn [ Unix.O_RDONLY ] 0 in
  let m = Unix.map_file fd Bigarray.char Bigarray.c_layout false [| 32 |] in
  Unix.close fd;
  Sys.remove fn;
  Tensor.of_bigarray m

(* the int32 values of [bitcast (contiguous (shrink bytes 4..20))], plus [add] when given, and the compute
   kernels they ran *)
let contiguous_view_ints ?add bytes =
  let x = Tensor.bitcast (Tensor.contiguous (Tensor.shrink bytes [| (4, 20) |])) Dtype.Int32 in
  let x = match add with Some a -> Tensor.add x (Tensor.scalar_int a) | None -> x in
  let before = Global_counters.kernel_count () in
  let v = ints x in
  (v, Global_counters.kernel_count () - before)

(* tinygrad 0.14.0: t[4:20].contiguous().bitcast(dtypes.int32) of a realized uint8 buffer is a view (no
   kernel) whose values are numpy's .view; the same view feeds a kernel (E_4, one kernel) *)
let contiguous_view_tests : case list =
  let show v = String.concat " " (Array.to_list (Array.map string_of_int v)) in
  List.concat_map (fun (what, make) -> [
        ("bitcast of a contiguous shrink of " ^ what ^ " equals numpy's view", fun () ->
            let v, kernels = contiguous_view_ints (make ()) in
            check (v = view_ints) "values %s" (show v);
            check_int ~what:"compute kernels" 0 kernels);
        ("bitcast of a contiguous shrink of " ^ what ^ " in a kernel", fun () ->
            let v, kernels = contiguous_view_ints ~add:1 (make ()) in
            check (v = Array.map (fun i -> i + 1) view_ints) "values %s" (show v);
            check_int ~what:"compute kernels" 1 kernels) ])
    [ ("a mapped file", mapped_bytes);
      ("a realized buffer", fun () -> State.tensor_of_bytes (float_bytes view_floats)) ]

let tests : case list = zero_copy_tests @ contiguous_view_tests @ [
  ("json like python json.dumps", fun () ->
      let open State.Json in
      check_str ~what:"header"
        {|{"__metadata__":{"format":"pt","\u00e9":"x"},"a":{"dtype":"I32","shape":[3],"data_offsets":[0,12]}}|}
        (to_string (Assoc [ ("__metadata__", Assoc [ ("format", String "pt"); ("\xc3\xa9", String "x") ]);
                            ("a", Assoc [ ("dtype", String "I32"); ("shape", List [ Int 3 ]);
                                          ("data_offsets", List [ Int 0; Int 12 ]) ]) ]));
      (* json.dumps("a\"\\\n\x01\U0001F600") *)
      check_str ~what:"escapes" {|"a\"\\\n\u0001\ud83d\ude00"|} (to_string (String "a\"\\\n\001\xf0\x9f\x98\x80"));
      let v = of_string {| {"k" : [1, -2.5e3, true, null, "\u00e9\ud83d\ude00"], "e": {}} |} in
      check (v = Assoc [ ("k", List [ Int 1; Float (-2500.); Bool true; Null; String "\xc3\xa9\xf0\x9f\x98\x80" ]);
                         ("e", Assoc []) ]) "parse";
      check (match of_string "{\"a\":" with _ -> false | exception Parse_error _ -> true) "parse error");
  ("safe_save writes tinygrad's bytes", fun () ->
      let fn = tmp "a.safetensors" in
      State.safe_save ~metadata:[ ("format", "pt"); ("\xc3\xa9", "x") ] (sample ()) fn;
      check_str ~what:"file" (of_hex tinygrad_file) (read_file fn);
      Sys.remove fn);
  ("safe_load reads tinygrad's file", fun () ->
      let fn = tmp "b.safetensors" in
      let oc = open_out_bin fn in output_string oc (of_hex tinygrad_file); close_out oc;
      let sd = State.safe_load fn in
      check (List.map fst sd = [ "a"; "b" ]) "keys in header order";
      let a = List.assoc "a" sd and b = List.assoc "b" sd in
      check (Tensor.dtype a == Dtype.Int32 && Tensor.shape a = [| 3 |] && ints a = [| 1; 2; 3 |]) "a";
      check (Tensor.dtype b == Dtype.Float32 && Tensor.shape b = [| 1; 2 |] && floats b = [| 1.5; -2.0 |]) "b";
      let _, data_start, meta = State.safe_load_metadata fn in
      check_int ~what:"data start" (8 + 160) data_start;
      (match meta with
       | State.Json.Assoc (("__metadata__", State.Json.Assoc m) :: _) ->
         check (m = [ ("format", State.Json.String "pt"); ("\xc3\xa9", State.Json.String "x") ]) "metadata"
       | _ -> fail "no __metadata__ first");
      Sys.remove fn);
  ("round trip of every dtype", fun () ->
      let fn = tmp "c.safetensors" in
      let f dt sh v = Tensor.of_float_array ~dtype:dt sh v and i dt sh v = Tensor.of_int_array ~dtype:dt sh v in
      let sd = [ ("f32", f Dtype.Float32 [| 2; 2 |] [| 1.; -2.5; 3.25; 0.125 |]);
                 ("f16", f Dtype.Float16 [| 3 |] [| 0.5; -65504.; 2.0 |]);
                 ("bf16", f Dtype.Bfloat16 [| 2 |] [| 1.5; -3.0 |]);
                 ("f64", f Dtype.Float64 [| 2 |] [| 0.1; -1e300 |]);
                 ("i8", i Dtype.Int8 [| 3 |] [| -128; 0; 127 |]);
                 ("u8", i Dtype.Uint8 [| 3 |] [| 0; 128; 255 |]);
                 ("i16", i Dtype.Int16 [| 2 |] [| -30000; 12345 |]);
                 ("u16", i Dtype.Uint16 [| 2 |] [| 65535; 1 |]);
                 ("i32", i Dtype.Int32 [| 2; 1 |] [| -7; 1 lsl 30 |]);
                 ("u32", i Dtype.Uint32 [| 1 |] [| 0xffffffff |]);
                 ("i64", i Dtype.Int64 [| 2 |] [| -(1 lsl 40); 5 |]);
                 ("bool", i Dtype.Bool [| 3 |] [| 1; 0; 1 |]);
                 ("scalar", f Dtype.Float32 [||] [| 42. |]);
                 ("empty", f Dtype.Float32 [| 0; 3 |] [||]);
                 ("computed", Tensor.add (f Dtype.Float32 [| 2 |] [| 1.; 2. |]) (Tensor.scalar 0.5)) ] in
      State.safe_save sd fn;
      let back = State.safe_load fn in
      check (List.map fst back = List.map fst sd) "keys";
      List.iter (fun (k, v) ->
          let w = List.assoc k back in
          check (Tensor.dtype w == Tensor.dtype v) "%s: dtype %s" k (Dtype.to_string (Tensor.dtype w));
          check (Tensor.shape w = Tensor.shape v) "%s: shape" k;
          check (State.tensor_data w = State.tensor_data v) "%s: bytes" k) sd;
      check (floats (List.assoc "f16" back) = [| 0.5; -65504.; 2.0 |]) "f16 values";
      check (floats (List.assoc "computed" back) = [| 1.5; 2.5 |]) "computed values";
      check (ints (List.assoc "i64" back) = [| -(1 lsl 40); 5 |]) "i64 values";
      (* a loaded tensor is an ordinary lazy tensor *)
      let u = floats (Tensor.mul (List.assoc "f32" back) (Tensor.scalar 2.)) in
      check (u = [| 2.; -5.; 6.5; 0.25 |]) "use after load: %s" (String.concat " " (Array.to_list (Array.map string_of_float u)));
      Sys.remove fn);
  ("safe_save / safe_load errors", fun () ->
      check_invalid_arg ~what:"weak dtype" (fun () -> State.safe_save [ ("w", Tensor.scalar 1.) ] (tmp "w"));
      let fn = tmp "bad.safetensors" in
      let write s = let oc = open_out_bin fn in output_string oc s; close_out oc in
      write "\x10\x00\x00";
      check_invalid_arg ~what:"short" (fun () -> State.safe_load fn);
      write "\xff\x00\x00\x00\x00\x00\x00\x00{}";
      check_invalid_arg ~what:"header length" (fun () -> State.safe_load fn);
      write "\x08\x00\x00\x00\x00\x00\x00\x00{\"a\":1}";
      check_invalid_arg ~what:"bad json" (fun () -> State.safe_load fn);
      write ("\x38\x00\x00\x00\x00\x00\x00\x00" ^ {|{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}|} ^ "  " ^ "\000\000\000\000");
      check_invalid_arg ~what:"data past the end" (fun () -> State.safe_load fn);
      check_invalid_arg ~what:"missing file" (fun () -> State.safe_load "/nonexistent/x.safetensors");
      Sys.remove fn);
  ("get_state_dict keys (tinygrad docstring Net)", fun () ->
      (* tinygrad prints odict_keys(['l1.weight', 'l1.bias', 'l2.weight', 'l2.bias']) and 4 parameters *)
      check (List.map fst (State.get_state_dict (net ())) = [ "l1.weight"; "l1.bias"; "l2.weight"; "l2.bias" ]) "keys";
      check_int ~what:"parameters" 4 (List.length (State.get_parameters (net ())));
      let t = Tensor.ones [| 2 |] in
      let o = State.Dict [ ("layers", State.List [ State.Dict [ ("w", State.Tensor t) ]; State.Nothing;
                                                   State.List [ State.Tensor t ] ]);
                           ("x", State.Tensor t); ("none", State.Nothing) ] in
      check (List.map fst (State.get_state_dict o) = [ "layers.0.w"; "layers.2.0"; "x" ]) "nested keys";
      check (List.map fst (State.state_dict ~prefix:"model." o) = [ "model.layers.0.w"; "model.layers.2.0"; "model.x" ])
        "prefix";
      check (List.map fst (State.get_state_dict (State.Tensor t)) = [ "" ]) "bare tensor";
      check (List.map fst (State.get_state_dict (State.Dict [ ("fc", State.of_named [ ("weight", t); ("bias", t) ]) ]))
             = [ "fc.weight"; "fc.bias" ]) "of_named";
      check (List.map fst (State.get_state_dict (State.List [ State.Tensor t; State.Tensor t ])) = [ "0"; "1" ]) "list");
  ("load_state_dict", fun () ->
      let w = Tensor.zeros [| 2; 2 |] and b = Tensor.zeros [| 1 |] in
      let model = State.Dict [ ("w", State.Tensor w); ("b", State.Tensor b) ] in
      let sd = [ ("w", Tensor.of_float_array [| 2; 2 |] [| 1.; 2.; 3.; 4. |]); ("b", Tensor.scalar ~dtype:Dtype.Float32 7.);
                 ("extra", Tensor.ones [| 1 |]) ] in
      let loaded = State.load_state_dict ~verbose:false model sd in
      check (List.length loaded = 2 && List.hd loaded == w) "returns the model's tensors";
      check (floats w = [| 1.; 2.; 3.; 4. |]) "w loaded";
      check (Tensor.shape b = [| 1 |] && floats b = [| 7. |]) "() -> (1,) reshaped";
      check_invalid_arg ~what:"shape mismatch"
        (fun () -> State.load_state_dict ~verbose:false model [ ("w", Tensor.ones [| 4 |]); ("b", Tensor.ones [| 1 |]) ]);
      check_invalid_arg ~what:"missing key (strict)" (fun () -> State.load_state_dict ~verbose:false model [ ("w", Tensor.ones [| 2; 2 |]) ]);
      let l = State.load_state_dict ~strict:false ~verbose:false model [ ("w", Tensor.full [| 2; 2 |] 5.) ] in
      check (List.length l = 1 && floats w = [| 5.; 5.; 5.; 5. |] && floats b = [| 7. |]) "non-strict skips b");
  ("save a model, load into another", fun () ->
      Tensor.manual_seed 3;
      let mk () = State.Dict [ ("l1", State.Dict [ ("weight", State.Tensor (Tensor.rand [| 3; 4 |])); ("bias", State.Tensor (Tensor.rand [| 3 |])) ]) ] in
      let m1 = mk () in
      let m2 = mk () in
      let fn = tmp "model.safetensors" in
      State.safe_save (State.get_state_dict m1) fn;
      ignore (State.load_state_dict ~verbose:false m2 (State.safe_load fn));
      List.iter2 (fun (k, a) (_, b) -> check (floats a = floats b) "%s equal" k) (State.get_state_dict m1) (State.get_state_dict m2);
      Sys.remove fn);
  ("interop: ours loads in python safetensors", fun () ->
      match Lazy.force python with
      | None -> Test_util.skip "no python with safetensors and numpy (set SAFETENSORS_PYTHON)"
      | Some py ->
        let fn = tmp "to_py.safetensors" in
        State.safe_save ~metadata:[ ("format", "np") ]
          [ ("w", Tensor.of_float_array [| 2; 3 |] [| 1.; 2.; 3.; 4.; 5.; -6.5 |]);
            ("h", Tensor.of_float_array ~dtype:Dtype.Float16 [| 2 |] [| 0.25; -8. |]);
            ("i", Tensor.of_int_array ~dtype:Dtype.Int64 [| 1; 2 |] [| -3; 1 lsl 40 |]);
            ("m", Tensor.of_int_array ~dtype:Dtype.Bool [| 2 |] [| 1; 0 |]);
            ("s", Tensor.of_float_array ~dtype:Dtype.Float64 [||] [| 3.5 |]) ] fn;
        let out = run_python py (Printf.sprintf {|
import numpy as np
from safetensors.numpy import load_file
from safetensors import safe_open
d = load_file(%S)
assert sorted(d) == ['h', 'i', 'm', 's', 'w'], list(d)
assert d['w'].dtype == np.float32 and d['w'].shape == (2, 3) and d['w'].tolist() == [[1, 2, 3], [4, 5, -6.5]]
assert d['h'].dtype == np.float16 and d['h'].tolist() == [0.25, -8]
assert d['i'].dtype == np.int64 and d['i'].tolist() == [[-3, 1 << 40]]
assert d['m'].dtype == np.bool_ and d['m'].tolist() == [True, False]
assert d['s'].dtype == np.float64 and d['s'].shape == () and float(d['s']) == 3.5
with safe_open(%S, 'np') as f: assert f.metadata() == {'format': 'np'}, f.metadata()
print('OK')
|} fn fn) in
        check_str ~what:"python" "OK\n" out;
        Sys.remove fn);
  ("interop: python safetensors file loads here", fun () ->
      match Lazy.force python with
      | None -> Test_util.skip "no python with safetensors and numpy (set SAFETENSORS_PYTHON)"
      | Some py ->
        let fn = tmp "from_py.safetensors" in
        ignore (run_python py (Printf.sprintf {|
import numpy as np
from safetensors.numpy import save_file
save_file({'weight': np.arange(12, dtype=np.float32).reshape(3, 4) / 4,
           'half': np.array([1.5, -2, 65504], dtype=np.float16),
           'dbl': np.array([[0.1]], dtype=np.float64),
           'i8': np.array([-128, 5], dtype=np.int8), 'u8': np.array([200], dtype=np.uint8),
           'i16': np.array([-300], dtype=np.int16), 'i32': np.array([7, -9], dtype=np.int32),
           'i64': np.array([1 << 50], dtype=np.int64), 'b': np.array([False, True]),
           'scalar': np.array(2.0, dtype=np.float32)}, %S, metadata={'author': 'py'})
|} fn));
        let sd = State.safe_load fn in
        let g k = match List.assoc_opt k sd with Some t -> t | None -> fail "missing %s" k in
        check (Tensor.shape (g "weight") = [| 3; 4 |] && floats (g "weight") = Array.init 12 (fun i -> float_of_int i /. 4.)) "weight";
        check (Tensor.dtype (g "half") == Dtype.Float16 && floats (g "half") = [| 1.5; -2.; 65504. |]) "half";
        check (Tensor.dtype (g "dbl") == Dtype.Float64 && floats (g "dbl") = [| 0.1 |]) "dbl";
        check (ints (g "i8") = [| -128; 5 |] && ints (g "u8") = [| 200 |] && ints (g "i16") = [| -300 |]) "small ints";
        check (ints (g "i32") = [| 7; -9 |] && ints (g "i64") = [| 1 lsl 50 |]) "ints";
        check (Tensor.dtype (g "b") == Dtype.Bool && ints (g "b") = [| 0; 1 |]) "bool";
        check (Tensor.shape (g "scalar") = [||] && floats (g "scalar") = [| 2. |]) "scalar";
        let _, _, meta = State.safe_load_metadata fn in
        (match meta with
         | State.Json.Assoc l -> check (List.assoc_opt "__metadata__" l = Some (State.Json.Assoc [ ("author", State.Json.String "py") ])) "metadata"
         | _ -> fail "header");
        Sys.remove fn);
]
