(* The port's side of the differential fuzzer (fuzz.py): reads programs, one JSON object a line, runs each with the
   Tensor API and prints its outcome as one JSON line: {"outputs": [{shape, dtype, values}], "kernels": n} or
   {"error": msg}. With --ocaml, prints each program as an OCaml reproducer instead. *)

open Tinygrad.Compiler
module J = State.Json

let fail fmt = Printf.ksprintf failwith fmt

let field k = function J.Assoc kv -> (match List.assoc_opt k kv with Some v -> v | None -> J.Null) | _ -> J.Null
let to_int = function J.Int i -> i | j -> fail "fuzz_runner: not an int: %s" (J.to_string j)
let to_float = function J.Int i -> float_of_int i | J.Float f -> f | j -> fail "fuzz_runner: not a number: %s" (J.to_string j)
let to_list = function J.List l -> l | J.Null -> [] | j -> fail "fuzz_runner: not a list: %s" (J.to_string j)
let ints j = List.map to_int (to_list j)
let to_str = function J.String s -> s | j -> fail "fuzz_runner: not a string: %s" (J.to_string j)
let to_bool = function J.Bool b -> b | _ -> false
let pair j = match ints j with [ a; b ] -> (a, b) | _ -> fail "fuzz_runner: not a pair"

let dtype_of = function
  | "float32" -> Dtype.Float32 | "int32" -> Dtype.Int32 | "bool" -> Dtype.Bool | "uint8" -> Dtype.Uint8
  | "int8" -> Dtype.Int8 | "int64" -> Dtype.Int64 | "float16" -> Dtype.Float16 | s -> fail "fuzz_runner: dtype %s" s

(* tinygrad's DType.name, as fuzz.py reports tinygrad's dtypes *)
let dtype_name = Dtype.name

let unary = function
  | "neg" -> Tensor.neg | "relu" -> Tensor.relu | "exp" -> Tensor.exp | "log" -> Tensor.log | "sqrt" -> Tensor.sqrt
  | "sigmoid" -> Tensor.sigmoid | "abs" -> Tensor.abs | "sin" -> Tensor.sin | "tanh" -> Tensor.tanh
  | "reciprocal" -> Tensor.reciprocal | "square" -> Tensor.square | "floor" -> Tensor.floor | "ceil" -> Tensor.ceil
  | "trunc" -> Tensor.trunc | "sign" -> Tensor.sign | "exp2" -> Tensor.exp2 | "log2" -> Tensor.log2
  | "gelu" -> (fun x -> Tensor.gelu x) | "silu" -> Tensor.silu | "softplus" -> (fun x -> Tensor.softplus x)
  | "contiguous" -> Tensor.contiguous
  | s -> fail "fuzz_runner: unary %s" s

let binary = function
  | "add" -> Tensor.add | "sub" -> Tensor.sub | "mul" -> Tensor.mul | "div" -> (fun a b -> Tensor.div a b)
  | "maximum" -> Tensor.maximum | "minimum" -> Tensor.minimum | "lt" -> Tensor.lt | "eq" -> Tensor.eq
  | "ne" -> Tensor.ne | "gt" -> Tensor.gt | "matmul" -> (fun a b -> Tensor.matmul a b)
  | s -> fail "fuzz_runner: binary %s" s

let reduce = function
  | "sum" -> fun ?axis ~keepdim x -> Tensor.sum ?axis ~keepdim x
  | "max" -> fun ?axis ~keepdim x -> Tensor.max ?axis ~keepdim x
  | "min" -> fun ?axis ~keepdim x -> Tensor.min ?axis ~keepdim x
  | "mean" -> fun ?axis ~keepdim x -> Tensor.mean ?axis ~keepdim x
  | "prod" -> fun ?axis ~keepdim x -> Tensor.prod ?axis ~keepdim x
  | s -> fail "fuzz_runner: reduce %s" s

let axis_of a = match field "axis" a with J.Null -> None | j -> Some [ to_int j ]

(* one instruction over the values so far *)
let apply (vals : Tensor.t array) a =
  let op = to_str (field "op" a) in
  let x k = vals.(List.nth (ints (field "src" a)) k) in
  match op with
  | "input" ->
    let shape = Array.of_list (ints (field "shape" a)) and dt = dtype_of (to_str (field "dtype" a)) in
    let data = List.map to_float (to_list (field "data" a)) in
    if Dtype.is_float dt then Tensor.of_float_array ~dtype:dt shape (Array.of_list data)
    else Tensor.of_int_array ~dtype:dt shape (Array.of_list (List.map int_of_float data))
  | "sum" | "max" | "min" | "mean" | "prod" ->
    reduce op ?axis:(axis_of a) ~keepdim:(to_bool (field "keepdim" a)) (x 0)
  | "reshape" -> Tensor.reshape (x 0) (Array.of_list (ints (field "shape" a)))
  | "permute" -> Tensor.permute (x 0) (Array.of_list (ints (field "order" a)))
  | "expand" -> Tensor.expand (x 0) (Array.of_list (ints (field "shape" a)))
  | "pad" -> Tensor.pad ~value:(to_float (field "value" a)) (x 0) (Array.of_list (List.map pair (to_list (field "pads" a))))
  | "shrink" -> Tensor.shrink (x 0) (Array.of_list (List.map pair (to_list (field "bounds" a))))
  | "flip" -> Tensor.flip (x 0) (ints (field "axes" a))
  | "transpose" -> Tensor.transpose ~dim0:(to_int (field "dim0" a)) ~dim1:(to_int (field "dim1" a)) (x 0)
  | "squeeze" -> Tensor.squeeze ~dim:(to_int (field "dim" a)) (x 0)
  | "unsqueeze" -> Tensor.unsqueeze (x 0) (to_int (field "dim" a))
  | "cumsum" -> Tensor.cumsum ~axis:(to_int (field "dim" a)) (x 0)
  | "softmax" -> Tensor.softmax ~axis:(to_int (field "dim" a)) (x 0)
  | "cat" -> Tensor.cat ~dim:(to_int (field "dim" a)) (List.map (fun i -> vals.(i)) (ints (field "src" a)))
  | "stack" -> Tensor.stack ~dim:(to_int (field "dim" a)) (List.map (fun i -> vals.(i)) (ints (field "src" a)))
  | "cast" -> Tensor.cast (x 0) (dtype_of (to_str (field "dtype" a)))
  | "where" -> Tensor.where (x 0) (x 1) (x 2)
  | _ -> (
    match ints (field "src" a) with
    | [ _ ] -> unary op (x 0)
    | [ _; _ ] -> binary op (x 0) (x 1)
    | _ -> fail "fuzz_runner: op %s" op)

let json_float f =
  if Float.is_nan f then "NaN" else if f = Float.infinity then "Infinity" else if f = Float.neg_infinity then "-Infinity"
  else Printf.sprintf "%.17g" f

let tensor_json t =
  let values = Tensor.to_float_array t in
  Printf.sprintf {|{"shape":[%s],"dtype":"%s","values":[%s]}|}
    (String.concat "," (List.map string_of_int (Array.to_list (Tensor.shape t))))
    (dtype_name (Tensor.dtype t)) (String.concat "," (List.map json_float (Array.to_list values)))

let error_json key e = J.to_string (J.Assoc [ (key, J.String (Printexc.to_string e)) ])

(* the indices of the program's float32 inputs, whose gradients the gradient mode compares *)
let float_inputs prog =
  List.concat (List.mapi (fun i a ->
      if to_str (field "op" a) = "input" && to_str (field "dtype" a) = "float32" then [ i ] else [])
      (to_list (field "ops" prog)))

(* the weights of an output's elements in the gradient mode's loss (fuzz.py's loss_weights) *)
let loss_weights n = Array.init n (fun i -> float_of_int ((i mod 7) - 3) *. 0.25)

(* the float outputs' weighted sums, added in order (fuzz.py's loss) *)
let loss outs =
  let terms = List.filter_map (fun o ->
      if not (Tensor.is_floating_point o) then None
      else
        let w = Tensor.of_float_array (Tensor.shape o) (loss_weights (Tensor.numel o)) in
        Some (Tensor.sum (Tensor.mul (Tensor.cast o Dtype.Float32) w))) outs in
  match terms with [] -> None | t :: rest -> Some (List.fold_left Tensor.add t rest)

(* the gradient mode's fields: backward on [loss], then the grad of each float32 input (null when it has
   none) *)
let gradients prog (vals : Tensor.t array) outs =
  match
    Option.iter (fun l -> Tensor.backward l) (loss outs);
    let grads = List.map (fun i -> Tensor.grad vals.(i)) (float_inputs prog) in
    Tensor.realize_all (List.filter_map Fun.id grads);
    Printf.sprintf {|"grads":[%s]|}
      (String.concat "," (List.map (function None -> "null" | Some g -> tensor_json g) grads))
  with
  | fields -> fields
  | exception e -> let j = error_json "grad_error" e in String.sub j 1 (String.length j - 2)

(* the outcome line of a program; every exception is an "error" outcome (fuzz.py compares raised / not
   raised); with [grad], the gradients of its float32 inputs too *)
let run ~grad prog =
  match
    let vals = ref [||] in
    List.iter (fun a -> vals := Array.append !vals [| apply !vals a |]) (to_list (field "ops" prog));
    let outs = List.map (fun i -> !vals.(i)) (ints (field "outputs" prog)) in
    Global_counters.reset ();
    Tensor.realize_all outs;
    let kernels = Global_counters.kernel_count () in
    let outputs = String.concat "," (List.map tensor_json outs) in
    (!vals, outs, Printf.sprintf {|"outputs":[%s],"kernels":%d|} outputs kernels)
  with
  | vals, outs, fields -> "{" ^ fields ^ (if grad then "," ^ gradients prog vals outs else "") ^ "}"
  | exception e -> error_json "error" e

(* ---------- OCaml reproducers ---------- *)

let ocaml_of ~grad prog =
  let b = Buffer.create 256 in
  let p fmt = Printf.bprintf b fmt in
  p "open Tinygrad\nlet () =\n";
  let arr l = "[| " ^ String.concat "; " l ^ " |]" in
  let ints_s j = arr (List.map string_of_int (ints j)) in
  List.iteri
    (fun k a ->
      let op = to_str (field "op" a) in
      let src = List.map (Printf.sprintf "v%d") (ints (field "src" a)) in
      let s n = List.nth src n in
      let e =
        match op with
        | "input" ->
          let dt = to_str (field "dtype" a) in
          let data = List.map to_float (to_list (field "data" a)) in
          if dt = "float32" || dt = "float16" then
            Printf.sprintf "Tensor.of_float_array ~dtype:Dtype.%s %s %s" (String.capitalize_ascii dt) (ints_s (field "shape" a))
              (arr (List.map (Printf.sprintf "%g") data))
          else
            Printf.sprintf "Tensor.of_int_array ~dtype:Dtype.%s %s %s" (String.capitalize_ascii dt) (ints_s (field "shape" a))
              (arr (List.map (fun f -> string_of_int (int_of_float f)) data))
        | "sum" | "max" | "min" | "mean" | "prod" ->
          Printf.sprintf "Tensor.%s %s~keepdim:%b %s" op
            (match axis_of a with Some [ x ] -> Printf.sprintf "~axis:[ %d ] " x | _ -> "")
            (to_bool (field "keepdim" a)) (s 0)
        | "reshape" | "permute" | "expand" -> Printf.sprintf "Tensor.%s %s %s" op (s 0) (ints_s (field (if op = "permute" then "order" else "shape") a))
        | "pad" | "shrink" ->
          let ps = List.map (fun j -> let x, y = pair j in Printf.sprintf "(%d, %d)" x y) (to_list (field (if op = "pad" then "pads" else "bounds") a)) in
          Printf.sprintf "Tensor.%s %s%s %s" op (if op = "pad" then Printf.sprintf "~value:%g " (to_float (field "value" a)) else "") (s 0) (arr ps)
        | "flip" -> Printf.sprintf "Tensor.flip %s [ %s ]" (s 0) (String.concat "; " (List.map string_of_int (ints (field "axes" a))))
        | "transpose" -> Printf.sprintf "Tensor.transpose ~dim0:(%d) ~dim1:(%d) %s" (to_int (field "dim0" a)) (to_int (field "dim1" a)) (s 0)
        | "squeeze" -> Printf.sprintf "Tensor.squeeze ~dim:(%d) %s" (to_int (field "dim" a)) (s 0)
        | "cumsum" | "softmax" -> Printf.sprintf "Tensor.%s ~axis:(%d) %s" op (to_int (field "dim" a)) (s 0)
        | "unsqueeze" -> Printf.sprintf "Tensor.unsqueeze %s (%d)" (s 0) (to_int (field "dim" a))
        | "cat" | "stack" -> Printf.sprintf "Tensor.%s ~dim:(%d) [ %s ]" op (to_int (field "dim" a)) (String.concat "; " src)
        | "cast" -> Printf.sprintf "Tensor.cast %s Dtype.%s" (s 0) (String.capitalize_ascii (to_str (field "dtype" a)))
        | _ -> Printf.sprintf "Tensor.%s %s" op (String.concat " " src)
      in
      p "  let v%d = %s in\n" k e)
    (to_list (field "ops" prog));
  let vars l = String.concat "; " (List.map (Printf.sprintf "v%d") l) in
  p "  List.iter (fun v -> print_endline (Tensor.to_string v)) [ %s ]%s\n"
    (vars (ints (field "outputs" prog))) (if grad then ";" else "");
  if grad then begin
    let ins = float_inputs prog in
    p "  let w o = Tensor.of_float_array (Tensor.shape o)\n\
      \    (Array.init (Tensor.numel o) (fun i -> float_of_int ((i mod 7) - 3) *. 0.25)) in\n\
      \  let terms = List.filter_map (fun o -> if Tensor.is_floating_point o then\n\
      \      Some (Tensor.sum (Tensor.mul (Tensor.cast o Dtype.Float32) (w o))) else None) [ %s ] in\n\
      \  (match terms with t :: rest -> Tensor.backward (List.fold_left Tensor.add t rest) | [] -> ());\n\
      \  List.iter (fun v -> match Tensor.grad v with\n\
      \      | Some g -> print_endline (Tensor.to_string g) | None -> print_endline \"no grad\") [ %s ]\n"
      (vars (ints (field "outputs" prog))) (vars ins)
  end;
  Buffer.contents b

let () =
  let reproducer = Array.exists (( = ) "--ocaml") Sys.argv in
  let grad = Array.exists (( = ) "--grad") Sys.argv in
  try
    while true do
      let line = input_line stdin in
      if String.trim line <> "" then begin
        let prog = J.of_string line in
        print_endline (if reproducer then ocaml_of ~grad prog else run ~grad prog);
        flush stdout
      end
    done
  with End_of_file -> ()
