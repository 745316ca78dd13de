(* GPT-2 (examples/gpt2/model.ml) against Hugging Face transformers: test/fixtures/gpt2/expected.json holds a tiny
   random-init GPT2LMHeadModel's logits at every prompt position and its 16 greedy tokens (gen_gpt2_fixture.py). *)

open Test_util
open Tinygrad
module Json = State.Json
module Model = Gpt2.Model

let fixture name =
  let cands = [ Filename.concat "test/fixtures/gpt2" name; Filename.concat "fixtures/gpt2" name ] in
  match List.find_opt Sys.file_exists cands with Some p -> p | None -> fail "fixture %s not found" name

let read = Model.read_file

type expected = { prompt_ids : int list; logits_shape : int array; logits : float array; greedy_16 : int list }

let expected = lazy (
  let fields = match Json.of_string (read (fixture "expected.json")) with Json.Assoc l -> l | _ -> fail "expected.json" in
  let field k = match List.assoc_opt k fields with Some v -> v | None -> fail "expected.json has no %s" k in
  let ints k = match field k with Json.List l -> List.map (function Json.Int i -> i | _ -> fail "%s" k) l | _ -> fail "%s" k in
  let floats k = match field k with
    | Json.List l -> Array.of_list (List.map (function Json.Float f -> f | Json.Int i -> float i | _ -> fail "%s" k) l)
    | _ -> fail "%s" k in
  { prompt_ids = ints "prompt_ids"; logits_shape = Array.of_list (ints "logits_shape"); logits = floats "logits";
    greedy_16 = ints "greedy_16" })

let model () = Model.load (Filename.dirname (fixture "model.safetensors"))

let show l = "[" ^ String.concat "; " (List.map string_of_int l) ^ "]"

let check_logits ~what (exp : float array) (got : float array) =
  check_int ~what:(what ^ " size") (Array.length exp) (Array.length got);
  let scale = Array.fold_left (fun m v -> Float.max m (Float.abs v)) 0. exp in
  Array.iteri (fun i e ->
      let g = got.(i) in
      if Float.abs (g -. e) > 1e-4 *. Float.max (Float.abs e) scale then
        fail "%s: logit %d: expected %g, got %g" what i e g) exp

let greedy ~use_cache ~jit () =
  let e = Lazy.force expected and m = model () in
  check_eq ~pp:show ~eq:( = ) ~what:"greedy 16" e.greedy_16 (Model.generate ~use_cache ~jit m e.prompt_ids 16)

let tests =
  [ ("logits_match_transformers", fun () ->
        let e = Lazy.force expected and m = model () in
        let l = Model.logits m (Model.Ids (Model.tokens_tensor e.prompt_ids)) ~start_pos:(Sint.of_int 0) in
        check_eq ~pp:(fun a -> String.concat "," (Array.to_list (Array.map string_of_int a))) ~eq:( = ) ~what:"shape"
          (Array.append [| 1 |] e.logits_shape) (Tensor.shape l);
        check_logits ~what:"prompt logits" e.logits (Tensor.to_float_array l));
    ("greedy_cache_jit", greedy ~use_cache:true ~jit:true);
    ("greedy_cache_nojit", greedy ~use_cache:true ~jit:false);
    ("greedy_nocache_jit", greedy ~use_cache:false ~jit:true);
    ("greedy_nocache_nojit", greedy ~use_cache:false ~jit:false);
    (* 15 one-token steps, then 10 more from another prompt length: one capture serves every token and position *)
    ("jit_captures_once", fun () ->
        let e = Lazy.force expected and m = model () in
        ignore (Model.generate m e.prompt_ids 16);
        let j = Model.step_jit m in
        check_int ~what:"calls" 15 (Tiny_jit.cnt j);
        let c = match Tiny_jit.captured j with Some c -> c | None -> fail "nothing captured" in
        check (Tiny_jit.jit_cache_len j > 0) "the capture holds no kernels";
        let prompt = [ 5; 17; 200 ] in
        ignore (Model.generate m prompt 11);
        check_int ~what:"calls" 25 (Tiny_jit.cnt j);
        check (Model.step_jit m == j) "a second JIT was made";
        check (match Tiny_jit.captured j with Some c' -> c' == c | None -> false) "captured again");
    (* at a temperature of 1e-3 the softmax is one-hot at the argmax: sampling gives the greedy tokens *)
    ("cold_sampling_is_greedy", fun () ->
        let e = Lazy.force expected and m = model () in
        Tensor.manual_seed 0;
        check_eq ~pp:show ~eq:( = ) ~what:"sampled 16" e.greedy_16 (Model.generate ~temperature:1e-3 m e.prompt_ids 16));
    ("bad_input_rejected", fun () ->
        let dir = Filename.dirname (fixture "model.safetensors") in
        let sd = State.safe_load (Filename.concat dir "model.safetensors") in
        let config = Model.config_of_json (Json.of_string (read (fixture "config.json"))) in
        check_invalid_arg ~what:"missing tensor" (fun () ->
            Model.of_state_dict config (List.filter (fun (k, _) -> k <> "transformer.h.1.mlp.c_fc.weight") sd));
        check_invalid_arg ~what:"wrong width" (fun () -> Model.of_state_dict { config with dim = 64 } sd);
        check_invalid_arg ~what:"context past n_positions" (fun () -> Model.of_state_dict ~max_context:65 config sd);
        let m = Model.of_state_dict config sd in
        check_invalid_arg ~what:"empty prompt" (fun () -> Model.generate m [] 4);
        check_invalid_arg ~what:"past the context" (fun () -> Model.generate m (List.init 60 (fun i -> i)) 8);
        check_invalid_arg ~what:"1-d tokens" (fun () ->
            Model.logits m (Model.Ids (Tensor.of_int_array [| 3 |] [| 1; 2; 3 |])) ~start_pos:(Sint.of_int 0))) ]
