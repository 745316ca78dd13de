(* tinygrad's llm (src/llm): GGUF loading against the `gguf` package (test/fixtures/llm/types.gguf holds a
   tensor of random blocks for every supported ggml type, dequant_<TYPE>.npy the package's dequantized
   values, both written by gen_dequant_fixture.py). *)

open Test_util
open Tinygrad
module Gguf = Tinygrad_llm.Gguf

let fixture name =
  let cands = [ Filename.concat "test/fixtures/llm" name; Filename.concat "fixtures/llm" name ] in
  match List.find_opt Sys.file_exists cands with Some p -> p | None -> fail "fixture %s not found" name

let types_gguf = lazy (Gguf.gguf_load (fixture "types.gguf"))

let read_file fn =
  let ic = open_in_bin fn in
  Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic))

(* the dtype the gguf package dequantizes to: the native dtype, float16 for Q1_0, float32 for the others *)
let bits_equal (exp : Npy.t) (t : Tensor.t) what =
  check_eq ~pp:Dtype.to_string ~eq:( == ) ~what:(what ^ " dtype") exp.dtype (Tensor.dtype t);
  check_eq ~pp:(fun l -> String.concat "," (List.map string_of_int l)) ~eq:( = ) ~what:(what ^ " shape") exp.shape
    (Array.to_list (Tensor.shape t));
  (* the raw bytes: bit for bit, signed zeros included *)
  let got = State.tensor_data t in
  if got <> exp.data then begin
    let ef = Npy.to_floats exp and gf = Tensor.to_float_array t in
    let i = ref 0 in
    while !i < Array.length ef && Int64.bits_of_float ef.(!i) = Int64.bits_of_float gf.(!i) do incr i done;
    fail "%s: element %d: expected %h, got %h" what !i ef.(min !i (Array.length ef - 1)) gf.(min !i (Array.length gf - 1))
  end

let dequant_case typ =
  let name = Gguf.ggml_type_name typ in
  ("dequant_" ^ name, fun () ->
      let _, sd = Lazy.force types_gguf in
      let t = match List.assoc_opt name sd with Some t -> t | None -> fail "types.gguf has no tensor %s" name in
      (* the package widens bfloat16 to float32, exactly *)
      let t = if typ = Gguf.BF16 then Tensor.cast t Dtype.Float32 else t in
      bits_equal (Npy.read (fixture ("dequant_" ^ name ^ ".npy"))) t name)

(* a GGUF file's bytes, written here field by field: the header with [kv] and one F32 tensor "w" of [n]
   values *)
let le n v = String.init n (fun i -> Char.chr ((v lsr (8 * i)) land 0xff))
let gstr s = le 8 (String.length s) ^ s

let tiny_gguf ?(magic = "GGUF") ?(version = 3) ?(kv = []) ?(typ = 0) ?(offset = 0) ?(n = 4) ?(name = "w") () =
  let kvs = String.concat "" (List.map (fun (k, vtyp, payload) -> gstr k ^ le 4 vtyp ^ payload) kv) in
  let header = magic ^ le 4 version ^ le 8 1 ^ le 8 (List.length kv) ^ kvs
               ^ gstr name ^ le 4 1 ^ le 8 n ^ le 4 typ ^ le 8 offset in
  let pad = String.make ((32 - String.length header mod 32) mod 32) '\000' in
  let data = String.concat "" (List.init n (fun i -> le 4 (Int32.to_int (Int32.bits_of_float (float_of_int i))))) in
  header ^ pad ^ data

let load_bytes s = Gguf.gguf_load_tensor (State.tensor_of_bytes s)

let malformed what s =
  (what, fun () -> check_invalid_arg ~what (fun () -> let _, sd = load_bytes s in List.map (fun (_, t) -> Tensor.realize t) sd))

let gguf_tests =
  List.map dequant_case Gguf.all_ggml_types
  @ [ ("metadata", fun () ->
        let kv, _ = Lazy.force types_gguf in
        check_eq ~pp:(fun s -> s) ~eq:( = ) ~what:"architecture" "llama"
          (Option.get (Gguf.get_string kv "general.architecture"));
        check_eq ~pp:(fun s -> s) ~eq:( = ) ~what:"utf-8 string" "h\xc3\xa9llo" (Option.get (Gguf.get_string kv "test.string"));
        check_bool ~what:"ints" true (List.assoc "test.ints" kv = Gguf.Array [ Int 1; Int 2; Int 3 ]);
        check_bool ~what:"float" true (Gguf.get_float kv "test.float" = Some 0.25);
        check_bool ~what:"bool" true (List.assoc "test.bool" kv = Gguf.Bool true));
      ("file_and_tensor_agree", fun () ->
        let _, a = Gguf.gguf_load (fixture "types.gguf") in
        let _, b = load_bytes (read_file (fixture "types.gguf")) in
        check_eq ~pp:(String.concat ",") ~eq:( = ) ~what:"names" (List.map fst a) (List.map fst b);
        List.iter2 (fun (k, x) (_, y) ->
            check_bool ~what:k true (State.tensor_data x = State.tensor_data y)) a b);
      ("tiny_file_values", fun () ->
        let kv, sd = load_bytes (tiny_gguf ~kv:[ ("a.b", 4, le 4 7) ] ()) in
        check_bool ~what:"kv" true (kv = [ ("a.b", Gguf.Int 7) ]);
        check_bool ~what:"values" true (Tensor.to_float_array (List.assoc "w" sd) = [| 0.; 1.; 2.; 3. |]));
      malformed "bad magic" (tiny_gguf ~magic:"GGUX" ());
      malformed "bad version" (tiny_gguf ~version:7 ());
      malformed "truncated header" (String.sub (tiny_gguf ()) 0 30);
      malformed "truncated data" (let s = tiny_gguf () in String.sub s 0 (String.length s - 3));
      malformed "offset past the end" (tiny_gguf ~offset:64 ());
      malformed "unknown tensor type" (tiny_gguf ~typ:19 ());
      malformed "unknown value type" (tiny_gguf ~kv:[ ("k", 13, le 4 0) ] ());
      malformed "string not utf-8" (tiny_gguf ~kv:[ ("k", 8, gstr "\xff\xfe") ] ());
      malformed "string length past the end" (tiny_gguf ~kv:[ ("k", 8, le 8 1_000_000) ] ());
      malformed "array length past the end" (tiny_gguf ~kv:[ ("k", 9, le 4 4 ^ le 8 1_000_000_000) ] ());
      malformed "partial quant block" (tiny_gguf ~typ:8 ~n:20 ()) ]


(* ---- the Transformer against transformers ---- test/fixtures/llm/<arch>-<type>.gguf are tiny random models
   written by llama.cpp's converter, <arch>-<type>.json and .logits.npy transformers' outputs on the GGUF's
   dequantized weights (gen_model_fixtures.py). *)

module Model = Tinygrad_llm.Model
module Json = State.Json

type expected = { prompt_ids : int list; greedy_16 : int list; tokenizer_cases : (string * int list) list;
                  llamacpp_greedy_16 : int list }

let ints_of = function Json.List l -> List.map (function Json.Int i -> i | _ -> fail "not an int") l | _ -> fail "not a list"

let expected_of base =
  let fields = match Json.of_string (read_file (fixture (base ^ ".json"))) with Json.Assoc l -> l | _ -> fail "json" in
  let field k = match List.assoc_opt k fields with Some v -> v | None -> fail "%s.json has no %s" base k in
  let cases = match field "tokenizer_cases" with
    | Json.List l -> List.map (function Json.List [ Json.String s; ids ] -> (s, ints_of ids) | _ -> fail "case") l
    | _ -> fail "tokenizer_cases" in
  { prompt_ids = ints_of (field "prompt_ids"); greedy_16 = ints_of (field "greedy_16"); tokenizer_cases = cases;
    llamacpp_greedy_16 = ints_of (field "llamacpp_greedy_16") }

let show l = "[" ^ String.concat "; " (List.map string_of_int l) ^ "]"

(* within [tol] of the largest expected logit *)
let check_logits ~what ~tol (exp : float array) (got : float array) =
  check_int ~what:(what ^ " size") (Array.length exp) (Array.length got);
  let scale = Array.fold_left (fun m v -> Float.max m (Float.abs v)) 0. exp in
  Array.iteri (fun i e ->
      if Float.abs (got.(i) -. e) > tol *. scale then fail "%s: logit %d: expected %g, got %g" what i e got.(i)) exp

let load base = fst (Model.from_gguf ~half:false ~max_context:64 (fixture (base ^ ".gguf")))

let model_cases arch typ =
  let base = arch ^ "-" ^ typ in
  [ (base ^ "_logits", fun () ->
        let e = expected_of base and m = load base in
        let l = Model.logits m (Tensor.of_int_array [| 1; 32 |] (Array.of_list e.prompt_ids)) ~start_pos:(Sint.of_int 0) in
        let got = Tensor.to_float_array l in
        let hf = Npy.to_floats (Npy.read (fixture (base ^ ".logits.npy"))) in
        check_logits ~what:(base ^ " vs transformers") ~tol:1e-4 hf got;
        (* llama.cpp on the same file (float32 KV cache): within 1e-4 or twice its own gap to transformers *)
        let lc = Npy.to_floats (Npy.read (fixture (base ^ ".llamacpp.npy"))) in
        let scale = Array.fold_left (fun m v -> Float.max m (Float.abs v)) 0. hf in
        let gap = ref 0. in
        Array.iteri (fun i v -> gap := Float.max !gap (Float.abs (v -. lc.(i)) /. scale)) hf;
        check_logits ~what:(base ^ " vs llama.cpp") ~tol:(Float.max 1e-4 (2. *. !gap)) lc got);
    (base ^ "_greedy_16", fun () ->
        let e = expected_of base and m = load base in
        let g = Model.generate m e.prompt_ids 16 in
        check_eq ~pp:show ~eq:( = ) ~what:"greedy 16 vs transformers" e.greedy_16 g;
        (* llama.cpp quantizes its activations below f32: its tokens are an oracle at f32 only *)
        if typ = "f32" then check_eq ~pp:show ~eq:( = ) ~what:"greedy 16 vs llama.cpp" e.llamacpp_greedy_16 g) ]

let model_tests =
  List.concat_map (fun arch -> List.concat_map (model_cases arch) [ "f32"; "f16"; "q8_0" ])
    [ "llama"; "qwen3"; "qwen3moe"; "olmoe" ]
  @ [ ("rollout_jit_captures_once", fun () ->
        let e = expected_of "llama-f32" and m = load "llama-f32" in
        ignore (Model.generate m e.prompt_ids 16);
        let j = Model.rollout_jit m in
        (* the prompt runs outside the JIT, then 15 one-token steps: run, capture, 13 replays *)
        check_int ~what:"calls" 15 (Tiny_jit.cnt j);
        check_bool ~what:"captured" true (Option.is_some (Tiny_jit.captured j));
        (* a second generation from another prompt length replays the same capture *)
        Model.reset_cache m;
        let g = Model.generate m (List.filteri (fun i _ -> i < 20) e.prompt_ids) 6 in
        check_int ~what:"calls after" 20 (Tiny_jit.cnt j);
        check_int ~what:"tokens" 6 (List.length g));
      ("temperature_sampling", fun () ->
        let e = expected_of "qwen3-f32" in
        (* a fresh model each time: a JIT replays the RNG counter buffer it captured, which manual_seed
           replaces *)
        let sample () = Tensor.manual_seed 7; Model.generate ~temperature:1.0 (load "qwen3-f32") e.prompt_ids 16 in
        let a = sample () and b = sample () in
        check_eq ~pp:show ~eq:( = ) ~what:"same seed, same tokens" a b;
        List.iter (fun t -> check (t >= 0 && t < 384) "token %d outside the vocabulary" t) a;
        (* at temperature 1 over 384 tokens, 16 samples that all equal the argmax would be a broken sampler
           *)
        check (a <> e.greedy_16) "temperature 1 gave the greedy tokens %s" (show a));
      (* the weights left as graphs over the file's bytes, dequantized inside the kernels that use them *)
      ("lazy_weights_q8_0", fun () ->
        List.iter (fun base ->
            let e = expected_of base in
            let m = fst (Model.from_gguf ~half:false ~realize:false ~max_context:64 (fixture (base ^ ".gguf"))) in
            let l = Model.logits m (Tensor.of_int_array [| 1; 32 |] (Array.of_list e.prompt_ids)) ~start_pos:(Sint.of_int 0) in
            check_logits ~what:base ~tol:1e-4 (Npy.to_floats (Npy.read (fixture (base ^ ".logits.npy"))))
              (Tensor.to_float_array l);
            Model.reset_cache m;
            check_eq ~pp:show ~eq:( = ) ~what:(base ^ " greedy") (List.filteri (fun i _ -> i < 4) e.greedy_16)
              (Model.generate m e.prompt_ids 4)) [ "llama-q8_0"; "qwen3moe-q8_0" ]);
      ("half_weights_and_cache", fun () ->
        (* the f16 file's weights are exact in float16; the float16 KV cache rounds the keys and values *)
        let e = expected_of "llama-f16" in
        let m = fst (Model.from_gguf ~max_context:64 (fixture "llama-f16.gguf")) in
        let l = Model.logits m (Tensor.of_int_array [| 1; 32 |] (Array.of_list e.prompt_ids)) ~start_pos:(Sint.of_int 0) in
        check_logits ~what:"half" ~tol:5e-3 (Npy.to_floats (Npy.read (fixture "llama-f16.logits.npy")))
          (Tensor.to_float_array l));
      ("from_gguf_errors", fun () ->
        check_invalid_arg ~what:"no tensors" (fun () -> Model.from_gguf (fixture "types.gguf"));
        let m = load "llama-f32" in
        check_invalid_arg ~what:"past the context" (fun () ->
            Model.logits m (Tensor.of_int_array [| 1; 2 |] [| 1; 2 |]) ~start_pos:(Sint.of_int 63));
        check_invalid_arg ~what:"empty prompt" (fun () -> Model.generate m [] 4)) ]

(* ---- the tokenizer against the `tokenizers` package (the cases of gen_model_fixtures.py) ---- *)

module Tokenizer = Tinygrad_llm.Tokenizer

let tokenizer_of base = Tokenizer.of_gguf_kv (fst (Gguf.gguf_load (fixture (base ^ ".gguf"))))

let tokenizer_tests =
  List.concat_map (fun base ->
      [ (base ^ "_tokenizer_encode", fun () ->
            let t = tokenizer_of base in
            List.iter (fun (s, ids) -> check_eq ~pp:show ~eq:( = ) ~what:(Printf.sprintf "encode %S" s) ids (Tokenizer.encode t s))
              (expected_of base).tokenizer_cases);
        (base ^ "_tokenizer_roundtrip", fun () ->
            let t = tokenizer_of base in
            List.iter (fun (s, ids) ->
                check_str ~what:"decode" s (Tokenizer.decode t ids);
                let d = Tokenizer.stream_decoder t in
                let streamed = String.concat "" (List.map (fun i -> d (Some i)) ids) ^ d None in
                check_str ~what:"stream" s streamed) (expected_of base).tokenizer_cases) ])
    [ "llama-f32"; "qwen3-f32"; "olmoe-f32" ]
  @ [ ("tokenizer_replaces_invalid_utf8", fun () ->
        (* a lone continuation byte (0x80, U+0122 in GPT-2's byte alphabet) and a truncated 3-byte sequence
           (0xE2 0x82, "\xc3\xa2" and U+0124): one U+FFFD each, as Python's errors="replace" *)
        let t = Tokenizer.create ~preset:"llama-bpe" ~tokens:[| "\xc4\xa2"; "a"; "\xc3\xa2\xc4\xa4" |]
            ~token_types:[| 1; 1; 1 |] () in
        check_str ~what:"decode" "\xef\xbf\xbda\xef\xbf\xbd" (Tokenizer.decode t [ 0; 1; 2 ]));
      ("tokenizer_bad_preset", fun () ->
        check_invalid_arg ~what:"preset" (fun () -> Tokenizer.create ~preset:"bloom" ~tokens:[||] ~token_types:[||] ())) ]

let tests = gguf_tests @ model_tests @ tokenizer_tests
