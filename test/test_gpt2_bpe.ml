(* The GPT-2 byte-level BPE against the `tokenizers` package: test/fixtures/gpt2/tokenizer_cases.json holds the ids
   that tokenizers' ByteLevelBPETokenizer gives strings (gen_gpt2_fixture.py trains and saves it in GPT-2's format). *)

open Test_util
module Json = Tinygrad.State.Json
module Bpe = Gpt2.Bpe

(* the runner's working directory is the repository root under `make test`, test/ under `dune test` *)
let fixture name =
  let cands = [ Filename.concat "test/fixtures/gpt2" name; Filename.concat "fixtures/gpt2" name ] in
  match List.find_opt Sys.file_exists cands with Some p -> p | None -> fail "fixture %s not found" name

let read path =
  let ic = open_in_bin path in
  Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic))

let tokenizer = lazy (Bpe.load ~vocab:(fixture "vocab.json") ~merges:(fixture "merges.txt"))

let cases () =
  match Json.of_string (read (fixture "tokenizer_cases.json")) with
  | Json.List l ->
    List.map
      (function
        | Json.Assoc [ ("text", Json.String s); ("ids", Json.List ids) ] ->
          (s, List.map (function Json.Int i -> i | _ -> fail "bad id") ids)
        | _ -> fail "bad case")
      l
  | _ -> fail "bad tokenizer_cases.json"

let show l = "[" ^ String.concat "; " (List.map string_of_int l) ^ "]"

let tests =
  [ ("encode_matches_tokenizers", fun () ->
        let t = Lazy.force tokenizer in
        check_int ~what:"vocab size" 384 (Bpe.vocab_size t);
        List.iter (fun (s, ids) -> check_eq ~pp:show ~eq:( = ) ~what:(Printf.sprintf "encode %S" s) ids (Bpe.encode t s))
          (cases ()));
    ("decode_inverts_encode", fun () ->
        let t = Lazy.force tokenizer in
        List.iter (fun (s, ids) -> check_str ~what:(Printf.sprintf "decode %S" s) s (Bpe.decode t ids)) (cases ()));
    ("special_token_matched_whole", fun () ->
        let t = Lazy.force tokenizer in
        let ids = Bpe.encode t "a<|endoftext|>b" in
        check_eq ~pp:show ~eq:( = ) ~what:"ids" (Bpe.encode t "a" @ [ 0 ] @ Bpe.encode t "b") ids);
    (* GPT-2's pattern on hand-split examples: contractions, a space kept with the word that follows, the last of
       several spaces going with the next word, a lone newline, trailing spaces *)
    ("pretokenize_pattern", fun () ->
        let pp l = String.concat "|" l in
        List.iter
          (fun (s, expected) -> check_eq ~pp ~eq:( = ) ~what:(Printf.sprintf "%S" s) expected (Bpe.pretokenize s))
          [ ("it's ok", [ "it"; "'s"; " ok" ]);
            ("a   b", [ "a"; "  "; " b" ]);
            ("x=12 y", [ "x"; "="; "12"; " y" ]);
            ("a\nb", [ "a"; "\n"; "b" ]);
            ("end  ", [ "end"; "  " ]);
            ("café!!", [ "café"; "!!" ]) ]);
    ("bad_files_rejected", fun () ->
        check_invalid_arg ~what:"vocab not an object" (fun () -> Bpe.of_strings ~vocab:"[1,2]" ~merges:"");
        check_invalid_arg ~what:"vocab without bytes" (fun () -> Bpe.of_strings ~vocab:"{\"a\":0}" ~merges:"");
        check_invalid_arg ~what:"unknown id" (fun () -> Bpe.decode (Lazy.force tokenizer) [ 100000 ])) ]
