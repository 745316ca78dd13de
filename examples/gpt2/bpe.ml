(* GPT-2's byte-level BPE (the tokenizer behind tinygrad's examples/gpt2.py, there through tiktoken) *)

module Json = Tinygrad.State.Json

type t = {
  encoder : (string, int) Hashtbl.t;        (* token (in the printable alphabet) -> id *)
  decoder : string array;                   (* id -> token *)
  ranks : (string * string, int) Hashtbl.t; (* merge pair -> priority *)
  specials : string list;                   (* tokens matched whole in the text, longest first *)
  cache : (string, int list) Hashtbl.t;     (* pre-token -> ids *)
}

(* ---------- UTF-8 ---------- *)

let utf8_encode cp =
  let b = Buffer.create 4 in
  Buffer.add_utf_8_uchar b (Uchar.of_int cp);
  Buffer.contents b

(* the code point at byte [i] and its length; a byte that does not start valid UTF-8 stands alone as -1 *)
let utf8_decode s i =
  let n = String.length s in
  let byte k = Char.code s.[k] in
  let cont k = k < n && byte k land 0xC0 = 0x80 in
  let c = byte i in
  if c < 0x80 then (c, 1)
  else if c land 0xE0 = 0xC0 && cont (i + 1) then (((c land 0x1F) lsl 6) lor (byte (i + 1) land 0x3F), 2)
  else if c land 0xF0 = 0xE0 && cont (i + 1) && cont (i + 2) then
    (((c land 0x0F) lsl 12) lor ((byte (i + 1) land 0x3F) lsl 6) lor (byte (i + 2) land 0x3F), 3)
  else if c land 0xF8 = 0xF0 && cont (i + 1) && cont (i + 2) && cont (i + 3) then
    (((c land 0x07) lsl 18) lor ((byte (i + 1) land 0x3F) lsl 12) lor ((byte (i + 2) land 0x3F) lsl 6)
     lor (byte (i + 3) land 0x3F), 4)
  else (-1, 1)

(* ---------- character classes of the pre-tokenizer pattern ---------- *)

let in_ranges (r : (int * int) array) cp =
  let rec go lo hi =
    lo < hi && (let m = (lo + hi) / 2 in let a, b = r.(m) in if cp < a then go lo m else if cp > b then go (m + 1) hi else true)
  in
  go 0 (Array.length r)

let is_letter cp = cp >= 0 && in_ranges Tinygrad_llm.Unicode_tables.letters cp
let is_number cp = cp >= 0 && in_ranges Tinygrad_llm.Unicode_tables.numbers cp

(* Unicode's White_Space property, the pattern's \s *)
let is_space cp =
  (cp >= 0x09 && cp <= 0x0D) || cp = 0x20 || cp = 0x85 || cp = 0xA0 || cp = 0x1680 || (cp >= 0x2000 && cp <= 0x200A)
  || cp = 0x2028 || cp = 0x2029 || cp = 0x202F || cp = 0x205F || cp = 0x3000

let is_other cp = not (is_space cp || is_letter cp || is_number cp)

(* ---------- the pre-tokenizer ---------- *)

(* the pattern's alternatives, tried in order at each position over the code points [cps] (byte offsets [off]) *)
let pretokenize s =
  let cps = ref [] and offs = ref [] and i = ref 0 in
  while !i < String.length s do
    let cp, len = utf8_decode s !i in
    cps := cp :: !cps; offs := !i :: !offs; i := !i + len
  done;
  let cps = Array.of_list (List.rev !cps) and offs = Array.of_list (List.rev (String.length s :: !offs)) in
  let n = Array.length cps in
  let cp k = if k < n then cps.(k) else -2 in
  let run k p = let j = ref k in while !j < n && p cps.(!j) do incr j done; !j in
  let contraction k =
    if cp k <> Char.code '\'' then None
    else
      List.find_map
        (fun suf ->
          let m = String.length suf in
          let ok = ref true in
          String.iteri (fun q c -> if cp (k + 1 + q) <> Char.code c then ok := false) suf;
          if !ok then Some (k + 1 + m) else None)
        [ "s"; "t"; "re"; "ve"; "m"; "ll"; "d" ]
  in
  (* ' ?CLASS+' *)
  let class_run k p =
    let start = if cp k = 0x20 && k + 1 < n && p (cp (k + 1)) then k + 1 else k in
    if start < n && p (cp start) then Some (run start p) else None
  in
  let whitespace k =
    let e = run k is_space in
    if e = k then None
    else if e = n || e - k = 1 then Some e   (* \s+(?!\S) at the end, else \s+ for a single char *)
    else Some (e - 1)                        (* back off one: the last space goes with what follows *)
  in
  let pieces = ref [] and k = ref 0 in
  while !k < n do
    let e =
      match contraction !k with
      | Some e -> e
      | None -> (
        match class_run !k is_letter with
        | Some e -> e
        | None -> (
          match class_run !k is_number with
          | Some e -> e
          | None -> (
            match class_run !k is_other with
            | Some e -> e
            | None -> ( match whitespace !k with Some e -> e | None -> !k + 1))))
    in
    pieces := String.sub s offs.(!k) (offs.(e) - offs.(!k)) :: !pieces;
    k := e
  done;
  List.rev !pieces

(* ---------- bytes_to_unicode ---------- *)

(* GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the others for 256, 257, ... *)
let byte_encoder =
  let printable b = (b >= Char.code '!' && b <= Char.code '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) in
  let next = ref 256 in
  Array.init 256 (fun b -> if printable b then utf8_encode b else (let c = !next in incr next; utf8_encode c))

let byte_decoder =
  let h = Hashtbl.create 256 in
  Array.iteri (fun b s -> Hashtbl.replace h s b) byte_encoder;
  h

(* ---------- loading ---------- *)

let of_strings ~vocab ~merges =
  let bad file m = invalid_arg (Printf.sprintf "Bpe.load: %s: %s" file m) in
  let pairs =
    match Json.of_string vocab with
    | Json.Assoc kv -> List.map (function k, Json.Int v when v >= 0 -> (k, v) | k, _ -> bad "vocab.json" ("bad id for " ^ k)) kv
    | _ -> bad "vocab.json" "not a JSON object"
    | exception Json.Parse_error m -> bad "vocab.json" m
  in
  let size = List.fold_left (fun m (_, v) -> max m (v + 1)) 0 pairs in
  let encoder = Hashtbl.create size and decoder = Array.make size "" in
  List.iter (fun (k, v) -> Hashtbl.replace encoder k v; decoder.(v) <- k) pairs;
  Array.iter (fun s -> if not (Hashtbl.mem encoder s) then bad "vocab.json" ("no id for byte token " ^ String.escaped s)) byte_encoder;
  let ranks = Hashtbl.create 1024 in
  let lines = List.filter (fun l -> l <> "" && not (String.length l > 0 && l.[0] = '#')) (String.split_on_char '\n' merges) in
  List.iteri
    (fun r l ->
      match String.split_on_char ' ' (String.trim l) with
      | [ a; b ] -> if not (Hashtbl.mem ranks (a, b)) then Hashtbl.replace ranks (a, b) r
      | _ -> bad "merges.txt" ("not a pair: " ^ l))
    lines;
  let is_special k = String.length k > 4 && String.sub k 0 2 = "<|" && String.sub k (String.length k - 2) 2 = "|>" in
  let specials = List.filter is_special (List.map fst pairs) in
  let specials = List.sort (fun a b -> compare (String.length b) (String.length a)) specials in
  { encoder; decoder; ranks; specials; cache = Hashtbl.create 1024 }

let read_file path =
  match open_in_bin path with
  | ic -> Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic))
  | exception Sys_error m -> invalid_arg ("Bpe.load: " ^ m)

let load ~vocab ~merges = of_strings ~vocab:(read_file vocab) ~merges:(read_file merges)

let vocab_size t = Array.length t.decoder

(* ---------- encoding ---------- *)

(* merges the adjacent pair of lowest rank, everywhere it occurs, until no pair has a rank *)
let bpe t (symbols : string list) =
  let rec step syms =
    let rec best acc = function
      | a :: (b :: _ as rest) ->
        let acc = match Hashtbl.find_opt t.ranks (a, b), acc with
          | Some r, Some (r', _) when r >= r' -> acc
          | Some r, _ -> Some (r, (a, b))
          | None, _ -> acc
        in
        best acc rest
      | _ -> acc
    in
    match best None syms with
    | None -> syms
    | Some (_, (a, b)) ->
      let rec merge = function
        | x :: y :: rest when x = a && y = b -> (a ^ b) :: merge rest
        | x :: rest -> x :: merge rest
        | [] -> []
      in
      step (merge syms)
  in
  step symbols

let encode_piece t piece =
  match Hashtbl.find_opt t.cache piece with
  | Some ids -> ids
  | None ->
    let syms = List.init (String.length piece) (fun i -> byte_encoder.(Char.code piece.[i])) in
    let ids =
      List.map
        (fun s -> match Hashtbl.find_opt t.encoder s with
           | Some id -> id
           | None -> invalid_arg ("Bpe.encode: no id for token " ^ String.escaped s))
        (bpe t syms)
    in
    Hashtbl.replace t.cache piece ids;
    ids

(* the text split around the special tokens: [`Text s] and [`Special id] in order *)
let split_specials t s =
  let n = String.length s in
  let starts_at i sp = let m = String.length sp in i + m <= n && String.sub s i m = sp in
  let out = ref [] and last = ref 0 and i = ref 0 in
  while !i < n do
    match List.find_opt (starts_at !i) t.specials with
    | Some sp ->
      if !i > !last then out := `Text (String.sub s !last (!i - !last)) :: !out;
      out := `Special (Hashtbl.find t.encoder sp) :: !out;
      i := !i + String.length sp; last := !i
    | None -> incr i
  done;
  if n > !last then out := `Text (String.sub s !last (n - !last)) :: !out;
  List.rev !out

let encode t s =
  List.concat_map
    (function `Special id -> [ id ] | `Text txt -> List.concat_map (encode_piece t) (pretokenize txt))
    (split_specials t s)

let decode t ids =
  let b = Buffer.create 64 in
  List.iter
    (fun id ->
      if id < 0 || id >= Array.length t.decoder then invalid_arg (Printf.sprintf "Bpe.decode: unknown id %d" id);
      let tok = t.decoder.(id) in
      if List.mem tok t.specials then Buffer.add_string b tok
      else begin
        let i = ref 0 in
        while !i < String.length tok do
          let _, len = utf8_decode tok !i in
          let ch = String.sub tok !i len in
          (match Hashtbl.find_opt byte_decoder ch with
           | Some byte -> Buffer.add_char b (Char.chr byte)
           | None -> Buffer.add_string b ch);
          i := !i + len
        done
      end)
    ids;
  Buffer.contents b
