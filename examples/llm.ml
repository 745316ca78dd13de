(* tinygrad's llm (python -m tinygrad.llm) without the chat app: a GGUF model (Llama 3, Qwen3, Qwen3-MoE,
   OLMoE, ...) and its tokenizer from the file, the prompt's tokens streamed after it, then the prefill and
   decode speeds. The model is src/llm/model.ml (library tinygrad.llm).  dune exec examples/llm.exe -- --gguf
   FILE --prompt "Hello" --count 64 --temperature 0.7 --seed 1 *)

open Tinygrad
module Model = Tinygrad_llm.Model
module Tokenizer = Tinygrad_llm.Tokenizer

type args = {
  mutable gguf : string option;
  mutable prompt : string;
  mutable count : int;
  mutable temperature : float;
  mutable seed : int option;
  mutable max_context : int;
  mutable half : bool;
  mutable prompt_ids : int list option;
  mutable repeat : int;
  mutable realize : bool;
}

let parse_args () =
  let a = { gguf = None; prompt = "Hello, I am"; count = 64; temperature = 0.0; seed = None; max_context = 4096;
            half = true; prompt_ids = None; repeat = 1;
            realize = true } in
  let ids s =
    try List.map int_of_string (List.filter (( <> ) "") (String.split_on_char ',' s))
    with Failure _ -> raise (Arg.Bad ("--prompt-ids: expected comma-separated ints, got " ^ s)) in
  let spec = [
    ("--gguf", Arg.String (fun s -> a.gguf <- Some s), "FILE  the model");
    ("--prompt", Arg.String (fun s -> a.prompt <- s), "TEXT  the text to continue (\"Hello, I am\")");
    ("--count", Arg.Int (fun n -> a.count <- n), "N  tokens to generate (64)");
    ("--temperature", Arg.Float (fun t -> a.temperature <- t), "T  sampling temperature; 0 is greedy (0)");
    ("--seed", Arg.Int (fun s -> a.seed <- Some s), "S  random seed");
    ("--max-context", Arg.Int (fun n -> a.max_context <- n), "N  KV cache length, at most the file's (4096)");
    ("--prompt-ids", Arg.String (fun s -> a.prompt_ids <- Some (ids s)), "IDS  the prompt as comma-separated ids");
    ("--repeat", Arg.Int (fun n -> a.repeat <- n), "N  generate N times, timing each (1)");
    ("--lazy", Arg.Unit (fun () -> a.realize <- false),
     " keep the weights as graphs over the file's bytes, dequantized inside the kernels that use them");
    ("--f32", Arg.Unit (fun () -> a.half <- false), " keep the weights and the KV cache in float32 (tinygrad: HALF=0)");
  ] in
  Arg.parse (Arg.align spec) (fun s -> raise (Arg.Bad ("unexpected argument " ^ s))) "llm.exe --gguf FILE [options]";
  a

let () =
  let a = parse_args () in
  let fn = match a.gguf with Some f -> f | None -> prerr_endline "llm: --gguf FILE is required"; exit 2 in
  Option.iter Tensor.manual_seed a.seed;
  let t0 = Unix.gettimeofday () in
  let model, kv = Model.from_gguf ~max_context:a.max_context ~half:a.half ~realize:a.realize fn in
  let tok = Tokenizer.of_gguf_kv kv in
  Printf.eprintf "loaded %s in %.2f s\n%!" fn (Unix.gettimeofday () -. t0);
  let prompt = match a.prompt_ids with
    | Some ids -> ids
    | None -> Option.to_list (Tokenizer.bos_id tok) @ Tokenizer.encode tok a.prompt in
  for run = 1 to a.repeat do
    if run > 1 then Model.reset_cache model;
    print_string (match a.prompt_ids with Some _ -> "" | None -> a.prompt);
    let out = Tokenizer.stream_decoder tok in
    let times = ref [] and start = Unix.gettimeofday () in
    (* the tokens after an end token are not shown *)
    let ended = ref false in
    let on_token id =
      times := Unix.gettimeofday () :: !times;
      if Tokenizer.is_end tok id then ended := true;
      if not !ended then (print_string (out (Some id)); flush stdout) in
    let _ = Model.generate ~temperature:a.temperature ~on_token model prompt a.count in
    print_string (out None);
    print_newline ();
    match !times, List.rev !times with
    | [], _ | _, [] -> ()
    | last :: _, first :: rest ->
      let n = List.length rest in
      Printf.eprintf "run %d: prefill: %d tokens in %.3f s (%.1f tok/s)\n" run (List.length prompt) (first -. start)
        (float (List.length prompt) /. (first -. start));
      if n > 0 then
        Printf.eprintf "run %d: decode: %d tokens in %.3f s (%.2f tok/s)\n%!" run n (last -. first)
          (float n /. (last -. first))
  done
