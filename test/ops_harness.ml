(* The golden op-suite replay harness. tinygrad: test/backend/test_ops.py helper_test_op (inputs in, forward,
   sum(out).backward(), compare) and helper_test_exception. The data and the comparison rules are described in
   /work/shared/golden/ops/README.md. *)

open Tinygrad.Compiler

type closure = { dir : string; vals : (string * Golden.json) list }

let ops_dir () = match Sys.getenv_opt "GOLDEN_OPS" with Some d when d <> "" -> d | _ -> "/work/shared/golden/ops"

let cl_json c k = match List.assoc_opt k c.vals with
  | Some j -> j
  | None -> failwith (Printf.sprintf "closure: no value %S" k)

let cl_has c k = List.mem_assoc k c.vals

let typ j = match Golden.member_opt "type" j with Some (Golden.Str s) -> s | _ -> ""

let cl_is_none c k = typ (cl_json c k) = "NoneType"

let value c k = match Golden.member_opt "value" (cl_json c k) with
  | Some v -> v
  | None -> failwith (Printf.sprintf "closure: %S has no inline value" k)

let num_float = function
  | Golden.Num s -> float_of_string s
  | Golden.Str "nan" -> Float.nan
  | Golden.Str "inf" -> Float.infinity
  | Golden.Str "-inf" -> Float.neg_infinity
  | Golden.Bool b -> if b then 1. else 0.
  | _ -> failwith "closure: not a number"

let num_int = function
  | Golden.Num s -> (match int_of_string_opt s with Some i -> i | None -> failwith ("closure: not an int: " ^ s))
  | Golden.Bool b -> if b then 1 else 0
  | _ -> failwith "closure: not an int"

let cl_int c k = num_int (value c k)
let cl_float c k = num_float (value c k)
let cl_bool c k = match value c k with Golden.Bool b -> b | _ -> failwith (Printf.sprintf "closure: %S is not a bool" k)
let cl_str c k = match value c k with Golden.Str s -> s | _ -> failwith (Printf.sprintf "closure: %S is not a str" k)

let npy_of c j = Npy.read (Filename.concat c.dir (Golden.to_str (Golden.member "file" j)))

(* a list (nested lists flattened, C order): inline, or stored as npy when long *)
let cl_list c k conv_json conv_npy =
  let j = cl_json c k in
  match Golden.member_opt "value" j with
  | Some (Golden.Arr xs) ->
    let rec flat = function Golden.Arr ys -> List.concat_map flat ys | y -> [ conv_json y ] in
    List.concat_map flat xs
  | Some _ -> failwith (Printf.sprintf "closure: %S is not a list" k)
  | None -> conv_npy (npy_of c j)

let cl_ints c k = cl_list c k num_int (fun a -> Array.to_list (Npy.to_ints a))
let cl_floats c k = cl_list c k num_float (fun a -> Array.to_list (Npy.to_floats a))

let tensor_of_npy (a : Npy.t) =
  let shape = Array.of_list a.shape in
  if Dtype.is_float a.dtype then Tensor.of_float_array ~dtype:a.dtype shape (Npy.to_floats a)
  else Tensor.of_int_array ~dtype:a.dtype shape (Npy.to_ints a)

(* a closure tensor: the npy data, cast back to tinygrad's dtype when that was a weak one (stored as its strong form) *)
let closure_tensor c j =
  let t = tensor_of_npy (npy_of c j) in
  match Golden.member_opt "orig_dtype" j with
  | Some (Golden.Str d) when String.length d > 7 && String.sub d 0 7 = "dtypes." ->
    (match Dtype.of_string (String.sub d 7 (String.length d - 7)) with
     | Some dt when Dtype.is_weak dt -> Tensor.cast t dt
     | _ -> t)
  | _ -> t

let cl_tensor c k = closure_tensor c (cl_json c k)

let cl_tensors c k = match Golden.member_opt "items" (cl_json c k) with
  | Some (Golden.Arr xs) -> List.map (closure_tensor c) xs
  | _ -> failwith (Printf.sprintf "closure: %S is not a list of tensors" k)

type fwd = closure -> int -> Tensor.t list -> Tensor.t

type case = {
  case_id : string;
  test_name : string;
  call_index : int;
  category : string;
  kind : string;
  inputs : string list;
  grad_inputs : bool list;
  out_file : string option;
  out_dtype : string option;
  atol : float; rtol : float; grad_atol : float; grad_rtol : float;
  grads : (string * int) list;
  closure : closure;
}

(* "TestOps::test_abs" -> "test_abs"; "TestOpsUint8::test_cast" -> "TestOpsUint8.test_cast" *)
let test_key id =
  match String.index_opt id ':' with
  | None -> id
  | Some i ->
    let cls = String.sub id 0 i and name = String.sub id (i + 2) (String.length id - i - 2) in
    if cls = "TestOps" then name else cls ^ "." ^ name

let manifest = lazy (
  let path = Filename.concat (ops_dir ()) "manifest.json" in
  if Sys.file_exists path then Some (Golden.read_file path) else None)

let str_of j k = match Golden.member_opt k j with Some (Golden.Str s) -> s | _ -> ""
let float_of j k d = match Golden.member_opt k j with Some (Golden.Num s) -> float_of_string s | _ -> d

let case_of_json j =
  let case_id = Golden.to_str (Golden.member "case_id" j) in
  let inputs_j = Golden.to_list (Golden.member "inputs" j) in
  let grads = match Golden.member_opt "grads_computed" j, Golden.member_opt "grads" j with
    | Some (Golden.Bool true), Some (Golden.Arr gs) ->
      List.map (fun g ->
          let wrt = Golden.to_str (Golden.member "wrt" g) in
          (Golden.to_str (Golden.member "file" g), int_of_string (String.sub wrt 2 (String.length wrt - 2)))) gs
    | _ -> [] in
  let vals = match Golden.member_opt "closure" j with
    | Some cl -> (match Golden.member_opt "tinygrad" cl with Some (Golden.Obj kv) -> kv | _ -> [])
    | None -> [] in
  { case_id;
    test_name = test_key (Golden.to_str (Golden.member "test_id" j));
    call_index = Golden.to_int (Golden.member "call_index" j);
    category = str_of j "category";
    kind = str_of j "kind";
    inputs = List.map (fun i -> Golden.to_str (Golden.member "file" i)) inputs_j;
    grad_inputs = List.map (fun i -> Golden.member_opt "requires_grad" i = Some (Golden.Bool true)) inputs_j;
    out_file = (match Golden.member_opt "output" j with
        | Some (Golden.Obj _ as o) -> Some (Golden.to_str (Golden.member "file" o)) | _ -> None);
    out_dtype = (match Golden.member_opt "output" j with
        | Some (Golden.Obj _ as o) -> (match Golden.member_opt "tinygrad_dtype" o with Some (Golden.Str s) -> Some s | _ -> None)
        | _ -> None);
    atol = float_of j "atol" 1e-6; rtol = float_of j "rtol" 1e-3;
    grad_atol = float_of j "grad_atol" 1e-4; grad_rtol = float_of j "grad_rtol" 1e-3;
    grads;
    closure = { dir = Filename.concat (ops_dir ()) case_id; vals } }

let cases () = match Lazy.force manifest with
  | None -> []
  | Some m ->
    List.filter_map (fun j ->
        if str_of j "status" = "recorded" then Some (case_of_json j) else None)
      (Golden.to_list (Golden.member "cases" m))

let test_categories () = match Lazy.force manifest with
  | Some m -> (match Golden.member "tests" m with
      | Golden.Obj kv -> List.map (fun (id, t) -> (test_key id, str_of t "category", str_of t "status")) kv
      | _ -> [])
  | None -> []

type outcome = Pass | Fail of string | Not_run of string

let shape_str s = "(" ^ String.concat ", " (List.map string_of_int s) ^ ")"

let compare_arrays ?tg_dtype ~atol ~rtol ~what (t : Tensor.t) (g : Npy.t) =
  let ashape = Array.to_list (Tensor.shape t) in
  if ashape <> g.shape then Some (Printf.sprintf "%s: shape %s, expected %s" what (shape_str ashape) (shape_str g.shape))
  else if (match tg_dtype with Some d -> Dtype.to_string (Tensor.dtype t) <> d | None -> false) then
    Some (Printf.sprintf "%s: dtype %s, expected %s" what (Dtype.to_string (Tensor.dtype t)) (Option.get tg_dtype))
  else if tg_dtype = None && not (Dtype.equal (Tensor.dtype t) g.dtype) then
    Some (Printf.sprintf "%s: dtype %s, expected %s" what (Dtype.to_string (Tensor.dtype t)) (Dtype.to_string g.dtype))
  else if Npy.numel g = 0 then None
  else if Dtype.is_float g.dtype then begin
    let a = Tensor.to_float_array t and e = Npy.to_floats g in
    let bad = ref None and nbad = ref 0 in
    Array.iteri (fun i ev ->
        let av = a.(i) in
        let ok =
          if Float.is_nan ev then Float.is_nan av
          else if Float.is_integer ev && Float.abs ev = Float.infinity then av = ev
          else if Float.abs ev = Float.infinity then av = ev
          else Float.abs (av -. ev) <= atol +. rtol *. Float.abs ev in
        if not ok then begin incr nbad; if !bad = None then bad := Some (i, av, ev) end) e;
    match !bad with
    | None -> None
    | Some (i, av, ev) ->
      Some (Printf.sprintf "%s: %d/%d mismatched (atol %g rtol %g), first at %d: %.9g vs golden %.9g" what !nbad
              (Array.length e) atol rtol i av ev)
  end else begin
    let a = Tensor.to_int_array t and e = Npy.to_ints g in
    let bad = ref None and nbad = ref 0 in
    Array.iteri (fun i ev -> if a.(i) <> ev then begin incr nbad; if !bad = None then bad := Some (i, a.(i), ev) end) e;
    match !bad with
    | None -> None
    | Some (i, av, ev) -> Some (Printf.sprintf "%s: %d/%d mismatched, first at %d: %d vs golden %d" what !nbad (Array.length e) i av ev)
  end

(* d(sum out)/d(inputs). tinygrad: helper_test_op, tinygrad_fxn(tst).sum().backward() then x.grad for each input.
   None while Tensor.backward is missing. *)
let gradients : (Tensor.t -> Tensor.t list -> Tensor.t option list) option =
  Some (fun out ins -> Tensor.backward (Tensor.sum out); List.map Tensor.grad ins)

let exn_str = function
  | Invalid_argument m -> "Invalid_argument: " ^ m
  | e -> Printexc.to_string e

let run_case (f : fwd) c =
  let load file = Npy.read (Filename.concat c.closure.dir file) in
  let inputs () = List.map (fun file -> tensor_of_npy (load file)) c.inputs in
  if c.kind = "exception" then
    match Tensor.realize (f c.closure c.call_index (inputs ())) with
    | _ -> (Fail "expected an exception, none raised", Not_run "exception case")
    | exception Invalid_argument _ -> (Pass, Not_run "exception case")
    | exception e -> (Fail ("expected Invalid_argument, got " ^ exn_str e), Not_run "exception case")
  else
    let golden = match c.out_file with Some f -> load f | None -> failwith "op case without out.npy" in
    let fwd =
      match Tensor.realize (f c.closure c.call_index (inputs ())) with
      | out -> (match compare_arrays ?tg_dtype:c.out_dtype ~atol:c.atol ~rtol:c.rtol ~what:"forward" out golden with
          | None -> Pass | Some m -> Fail m)
      | exception e -> Fail ("raised " ^ exn_str e) in
    let grad =
      if c.grads = [] then Not_run "no gradients recorded"
      else match gradients with
        | None -> Not_run "Tensor.backward missing"
        | Some gradients ->
          match
            let ins = inputs () in
            let out = f c.closure c.call_index ins in
            let gs = gradients out ins in
            List.fold_left (fun acc (file, i) ->
                match acc with
                | Some _ -> acc
                | None ->
                  let what = Printf.sprintf "grad of in%d" i in
                  match List.nth gs i with
                  | None -> Some (what ^ ": no gradient")
                  | Some g -> compare_arrays ~atol:c.grad_atol ~rtol:c.grad_rtol ~what (Tensor.realize g) (load file))
              None c.grads
          with
          | None -> Pass
          | Some m -> Fail m
          | exception e -> Fail ("gradient raised " ^ exn_str e) in
    (fwd, grad)
