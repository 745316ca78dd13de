(* tinygrad's examples/gpt2.py in OCaml: GPT-2 from a Hugging Face checkpoint directory (model.safetensors,
   config.json), the prompt encoded by GPT-2's byte-level BPE when vocab.json and merges.txt are there (or given),
   else given as token ids; greedy (temperature 0) or sampled generation through the KV cache, the one-token steps
   under the JIT. The model is examples/gpt2/model.ml.

     dune exec examples/gpt2.exe -- --model DIR --prompt "Hello" --count 20 --temperature 0.8 --seed 42
     dune exec examples/gpt2.exe -- --model DIR --prompt-ids 464,3290 --count 20 --temperature 0 *)

open Tinygrad
module Model = Gpt2.Model
module Bpe = Gpt2.Bpe

let default_prompt = "What is the answer to life, the universe, and everything?"

type args = {
  mutable model : string;
  mutable prompt : string option;
  mutable prompt_ids : int list option;
  mutable count : int;
  mutable temperature : float;
  mutable seed : int option;
  mutable vocab : string option;
  mutable merges : string option;
  mutable max_context : int option;
  mutable use_cache : bool;
  mutable jit : bool;
  mutable timing : bool;
  mutable repeat : int;
}

let parse_args () =
  let a = { model = "."; prompt = None; prompt_ids = None; count = 100; temperature = 0.8; seed = None; vocab = None;
            merges = None; max_context = None; use_cache = true; jit = true; timing = false; repeat = 1 } in
  let ids s =
    try List.map int_of_string (List.filter (( <> ) "") (String.split_on_char ',' s))
    with Failure _ -> raise (Arg.Bad ("--prompt-ids: expected comma-separated ints, got " ^ s)) in
  let spec = [
    ("--model", Arg.String (fun s -> a.model <- s), "DIR  the checkpoint: DIR/model.safetensors and DIR/config.json");
    ("--prompt", Arg.String (fun s -> a.prompt <- Some s), "TEXT  phrase to start with (needs the tokenizer files)");
    ("--prompt-ids", Arg.String (fun s -> a.prompt_ids <- Some (ids s)), "IDS  the prompt as comma-separated token ids");
    ("--count", Arg.Int (fun n -> a.count <- n), "N  tokens to generate (100)");
    ("--temperature", Arg.Float (fun t -> a.temperature <- t), "T  softmax temperature; 0 is greedy (0.8)");
    ("--seed", Arg.Int (fun s -> a.seed <- Some s), "S  random seed");
    ("--vocab", Arg.String (fun s -> a.vocab <- Some s), "FILE  vocab.json (default DIR/vocab.json)");
    ("--merges", Arg.String (fun s -> a.merges <- Some s), "FILE  merges.txt (default DIR/merges.txt)");
    ("--max-context", Arg.Int (fun n -> a.max_context <- Some n), "N  KV cache length (min 128 n_positions)");
    ("--no-cache", Arg.Unit (fun () -> a.use_cache <- false), " run the whole sequence at every step");
    ("--no-jit", Arg.Unit (fun () -> a.jit <- false), " run the one-token steps without the JIT");
    ("--timing", Arg.Unit (fun () -> a.timing <- true), " print the time of each step");
    ("--repeat", Arg.Int (fun n -> a.repeat <- n), "N  generate N times, timing each (1)");
  ] in
  Arg.parse (Arg.align spec) (fun s -> raise (Arg.Bad ("unexpected argument " ^ s))) "gpt2.exe [options]";
  a

let tokenizer a =
  let file opt name = match opt with Some f -> Some f | None ->
    let f = Filename.concat a.model name in if Sys.file_exists f then Some f else None in
  match file a.vocab "vocab.json", file a.merges "merges.txt" with
  | Some vocab, Some merges -> Some (Bpe.load ~vocab ~merges)
  | _ -> None

(* the time to the first token counts from the program's start *)
let t_start = Unix.gettimeofday ()

let main () =
  let a = parse_args () in
  Option.iter Tensor.manual_seed a.seed;
  Printf.printf "using %s backend\n%!" (Device.default ());
  let t0 = Unix.gettimeofday () in
  let m = Model.load ?max_context:a.max_context a.model in
  let c = Model.config m in
  Printf.printf "loaded %s: %d layers, width %d, %d heads, vocabulary %d, context %d in %.2f s\n%!" a.model c.n_layers
    c.dim c.n_heads c.vocab_size (Model.max_context m) (Unix.gettimeofday () -. t0);
  let tok = tokenizer a in
  let prompt = match a.prompt_ids, a.prompt, tok with
    | Some ids, _, _ -> ids
    | None, p, Some t -> Bpe.encode t (Option.value p ~default:default_prompt)
    | None, Some _, None -> invalid_arg "gpt2: --prompt needs vocab.json and merges.txt (or use --prompt-ids)"
    | None, None, None -> invalid_arg "gpt2: no tokenizer files: give the prompt with --prompt-ids" in
  let show ids = match tok with
    | Some t -> Bpe.decode t ids
    | None -> String.concat "," (List.map string_of_int ids) in
  for run = 1 to a.repeat do
    Global_counters.reset ();
    let t = Unix.gettimeofday () in
    let last = ref t and step = ref 0 in
    let on_token tok =
      let now = Unix.gettimeofday () in
      if run = 1 && !step = 0 then Printf.printf "first token %.3f s after the process started\n%!" (now -. t_start);
      if a.timing then Printf.printf "step %d: token %d in %.2f ms\n%!" !step tok ((now -. !last) *. 1e3);
      last := now; incr step in
    let out = Model.generate ~temperature:a.temperature ~use_cache:a.use_cache ~jit:a.jit ~on_token m prompt a.count in
    let dt = Unix.gettimeofday () -. t in
    if run = 1 then print_endline (show (prompt @ out));
    Printf.printf "run %d: %d tokens from a %d-token prompt in %.3f s, %.2f tok/s (%d kernels)\n%!" run a.count
      (List.length prompt) dt (float_of_int a.count /. dt) (Global_counters.kernel_count ())
  done

let () =
  try main () with Invalid_argument msg -> prerr_endline ("error: " ^ msg); exit 2
