(* Golden-corpus helpers: a minimal JSON reader, SHA-256, and tinygrad's UOp.key (uop/ops.py UOp.key). *)

open Tinygrad

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

(* ---------- SHA-256 (FIPS 180-4) ---------- *)

let k256 = [|
  0x428a2f98; 0x71374491; 0xb5c0fbcf; 0xe9b5dba5; 0x3956c25b; 0x59f111f1; 0x923f82a4; 0xab1c5ed5;
  0xd807aa98; 0x12835b01; 0x243185be; 0x550c7dc3; 0x72be5d74; 0x80deb1fe; 0x9bdc06a7; 0xc19bf174;
  0xe49b69c1; 0xefbe4786; 0x0fc19dc6; 0x240ca1cc; 0x2de92c6f; 0x4a7484aa; 0x5cb0a9dc; 0x76f988da;
  0x983e5152; 0xa831c66d; 0xb00327c8; 0xbf597fc7; 0xc6e00bf3; 0xd5a79147; 0x06ca6351; 0x14292967;
  0x27b70a85; 0x2e1b2138; 0x4d2c6dfc; 0x53380d13; 0x650a7354; 0x766a0abb; 0x81c2c92e; 0x92722c85;
  0xa2bfe8a1; 0xa81a664b; 0xc24b8b70; 0xc76c51a3; 0xd192e819; 0xd6990624; 0xf40e3585; 0x106aa070;
  0x19a4c116; 0x1e376c08; 0x2748774c; 0x34b0bcb5; 0x391c0cb3; 0x4ed8aa4a; 0x5b9cca4f; 0x682e6ff3;
  0x748f82ee; 0x78a5636f; 0x84c87814; 0x8cc70208; 0x90befffa; 0xa4506ceb; 0xbef9a3f7; 0xc67178f2 |]

let sha256 msg =
  let m32 = 0xFFFFFFFF in
  let rotr x n = ((x lsr n) lor (x lsl (32 - n))) land m32 in
  let h = [| 0x6a09e667; 0xbb67ae85; 0x3c6ef372; 0xa54ff53a; 0x510e527f; 0x9b05688c; 0x1f83d9ab; 0x5be0cd19 |] in
  let len = String.length msg in
  let padlen = let r = (len + 9) mod 64 in if r = 0 then 0 else 64 - r in
  let total = len + 9 + padlen in
  let b = Bytes.make total '\000' in
  Bytes.blit_string msg 0 b 0 len;
  Bytes.set b len '\x80';
  let bits = len * 8 in
  for i = 0 to 7 do Bytes.set b (total - 1 - i) (Char.chr ((bits lsr (8 * i)) land 0xFF)) done;
  let w = Array.make 64 0 in
  for blk = 0 to (total / 64) - 1 do
    let o = blk * 64 in
    for t = 0 to 15 do
      let g i = Char.code (Bytes.get b (o + (4 * t) + i)) in
      w.(t) <- (g 0 lsl 24) lor (g 1 lsl 16) lor (g 2 lsl 8) lor g 3
    done;
    for t = 16 to 63 do
      let s0 = rotr w.(t - 15) 7 lxor rotr w.(t - 15) 18 lxor (w.(t - 15) lsr 3) in
      let s1 = rotr w.(t - 2) 17 lxor rotr w.(t - 2) 19 lxor (w.(t - 2) lsr 10) in
      w.(t) <- (w.(t - 16) + s0 + w.(t - 7) + s1) land m32
    done;
    let a = ref h.(0) and bb = ref h.(1) and c = ref h.(2) and d = ref h.(3)
    and e = ref h.(4) and f = ref h.(5) and g = ref h.(6) and hh = ref h.(7) in
    for t = 0 to 63 do
      let s1 = rotr !e 6 lxor rotr !e 11 lxor rotr !e 25 in
      let ch = (!e land !f) lxor ((lnot !e) land m32 land !g) in
      let t1 = (!hh + s1 + ch + k256.(t) + w.(t)) land m32 in
      let s0 = rotr !a 2 lxor rotr !a 13 lxor rotr !a 22 in
      let maj = (!a land !bb) lxor (!a land !c) lxor (!bb land !c) in
      let t2 = (s0 + maj) land m32 in
      hh := !g; g := !f; f := !e; e := (!d + t1) land m32;
      d := !c; c := !bb; bb := !a; a := (t1 + t2) land m32
    done;
    List.iteri (fun i v -> h.(i) <- (h.(i) + v) land m32) [ !a; !bb; !c; !d; !e; !f; !g; !hh ]
  done;
  let out = Bytes.create 32 in
  Array.iteri (fun i v -> for j = 0 to 3 do Bytes.set out ((4 * i) + j) (Char.chr ((v lsr (24 - (8 * j))) land 0xFF)) done) h;
  Bytes.to_string out

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

(* switch to [Some (fun ast -> Codegen.to_program ast (Cstyle.clang_renderer ()))] when codegen.ml is in the build *)
let to_program : (Uop.t -> Uop.t) option = Some (fun ast -> Codegen.to_program ast (Cstyle.clang_renderer ()))

let program_source (prg : Uop.t) =
  match List.find_opt (fun (s : Uop.t) -> s.op == Ops.Source) (Array.to_list prg.src) with
  | Some { Uop.arg = Uop.Str s; _ } -> s
  | _ -> raise (Error "program_source: no SOURCE in the PROGRAM")
