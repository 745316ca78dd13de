(* tinygrad: codegen/gpudims.py — launch dimensions: GLOBAL/LOCAL ranges become SPECIALs (or the core_id variable) *)

open Uop
module P = Upat

(* tinygrad: codegen/gpudims.py _dim_max *)
let dim_max (d : sint) : int = match d with Sint i -> i | Suop u -> Z.to_int (zi (vmax u))

(* python [d > m] on a sint, resolved as a bool *)
let sint_gt (d : sint) (m : int) = match d with Sint i -> i > m | Suop u -> to_bool (gt u (const_int m))

(* tinygrad: codegen/gpudims.py _group_dims *)
let group_dims (dims : sint list) (max_sizes : int list) : sint list option =
  let dims = ref (Array.of_list dims) in
  let ms = Array.of_list max_sizes in
  let exceeds () =
    Array.length !dims > Array.length ms
    || (let r = ref false in Array.iteri (fun i d -> if i < Array.length ms && sint_gt d ms.(i) then r := true) !dims; !r) in
  let exception Fail in
  try
    while exceeds () do
      let d = !dims in
      let merged = ref false in
      Array.iteri (fun i m ->
          if (not !merged) && i < Array.length d - 1 && dim_max d.(i) * dim_max d.(i + 1) <= m then begin
            dims := Array.concat [ Array.sub d 0 i; [| sint_mul d.(i) d.(i + 1) |]; Array.sub d (i + 2) (Array.length d - i - 2) ];
            merged := true
          end) ms;
      if not !merged then raise Fail
    done;
    Some (Array.to_list !dims)
  with Fail -> None

(* tinygrad: codegen/gpudims.py _split_dims *)
let split_dims (dims : sint list) (max_sizes : int list) : sint list =
  let rec all2 f a b = match a, b with x :: a, y :: b -> f x y && all2 f a b | _ -> true in
  if all2 (fun d m -> not (sint_gt d m)) dims max_sizes then dims
  else begin
    let as_int = function Sint i -> i | Suop _ -> invalid_arg "split_dims: symbolic dims can't be split" in
    let d = Array.of_list (List.map as_int dims @ List.init (max 0 (3 - List.length dims)) (fun _ -> 1)) in
    let ms = Array.of_list max_sizes in
    let n = Array.length d in
    let fail () =
      failwith (Printf.sprintf "cannot limit dim dims=(%s), max_sizes=(%s)"
                  (String.concat ", " (List.map sint_to_string dims)) (String.concat ", " (List.map string_of_int max_sizes))) in
    for i = 0 to n - 1 do
      while d.(i) > ms.(i) do
        let lim = int_of_float (Float.ceil (Float.sqrt (float_of_int d.(i)))) in
        let rec first k = if k > lim then 1 else if d.(i) mod k = 0 then k else first (k + 1) in
        let div = first 2 in
        if div = 1 then fail ();
        let j = (i + 1) mod n in
        d.(i) <- d.(i) / div;
        d.(j) <- d.(j) * div
      done
    done;
    let l = Array.to_list (Array.map (fun x -> Sint x) d) in
    if d.(2) = 1 then [ List.nth l 0; List.nth l 1 ] else l
  end

let sprod_from l i = sprod (List.filteri (fun j _ -> j >= i) l)

(* tinygrad: codegen/gpudims.py get_grouped_dims *)
let rec get_grouped_dims ?(reverse = false) (prefix : string) (dims : sint list) (max_sizes : int list option) : Uop.t list =
  if reverse then List.rev (get_grouped_dims prefix (List.rev dims) max_sizes)
  else begin
    let limited =
      match max_sizes with
      | None -> dims
      | Some ms ->
        (* try to group first: (a, b, c, d) -> (ab, c, d) *)
        let limited = match group_dims dims ms with Some g when g <> [] -> g | _ -> dims in
        (* check if grouping failed *)
        if List.length limited > List.length ms then
          failwith (Printf.sprintf "cannot limit dim dims=(%s), max_sizes=(%s)"
                      (String.concat ", " (List.map sint_to_string dims)) (String.concat ", " (List.map string_of_int ms)));
        (* try to split up dims: (a,) -> (b, c) *)
        if equal_sints limited dims then split_dims dims ms else limited in
    let raw_idxs = List.mapi (fun i s -> special s (prefix ^ string_of_int i)) limited in
    (* python's sum() starts from the int 0 *)
    let flat =
      List.fold_left (fun acc (i, idx) -> add acc (mul idx (sint_to_uop (sprod_from limited (i + 1)))))
        (const_int 0) (List.mapi (fun i x -> (i, x)) raw_idxs) in
    List.mapi (fun i d ->
        let q = idiv flat (sint_to_uop (sprod_from dims (i + 1))) in
        if i = 0 then ssimplify q else ssimplify (mod_ q (sint_to_uop d))) dims
  end

(* tinygrad: UOp.addrspace *)
let rec addrspace (u : Uop.t) : Dtype.addrspace option =
  match u.op with
  | Ops.Param | Ops.Buffer -> (match u.arg with Param p -> p.addrspace | _ -> None)
  | Ops.Special | Ops.Range | Ops.Load -> Some Dtype.Alu
  | Ops.Index | Ops.Cast | Ops.After | Ops.Reduce | Ops.Store | Ops.Mstack | Ops.Mselect | Ops.End | Ops.Unshard ->
    addrspace u.src.(0)
  | op when Ops.Group.is_movement op -> addrspace u.src.(0)
  | op when op == Ops.Stack || op == Ops.Wmma || op == Ops.Group || Ops.Group.is_elementwise op ->
    let ad = List.filter_map addrspace (Array.to_list u.src) in
    (match ad with [] -> None | a :: rest -> if List.for_all (fun b -> b = a) rest then Some a else None)
  | _ -> None

let range_key (r : Uop.t) = match r.arg with Range (ids, _) -> ids | _ -> invalid_arg "not a RANGE"
let range_axis (r : Uop.t) = match r.arg with Range (_, at) -> at | _ -> invalid_arg "not a RANGE"

(* tinygrad: codegen/gpudims.py add_gpudims *)
let add_gpudims (ctx : Renderer.t) (s : Uop.t) : Uop.t option =
  match s.arg with
  | No_arg -> None
  | _ ->
    let s_topo = toposort s in
    if List.exists (fun (x : Uop.t) -> x.op == Ops.Special) s_topo then None
    else begin
      (* get ranges: a dict keyed by arg[0:-1], later ranges replace earlier ones *)
      let all_ranges = ref [] in
      List.iter (fun (x : Uop.t) ->
          if x.op == Ops.Range then begin
            let key = range_key x in
            if List.mem_assoc key !all_ranges then
              all_ranges := List.map (fun (k, v) -> if k = key then (k, x) else (k, v)) !all_ranges
            else all_ranges := !all_ranges @ [ (key, x) ]
          end) s_topo;
      let all_ranges = !all_ranges in
      (* extract global/local dims *)
      let dims_of ats =
        List.sort compare (List.filter_map (fun (k, x) -> if List.mem (range_axis x) ats then Some k else None) all_ranges) in
      let global_dims = dims_of [ Global; Thread ] and local_dims = dims_of [ Warp; Local; Group_reduce ] in
      if global_dims = [] && local_dims = [] then None
      else begin
        (* get global and local shape *)
        let shape_of dims = List.map (fun r -> sint_of_uop (ssimplify (List.assoc r all_ranges).src.(0))) dims in
        let global_shape = shape_of global_dims and local_shape = shape_of local_dims in
        (* get the idxs *)
        let ki = match s.arg with Kernel_info ki -> ki | _ -> invalid_arg "add_gpudims: SINK arg is not a KernelInfo" in
        let idxs =
          if ctx.has_threads then
            [ cast Dtype.Weakint
                (variable_int ~dtype:Dtype.Int32 ~param:true "core_id" 0 (dim_max (List.hd global_shape) - 1)) ]
          else if ki.dont_use_locals then begin
            assert (local_dims = []);  (* can't use locals if there's no local dims *)
            get_grouped_dims ~reverse:true "idx" global_shape ctx.global_max
          end else begin
            (* define indexes for GPU-like execution *)
            let local_idxs = get_grouped_dims "lidx" local_shape ctx.local_max in
            let hw_local = List.filter_map (fun (u : Uop.t) ->
                if u.op == Ops.Special then Some (dim_max (sint_of_uop u.src.(0))) else None) local_idxs in
            let global_max =
              match ctx.global_prod_max with
              | None -> ctx.global_max
              | Some gpm ->
                let gm = match ctx.global_max with Some g -> g | None -> gpm in
                let rec zip3 a b c = match a, b, c with x :: a, y :: b, z :: c -> (x, y, z) :: zip3 a b c | _ -> [] in
                Some (List.map (fun (g, p, l) -> min g (Helpers.floordiv p l)) (zip3 gm gpm (hw_local @ [ 1; 1; 1 ]))) in
            get_grouped_dims ~reverse:true "gidx" global_shape global_max @ local_idxs
          end in
        (* apply to multiple ranges *)
        let dims = Array.of_list (global_dims @ local_dims) and idxs = Array.of_list idxs in
        let subs = ref [] in
        List.iter (fun (r : Uop.t) ->
            (* look for local INDEXes that are not used in the GLOBAL store, then add them as an INVALID *)
            if r.op == Ops.Store && addrspace r.src.(0).src.(0) = Some Dtype.Global then begin
              let idx = r.src.(0) in
              let idx_ranges = ranges idx in
              let missing_locals = List.filter_map (fun rng ->
                  let x = List.assoc rng all_ranges in if List.memq x idx_ranges then None else Some x) local_dims in
              if missing_locals <> [] then begin
                assert (Array.length idx.src = 2);  (* index has 2 sources *)
                let eqs = List.map (fun x -> eq x (const_int 0)) missing_locals in
                let mask = uprod ~start:(List.hd eqs) (List.tl eqs) in
                subs := !subs @ [ (idx, replace idx ~src:[| idx.src.(0); valid idx.src.(1) mask |]) ]
              end
            end;
            if r.op == Ops.Range then begin
              let key = range_key r in
              let rec find i = if i >= Array.length dims then None else if dims.(i) = key then Some i else find (i + 1) in
              match find 0 with
              | None -> ()
              | Some ii ->
                (* python: r.arg[1] == AxisType.REDUCE; arg[1] is the axis type only for a one-id range *)
                let second_is_reduce = match r.arg with Range ([ _ ], Reduce) -> true | _ -> false in
                if not second_is_reduce then subs := !subs @ [ (r, idxs.(ii)) ]
            end) s_topo;
        Some (P.substitute s !subs)
      end
    end

(* tinygrad: codegen/gpudims.py pm_device_to_var *)
let pm_device_to_var : unit P.matcher =
  P.matcher
    [ (* the DEVICE axis is not a program axis, it's bound per device at launch. lower it to the _device_num variable
         (like SPECIAL for devices) *)
      P.rule (P.pat Ops.Range ~name:"r") (fun m ->
          let r = P.get m "r" in
          if range_axis r = Device then Some (variable ~dtype:r.dtype ~param:true "_device_num" (Dtype.I Z.zero) (vmax r))
          else None);
      (* ENDs that closed a DEVICE range no longer close it *)
      P.rule (P.pat Ops.End ~name:"e") (fun m ->
          let e = P.get m "e" in
          let rest = List.tl (Array.to_list e.src) in
          let is_dev (s : Uop.t) = s.op == Ops.Param && (match s.arg with Param { name = Some "_device_num"; _ } -> true | _ -> false) in
          if List.exists is_dev rest then
            Some (replace e ~src:(Array.of_list (e.src.(0) :: List.filter (fun (s : Uop.t) -> s.op != Ops.Param) rest)))
          else None) ]

(* tinygrad: codegen/gpudims.py pm_add_gpudims *)
let pm_add_gpudims : Renderer.t P.matcher =
  P.( @@@ )
    (P.matcher [ (* add gpudims must be last *) P.rule_ctx (P.pat Ops.Sink ~name:"s") (fun ctx m -> add_gpudims ctx (P.get m "s")) ])
    (P.lift pm_device_to_var)
