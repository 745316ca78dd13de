(* The byte-level BPE tokenizer of a GGUF vocabulary. tinygrad: llm/cli.py SimpleTokenizer. Text is split at
   the special tokens, then into words by llama-3's pre-tokenizer pattern (llama.cpp's LLAMA3 regex, which
   tinygrad uses for every preset it accepts), and each word's bytes are merged greedily, lowest token id
   first. *)

type t = {
  normal : (string, int) Hashtbl.t;  (* a normal token's bytes -> id *)
  specials : (string * int) list;    (* special tokens, matched whole, in vocabulary order *)
  tok_bytes : string array;          (* id -> bytes *)
  bos_id : int option;
  eos_id : int;
  eot_id : int option;
}

let presets = [ "llama3"; "llama-v3"; "llama-bpe"; "qwen2"; "olmo"; "kimi-k2"; "tekken"; "glm4" ]

(* ---- UTF-8 ---- *)

(* the code point at byte [i] and its length; a byte that does not start valid UTF-8 is (-1, 1) *)
let utf8_decode s i =
  let n = String.length s in
  let byte k = Char.code s.[k] in
  let cont k = k < n && byte k land 0xC0 = 0x80 in
  let c = byte i in
  let ok len lo hi = cont (i + 1) && byte (i + 1) >= lo && byte (i + 1) <= hi
                     && (len < 3 || cont (i + 2)) && (len < 4 || cont (i + 3)) in
  let bits len mask = let v = ref (c land mask) in
    for k = 1 to len - 1 do v := (!v lsl 6) lor (byte (i + k) land 0x3F) done; (!v, len) in
  if c < 0x80 then (c, 1)
  else if c >= 0xC2 && c <= 0xDF && ok 2 0x80 0xBF then bits 2 0x1F
  else if c >= 0xE0 && c <= 0xEF
          && ok 3 (if c = 0xE0 then 0xA0 else 0x80) (if c = 0xED then 0x9F else 0xBF) then bits 3 0x0F
  else if c >= 0xF0 && c <= 0xF4
          && ok 4 (if c = 0xF0 then 0x90 else 0x80) (if c = 0xF4 then 0x8F else 0xBF) then bits 4 0x07
  else (-1, 1)

(* the bytes of a maximal invalid prefix at [i] (Python's errors="replace" puts one U+FFFD for it) *)
let invalid_len s i =
  let n = String.length s in
  let c = Char.code s.[i] in
  let want =
    if c >= 0xC2 && c <= 0xDF then 2
    else if c >= 0xE0 && c <= 0xEF then 3
    else if c >= 0xF0 && c <= 0xF4 then 4
    else 1 in
  let lo k = if k = 1 && c = 0xE0 then 0xA0 else if k = 1 && c = 0xF0 then 0x90 else 0x80 in
  let hi k = if k = 1 && c = 0xED then 0x9F else if k = 1 && c = 0xF4 then 0x8F else 0xBF in
  let rec go k =
    let b = if i + k < n then Char.code s.[i + k] else -1 in
    if k < want && b >= lo k && b <= hi k then go (k + 1) else k in
  go 1

(* bytes as text, each invalid sequence replaced by U+FFFD as Python's bytes.decode(errors="replace") *)
let decode_replace s =
  let b = Buffer.create (String.length s) in
  let rec go i =
    if i < String.length s then
      match utf8_decode s i with
      | -1, _ -> Buffer.add_string b "\xEF\xBF\xBD"; go (i + invalid_len s i)
      | _, len -> Buffer.add_string b (String.sub s i len); go (i + len) in
  go 0;
  Buffer.contents b

(* ---- the pre-tokenizer ---- *)

let in_ranges (r : (int * int) array) cp =
  let rec go lo hi =
    lo < hi
    && (let m = (lo + hi) / 2 in
        let a, b = r.(m) in
        if cp < a then go lo m else if cp > b then go (m + 1) hi else true) in
  go 0 (Array.length r)

let is_letter cp = cp >= 0 && in_ranges Unicode_tables.letters cp
let is_number cp = cp >= 0 && in_ranges Unicode_tables.numbers cp
let is_newline cp = cp = 0x0A || cp = 0x0D

(* tinygrad's r_ws: \t \n \v \f \r, U+0085 and Unicode's separators *)
let is_space cp =
  (cp >= 0x09 && cp <= 0x0D) || cp = 0x85 || (cp >= 0 && in_ranges Unicode_tables.separators cp)
let is_other cp = not (is_space cp || is_letter cp || is_number cp)

(* tinygrad: llm/cli.py SimpleTokenizer._split_to_word — the pattern
   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{N}\p{L}]?\p{L}+|\p{N}{1,3}|
   ?[^\s\p{N}\p{L}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ as Python's re.findall runs it: at each position the
   first alternative that matches, with backtracking *)
let pretokenize s =
  let cps = ref [] and i = ref 0 in
  while !i < String.length s do
    let cp, len = utf8_decode s !i in
    cps := (cp, !i) :: !cps; i := !i + len
  done;
  let arr = Array.of_list (List.rev !cps) in
  let n = Array.length arr in
  let cp k = if k < n then fst arr.(k) else -2 in
  let off k = if k < n then snd arr.(k) else String.length s in
  let run k p = let j = ref k in while !j < n && p (cp !j) do incr j done; !j in
  let lower c = if c >= Char.code 'A' && c <= Char.code 'Z' then c + 32 else c in
  let contraction k =
    if cp k <> Char.code '\'' then None
    else List.find_map (fun suf ->
        let m = String.length suf in
        let ok = ref true in
        String.iteri (fun q c -> if lower (cp (k + 1 + q)) <> Char.code c then ok := false) suf;
        if !ok then Some (k + 1 + m) else None) [ "s"; "t"; "re"; "ve"; "m"; "ll"; "d" ] in
  let letters k =
    let prefix c = not (is_newline c || is_number c || is_letter c) in
    let start = if k < n && prefix (cp k) && is_letter (cp (k + 1)) then k + 1 else k in
    if is_letter (cp start) then Some (run start is_letter) else None in
  let numbers k = if is_number (cp k) then Some (min (run k is_number) (k + 3)) else None in
  let others k =
    let start = if cp k = 0x20 && k + 1 < n && is_other (cp (k + 1)) then k + 1 else k in
    if start < n && is_other (cp start) then Some (run (run start is_other) is_newline) else None in
  (* \s*[\r\n]+: the whitespace run up to its last newline *)
  let space_newlines k =
    let e = run k is_space in
    let last = ref (-1) in
    for j = k to e - 1 do if is_newline (cp j) then last := j done;
    if !last >= 0 then Some (!last + 1) else None in
  (* \s+(?!\S), else \s+: a run followed by a non-space leaves its last space to what follows *)
  let spaces k =
    let e = run k is_space in
    if e = k then None else if e = n || e - k = 1 then Some e else Some (e - 1) in
  let alternatives = [ contraction; letters; numbers; others; space_newlines; spaces ] in
  let rec go k acc =
    if k >= n then List.rev acc
    else
      let e = match List.find_map (fun f -> f k) alternatives with Some e -> e | None -> k + 1 in
      go e (String.sub s (off k) (off e - off k) :: acc) in
  go 0 []

(* ---- the vocabulary ---- *)

(* GPT-2's bytes_to_unicode, inverted: the printable Latin-1 bytes stand for themselves, the others for 256,
   ... *)
let byte_decoder =
  let h = Hashtbl.create 256 in
  let printable b = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255) in
  List.iter (fun b -> Hashtbl.replace h b b) (List.filter printable (List.init 256 Fun.id));
  List.iteri (fun i b -> Hashtbl.replace h (256 + i) b)
    (List.filter (fun b -> not (printable b)) (List.init 256 Fun.id));
  h

let token_to_bytes tok =
  let b = Buffer.create (String.length tok) in
  let rec go i =
    if i < String.length tok then begin
      let cp, len = utf8_decode tok i in
      (match Hashtbl.find_opt byte_decoder cp with
       | Some byte -> Buffer.add_char b (Char.chr byte)
       | None ->
         invalid_arg (Printf.sprintf "tokenizer: token %S has a character outside GPT-2's byte alphabet"
                        tok));
      go (i + len)
    end in
  go 0;
  Buffer.contents b

(* tinygrad: llm/cli.py SimpleTokenizer.__init__ *)
let create ?bos_id ?(eos_id = 0) ?eot_id ~preset ~tokens ~token_types () =
  let preset = match preset with "qwen35" | "qwen35moe" -> "qwen2" | p -> p in
  if not (List.mem preset presets) then
    invalid_arg (Printf.sprintf "tokenizer: Invalid tokenizer preset '%s'" preset);
  if Array.length tokens <> Array.length token_types then
    invalid_arg (Printf.sprintf "tokenizer: %d tokens but %d token types" (Array.length tokens)
                   (Array.length token_types));
  let normal = Hashtbl.create (Array.length tokens) in
  let specials = ref [] in
  let tok_bytes = Array.mapi (fun id tok ->
      if token_types.(id) = 1 then begin
        let b = token_to_bytes tok in
        Hashtbl.replace normal b id; b
      end else begin
        specials := (tok, id) :: !specials; tok
      end) tokens in
  let specials = List.rev !specials in
  let eot_id = match eot_id with Some _ -> eot_id | None -> List.assoc_opt "<|im_end|>" specials in
  { normal; specials; tok_bytes; bos_id; eos_id; eot_id }

(* tinygrad: llm/cli.py SimpleTokenizer.from_gguf_kv *)
let of_gguf_kv kv =
  let array key conv what = match List.assoc_opt key kv with
    | Some (Gguf.Array l) ->
      Array.of_list (List.map (fun v -> match conv v with
          | Some x -> x
          | None -> invalid_arg (Printf.sprintf "tokenizer: %s holds a non-%s" key what)) l)
    | _ -> invalid_arg ("tokenizer: the file has no " ^ key) in
  let strings key = array key (function Gguf.String s -> Some s | _ -> None) "string" in
  let ints key = array key (function Gguf.Int i -> Some i | _ -> None) "integer" in
  let preset = match Gguf.get_string kv "tokenizer.ggml.pre" with
    | Some p -> p | None -> invalid_arg "tokenizer: the file has no tokenizer.ggml.pre" in
  let add_bos =
    match List.assoc_opt "tokenizer.ggml.add_bos_token" kv with Some (Gguf.Bool b) -> b | _ -> true in
  create ?bos_id:(if add_bos then Gguf.get_int kv "tokenizer.ggml.bos_token_id" else None)
    ~eos_id:(Option.value (Gguf.get_int kv "tokenizer.ggml.eos_token_id") ~default:0)
    ?eot_id:(Gguf.get_int kv "tokenizer.ggml.eot_token_id")
    ~preset ~tokens:(strings "tokenizer.ggml.tokens") ~token_types:(ints "tokenizer.ggml.token_type") ()

(* tinygrad: llm/cli.py SimpleTokenizer._encode_word — merge the adjacent pair whose token has the lowest id
   until no pair is a token *)
let encode_word t word =
  match Hashtbl.find_opt t.normal word with
  | Some id -> [ id ]
  | None ->
    let rec merge parts =
      let best = ref None in
      Array.iteri (fun j p ->
          if j + 1 < Array.length parts then
            match Hashtbl.find_opt t.normal (p ^ parts.(j + 1)) with
            | Some id when (match !best with None -> true | Some (bid, _) -> id < bid) -> best := Some (id, j)
            | _ -> ()) parts;
      match !best with
      | None -> parts
      | Some (_, j) ->
        merge (Array.concat [ Array.sub parts 0 j; [| parts.(j) ^ parts.(j + 1) |];
                              Array.sub parts (j + 2) (Array.length parts - j - 2) ]) in
    let parts = merge (Array.init (String.length word) (fun i -> String.make 1 word.[i])) in
    Array.to_list (Array.map (fun p -> match Hashtbl.find_opt t.normal p with
        | Some id -> id
        | None -> invalid_arg (Printf.sprintf "tokenizer encode: no token for the bytes %S" p)) parts)

let encode_sentence t chunk = List.concat_map (encode_word t) (pretokenize chunk)

(* the first special token (in vocabulary order) at byte [i], as Python's alternation of them *)
let special_at t s i =
  List.find_opt (fun (tok, _) ->
      let l = String.length tok in l > 0 && i + l <= String.length s && String.sub s i l = tok) t.specials

(* tinygrad: llm/cli.py SimpleTokenizer.encode *)
let encode t text =
  let n = String.length text in
  let rec go pos i acc =
    if i >= n then List.rev (List.rev_append (encode_sentence t (String.sub text pos (n - pos))) acc)
    else match special_at t text i with
      | Some (tok, id) ->
        let before = encode_sentence t (String.sub text pos (i - pos)) in
        go (i + String.length tok) (i + String.length tok) (id :: List.rev_append before acc)
      | None -> go pos (i + 1) acc in
  go 0 0 []

let token_bytes t id =
  if id < 0 || id >= Array.length t.tok_bytes then
    invalid_arg (Printf.sprintf "tokenizer decode: id %d outside the vocabulary of %d" id
                   (Array.length t.tok_bytes));
  t.tok_bytes.(id)

(* tinygrad: llm/cli.py SimpleTokenizer.decode *)
let decode t ids = decode_replace (String.concat "" (List.map (token_bytes t) ids))

(* the length of [s]'s prefix that does not end inside a UTF-8 sequence still to be completed *)
let complete_prefix s =
  let n = String.length s in
  let rec back k =
    if k < 1 || k > 3 || n - k < 0 then n
    else
      let c = Char.code s.[n - k] in
      if c land 0xC0 = 0x80 then back (k + 1)
      else
        let want = if c >= 0xF0 then 4 else if c >= 0xE0 then 3 else if c >= 0xC0 then 2 else 1 in
        if want > k && invalid_len s (n - k) = k then n - k else n in
  back 1

(* tinygrad: llm/cli.py SimpleTokenizer.stream_decoder *)
let stream_decoder t =
  let pending = Buffer.create 8 in
  function
  | Some id ->
    Buffer.add_string pending (token_bytes t id);
    let s = Buffer.contents pending in
    let k = complete_prefix s in
    Buffer.clear pending;
    Buffer.add_string pending (String.sub s k (String.length s - k));
    decode_replace (String.sub s 0 k)
  | None ->
    let s = Buffer.contents pending in
    Buffer.clear pending; decode_replace s

let is_end t id = id = t.eos_id || t.eot_id = Some id
let bos_id t = t.bos_id
let vocab_size t = Array.length t.tok_bytes
