(* tinygrad: codegen/opt/heuristic.py — hand_coded_optimizations *)

open Uop
module K = Postrange

let opt ?axis ?(arg = Opt.No_arg) op : Opt.t = { Opt.op; axis; arg }

let int_of_sint = function Sint i -> i | Suop u -> K.sint_int (Suop u)

(* Python [prod] of ints *)
let iprod l = List.fold_left ( * ) 1 l

(* [k.rngs.index(r)] *)
let index_of_rng k (r : Uop.t) =
  let rec go i = function [] -> raise (Opt.Kernel_opt_error "ValueError: range not in rngs") | x :: t ->
    if x == r then i else go (i + 1) t in
  go 0 (K.rngs k)

(* [x in u.backward_slice] (the node itself is not in its backward slice) *)
let in_backward_slice x (u : Uop.t) = x != u && in_backward_slice_with_self x u

let full_shape_int k i = int_of_sint (List.nth (K.full_shape k) i)

(* The stages of tinygrad's heuristic.py hand_coded_optimizations, in its order; [hand_coded_optimizations] at
   the end chains them. A stage that ends the heuristic returns the kernel to keep. *)

(* first try the tensor cores: the kernel with them, if any applies *)
let tensor_core_opts (k : K.t) : K.t option =
  (* NOTE: unless TC_OPT is > 0, we only trigger tensor cores if there's only one reduce axis *)
  if Helpers.use_tc.value > 0
  && (List.length (K.axes_of k [ Group_reduce; Reduce ]) = 1 || Helpers.tc_opt.value >= 1) then
    List.find_map (fun axis ->
        let tk = K.copy k in
        (* check TC first and apply hand-coded opts if successful *)
        match K.apply_tc tk axis (Helpers.tc_select.value, Helpers.tc_opt.value, Helpers.use_tc.value) with
        | exception Opt.Kernel_opt_error _ -> None
        | rngs ->
          let rngs = Array.of_list rngs in
          List.iter (fun tc_dim ->
              (* attempt to upcast M and N *)
              match List.filter (fun sz ->
                divides rngs.(tc_dim).src.(0) (Z.of_int sz) <> None) [ 5; 4; 3; 2 ] with
              | sz :: _ ->
                (* set it to the replaced range *)
                (match K.apply_opt tk (opt Opt.UPCAST ~axis:(index_of_rng tk rngs.(tc_dim)) ~arg:(Opt.Int sz)) with
                 | Some (r, _) -> rngs.(tc_dim) <- r
                 | None -> ())
              | [] -> ()) [ 1; 0 ];
          (* attempt to local N *)
          (match List.filter (fun sz -> divides rngs.(0).src.(0) (Z.of_int sz) <> None) [ 4; 2 ] with
           | sz :: _ -> ignore (K.apply_opt tk (opt Opt.LOCAL ~axis:(index_of_rng tk rngs.(0)) ~arg:(Opt.Int sz)))
           | [] -> ());
          Some tk) [ 0; 1; 2 ]
  else None

(* should use matvec - TODO: adjust/tune based on the wide vs tall/large vs small mat; true when applied (the
   heuristic then ends) *)
let matvec_opts (k : K.t) : bool =
  let mv_blocksize = Helpers.mv_blocksize.value and mv_threads_per_row = Helpers.mv_threads_per_row.value
  and mv_rows_per_thread = Helpers.mv_rows_per_thread.value in
  match K.reduceop k with
  | Some red when k.ren.has_local && Helpers.mv.value <> 0
                  && (mv_blocksize > 1 || mv_threads_per_row > 1 || mv_rows_per_thread > 1)
                  && (match red.arg with Reduce_arg (Ops.Add, _) -> true | _ -> false)
                  && List.length (K.full_shape k) >= 2 && k.ren.has_shared
                  && (let mulop = red.src.(0) in
                      mulop.op == Ops.Mul && mulop.src.(0).op == Ops.Index
                        && mulop.src.(1).op == Ops.Index) ->
    let mulop = red.src.(0) in
    let idx0 = get_idx mulop.src.(0).src.(1) and idx1 = get_idx mulop.src.(1).src.(1) in
    (match K.ranges_of k [ Reduce ] with
     | first_reduce_rng :: _
       when List.exists (fun u -> u == first_reduce_rng) (split_uop idx0 Ops.Add)
         && List.for_all (fun r -> List.memq r (ranges idx1)) (ranges idx0) ->
       (match List.find_opt (fun global_idx ->
            divides first_reduce_rng.src.(0) (Z.of_int mv_threads_per_row) <> None
            && (match List.nth (K.full_shape k) global_idx with
                | Sint s -> s mod (mv_blocksize * mv_rows_per_thread) = 0 | Suop _ ->
                  false)) (K.axes_of k [ Global ]) with
        | Some global_idx ->
          (try if mv_threads_per_row > 1 then
               ignore (K.apply_opt k (opt Opt.GROUP ~axis:0 ~arg:(Opt.Int mv_threads_per_row)))
           with Opt.Kernel_opt_error _ -> ());
          if mv_blocksize > 1 then ignore (K.apply_opt k (opt Opt.LOCAL ~axis:global_idx ~arg:(Opt.Int mv_blocksize)));
          if mv_rows_per_thread > 1 then
            ignore (K.apply_opt k (opt Opt.UPCAST ~axis:global_idx ~arg:(Opt.Int mv_rows_per_thread)));
          true
        | None -> false)
     | _ -> false)
  | _ -> false

let upcastable_output_prod k =
  let os = Array.of_list (K.output_shape k) in
  iprod (List.map (fun i -> int_of_sint os.(i)) (K.upcastable_dims k))

(* are we grouping? (requires local shape support) *)
let grouping_opts (k : K.t) =
  if upcastable_output_prod k <= (if Helpers.nolocals.value <> 0 then 240 else 2048) then
    ignore (List.find_opt (fun axis ->
        List.exists (fun sz ->
            try ignore (K.apply_opt k (opt Opt.GROUPTOP ~axis ~arg:(Opt.Int sz))); true
            with Opt.Kernel_opt_error _ -> false) [ 16 ]) [ 0; 1; 2 ])

(* if there are small dims with lots of valid masks, upcast them (they might be from Tensor.stack) *)
let masked_upcasts (k : K.t) =
  let to_upcast = ref [] in
  let where_gate_rngs =
    List.concat_map (fun (u : Uop.t) ->
      if u.op == Ops.Where then ranges u.src.(0) else []) (backward_slice k.ast) in
  (* upcast leading axes first (hack-ish for winograd; we actually want to upcast masked axes with low stride
     first) *)
  List.iter (fun axis ->
      (* for Schedule, we check if the range is used in INDEX gates or WHERE gates *)
      let is_masked = List.memq (List.nth (K.rngs k) axis) where_gate_rngs in
      let fs = full_shape_int k axis in
      if fs <= 7 && is_masked && iprod (List.map (full_shape_int k) !to_upcast) * fs <= 7 * 7 then
        (* the IMAGE occupancy check is not needed: IMAGE is not supported *)
        to_upcast := !to_upcast @ [ axis ]) (K.upcastable_dims k);
  List.iter (fun axis -> ignore (K.apply_opt k (opt Opt.UPCAST ~axis ~arg:(Opt.Int 0)))) (List.rev !to_upcast)

(* potentially do more upcasts of non reduce axes based on a heuristic *)
let output_upcasts (k : K.t) =
  let is_dsp = k.ren.device = "DSP" in
  let upcasted_axis = ref [] in
  let continue = ref true in
  while !continue && upcastable_output_prod k >= 1024 && K.upcast_size k < 32 do
    let xb_choices = ref [] in
    (* consider all upcastable axes with 3 or 4 upcast (128 on the DSP) *)
    let amounts = if is_dsp then (if !upcasted_axis = [] then [ 128 ] else []) else [ 3; 4 ] in
    List.iter (fun axis ->
        List.iter (fun upcast_amount ->
            (* if we haven't upcasted it, it mods, and buffer has stride 0 on axis while having no stride 0 in
               the upcasted axis already *)
            if List.mem axis !upcasted_axis || full_shape_int k axis mod upcast_amount <> 0 then ()
            else begin
              let rng = List.nth (K.rngs k) axis in
              let up_rngs = K.ranges_of k [ Upcast; Unroll ] in
              let bufs = K.bufs k in
              if List.exists (fun (b : Uop.t) ->
                  let idx = get_idx b.src.(1) in
                  (not (in_backward_slice rng idx))
                    && List.for_all (fun r2 -> in_backward_slice r2 idx) up_rngs) bufs
              then begin
                let num_strides = ref 0 and sum_strides = ref 0 in
                List.iter (fun (b : Uop.t) ->
                    let idx = get_idx b.src.(1) in
                    if in_backward_slice rng idx then incr num_strides;
                    List.iter (fun (c : Uop.t) ->
                        if c == rng then incr sum_strides;
                        if c.op == Ops.Mul && c.src.(0) == rng && c.src.(1).op == Ops.Const then
                          sum_strides := !sum_strides + Z.to_int (zi (const_val c.src.(1)));
                        if c.op == Ops.Mul && c.src.(1) == rng && c.src.(0).op == Ops.Const then
                          sum_strides := !sum_strides + Z.to_int (zi (const_val c.src.(0))))
                      (split_uop idx Ops.Add)) bufs;
                xb_choices := (!num_strides, !sum_strides, axis, upcast_amount) :: !xb_choices
              end
            end) amounts) (K.upcastable_dims k);
    match List.sort compare !xb_choices with
    | (_, _, axis, amt) :: _ ->
      ignore (K.apply_opt k (opt Opt.UPCAST ~axis ~arg:(Opt.Int amt)));
      upcasted_axis := axis :: !upcasted_axis
    | [] -> continue := false
  done

(* if last reduce dim is small(ish), loop unroll the reduce *)
(* NOTE: this can fail on multireduce with mismatching dimensions, this is okay *)
let reduce_unrolls (k : K.t) =
  try
    let ud = K.unrollable_dims k in
    if ud <> [] && (K.upcast_size k <= 4 || K.axes_of k [ Unroll ] = []) && K.upcast_size k < 64 then begin
      let s = full_shape_int k (Helpers.last ud) in
      if s <= 32 then begin
        ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int 0)));
        (* if it's small, upcast a second reduce dimension too *)
        let ud = K.unrollable_dims k in
        if ud <> [] && s <= 3 && full_shape_int k (Helpers.last ud) <= 3 then
          ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int 0)))
      end else
        (match List.find_opt (fun splits -> full_shape_int k (Helpers.last ud) mod splits = 0) [ 4 ] with
         | Some splits -> ignore (K.apply_opt k (opt Opt.UNROLL ~axis:(List.length ud - 1) ~arg:(Opt.Int splits)))
         | None -> ())
    end
  with Opt.Kernel_opt_error _ -> ()

(* if nothing at all is upcasted and it's easy to, do an upcast ([widths]: tinygrad's [4] unless given) *)
let default_upcast ?(widths = [ 4 ]) (k : K.t) =
  List.iter (fun splits ->
      let ud = K.upcastable_dims k in
      if K.upcasted k = 0 && ud <> [] then begin
        let last = Helpers.last ud in
        if full_shape_int k last mod splits = 0 then
          ignore (K.apply_opt k (opt Opt.UPCAST ~axis:last ~arg:(Opt.Int splits)))
      end) widths
(* **** local groups **** *)
let local_groups (k : K.t) =
  if k.ren.has_local then begin
    if Helpers.nolocals.value <> 0 then ignore (K.apply_opt k (opt Opt.NOLOCALS))
    else begin
      (* prioritize making expand axes local *)
      let rngs = Array.of_list (K.rngs k) in
      let local_axis_ranking =
        List.filter_map (fun axis ->
            if rngs.(axis).src.(0).op == Ops.Const then
              Some (List.exists (fun (b : Uop.t) ->
                not (in_backward_slice rngs.(axis) (get_idx b.src.(1)))) (K.bufs k), axis)
            else None) (K.axes_of k [ Global; Weak ]) in
      let to_local = ref [] in
      let key (b, a) = ((if b then -1 else 0), -a) in
      List.iter (fun (_, axis) ->
          let local_size = iprod (List.map snd !to_local) in
          let fs = full_shape_int k axis in
          let cands = (if axis = 0 then [ 32 ] else []) @ [ 16; 8; 4; 3; 2 ] in
          match List.find_opt (fun x -> fs mod x = 0 && local_size * x <= 128) cands with
          | Some local_sz -> to_local := !to_local @ [ (axis, local_sz) ]
          | None -> ())
        (List.stable_sort (fun a b -> compare (key a) (key b)) local_axis_ranking);
      let deleted_shape = ref 0 in
      List.iter (fun (axis, local_sz) ->
          let axis = axis - !deleted_shape in
          let will_delete_shape = local_sz = full_shape_int k axis in
          ignore (K.apply_opt k (opt Opt.LOCAL ~axis ~arg:(Opt.Int local_sz)));
          if will_delete_shape then incr deleted_shape)
        (List.sort compare (List.filteri (fun i _ -> i < 3) !to_local))
    end
  end

(* **** threading **** *)

(* [ops_per_point]: how many ops a point of the shape counts for (tinygrad counts points: 1) *)
let thread_opts ?(ops_per_point = 1) (k : K.t) =
  match k.ren.global_max with
  | Some (gmax0 :: _) when k.ren.has_threads ->
    ignore (List.find_opt (fun threads ->
        (* Skip if too many threads. Heuristic: use about 128K ops per thread *)
        let too_few_ops = match sprod (K.full_shape k) with
          | Sint p -> p * ops_per_point / (128 lsl 10) < threads
          | Suop p -> resolve (lt (idiv p (const_int (128 lsl 10))) (const_int threads)) in
        if threads > gmax0 || too_few_ops then false
        else begin
          (match List.find_opt (fun axis -> match List.nth (K.full_shape k) axis with
               | Sint s -> s mod threads = 0 | Suop _ -> false) (K.axes_of k [ Weak ]) with
           | Some axis ->
             (try ignore (K.apply_opt k (opt Opt.THREAD ~axis ~arg:(Opt.Int threads)))
              with Opt.Kernel_opt_error _ -> ())
           | None -> ());
          match List.rev k.applied_opts with { Opt.op = Opt.THREAD; _ } :: _ -> true | _ -> false
        end) [ 32; 16; 12; 8; 6; 5; 4; 3; 2 ])
  | _ -> ()

(* the upcast and unroll stages of hand_coded_optimizations, in tinygrad's order *)
let upcasts (k : K.t) = masked_upcasts k; output_upcasts k; reduce_unrolls k; default_upcast k; k

(* tinygrad: heuristic.py hand_coded_optimizations, with its upcast/unroll stages and its threading stage
   given *)
let hand_coded_optimizations_with ~upcasts ~threads (k : K.t) : K.t =
  match tensor_core_opts k with
  | Some tk -> tk
  | None ->
    (* make a copy so it does not mutate the input *)
    let k = K.copy k in
    (* upcast float4 images, this must be early so we don't accidentally add locals before the upcast *)
    (* IMAGE (image_valid_dims) is not ported: it comes with the image dtypes of the QCOM/CL targets *)
    if Helpers.image.value <> 0 then failwith "hand_coded_optimizations: IMAGE is not supported";
    if matvec_opts k then k
    else begin
      grouping_opts k;
      (* no more opt if we are grouping *)
      if K.group_for_reduces k > 0 then k
      else begin
        (* **** below this line need to be optional and benchmarked **** *)
        let k = upcasts k in
        local_groups k;
        threads k;
        k
      end
    end

(* tinygrad: heuristic.py hand_coded_optimizations *)
let hand_coded_optimizations (k : K.t) : K.t =
  hand_coded_optimizations_with ~upcasts ~threads:(fun k -> thread_opts k) k
