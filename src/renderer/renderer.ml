(* tinygrad: renderer/__init__.py (Renderer, Estimates) *)

(* tinygrad: class Renderer. A record of the language options; [render] is the method. *)
type t = {
  device : string;
  suffix : string;
  supports_float4 : bool;
  has_local : bool;
  has_threads : bool;
  has_shared : bool;
  global_max : int list option;
  local_max : int list option;
  global_prod_max : int list option;
  shared_max : int;
  tensor_cores : Tc.t list;
  code_for_op : Ops.t list;
  extra_matcher : t Upat.matcher option;
  supported_dtypes : Dtype.t list;
  vector_width : int;
  render : t -> Uop.t list -> string;
}

(* tinygrad: Renderer.render of the base class *)
let no_render _ _ = failwith "needs a renderer"

(* tinygrad: Renderer.supported_dtypes of the base class: every dtype but double when long is emulated *)
let base_supported_dtypes ?(emulated = []) () =
  List.filter (fun d -> not (d == Dtype.Float64 && List.memq Dtype.Int64 emulated)) Dtype.all

(* tinygrad: the class attribute defaults of Renderer *)
let default = {
  device = "";
  suffix = "";
  supports_float4 = true;
  has_local = true;
  has_threads = false;
  has_shared = true;
  global_max = Some [ 0x8FFFFFFF; 0x8FFFFFFF; 0x8FFFFFFF ];
  local_max = Some [ 0x8FFFFFFF; 0x8FFFFFFF; 0x8FFFFFFF ];
  global_prod_max = None;
  shared_max = 32768;
  tensor_cores = [];
  code_for_op = [];
  extra_matcher = None;
  supported_dtypes = base_supported_dtypes ();
  vector_width = 4;
  render = no_render;
}

let render r uops = r.render r uops
let supports r op = List.memq op r.code_for_op

(* not in tinygrad: the CPU kernels that may deviate from tinygrad's for speed *)
let cpu_fast_device device =
  device = "CPU" && Helpers.cpu_opt.value = Helpers.Cpu_fast && Helpers.noopt.value = 0
let cpu_fast r = cpu_fast_device r.device

(* not in tinygrad: float32 accesses of the CPU mode coalesce up to the width of the host's vector registers, where
   tinygrad stops at float4 *)
let float_lengths r =
  let w = if Helpers.cpu_vec.value > 0 then Helpers.cpu_vec.value else r.vector_width in
  List.filter (fun l -> l <= w) [ 16; 8; 4; 2 ]

module Estimates = struct
  type t = Uop.estimates = { ops : Uop.sint; lds : Uop.sint; mem : Uop.sint }

  let zero = { ops = Uop.Sint 0; lds = Uop.Sint 0; mem = Uop.Sint 0 }

  (* tinygrad: Estimates.__add__ *)
  let add a b = { ops = Uop.sint_add a.ops b.ops; lds = Uop.sint_add a.lds b.lds; mem = Uop.sint_add a.mem b.mem }

  let ssimplify_sint = function Uop.Sint i -> Uop.Sint i | Uop.Suop u -> Uop.sint_of_uop (Uop.ssimplify u)

  (* tinygrad: Estimates.simplify *)
  let simplify e = { ops = ssimplify_sint e.ops; lds = ssimplify_sint e.lds; mem = ssimplify_sint e.mem }

  (* tinygrad: helpers smin on sints *)
  let smin a b =
    match a, b with
    | Uop.Sint x, Uop.Sint y -> Uop.Sint (min x y)
    | _ -> Uop.sint_of_uop (Uop.ssimplify (Uop.minimum (Uop.sint_to_uop a) (Uop.sint_to_uop b)))

  let mul_int (s : Uop.sint) (i : int) = Uop.sint_mul s (Uop.Sint i)

  (* tinygrad: Estimates.from_uops *)
  let from_uops ?(ignore_indexing = false) (uops : Uop.t list) : t =
    let flops = ref (Uop.Sint 0) and lds = ref (Uop.Sint 0) in
    let mem : ((Uop.t * Ops.t) * Uop.sint) list ref = ref [] in  (* insertion ordered, like the dict *)
    let mults = ref (Uop.Sint 1) in
    let mult_stack = ref [] in
    let excluded = Uop.Tbl.create 16 in
    if ignore_indexing then
      List.iter (fun (u : Uop.t) ->
          if u.op == Ops.Index || u.op == Ops.Shrink then begin
            let s = Uop.sink (List.tl (Array.to_list u.src)) in
            List.iter (fun x -> Uop.Tbl.replace excluded x ()) (Uop.toposort ~gate:(fun (x : Uop.t) -> x.op != Ops.End) s)
          end) uops;
    List.iter (fun (u : Uop.t) ->
        if u.op == Ops.Load || u.op == Ops.Store then begin
          let buf = ref u in
          while Array.length !buf.src > 0 && !buf.op != Ops.Param do buf := !buf.src.(0) done;
          let buf = !buf in
          if buf.op == Ops.Param then begin
            (* u.src[0] is INDEX, cap at buffer size for re-reads (e.g. matmul) *)
            let key = (buf, u.op) in
            let prev = match List.find_opt (fun ((b, o), _) -> b == buf && o == u.op) !mem with Some (_, v) -> v | None -> Uop.Sint 0 in
            let accessed =
              Uop.sint_add prev (Uop.sint_mul (mul_int (Uop.Sint (Uop.max_numel u.src.(0))) (Dtype.itemsize u.src.(0).dtype)) !mults) in
            let v = smin accessed (Uop.Sint (Uop.max_numel buf * Dtype.itemsize buf.dtype)) in
            if List.exists (fun ((b, o), _) -> b == buf && o == u.op) !mem then
              mem := List.map (fun ((b, o), old) -> if b == buf && o == u.op then ((b, o), v) else ((b, o), old)) !mem
            else mem := !mem @ [ (key, v) ]
          end
        end;
        let open Ops in
        match u.op with
        | Range ->
          mult_stack := !mults :: !mult_stack;
          if u.dtype != Dtype.Void then begin  (* unbounded loop, unknown trip count *)
            (* not in tinygrad: an end computed from other ranges (a loop that runs only where its result is
               kept, Codegen.gate_reduce_loops) counts at its largest value *)
            let trips = if Uop.ranges u.src.(0) = [] then Uop.sint_of_uop (Uop.ssimplify u.src.(0))
              else Uop.Sint (Z.to_int (Uop.zi (Uop.vmax u.src.(0)))) in
            mults := Uop.sint_mul !mults trips;
            (* SPECIAL are already counted in mults *)
            match !mults with
            | Uop.Suop m ->
              let pairs = List.filter_map (fun (x : Uop.t) ->
                  if x.op == Special then Some (x, Uop.const_like_int x 0) else None) (Uop.toposort m) in
              if pairs <> [] then mults := Uop.sint_of_uop (Upat.substitute m pairs)
            | Uop.Sint _ -> ()
          end
        | End -> (match !mult_stack with m :: rest -> mults := m; mult_stack := rest | [] -> invalid_arg "from_uops: END without RANGE")
        | Special -> mults := Uop.sint_mul !mults (Uop.sint_of_uop (Uop.ssimplify u.src.(0)))
        | Param when (match u.arg with Uop.Param { addrspace = Some Dtype.Alu; name = Some "core_id"; _ } -> true | _ -> false) ->
          mults := mul_int !mults (Z.to_int (Uop.zi (Uop.vmax u)) + 1)
        | Load when Uop.addrspace u.src.(0) <> Some Dtype.Reg ->
          lds := Uop.sint_add !lds (Uop.sint_mul (Uop.Sint (Uop.max_numel u * Dtype.itemsize u.dtype)) !mults)
        | Store when Uop.addrspace u.src.(0) <> Some Dtype.Reg ->
          lds := Uop.sint_add !lds (Uop.sint_mul (Uop.Sint (Uop.max_numel u * Dtype.itemsize u.src.(1).dtype)) !mults)
        | op when Group.is_alu op && not (Uop.Tbl.mem excluded u) ->
          flops := Uop.sint_add !flops (mul_int (mul_int !mults (if op == Mulacc then 2 else 1)) (Uop.max_numel u))
        | Wmma when not (Uop.Tbl.mem excluded u) ->
          (match u.arg with
           | Uop.Wmma_arg w ->
             let n, m, k = w.wdims in
             flops := Uop.sint_add !flops (Uop.sint_mul (Uop.Sint (2 * n * m * k / w.wthreads)) !mults)
           | _ -> invalid_arg "Estimates.from_uops: WMMA arg")
        | _ -> ()) uops;
    let mem_total = List.fold_left (fun acc (_, v) -> Uop.sint_add acc v) (Uop.Sint 0) !mem in
    { ops = !flops; lds = !lds; mem = mem_total }
end
