(* Golden-corpus helpers: a minimal JSON reader, SHA-256, and tinygrad's UOp.key (uop/ops.py UOp.key). *)

open Tinygrad.Compiler

type json = Null | Bool of bool | Num of string | Str of string | Arr of json list | Obj of (string * json) list

exception Error of string

let err fmt = Printf.ksprintf (fun s -> raise (Error s)) fmt

(* ---------- JSON ---------- *)

let utf8_add buf cp =
  let add c = Buffer.add_char buf (Char.chr c) in
  if cp < 0x80 then add cp
  else if cp < 0x800 then (add (0xC0 lor (cp lsr 6)); add (0x80 lor (cp land 0x3F)))
  else if cp < 0x10000 then (add (0xE0 lor (cp lsr 12)); add (0x80 lor ((cp lsr 6) land 0x3F)); add (0x80 lor (cp land 0x3F)))
  else begin
    add (0xF0 lor (cp lsr 18)); add (0x80 lor ((cp lsr 12) land 0x3F));
    add (0x80 lor ((cp lsr 6) land 0x3F)); add (0x80 lor (cp land 0x3F))
  end

let parse s =
  let n = String.length s in
  let pos = ref 0 in
  let peek () = if !pos < n then s.[!pos] else '\000' in
  let rec ws () = match peek () with ' ' | '\t' | '\n' | '\r' -> incr pos; ws () | _ -> () in
  let expect c = if peek () = c then incr pos else err "json: expected '%c' at %d" c !pos in
  let lit w v = if !pos + String.length w <= n && String.sub s !pos (String.length w) = w then (pos := !pos + String.length w; v)
    else err "json: bad literal at %d" !pos in
  let hex4 () =
    if !pos + 4 > n then err "json: short \\u escape";
    let v = int_of_string ("0x" ^ String.sub s !pos 4) in pos := !pos + 4; v in
  let str () =
    expect '"';
    let buf = Buffer.create 16 in
    let rec go () =
      if !pos >= n then err "json: unterminated string";
      let c = s.[!pos] in incr pos;
      match c with
      | '"' -> ()
      | '\\' ->
        let e = peek () in incr pos;
        (match e with
         | '"' -> Buffer.add_char buf '"' | '\\' -> Buffer.add_char buf '\\' | '/' -> Buffer.add_char buf '/'
         | 'b' -> Buffer.add_char buf '\b' | 'f' -> Buffer.add_char buf '\012' | 'n' -> Buffer.add_char buf '\n'
         | 'r' -> Buffer.add_char buf '\r' | 't' -> Buffer.add_char buf '\t'
         | 'u' ->
           let cp = hex4 () in
           let cp =
             if cp >= 0xD800 && cp < 0xDC00 && !pos + 6 <= n && s.[!pos] = '\\' && s.[!pos + 1] = 'u' then begin
               pos := !pos + 2; let lo = hex4 () in 0x10000 + ((cp - 0xD800) lsl 10) + (lo - 0xDC00)
             end else cp in
           utf8_add buf cp
         | c -> err "json: bad escape \\%c" c);
        go ()
      | c -> Buffer.add_char buf c; go () in
    go (); Buffer.contents buf in
  let rec value () =
    ws ();
    match peek () with
    | '{' ->
      incr pos; ws ();
      if peek () = '}' then (incr pos; Obj [])
      else
        let rec members acc =
          ws (); let k = str () in ws (); expect ':'; let v = value () in ws ();
          match peek () with
          | ',' -> incr pos; members ((k, v) :: acc)
          | '}' -> incr pos; Obj (List.rev ((k, v) :: acc))
          | _ -> err "json: expected , or } at %d" !pos in
        members []
    | '[' ->
      incr pos; ws ();
      if peek () = ']' then (incr pos; Arr [])
      else
        let rec elems acc =
          let v = value () in ws ();
          match peek () with
          | ',' -> incr pos; elems (v :: acc)
          | ']' -> incr pos; Arr (List.rev (v :: acc))
          | _ -> err "json: expected , or ] at %d" !pos in
        elems []
    | '"' -> Str (str ())
    | 't' -> lit "true" (Bool true)
    | 'f' -> lit "false" (Bool false)
    | 'n' -> lit "null" Null
    | 'N' -> lit "NaN" (Num "nan")
    | 'I' -> lit "Infinity" (Num "inf")
    | _ ->
      let start = !pos in
      let rec go () = match peek () with '-' | '+' | '.' | 'e' | 'E' | '0' .. '9' -> incr pos; go () | _ -> () in
      go ();
      if !pos = start then err "json: unexpected '%c' at %d" (peek ()) !pos;
      let t = String.sub s start (!pos - start) in
      if t = "-" && peek () = 'I' then (ignore (lit "Infinity" ()); Num "-inf") else Num t in
  let v = value () in
  ws ();
  if !pos <> n then err "json: trailing data at %d" !pos;
  v

let read_whole path =
  let ic = open_in_bin path in
  Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic))

let read_file path = parse (read_whole path)

let member_opt k = function Obj l -> List.assoc_opt k l | _ -> None
let member k j = match member_opt k j with Some v -> v | None -> err "json: no member %S" k
let to_str = function Str s -> s | _ -> err "json: expected a string"
let to_int = function Num s -> (match int_of_string_opt s with Some i -> i | None -> err "json: not an int: %s" s)
                    | _ -> err "json: expected a number"
let to_list = function Arr l -> l | _ -> err "json: expected an array"

(* SHA-256: the library's (tinygrad hashes device indices with hashlib.sha256 in threefry seeding) *)
let sha256 = Mixin_rand.sha256

let hex s = String.concat "" (List.init (String.length s) (fun i -> Printf.sprintf "%02x" (Char.code s.[i])))

(* ---------- tinygrad UOp.key ---------- *)

(* Python's str() of a UOp arg (the parts differing from Uop.arg_to_string: KernelInfo is a dataclass repr) *)
let rec py_arg_str (a : Uop.arg) =
  match a with
  | Uop.Kernel_info k ->
    let tup l = "(" ^ String.concat ", " l ^ (if List.length l = 1 then ",)" else ")") in
    let opts l = tup (List.map Opt.to_string l) in
    Printf.sprintf "KernelInfo(name='%s', axis_types=%s, dont_use_locals=%s, applied_opts=%s, opts_to_apply=%s, estimates=%s, beam=%d)"
      k.kname (tup (List.map Uop.axis_type_to_string k.axis_types)) (if k.dont_use_locals then "True" else "False")
      (opts k.applied_opts) (match k.opts_to_apply with None -> "None" | Some l -> opts l)
      (match k.estimates with
       | None -> "None"
       | Some e -> Printf.sprintf "Estimates(ops=%s, lds=%s, mem=%s)" (Uop.sint_to_string e.ops) (Uop.sint_to_string e.lds)
                     (Uop.sint_to_string e.mem))
      k.beam
  | Uop.Tuple l -> "(" ^ String.concat ", " (List.map py_arg_str l) ^ (if List.length l = 1 then ",)" else ")")
  | a -> Uop.arg_to_string a

let key_str (u : Uop.t) = Printf.sprintf "(%s, %s, %s)" (Ops.to_string u.op) (Dtype.to_string u.dtype) (py_arg_str u.arg)

let uop_key (root : Uop.t) =
  let memo = Uop.Tbl.create 64 in
  List.iter (fun (u : Uop.t) ->
      let k = sha256 (key_str u ^ String.concat "" (Array.to_list (Array.map (fun s -> Uop.Tbl.find memo s) u.src))) in
      Uop.Tbl.replace memo u k) (Uop.toposort root);
  Uop.Tbl.find memo root

(* ---------- corpus ---------- *)

(* GOLDEN_CORPUS, else the steering repo's shared/ checked out beside this repo (tests run from the repo root) *)
let corpus_dir () =
  match Sys.getenv_opt "GOLDEN_CORPUS" with
  | Some d when d <> "" -> d
  | _ ->
    let candidates = [ "../shared/golden/corpus"; "../../shared/golden/corpus"; "/work/shared/golden/corpus" ] in
    (match List.find_opt Sys.file_exists candidates with
     | Some d -> d
     | None -> failwith "golden corpus not found: set GOLDEN_CORPUS or check out shared/ beside the repo")

let programs ~file =
  let d = corpus_dir () in
  if not (Sys.file_exists d && Sys.is_directory d) then []
  else
    Sys.readdir d |> Array.to_list
    |> List.filter (fun p -> Sys.file_exists (Filename.concat (Filename.concat d p) file))
    |> List.sort compare

(* ---------- the pipeline under test ---------- *)

(* switch to [Some (fun ast -> Codegen.to_program ast (Device.renderer "CPU"))] when codegen.ml is in the build *)
let to_program : (Uop.t -> Uop.t) option = Some (fun ast -> Codegen.to_program ast (Device.renderer "CPU"))

