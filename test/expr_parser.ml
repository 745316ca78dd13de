(* A small evaluator for the Python expressions tinygrad's symbolic tests use as expected values
   (check_uop_against_string evals them with the variables in scope). Python values are ints, floats,
   bools or UOps; operators on UOps build them with the same Uop sugar Python's overloads use. *)

open Tinygrad.Compiler

type value = Int of Z.t | Float of float | Bool of bool | U of Uop.t

exception Error of string

let err fmt = Printf.ksprintf (fun s -> raise (Error s)) fmt

(* UOp.ufix / UOp.const of a Python value *)
let to_uop = function
  | U u -> u
  | Int z -> Uop.const (Dtype.I z)
  | Float f -> Uop.const (Dtype.F f)
  | Bool b -> Uop.const (Dtype.B b)

let to_string = function
  | Int z -> Z.to_string z
  | Float f -> Dtype.float_repr f
  | Bool b -> if b then "True" else "False"
  | U u -> Uop.to_string u

let num_z = function Int z -> Some z | Bool b -> Some (if b then Z.one else Z.zero) | _ -> None
let num_f = function Int z -> Z.to_float z | Bool b -> if b then 1. else 0. | Float f -> f | U _ -> err "not a number"

type binop = Add | Sub | Mul | Floordiv | Truediv | Mod | And | Or | Xor | Shl | Shr
type cmpop = Lt | Gt | Le | Ge | Ne | Eq

(* Python arithmetic on two numbers *)
let num_binop op a b =
  match num_z a, num_z b with
  | Some x, Some y ->
    let both_bool = (match a, b with Bool _, Bool _ -> true | _ -> false) in
    (match op with
     | Add -> Int (Z.add x y) | Sub -> Int (Z.sub x y) | Mul -> Int (Z.mul x y)
     | Floordiv -> if Z.equal y Z.zero then err "ZeroDivisionError" else Int (Z.fdiv x y)
     | Mod -> if Z.equal y Z.zero then err "ZeroDivisionError" else Int (Z.sub x (Z.mul (Z.fdiv x y) y))
     | Truediv -> Float (Z.to_float x /. Z.to_float y)
     | And -> if both_bool then Bool (Z.equal (Z.logand x y) Z.one) else Int (Z.logand x y)
     | Or -> if both_bool then Bool (Z.equal (Z.logor x y) Z.one) else Int (Z.logor x y)
     | Xor -> if both_bool then Bool (Z.equal (Z.logxor x y) Z.one) else Int (Z.logxor x y)
     | Shl -> Int (Z.shift_left x (Z.to_int y))
     | Shr -> Int (Z.shift_right x (Z.to_int y)))
  | _ ->
    let x = num_f a and y = num_f b in
    (match op with
     | Add -> Float (x +. y) | Sub -> Float (x -. y) | Mul -> Float (x *. y) | Truediv -> Float (x /. y)
     | Floordiv -> Float (Float.floor (x /. y))
     | Mod -> Float (x -. (Float.floor (x /. y) *. y))
     | _ -> err "unsupported float operator")

(* Python's binary operator: a UOp on either side builds a UOp (reflected operators give the same node) *)
let binop op a b =
  match a, b with
  | U _, _ | _, U _ ->
    let x = to_uop a and y = to_uop b in
    U (match op with
        | Add -> Uop.add x y | Sub -> Uop.sub x y | Mul -> Uop.mul x y | Floordiv -> Uop.idiv x y
        | Truediv -> Uop.div x y | Mod -> Uop.mod_ x y | And -> Uop.and_ x y | Or -> Uop.or_ x y
        | Xor -> Uop.xor x y | Shl -> Uop.shl x y | Shr -> Uop.shr x y)
  | _ -> num_binop op a b

let num_cmp a b = match num_z a, num_z b with
  | Some x, Some y -> Z.compare x y
  | _ -> Stdlib.compare (num_f a) (num_f b)

let cmpop op a b =
  match a, b with
  | U x, U y ->
    (match op with
     | Lt -> U (Uop.lt x y) | Gt -> U (Uop.gt x y) | Le -> U (Uop.le x y) | Ge -> U (Uop.ge x y)
     | Ne -> U (Uop.ne x y)
     | Eq -> Bool (x == y))  (* UOp.__eq__ is not overridden: identity *)
  | U x, _ ->
    let y = to_uop b in
    (match op with
     | Lt -> U (Uop.lt x y) | Gt -> U (Uop.gt x y) | Le -> U (Uop.le x y) | Ge -> U (Uop.ge x y)
     | Ne -> U (Uop.ne x y) | Eq -> Bool false)
  | _, U y ->
    (* the number's operator returns NotImplemented, Python calls the UOp's reflected one *)
    let x = to_uop a in
    (match op with
     | Lt -> U (Uop.gt y x) | Gt -> U (Uop.lt y x) | Le -> U (Uop.ge y x) | Ge -> U (Uop.le y x)
     | Ne -> U (Uop.ne y x) | Eq -> Bool false)
  | _ ->
    let c = num_cmp a b in
    Bool (match op with Lt -> c < 0 | Gt -> c > 0 | Le -> c <= 0 | Ge -> c >= 0 | Ne -> c <> 0 | Eq -> c = 0)

let neg = function
  | U u -> U (Uop.neg u)
  | Int z -> Int (Z.neg z)
  | Bool b -> Int (if b then Z.minus_one else Z.zero)
  | Float f -> Float (-.f)

(* Python's ** : on UOps, ElementwiseMixin.pow *)
let pow a b =
  match a, b with
  | U _, _ | _, U _ -> U (Uop.pow (to_uop a) (to_uop b))
  | _ -> (match num_z a, num_z b with
      | Some x, Some y when Z.sign y >= 0 -> Int (Z.pow x (Z.to_int y))
      | _ -> Float (Float.pow (num_f a) (num_f b)))

(* Python truthiness; a UOp goes through UOp.__bool__ *)
let truthy = function
  | Int z -> not (Z.equal z Z.zero)
  | Float f -> f <> 0.
  | Bool b -> b
  | U u -> Uop.to_bool u

let call_method recv name args =
  match name, args with
  | "where", [ x; y ] -> U (Uop.where (to_uop recv) (to_uop x) (to_uop y))
  | "maximum", [ x ] -> U (Uop.maximum (to_uop recv) (to_uop x))
  | "minimum", [ x ] -> U (Uop.minimum (to_uop recv) (to_uop x))
  | "reciprocal", [] -> U (Uop.reciprocal (to_uop recv))
  | "ne", [ x ] -> U (Uop.ne (to_uop recv) (to_uop x))
  | "eq", [ x ] -> U (Uop.eq (to_uop recv) (to_uop x))
  | "logical_not", [] -> U (Uop.logical_not (to_uop recv))
  | "trunc", [] -> U (Uop.trunc (to_uop recv))
  | _ -> err "unsupported method .%s with %d args" name (List.length args)

(* ---------- tokens ---------- *)

type token = NUM of value | NAME of string | OP of string | EOF

let tokenize (s : string) : token list =
  let n = String.length s in
  let toks = ref [] in
  let i = ref 0 in
  let is_digit c = c >= '0' && c <= '9' in
  let is_alpha c = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c = '_' in
  while !i < n do
    let c = s.[!i] in
    if c = ' ' || c = '\t' || c = '\n' then incr i
    else if is_digit c || (c = '.' && !i + 1 < n && is_digit s.[!i + 1]) then begin
      let j = ref !i and is_float = ref false in
      while !j < n && (is_digit s.[!j] || s.[!j] = '.' || s.[!j] = 'e' || s.[!j] = 'E'
                       || ((s.[!j] = '-' || s.[!j] = '+') && (s.[!j - 1] = 'e' || s.[!j - 1] = 'E'))) do
        if s.[!j] = '.' || s.[!j] = 'e' || s.[!j] = 'E' then is_float := true;
        incr j
      done;
      let lit = String.sub s !i (!j - !i) in
      toks := NUM (if !is_float then Float (float_of_string lit) else Int (Z.of_string lit)) :: !toks;
      i := !j
    end
    else if is_alpha c then begin
      let j = ref !i in
      while !j < n && (is_alpha s.[!j] || is_digit s.[!j]) do incr j done;
      toks := NAME (String.sub s !i (!j - !i)) :: !toks;
      i := !j
    end
    else begin
      let two = if !i + 1 < n then String.sub s !i 2 else "" in
      if List.mem two [ "//"; "<<"; ">>"; "<="; ">="; "!="; "=="; "**" ] then (toks := OP two :: !toks; i := !i + 2)
      else if String.contains "+-*/%&|^<>(),.~" c then (toks := OP (String.make 1 c) :: !toks; incr i)
      else err "unexpected character %C in %S" c s
    end
  done;
  List.rev (EOF :: !toks)

(* ---------- recursive descent over Python's precedence ---------- *)

let eval (env : (string * Uop.t) list) (s : string) : value =
  let toks = ref (tokenize s) in
  let peek () = match !toks with t :: _ -> t | [] -> EOF in
  let advance () = match !toks with _ :: r -> toks := r | [] -> () in
  let expect o = match peek () with OP x when x = o -> advance () | _ -> err "expected %s in %S" o s in
  let rec test () =
    let v = or_test () in
    match peek () with
    | NAME "if" ->
      advance ();
      let c = or_test () in
      (match peek () with NAME "else" -> advance () | _ -> err "expected else in %S" s);
      let e = test () in
      if truthy c then v else e
    | _ -> v
  and or_test () =
    let v = ref (and_test ()) in
    while peek () = NAME "or" do advance (); let r = and_test () in if not (truthy !v) then v := r done;
    !v
  and and_test () =
    let v = ref (not_test ()) in
    while peek () = NAME "and" do advance (); let r = not_test () in if truthy !v then v := r done;
    !v
  and not_test () =
    match peek () with
    | NAME "not" -> advance (); Bool (not (truthy (not_test ())))
    | _ -> comparison ()
  and comparison () =
    let l = bitor () in
    let cmp_of = function
      | OP "<" -> Some Lt | OP ">" -> Some Gt | OP "<=" -> Some Le | OP ">=" -> Some Ge | OP "!=" -> Some Ne
      | OP "==" -> Some Eq | _ -> None in
    match cmp_of (peek ()) with
    | None -> l
    | Some op ->
      advance ();
      let r = bitor () in
      (match cmp_of (peek ()) with Some _ -> err "chained comparisons are not supported: %S" s | None -> ());
      cmpop op l r
  and left_assoc next ops =
    let v = ref (next ()) in
    let rec loop () =
      match peek () with
      | OP o when List.mem_assoc o ops -> advance (); let r = next () in v := binop (List.assoc o ops) !v r; loop ()
      | _ -> () in
    loop ();
    !v
  and bitor () = left_assoc bitxor [ ("|", Or) ]
  and bitxor () = left_assoc bitand [ ("^", Xor) ]
  and bitand () = left_assoc shift [ ("&", And) ]
  and shift () = left_assoc arith [ ("<<", Shl); (">>", Shr) ]
  and arith () = left_assoc term [ ("+", Add); ("-", Sub) ]
  and term () = left_assoc factor [ ("*", Mul); ("//", Floordiv); ("%", Mod); ("/", Truediv) ]
  and factor () =
    match peek () with
    | OP "-" -> advance (); neg (factor ())
    | OP "+" -> advance (); factor ()
    | _ -> power ()
  and power () =
    let b = primary () in
    match peek () with
    | OP "**" -> advance (); let e = factor () in pow b e
    | _ -> b
  and args () =
    expect "(";
    let rec loop acc =
      match peek () with
      | OP ")" -> advance (); List.rev acc
      | _ ->
        let a = test () in
        (match peek () with OP "," -> advance () | _ -> ());
        loop (a :: acc) in
    loop []
  and primary () =
    let v = ref (atom ()) in
    let rec trailers () =
      match peek () with
      | OP "." ->
        advance ();
        (match peek () with
         | NAME m -> advance (); let a = args () in v := call_method !v m a; trailers ()
         | _ -> err "expected a method name in %S" s)
      | _ -> () in
    trailers ();
    !v
  and atom () =
    match peek () with
    | NUM n -> advance (); n
    | NAME "True" -> advance (); Bool true
    | NAME "False" -> advance (); Bool false
    | NAME "max" ->
      advance ();
      (match args () with
       | [ a; b ] -> (match a, b with
           | U _, _ | _, U _ -> err "max() of UOps needs UOp.__bool__"
           | _ -> if num_cmp b a > 0 then b else a)
       | _ -> err "max() takes two arguments here")
    | NAME nm ->
      advance ();
      (match List.assoc_opt nm env with Some u -> U u | None -> err "name %s is not defined in %S" nm s)
    | OP "(" -> advance (); let v = test () in expect ")"; v
    | _ -> err "unexpected token in %S" s in
  let v = test () in
  (match peek () with EOF -> () | _ -> err "trailing input in %S" s);
  v
