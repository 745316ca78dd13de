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

let tests =
  [ ("logits_match_transformers", fun () ->
        let e = Lazy.force expected and m = model () in
        let l = Model.logits m (Model.tokens_tensor e.prompt_ids) ~start_pos:0 in
        check_eq ~pp:(fun a -> String.concat "," (Array.to_list (Array.map string_of_int a))) ~eq:( = ) ~what:"shape"
          (Array.append [| 1 |] e.logits_shape) (Tensor.shape l);
        check_logits ~what:"prompt logits" e.logits (Tensor.to_float_array l));
    ("greedy_no_cache", fun () ->
        let e = Lazy.force expected and m = model () in
        check_eq ~pp:show ~eq:( = ) ~what:"greedy 16" e.greedy_16 (Model.generate ~use_cache:false m e.prompt_ids 16));
    ("greedy_cache", fun () ->
        let e = Lazy.force expected and m = model () in
        check_eq ~pp:show ~eq:( = ) ~what:"greedy 16" e.greedy_16 (Model.generate m e.prompt_ids 16)) ]
