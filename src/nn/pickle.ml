(* The pickle subset of PyTorch checkpoints (Python's pickle module, which tinygrad's nn/state.py torch_load runs
   with find_class and persistent_load overridden): a stack machine over the opcodes of protocols 0 to 5. *)

(* appended at the head; read back reversed, so filling a container of n items costs O(n) *)
type 'a items = { mutable rev : 'a list }

let items c = List.rev c.rev
let items_of_list l = { rev = List.rev l }
let append c l = c.rev <- List.rev_append l c.rev

type value =
  | None_
  | Bool of bool
  | Int of Z.t
  | Float of float
  | Str of string
  | Bytes of string
  | Tuple of value list
  | List of value items
  | Dict of (value * value) items
  | Set of value list
  | Global of string * string
  | Call of value * value list
  | Built of value * value
  | Persistent of value

(* shallow and short: a damaged pickle can share a list within itself *)
let to_string v =
  let rec go depth v =
    let seq l = String.concat ", " (List.map (go (depth + 1)) (Helpers.take 8 l))
                ^ (if List.length l > 8 then ", ..." else "") in
    if depth > 4 then "..."
    else match v with
      | None_ -> "None"
      | Bool b -> if b then "True" else "False"
      | Int z -> Z.to_string z
      | Float f -> Printf.sprintf "%g" f
      | Str s -> Printf.sprintf "%S" s
      | Bytes s -> Printf.sprintf "b%S" (if String.length s > 32 then String.sub s 0 32 ^ "..." else s)
      | Tuple l -> "(" ^ seq l ^ ")"
      | List l -> "[" ^ seq (items l) ^ "]"
      | Dict d -> "{" ^ seq (List.map (fun (k, v) -> Tuple [ k; v ]) (items d)) ^ "}"
      | Set l -> "{" ^ seq l ^ "}"
      | Global (m, n) -> m ^ "." ^ n
      | Call (f, args) -> go depth f ^ "(" ^ seq args ^ ")"
      | Built (o, _) -> go depth o
      | Persistent pid -> "persistent " ^ go (depth + 1) pid in
  go 0 v

(* the most nodes and the deepest nesting a traversal of a pickled object visits: shared values are visited once per
   reference, so a damaged pickle could otherwise make a small file a huge (or cyclic) tree *)
let max_nodes = 1 lsl 22
let max_depth = 256

let iter_children f = function
  | Tuple l | Set l -> List.iter f l
  | List l -> List.iter f (items l)
  | Dict d -> List.iter (fun (k, v) -> f k; f v) (items d)
  | Call (g, a) -> f g; List.iter f a
  | Built (o, st) -> f o; f st
  | Persistent pid -> f pid
  | None_ | Bool _ | Int _ | Float _ | Str _ | Bytes _ | Global _ -> ()

let budget ~what =
  let n = ref 0 in
  fun depth ->
    incr n;
    if !n > max_nodes || depth > max_depth then
      invalid_arg (Printf.sprintf "%s: the pickled object is too large or nested too deeply" what)

(* a stack entry: a value or the MARK that a tuple, list, dict or APPENDS / SETITEMS collects up to *)
type entry = V of value | Mark

(* a little-endian two's complement integer of [n] bytes (LONG1 / LONG4) *)
let long_of_bytes (b : string) =
  let u = Z.of_bits b in
  let n = String.length b in
  if n > 0 && Char.code b.[n - 1] land 0x80 <> 0 then Z.sub u (Z.shift_left Z.one (8 * n)) else u

let load ?(what = "pickle") ?(reduce = fun _ _ -> None) ?(persistent_load = fun pid -> Persistent pid) (s : string)
    (start : int) : value * int =
  let len = String.length s in
  let pos = ref start in
  let fail fmt = Printf.ksprintf (fun m -> invalid_arg (Printf.sprintf "%s: %s at byte %d" what m !pos)) fmt in
  let need n = if n < 0 || !pos + n > len then fail "truncated (%d more bytes needed)" n in
  let take n = need n; let r = String.sub s !pos n in pos := !pos + n; r in
  let u8 () = need 1; let c = Char.code s.[!pos] in incr pos; c in
  let le n = let b = take n in
    let r = ref 0 in for i = n - 1 downto 0 do r := (!r lsl 8) lor Char.code b.[i] done; !r in
  let le_size n = let v = le n in if v < 0 then fail "size out of range"; v in
  let i32 () = let v = le 4 in if v land 0x80000000 <> 0 then v - (1 lsl 32) else v in
  let line () =
    match String.index_from_opt s !pos '\n' with
    | Some e -> let r = String.sub s !pos (e - !pos) in pos := e + 1; r
    | None -> fail "unterminated line" in
  let stack : entry list ref = ref [] in
  let memo : (int, value) Hashtbl.t = Hashtbl.create 64 in
  let push v = stack := V v :: !stack in
  let pop () = match !stack with V v :: r -> stack := r; v | Mark :: _ -> fail "a MARK where a value was expected"
                                 | [] -> fail "empty stack" in
  let top () = match !stack with V v :: _ -> v | _ -> fail "no value on the stack" in
  let pop_mark () =
    let rec go acc = function
      | V v :: r -> go (v :: acc) r
      | Mark :: r -> stack := r; acc
      | [] -> fail "no MARK on the stack" in
    go [] !stack in
  let call f args = match reduce f args with Some v -> v | None -> Call (f, args) in
  let rec pairs = function
    | k :: v :: r -> (k, v) :: pairs r
    | [] -> []
    | [ _ ] -> fail "odd number of dict items" in
  let set_items d kvs = match d with
    | Dict r -> append r kvs
    | v -> fail "SETITEM(S) on %s" (to_string v) in
  let unquote q =
    let n = String.length q in
    if n >= 2 && (q.[0] = '\'' || q.[0] = '"') && q.[n - 1] = q.[0] then Scanf.unescaped (String.sub q 1 (n - 2))
    else fail "bad STRING literal" in
  let memo_get i = match Hashtbl.find_opt memo i with Some v -> v | None -> fail "memo key %d missing" i in
  let result = ref None in
  while !result = None do
    let op = Char.chr (u8 ()) in
    match op with
    | '\x80' -> ignore (u8 ())  (* PROTO *)
    | '\x95' -> ignore (take 8)  (* FRAME: the frame's length only *)
    | '.' -> result := Some (pop ())  (* STOP *)
    | '(' -> stack := Mark :: !stack
    | '0' -> ignore (pop ())
    | '1' -> ignore (pop_mark ())
    | '2' -> push (top ())
    | 'N' -> push None_
    | '\x88' -> push (Bool true)
    | '\x89' -> push (Bool false)
    | 'J' -> push (Int (Z.of_int (i32 ())))
    | 'K' -> push (Int (Z.of_int (u8 ())))
    | 'M' -> push (Int (Z.of_int (le 2)))
    | '\x8a' -> let n = u8 () in push (Int (long_of_bytes (take n)))
    | '\x8b' -> let n = le_size 4 in push (Int (long_of_bytes (take n)))
    | 'I' ->
      (match line () with
       | "00" -> push (Bool false) | "01" -> push (Bool true)
       | l -> (match Z.of_string l with z -> push (Int z) | exception _ -> fail "bad INT %S" l))
    | 'L' ->
      let l = line () in
      let l = if String.ends_with ~suffix:"L" l then String.sub l 0 (String.length l - 1) else l in
      (match Z.of_string l with z -> push (Int z) | exception _ -> fail "bad LONG %S" l)
    | 'F' -> (match float_of_string_opt (line ()) with Some f -> push (Float f) | None -> fail "bad FLOAT")
    | 'G' ->
      let b = take 8 in
      let r = ref 0L in
      String.iter (fun c -> r := Int64.logor (Int64.shift_left !r 8) (Int64.of_int (Char.code c))) b;
      push (Float (Int64.float_of_bits !r))
    | 'X' -> let n = le_size 4 in push (Str (take n))
    | '\x8c' -> let n = u8 () in push (Str (take n))
    | '\x8d' -> let n = le_size 8 in push (Str (take n))
    | 'V' -> push (Str (Scanf.unescaped (line ())))
    | 'T' -> let n = le_size 4 in push (Bytes (take n))
    | 'U' -> let n = u8 () in push (Bytes (take n))
    | 'S' -> push (Bytes (unquote (line ())))
    | 'B' -> let n = le_size 4 in push (Bytes (take n))
    | 'C' -> let n = u8 () in push (Bytes (take n))
    | '\x8e' | '\x96' -> let n = le_size 8 in push (Bytes (take n))
    | ')' -> push (Tuple [])
    | '\x85' -> let a = pop () in push (Tuple [ a ])
    | '\x86' -> let b = pop () in let a = pop () in push (Tuple [ a; b ])
    | '\x87' -> let c = pop () in let b = pop () in let a = pop () in push (Tuple [ a; b; c ])
    | 't' -> push (Tuple (pop_mark ()))
    | ']' -> push (List (items_of_list []))
    | 'l' -> push (List (items_of_list (pop_mark ())))
    | 'a' -> let v = pop () in (match top () with List r -> append r [ v ] | t -> fail "APPEND to %s" (to_string t))
    | 'e' ->
      let l = pop_mark () in
      (match top () with List r -> append r l | t -> fail "APPENDS to %s" (to_string t))
    | '}' -> push (Dict (items_of_list []))
    | 'd' -> push (Dict (items_of_list (pairs (pop_mark ()))))
    | 's' -> let v = pop () in let k = pop () in set_items (top ()) [ (k, v) ]
    | 'u' -> let items = pairs (pop_mark ()) in set_items (top ()) items
    | '\x8f' -> push (Set [])
    | '\x90' ->
      let items = pop_mark () in
      (match pop () with Set l -> push (Set (l @ items)) | t -> fail "ADDITEMS to %s" (to_string t))
    | '\x91' -> push (Set (pop_mark ()))
    | 'p' -> (match int_of_string_opt (line ()) with Some i -> Hashtbl.replace memo i (top ()) | None -> fail "bad PUT")
    | 'q' -> Hashtbl.replace memo (u8 ()) (top ())
    | 'r' -> Hashtbl.replace memo (le_size 4) (top ())
    | '\x94' -> Hashtbl.replace memo (Hashtbl.length memo) (top ())
    | 'g' -> (match int_of_string_opt (line ()) with Some i -> push (memo_get i) | None -> fail "bad GET")
    | 'h' -> push (memo_get (u8 ()))
    | 'j' -> push (memo_get (le_size 4))
    | 'c' -> let m = line () in let n = line () in push (Global (m, n))
    | '\x93' ->
      let n = pop () in
      let m = pop () in
      (match m, n with Str m, Str n -> push (Global (m, n)) | _ -> fail "STACK_GLOBAL of non-strings")
    | 'R' ->
      let args = pop () in
      let f = pop () in
      (match args with Tuple a -> push (call f a) | a -> fail "REDUCE with arguments %s" (to_string a))
    | '\x81' ->
      let args = pop () in
      let cls = pop () in
      (match args with Tuple a -> push (call cls a) | a -> fail "NEWOBJ with arguments %s" (to_string a))
    | '\x92' ->
      let _kwargs = pop () in
      let args = pop () in
      let cls = pop () in
      (match args with Tuple a -> push (call cls a) | a -> fail "NEWOBJ_EX with arguments %s" (to_string a))
    | 'b' ->
      let state = pop () in
      (* a dict subclass's state (OrderedDict's _metadata) sets attributes the state dict does not need *)
      (match pop () with
       | (Dict _ | List _) as o -> push o
       | o -> push (Built (o, state)))
    | 'Q' -> let pid = pop () in push (persistent_load pid)
    | 'P' -> push (persistent_load (Str (line ())))
    | c -> fail "unsupported pickle opcode 0x%02x" (Char.code c)
  done;
  (Option.get !result, !pos)
