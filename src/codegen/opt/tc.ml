(* tinygrad: codegen/opt/tc.py *)

type swizzle_part = string list * string list * string list

type t = {
  dims : int * int * int;
  threads : int;
  elements_per_thread : int * int * int;
  dtype_in : Dtype.t;
  dtype_out : Dtype.t;
  opts : string list;
  swizzle : swizzle_part * swizzle_part;
}

let log2_int n =
  let rec go n acc = if n <= 1 then acc else go (n / 2) (acc + 1) in
  go n 0

let pow2 n = 1 lsl n
let dim k t = let n, m, kk = t.dims in match k with 0 -> n | 1 -> m | _ -> kk

(* tinygrad: TensorCore.get_reduce_axes *)
let get_reduce_axes t = List.init (log2_int (dim 2 t)) (fun i -> (i, 2))

(* tinygrad: TensorCore.get_upcast_axes *)
let get_upcast_axes t = List.filter (fun o -> o.[0] = 'u') t.opts

(* tinygrad: TensorCore.get_local_axes *)
let get_local_axes t = List.filter (fun o -> o.[0] = 'l') t.opts

(* tinygrad: TensorCore._remaps *)
let remaps t =
  let nl = List.length (get_local_axes t) and nu = List.length (get_upcast_axes t)
  and nr = List.length (get_reduce_axes t) in
  let fwd_st =
    List.init nl (Printf.sprintf "l%d") @ List.init nu (Printf.sprintf "u%d") @ List.init nr (Printf.sprintf "r%d") in
  let one (a, b, c) =
    let flat = a @ b @ c in
    (* zip truncates to the shorter list *)
    let rec zip xs ys = match xs, ys with x :: xs, y :: ys -> (x, y) :: zip xs ys | _ -> [] in
    zip fwd_st flat in
  let s0, s1 = t.swizzle in
  [ one s0; one s1 ]

let index_of x l =
  let rec go i = function
    | [] -> invalid_arg (Printf.sprintf "permutes_for_shape_str: %s is not in list" x)
    | y :: ys -> if y = x then i else go (i + 1) ys in
  go 0 l

(* tinygrad: TensorCore.permutes_for_shape_str *)
let permutes_for_shape_str t shape_str =
  let perm remap =
    List.mapi (fun i ss -> match List.assoc_opt ss remap with Some r -> index_of r shape_str | None -> i) shape_str in
  match List.map perm (remaps t) with [ a; b ] -> (a, b) | _ -> assert false

(* tinygrad: TensorCore.base_shape_str *)
let base_shape_str t =
  let cu = ref 0 and cl = ref 0 in
  let ret =
    List.map (fun o ->
        let c = if o.[0] = 'u' then cu else cl in
        let s = Printf.sprintf "%c%d" o.[0] !c in
        incr c; s) t.opts in
  ret @ List.init (List.length (get_reduce_axes t)) (Printf.sprintf "r%d")

(* tinygrad: TensorCore.base_upcast_axes *)
let base_upcast_axes t =
  List.rev
    (List.init (List.length (get_reduce_axes t)) (Printf.sprintf "r%d")
    @ List.init (List.length (get_upcast_axes t)) (Printf.sprintf "u%d"))

(* tinygrad: TensorCore.__str__ *)
let to_string t =
  let n, m, k = t.dims in
  String.concat "_"
    [ "WMMA"; string_of_int n; string_of_int m; string_of_int k; Dtype.name t.dtype_in; Dtype.name t.dtype_out ]

(* tinygrad: TensorCore.__post_init__ *)
let check t =
  let fail msg = invalid_arg ("TensorCore: " ^ msg) in
  let nl = List.length (get_local_axes t) and nu = List.length (get_upcast_axes t)
  and nr = List.length (get_reduce_axes t) in
  let n, m, _ = t.dims and e0, e1, e2 = t.elements_per_thread in
  if n * m <> pow2 (nl + nu) then
    fail (Printf.sprintf "N(%d) x M(%d) != local(%d) x upcast(%d)" n m (pow2 nl) (pow2 nu));
  if pow2 nl <> t.threads then fail (Printf.sprintf "%d threads construct the warp but found %d" t.threads (pow2 nl));
  if pow2 nu <> e2 then fail (Printf.sprintf "%d elements from C are processed per thread but found %d" e2 (pow2 nu));
  let count d = List.length (List.filter (fun o -> o.[1] = d) t.opts) in
  if n <> pow2 (count '0') then fail "opts wrong on dims[0]";
  if m <> pow2 (count '1') then fail "opts wrong on dims[1]";
  let (a0, b0, c0), (a1, b1, c1) = t.swizzle in
  let len = List.length in
  if not (len a0 = nl && len a1 = nl) then fail "local swizzle size is wrong";
  if not (len b0 = nu && len b1 = nu) then fail "upcast swizzle size is wrong";
  if not (len c0 = nr && len c1 = nr) then fail "reduce swizzle size is wrong";
  if not (List.for_all (fun r -> len r = nl + nu + nr) (remaps t)) then fail "remaps are the wrong size";
  let un = ref 0 and ln = ref 0 and zs0 = ref [] and zs1 = ref [] in
  List.iter (fun o ->
      let nm = Printf.sprintf "%c%d" o.[0] (if o.[0] = 'u' then !un else !ln) in
      if o.[1] = '0' then zs0 := nm :: !zs0;
      if o.[1] = '1' then zs1 := nm :: !zs1;
      if o.[0] = 'u' then incr un;
      if o.[0] = 'l' then incr ln) t.opts;
  let upcasted zs l = List.filter (fun x -> (not (List.mem x zs)) && x.[0] <> 'l') l in
  if pow2 (len (upcasted !zs0 (b0 @ c0))) <> e0 then fail "mismatch in elements_per_thread[0]";
  if pow2 (len (upcasted !zs1 (b1 @ c1))) <> e1 then fail "mismatch in elements_per_thread[1]"

let make ~dims ~threads ~elements_per_thread ~dtype_in ~dtype_out ~opts ~swizzle =
  let t = { dims; threads; elements_per_thread; dtype_in; dtype_out; opts; swizzle } in
  check t;
  t

(* ***** NVIDIA ***** *)

let cuda_tc_opts = [ "u0"; "l0"; "l0"; "l1"; "l1"; "l1"; "u1" ]

let cuda_81616 =
  List.map (fun (di, dout) ->
      make ~dims:(8, 16, 16) ~threads:32 ~elements_per_thread:(8, 4, 4) ~dtype_in:di ~dtype_out:dout ~opts:cuda_tc_opts
        ~swizzle:
          ( ([ "r1"; "r2"; "l2"; "l3"; "l4" ], [ "u1"; "r3" ], [ "l0"; "l1"; "u0"; "r0" ]),
            ([ "r1"; "r2"; "u0"; "l0"; "l1" ], [ "r0"; "r3" ], [ "l2"; "l3"; "l4"; "u1" ]) ))
    Dtype.[ (Float16, Float32); (Bfloat16, Float32); (Float16, Float16) ]

let cuda_81632_f8 =
  List.map (fun (di, dout) ->
      make ~dims:(8, 16, 32) ~threads:32 ~elements_per_thread:(16, 8, 4) ~dtype_in:di ~dtype_out:dout ~opts:cuda_tc_opts
        ~swizzle:
          ( ([ "r2"; "r3"; "l2"; "l3"; "l4" ], [ "u1"; "r4" ], [ "l0"; "l1"; "u0"; "r0"; "r1" ]),
            ([ "r2"; "r3"; "u0"; "l0"; "l1" ], [ "r1"; "r4" ], [ "l2"; "l3"; "l4"; "u1"; "r0" ]) ))
    Dtype.[ (Fp8e4m3, Float32); (Fp8e5m2, Float32) ]

let cuda_8168_f16 =
  List.map (fun (di, dout) ->
      make ~dims:(8, 16, 8) ~threads:32 ~elements_per_thread:(4, 2, 4) ~dtype_in:di ~dtype_out:dout ~opts:cuda_tc_opts
        ~swizzle:
          ( ([ "r1"; "r2"; "l2"; "l3"; "l4" ], [ "r0"; "u1" ], [ "l0"; "l1"; "u0" ]),
            ([ "r1"; "r2"; "u0"; "l0"; "l1" ], [ "u1"; "r0" ], [ "l2"; "l3"; "l4" ]) ))
    Dtype.[ (Float16, Float32); (Float16, Float16) ]

let cuda_8168_tf32 =
  [ make ~dims:(8, 16, 8) ~threads:32 ~elements_per_thread:(4, 2, 4) ~dtype_in:Dtype.Float32 ~dtype_out:Dtype.Float32
      ~opts:cuda_tc_opts
      ~swizzle:
        ( ([ "r0"; "r1"; "l2"; "l3"; "l4" ], [ "u1"; "r2" ], [ "l0"; "l1"; "u0" ]),
          ([ "r0"; "r1"; "u0"; "l0"; "l1" ], [ "u1"; "r2" ], [ "l2"; "l3"; "l4" ]) ) ]

let cuda_sm75 = cuda_8168_f16
let cuda_sm80 = cuda_81616 @ cuda_8168_f16 @ cuda_8168_tf32
let cuda_sm89 = cuda_sm80 @ cuda_81632_f8

(* tinygrad: get_cuda *)
let get_cuda arch =
  let ver = int_of_string (String.sub arch 3 (String.length arch - 3)) in
  if ver >= 89 then cuda_sm89 else if ver >= 80 then cuda_sm80 else if ver >= 75 then cuda_sm75 else []

(* ***** Apple Metal ***** *)

let metal =
  List.map (fun (di, dout) ->
      make ~dims:(8, 8, 8) ~threads:32 ~elements_per_thread:(2, 2, 2) ~dtype_in:di ~dtype_out:dout
        ~opts:[ "u0"; "l0"; "l1"; "l1"; "l0"; "l1" ]
        ~swizzle:
          ( ([ "r1"; "l1"; "l2"; "r2"; "l4" ], [ "r0" ], [ "u0"; "l0"; "l3" ]),
            ([ "l0"; "r0"; "r1"; "l3"; "r2" ], [ "u0" ], [ "l1"; "l2"; "l4" ]) ))
    Dtype.[ (Float32, Float32); (Float16, Float32); (Float16, Float16); (Bfloat16, Float32); (Bfloat16, Bfloat16) ]
