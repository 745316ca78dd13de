(* tinygrad: codegen/opt/postrange.py — the Scheduler (kernel axes after rangeify), apply_opt and apply_opts *)

open Uop
module P = Upat

exception Kernel_opt_error = Opt.Kernel_opt_error

let check = Opt.check

(* tinygrad: uop/ops.py axis_colors *)
let axis_colors = function
  | Device -> "green" | Global -> "blue" | Thread -> "BLUE" | Local -> "cyan" | Warp -> "CYAN" | Weak | Loop -> "WHITE"
  | Upcast -> "yellow" | Group_reduce -> "RED" | Reduce -> "red" | Unroll -> "magenta"
  | Placeholder -> invalid_arg "axis_colors: PLACEHOLDER"

let axis_of (r : Uop.t) = match r.arg with Range (_, at) -> at | _ -> invalid_arg "axis type: not a RANGE"
let range_ids (r : Uop.t) = match r.arg with Range (ids, _) -> ids | _ -> invalid_arg "range ids: not a RANGE"
let int_of_const c = Z.to_int (zi c)

(* tinygrad: Scheduler *)
type t = {
  mutable ast : Uop.t;
  ren : Renderer.t;
  mutable loop_opts : bool;  (* not in tinygrad: SWAP of two CPU loops and BLOCK apply (the CPU mode) *)
  mutable dont_use_locals : bool;
  mutable applied_opts : Opt.t list;
  mutable opt_range : int;  (** the next value of tinygrad's [count] of new range ids *)
  mutable tensor_core : Tc.t option;  (** the tensor core TC picked *)
}

let kernel_info (ast : Uop.t) = match ast.arg with Kernel_info ki -> Some ki | _ -> None

(* always in order by axistype. void RANGEs are loops, not opt axes. the DEVICE axis is launched, not an opt axis *)
(* tinygrad: Scheduler.rngs *)
let rngs k : Uop.t list =
  let l = List.filter (fun (u : Uop.t) ->
      u.op == Ops.Range && u.dtype != Dtype.Void && Dtype.compare_const (vmax u) (Dtype.I Z.zero) > 0
      && axis_of u <> Device) (backward_slice k.ast) in
  let key u = (axis_to_pos (axis_of u), range_ids u) in
  List.stable_sort (fun a b -> compare (key a) (key b)) l

(* tinygrad: Scheduler.__init__ *)
let create ?(loop_opts = false) (ast : Uop.t) (ren : Renderer.t) : t =
  let ki = kernel_info ast in
  let k = { ast; ren; loop_opts; dont_use_locals = (match ki with Some ki -> ki.dont_use_locals | None -> false);
            applied_opts = (match ki with Some ki -> ki.applied_opts | None -> []); opt_range = 0; tensor_core = None } in
  k.opt_range <- List.fold_left (fun m r -> max m (List.hd (range_ids r))) 0 (rngs k) + 1;
  k

let next_opt_range k = let r = k.opt_range in k.opt_range <- r + 1; r

(* tinygrad: Scheduler.shape_len *)
let shape_len k = List.length (rngs k)

(* tinygrad: Scheduler.full_shape *)
let full_shape k : sint list = List.map (fun (x : Uop.t) -> sint_of_uop (ssimplify x.src.(0))) (rngs k)

(* tinygrad: Scheduler.axis_types *)
let axis_types k = List.map axis_of (rngs k)

(* strings like ['g0', 'g1', 'l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'R0', 'r0', 'r1', 'r2', 'u0', 'u1', 'u2'] *)
(* tinygrad: Scheduler.shape_str *)
let shape_str k : string list =
  let cnt = Hashtbl.create 8 in
  List.map (fun x ->
      let c = match Hashtbl.find_opt cnt x with Some c -> c + 1 | None -> 0 in
      Hashtbl.replace cnt x c;
      axis_letter x ^ string_of_int c) (axis_types k)

(* tinygrad: Scheduler.shape_str_to_axis *)
let shape_str_to_axis k (nms : string list) : int list =
  let ss = shape_str k in
  List.map (fun n ->
      let rec find i = function [] -> raise Not_found | x :: t -> if x = n then i else find (i + 1) t in
      find 0 ss) nms

(* tinygrad: Scheduler.copy *)
let copy k =
  let ret = create ~loop_opts:k.loop_opts k.ast k.ren in
  ret.dont_use_locals <- k.dont_use_locals;
  ret.applied_opts <- k.applied_opts;
  ret.tensor_core <- k.tensor_core;
  ret

(* helpers for hand_coded_optimizations *)
(* tinygrad: Scheduler.reduceops *)
let reduceops k = List.filter (fun (x : Uop.t) -> x.op == Ops.Reduce) (backward_slice k.ast)

(* tinygrad: Scheduler.reduceop *)
let reduceop k = match reduceops k with [] -> None | r :: _ -> Some (Uop.create Ops.Reduce ~src:r.src ~arg:r.arg)

(* tinygrad: Scheduler.bufs *)
let bufs k = List.rev (List.filter (fun (x : Uop.t) -> x.op == Ops.Index) (toposort k.ast))

(* tinygrad: Scheduler._output_rngs *)
let output_rngs k : Uop.t list =
  List.concat_map (fun (s : Uop.t) ->
      if s.op == Ops.End then
        List.filter (fun r -> axis_of r <> Reduce) (ranges (sink (List.tl (Array.to_list s.src))))
      else []) (Array.to_list k.ast.src)

(* tinygrad: Scheduler._globalizable_rngs *)
let globalizable_rngs k : Uop.t list =
  let ret = List.filter (fun r -> axis_of r = Weak) (output_rngs k) in
  (* exclude any output ranges from global that don't appear in all BUFFERIZE *)
  List.fold_left (fun ret (x : Uop.t) ->
      if x.op == Ops.Stage then let xr = ranges x in List.filter (fun r -> List.memq r xr) ret else ret)
    ret (toposort k.ast)

(* tinygrad: Scheduler.convert_loop_to_global *)
let convert_loop_to_global k =
  if k.ren.has_local then begin
    let globalizible_rngs = globalizable_rngs k in
    let rs = rngs k in
    let pairs = List.map (fun (x : Uop.t) ->
        (x, if List.memq x globalizible_rngs then replace x ~arg:(Range (range_ids x, Global)) else x)) rs in
    k.ast <- P.substitute k.ast pairs
  end

(* tinygrad: Scheduler.colors *)
let colors k : string list =
  let output_rngs = output_rngs k and globalizible_rngs = globalizable_rngs k in
  List.map2 (fun x r ->
      if k.dont_use_locals && x = Global then "BLUE"
      else if (not (List.memq r output_rngs)) && x = Weak then "BLACK"
      else if (not (List.memq r globalizible_rngs)) && x = Weak then "white"
      else axis_colors x) (axis_types k) (rngs k)

(* python f"{s:>4s}" *)
let rjust4 s = let n = String.length s in if n >= 4 then s else String.make (4 - n) ' ' ^ s

(* tinygrad: Scheduler.colored_shape *)
let colored_shape k =
  String.concat " " (List.map2 (fun (x : Uop.t) color -> Helpers.colored (rjust4 (render x.src.(0))) (Some color)) (rngs k) (colors k))

(* tinygrad: Scheduler.get_optimized_ast *)
let get_optimized_ast ?name_override k : Uop.t =
  let name = match name_override with
    | Some n -> n
    | None ->
      let k_type = if reduceop k <> None then "r" else "E" in
      let special_uops = List.filter (fun (x : Uop.t) -> x.op == Ops.Special) (toposort k.ast) in
      let sname (x : Uop.t) = match x.arg with Str s -> s | _ -> "" in
      let special_uops = List.stable_sort (fun a b -> compare (sname a) (sname b)) special_uops in
      let special_ops = List.map (fun (x : Uop.t) ->
          Helpers.colored (Z.to_string (Z.succ (zi (vmax x)))) (Some (if (sname x).[0] = 'g' then "blue" else "cyan"))) special_uops in
      let rng_strs = List.map2 (fun (x : Uop.t) color -> Helpers.colored (render x.src.(0)) (Some color)) (rngs k) (colors k) in
      k_type ^ String.concat (Helpers.colored "_" (Some "BLACK")) ("" :: (special_ops @ rng_strs)) in
  k.ast <- P.graph_rewrite ~name:"flatten range" Simplify.pm_flatten_range () k.ast;
  replace k.ast
    ~arg:(Kernel_info { default_kernel_info with kname = name; applied_opts = k.applied_opts;
                                                 dont_use_locals = k.dont_use_locals })
    ~tag:(Int 1)

(* tinygrad: Scheduler.shift_to *)
let shift_to ?(top = false) ?input_new_rng k (rng : Uop.t) (amount : int) (new_type : axis_type) : Uop.t * Uop.t =
  let old_sz = match divides rng.src.(0) (Z.of_int amount) with
    | Some s -> s
    | None ->
      raise (Kernel_opt_error (Printf.sprintf "%d can't divide %s in %s" amount (render rng.src.(0)) (colored_shape k))) in
  let new_rng = match input_new_rng with
    | Some r -> r
    | None -> range ~dtype:rng.dtype ~axis_type:new_type (Sint amount) (next_opt_range k) in
  let replaced_rng = replace rng ~src:[| old_sz |] in
  let sub_axis = if top then add (mul new_rng old_sz) replaced_rng else add (mul replaced_rng (const_int amount)) new_rng in
  k.ast <- P.substitute k.ast [ (rng, sub_axis) ];
  (replaced_rng, new_rng)

(* tinygrad: Scheduler.ranges_of *)
let ranges_of k (ats : axis_type list) = List.filter (fun r -> List.mem (axis_of r) ats) (rngs k)

(* tinygrad: Scheduler.axes_of *)
let axes_of k (ats : axis_type list) =
  List.concat (List.mapi (fun i t -> if List.mem t ats then [ i ] else []) (axis_types k))

let sint_int = function Sint i -> i | Suop u -> int_of_const (vmax u)

(* tinygrad: Scheduler.upcast_size *)
let upcast_size k =
  let fs = Array.of_list (full_shape k) in
  List.fold_left (fun acc a -> acc * sint_int fs.(a)) 1 (axes_of k [ Upcast; Unroll ])

(* copied from kernel.py *)
(* tinygrad: Scheduler.upcastable_dims *)
let upcastable_dims k =
  let fs = Array.of_list (full_shape k) in
  List.filter (fun i -> match fs.(i) with Sint s -> s > 1 | Suop _ -> false) (axes_of k [ Global; Local; Weak ])

(* tinygrad: Scheduler.unrollable_dims *)
let unrollable_dims k =
  let fs = Array.of_list (full_shape k) in
  List.filter (fun i -> match fs.(i) with Sint s -> s > 1 | Suop _ -> false) (axes_of k [ Group_reduce; Reduce ])

(* tinygrad: Scheduler.output_shape *)
let output_shape k =
  List.map2 (fun s at -> if List.mem at [ Reduce; Unroll; Group_reduce ] then Sint 1 else s) (full_shape k) (axis_types k)

(* tinygrad: Scheduler.upcasted *)
let upcasted k = List.length (axes_of k [ Upcast; Unroll ])

(* tinygrad: Scheduler.group_for_reduces *)
let group_for_reduces k = List.length (axes_of k [ Group_reduce ])

(* tinygrad: Scheduler.real_axis *)
let real_axis k (op : Opt.opt_ops) (axis : int option) : int =
  let nth l i = match List.nth_opt l i with Some x when i >= 0 -> x | _ -> raise (Kernel_opt_error "IndexError") in
  match axis with
  | None -> -1
  | _ when op = Opt.TC -> -1
  | Some axis ->
    if op = Opt.UNROLL then nth (unrollable_dims k) axis
    else if op = Opt.GROUP || op = Opt.GROUPTOP then nth (axes_of k [ Reduce ]) axis
    else begin
      check (axis < shape_len k)
        (Printf.sprintf "invalid axis on axis=%d op=%s self.shape_len=%d" axis (Opt.opt_ops_to_string op) (shape_len k));
      axis
    end

let index_q x l =
  let rec go i = function [] -> raise Not_found | y :: t -> if y == x then i else go (i + 1) t in
  go 0 l

(* tinygrad: Scheduler._apply_tc_opt. [apply_opt] is passed in (it is defined below and applies the PADTO). *)
let apply_tc_opt ~apply_opt k ~use_tensor_cores ~axis ~tc_select ~opt_level : Uop.t list option =
  let reduceop = match reduceops k with r :: _ -> r | [] -> raise (Kernel_opt_error "no reduce ops for TensorCore") in
  if not (use_tensor_cores <> 0 && (match reduceop.arg with Reduce_arg (Ops.Add, _) -> true | _ -> false)) then None
  else begin
    let mul = if reduceop.src.(0).op != Ops.Cast then reduceop.src.(0) else reduceop.src.(0).src.(0) in
    if mul.op != Ops.Mul then None
    else begin
      let in0 = mul.src.(0) and in1 = mul.src.(1) in
      let tensor_cores =
        if tc_select = -1 then k.ren.tensor_cores
        else match List.nth_opt k.ren.tensor_cores tc_select with
          | Some tc when tc_select >= 0 -> [ tc ]
          | _ -> raise (Kernel_opt_error (Printf.sprintf "invalid tensor core choice %d" tc_select)) in
      let by_id_desc l = List.stable_sort (fun a b -> compare (List.hd (range_ids b)) (List.hd (range_ids a))) l in
      let rec try_tcs = function
        | [] -> None
        | (tc : Tc.t) :: rest ->
          if (k.ren.device = "CUDA" || k.ren.device = "NV") && tc.dtype_in == Dtype.Float32 && Helpers.allow_tf32.value = 0
          then try_tcs rest
          else if not (tc.dtype_in == in0.dtype && tc.dtype_in == in1.dtype && tc.dtype_out == reduceop.dtype) then try_tcs rest
          else begin
            (* tensor cores have three ranges. X, Y, and REDUCE *)
            let r0 = ranges in0 and r1 = ranges in1 in
            let in0_ranges = by_id_desc (List.filter (fun u -> not (List.memq u r1)) r0) in
            let in1_ranges = by_id_desc (List.filter (fun u -> not (List.memq u r0)) r1) in
            let red_ranges = by_id_desc (List.tl (Array.to_list reduceop.src)) in
            if Helpers.debug.value >= 3 then begin
              let f l = "[" ^ String.concat ", " (List.map (fun x ->
                  Printf.sprintf "(%d, %d)" (List.hd (range_ids x)) (int_of_const (vmax x) + 1)) l) ^ "]" in
              Printf.printf "TC(%d): %s %s %s\n" axis (f in0_ranges) (f in1_ranges) (f red_ranges)
            end;
            if in0_ranges = [] || in1_ranges = [] || red_ranges = [] then try_tcs rest
            else begin
              (* pick ranges *)
              (* NOTE: why are in1 and in0 switched? *)
              let axis_choices =
                List.concat_map (fun a -> List.concat_map (fun b -> List.map (fun c -> [ a; b; c ]) red_ranges) in0_ranges)
                  in1_ranges in
              match List.nth_opt axis_choices axis with
              | None -> try_tcs rest
              | Some choice ->
                let axes = Array.of_list choice in
                if axis_of axes.(0) = Reduce || axis_of axes.(1) = Reduce then
                  raise (Kernel_opt_error "tensor core X/Y axes can't be REDUCE");
                (* tag the reduceop *)
                k.ast <- P.substitute k.ast [ (reduceop, replace reduceop ~tag:(Str "TC")) ];
                (* do optimizations and save the ranges *)
                let dims = let n, m, kk = tc.dims in [| n; m; kk |] in
                let padded =
                  try
                    Array.iteri (fun i a ->
                        let idx = index_q a (rngs k) in
                        if (int_of_const (vmax a) + 1) mod dims.(i) <> 0 then begin
                          if opt_level < 2 then raise (Kernel_opt_error "tc padding requires opt_level >= 2");
                          (* apply_opt should return the updated range? *)
                          ignore (apply_opt ~append_opt:false k { Opt.op = Opt.PADTO; axis = Some idx; arg = Opt.Int dims.(i) });
                          axes.(i) <- List.nth (rngs k) idx
                        end) (Array.copy axes);
                    true
                  with Kernel_opt_error _ -> false in
                if not padded then try_tcs rest
                else begin
                  (* we create the warp as a whole thing, in case some of these ranges are moved/removed later *)
                  let warp = ref (range ~axis_type:Warp (Sint tc.threads) (-1)) in
                  let ne = ref [] in
                  List.iter (fun (opt : string) ->
                      let d = Char.code opt.[1] - Char.code '0' in
                      let replaced, new_range =
                        match opt.[0] with
                        | 'l' ->
                          let r = shift_to k axes.(d) 2 Local ~input_new_rng:(mod_ !warp (const_int 2)) in
                          warp := idiv !warp (const_int 2);
                          r
                        | 'u' -> shift_to k axes.(d) 2 Upcast
                        | c -> failwith (Printf.sprintf "unsupported opt %c in tensor cores" c) in
                      axes.(d) <- replaced;
                      ne := !ne @ [ new_range ]) tc.opts;
                  List.iter (fun (_, amt) ->
                      let replaced, new_range = shift_to k axes.(2) amt Unroll in
                      axes.(2) <- replaced;
                      ne := !ne @ [ new_range ]) (Tc.get_reduce_axes tc);
                  let ne = !ne in
                  if use_tensor_cores <> 2 then begin
                    (* fix the srcs *)
                    let reduceop =
                      match List.filter (fun (x : Uop.t) -> x.op == Ops.Reduce && equal_arg x.tag (Str "TC")) (toposort k.ast) with
                      | [ r ] -> r
                      | l -> invalid_arg (Printf.sprintf "get_single_element: %d TC reduces" (List.length l)) in
                    let tne = List.map (fun x -> replace x ~tag:(Int 1)) ne in
                    let ret = P.substitute reduceop (List.combine ne tne) in
                    let s0 = if ret.src.(0).op != Ops.Cast then ret.src.(0) else ret.src.(0).src.(0) in
                    let p0, p1 = Tc.permutes_for_shape_str tc (Tc.base_shape_str tc) in
                    let nea = Array.of_list ne in
                    let srcs = List.map2 (fun x p ->
                        P.substitute x (List.combine tne (List.map (fun i -> nea.(i)) (Helpers.argsort p))))
                        [ s0.src.(0); s0.src.(1) ] [ p0; p1 ] in
                    (* get reduce/upcast axes for the tensor cores *)
                    let tc_reduce_axes =
                      shape_str_to_axis k (List.init (List.length (Tc.get_reduce_axes tc)) (Printf.sprintf "r%d")) in
                    let base_upcast_axes = List.map (fun s -> (s, 2)) (shape_str_to_axis k (Tc.base_upcast_axes tc)) in
                    let e0, e1, e2 = tc.elements_per_thread in
                    let take = Helpers.take in
                    let tc_upcast_axes = List.map (fun e -> take (Tc.log2_int e) base_upcast_axes) [ e0; e1; e2 ] in
                    (* axes to range number (was done in lowerer) *)
                    let rs = Array.of_list (rngs k) in
                    let tc_upcast_axes =
                      List.map (List.map (fun (a, sz) -> (List.hd (range_ids rs.(a)), sz))) tc_upcast_axes in
                    let tc_reduce_axes = List.map (fun a -> List.hd (range_ids rs.(a))) tc_reduce_axes in
                    let with_missing_tc_axes arg =
                      let extra = List.concat (take 2 tc_upcast_axes) in
                      List.fold_left (fun ret (rn, _) -> if List.mem_assoc rn ret then ret else ret @ [ (rn, 1) ]) arg extra in
                    let tc_upcast_axes = List.map with_missing_tc_axes tc_upcast_axes in
                    (* construct the op *)
                    let a = List.nth srcs 0 and b = List.nth srcs 1 in
                    let acc = Uop.stack (List.init e2 (fun _ -> const ~dtype:tc.dtype_out (Dtype.F 0.0))) in
                    let tc_uop = Uop.create Ops.Wmma ~src:[| a; b; acc |]
                        ~arg:(Wmma_arg { wdims = tc.dims; wdtype_in = a.dtype; wdevice = k.ren.device; wthreads = tc.threads;
                                         wupcast_axes = tc_upcast_axes }) in
                    (* preserve extra reduces *)
                    let reduce_ranges = List.filter (fun (x : Uop.t) ->
                        x.op == Ops.Range && not (List.mem (List.hd (range_ids x)) tc_reduce_axes))
                        (toposort (sink (List.tl (Array.to_list reduceop.src)))) in
                    let tc_uop = if reduce_ranges <> [] then
                        Uop.create Ops.Reduce ~src:(Array.of_list (tc_uop :: reduce_ranges)) ~arg:(Reduce_arg (Ops.Add, 0))
                      else tc_uop in
                    k.ast <- P.substitute k.ast [ (reduceop, tc_uop) ]
                  end;
                  k.tensor_core <- Some tc;
                  Some (Array.to_list axes)
                end
            end
          end in
      try_tcs tensor_cores
    end
  end

let opt_to_at = function
  | Opt.LOCAL -> Some Local | Opt.UPCAST -> Some Upcast | Opt.UNROLL -> Some Unroll | Opt.GROUP -> Some Group_reduce
  | Opt.GROUPTOP -> Some Group_reduce | Opt.THREAD -> Some Thread | _ -> None

(* the TC branch of tinygrad's apply_opt: returns the ranges [_apply_tc_opt] picked *)
let tc_checks ~apply_opt k (opt : Opt.t) : Uop.t list =
  check (k.applied_opts = []) "tensor core opts must be first";
  check (opt.axis <> None) "tensor core opts must have an axis";
  match opt.arg with
  | Opt.Tc (tc_select, tc_opt, use_tensor_cores) ->
    check (-1 <= tc_select && tc_select < List.length k.ren.tensor_cores) "tensor core opts must have valid tc_select";
    check (0 <= tc_opt && tc_opt <= 2) "tensor core opts must have valid tc_opt";
    check (0 < use_tensor_cores && use_tensor_cores <= 2) "use_tensor_cores value is not valid";
    (match (try apply_tc_opt ~apply_opt k ~use_tensor_cores ~axis:(Option.get opt.axis) ~tc_select ~opt_level:tc_opt
            with Not_found -> raise (Kernel_opt_error "ValueError")) with
     | Some r -> r
     | None -> raise (Kernel_opt_error "no tensor core available"))
  | _ -> raise (Kernel_opt_error "tensor core opts must have valid arg")

(* tinygrad: ops.py remove_all_tags *)
let remove_all_tags : unit P.matcher =
  P.matcher [ P.rule (P.ops Ops.Group.all ~name:"x") (fun m ->
      let x = P.get m "x" in if x.tag <> No_arg then Some (replace x ~tag:No_arg) else None) ]

(* not in tinygrad: OVERLAP of an output loop of [size] points (the CPU mode's opt). The loop becomes
   [tiles] tiles of [lanes] upcast lanes, tile t starting at t * (size - lanes) / (tiles - 1): the first
   tile starts at 0, the last ends at the loop's end, and the points between tiles are computed and
   stored twice, with the same value. A row of 26 then runs as two vectors of 16 lanes, where the upcast
   of the whole row splits into vectors of 16, 8 and 2 lanes (each vector op costs one issue slot
   whatever its width) and padding it to 32 leaves its last lanes gated: clang drops them and splits the
   row again. Every point is in bounds, so no load or store is gated. Refused where an input is read at a
   stored point. Returns the tile loop and the lanes. *)
let overlap k (rng : Uop.t) (arg : Opt.opt_arg) : Uop.t * Uop.t =
  check k.loop_opts "OVERLAP is a CPU_OPT=fast opt of the CPU";
  check (List.memq rng (globalizable_rngs k) && rng.src.(0).op == Ops.Const)
    "overlap is for a const output loop";
  let lanes = match arg with Opt.Int a -> a | _ -> raise (Kernel_opt_error "OVERLAP arg must be an int") in
  let size = int_of_const (vmax rng) + 1 in
  let tiles = Helpers.ceildiv size lanes in
  check (lanes > 1 && lanes <= 16 && size > lanes && size mod lanes <> 0
         && (size - lanes) mod (tiles - 1) = 0)
    (Printf.sprintf "overlap of %d lanes does not tile %d in %s" lanes size (colored_shape k));
  (* an input read at a stored point may be the stored buffer itself (an assign's PARAMs are distinct slots
     bound to one buffer at run time): the second tile would read what the first wrote *)
  let targets = List.filter_map (fun (s : Uop.t) -> if s.op == Ops.Store then Some s.src.(0) else None)
      (toposort k.ast) in
  let stored = List.map (fun (t : Uop.t) -> get_idx t.src.(1)) targets in
  check (not (List.exists (fun (i : Uop.t) ->
      not (List.memq i targets) && List.memq (get_idx i.src.(1)) stored) (bufs k)))
    "overlap of a kernel that loads a point it stores";
  let tile = replace rng ~src:[| const_int tiles |] in
  let lane = range ~dtype:rng.dtype ~axis_type:Upcast (Sint lanes) (next_opt_range k) in
  k.ast <- P.substitute k.ast [ (rng, add (mul tile (const_int ((size - lanes) / (tiles - 1)))) lane) ];
  (tile, lane)

(* tinygrad: Scheduler.apply_opt. Returns the (replaced, new) ranges of a shift. *)
let rec apply_opt ?(append_opt = true) k (opt : Opt.t) : (Uop.t * Uop.t) option =
  if opt.op = Opt.NOLOCALS then begin
    check (List.for_all (fun x -> not (List.mem x [ Warp; Local; Group_reduce ])) (axis_types k)) "no locals can't have locals";
    if append_opt then k.applied_opts <- k.applied_opts @ [ opt ];
    k.dont_use_locals <- true;
    None
  end else begin
    if List.mem opt.op [ Opt.LOCAL; Opt.GROUP; Opt.GROUPTOP ] then check k.ren.has_local "locals needed for opt";
    let ra = real_axis k opt.op opt.axis in
    let rng = if ra >= 0 then List.nth (rngs k) ra else Uop.create Ops.Noop in
    let ret =
      match opt_to_at opt.op with
      | Some new_type ->
        let amt = match opt.arg with
          | Opt.Int 0 -> int_of_const (vmax rng) + 1
          | Opt.Int a -> a
          | _ -> raise (Kernel_opt_error "opt arg must be an int") in
        (* copied from kernel.py. prevents METAL compiler hangs *)
        (match reduceop k with
         | Some red when List.mem opt.op [ Opt.GROUP; Opt.GROUPTOP ]
                         || (group_for_reduces k > 0 && not (List.mem opt.op [ Opt.NOLOCALS; Opt.PADTO ])) ->
           let fs = Array.of_list (full_shape k) in
           let upcast_local_sz =
             List.fold_left (fun acc a -> acc * sint_int fs.(a)) 1 (axes_of k [ Upcast; Warp; Local; Group_reduce ]) in
           let smem_sz = amt * upcast_local_sz * Dtype.itemsize red.dtype in
           check (smem_sz <= k.ren.shared_max)
             (Printf.sprintf "exceeds maximum shared memory size: needs %d, max %d" smem_sz k.ren.shared_max)
         | _ -> ());
        if reduceop k <> None && List.mem opt.op [ Opt.GROUP; Opt.GROUPTOP ] then begin
          (* We currently dont support a group within another rudece, TODO: fix if-contexts *)
          let reduce = List.find (fun (u : Uop.t) ->
              u.op == Ops.Reduce && List.exists (fun (r : Uop.t) -> List.memq rng (ranges r)) (List.tl (Array.to_list u.src)))
              (backward_slice k.ast) in
          check (not (List.exists (fun u -> List.mem (axis_of u) [ Reduce; Unroll; Group_reduce ]) (ranges reduce)))
            "cannot have a GROUP_REDUCE inside another reduce"
        end;
        if opt.op = Opt.UNROLL then begin
          check (amt <= 32) "don't unroll more than 32";
          check (List.mem (axis_of rng) [ Group_reduce; Reduce ]) "unroll is for GROUP_REDUCE/REDUCE"
        end;
        if opt.op = Opt.UPCAST then begin
          check (k.ren.device = "DSP" || amt <= 16) "don't upcast more than 16";
          check (List.mem (axis_of rng) [ Global; Local; Weak ])
            ("upcast is for GLOBAL/LOCAL/LOOP, not " ^ axis_type_to_string (axis_of rng))
        end;
        if opt.op = Opt.LOCAL then begin
          check (not k.dont_use_locals) "can't use locals";
          check (List.mem (axis_of rng) [ Global; Weak ]) "local is for globals"
        end;
        if opt.op = Opt.THREAD then begin
          check k.ren.has_threads "target does not support threads";
          check (match k.ren.global_max with Some (g :: _) -> amt <= g | _ -> false) "too many threads";
          check (List.for_all (fun x -> x <> Thread) (axis_types k)) "already threaded";
          check (List.memq rng (globalizable_rngs k)) "can't apply range to this dim"
        end;
        if List.mem opt.op [ Opt.GROUP; Opt.GROUPTOP ] then begin
          check (List.for_all (fun (x : Opt.t) -> x.op <> Opt.TC) k.applied_opts) "no grouping with tensor cores";
          check (not k.dont_use_locals) "can't use locals";
          check (axis_of rng = Reduce) "group is for reduce"
        end;
        Some (shift_to k rng amt new_type ~top:(List.mem opt.op [ Opt.GROUPTOP; Opt.THREAD ]))
      | None ->
        (match opt.op with
         | Opt.TC -> ignore (tc_checks ~apply_opt:(fun ~append_opt k o -> apply_opt ~append_opt k o) k opt); None
         | Opt.PADTO ->
           check (rng.src.(0).op == Ops.Const) "only pad const axes";
           check (not (List.mem (axis_of rng) [ Upcast; Unroll ])) "cannot pad upcasted";
           check (axis_of rng <> Thread) "cannot pad thread";
           let a = match opt.arg with Opt.Int a -> a | _ -> raise (Kernel_opt_error "PADTO arg must be an int") in
           let sz = int_of_const (vmax rng) + 1 in
           let new_sz = Helpers.round_up sz a in
           check (sz > new_sz / 4) "pad adds more than quadruple the work";
           let ids = range_ids rng in
           let replaced_rng = range ~dtype:rng.dtype ~axis_type:(axis_of rng) ~extra:(List.tl ids) (Sint new_sz) (List.hd ids) in
           let valid_c = lt replaced_rng (const_int sz) in
           let store_targets = List.filter_map (fun (s : Uop.t) -> if s.op == Ops.Store then Some s.src.(0) else None)
               (toposort k.ast) in
           let replaces = ref [ (rng, replaced_rng) ] in
           List.iter (fun (b : Uop.t) ->
               let i = get_idx b.src.(1) in
               if in_backward_slice_with_self rng i then begin
                 let nb = replace b ~src:[| b.src.(0); valid i (and_ valid_c (get_valid b.src.(1))) |] in
                 replaces := !replaces @ [ (b, if List.memq b store_targets then nb
                                              else where valid_c nb (const ~dtype:b.dtype Dtype.Invalid)) ]
               end) (bufs k);
           k.ast <- P.substitute k.ast !replaces;
           None
         | Opt.SWAP ->
           let altrng = match opt.arg with
             | Opt.Int a -> (match List.nth_opt (rngs k) a with Some r when a >= 0 -> r | _ -> raise (Kernel_opt_error "IndexError"))
             | _ -> raise (Kernel_opt_error "IndexError") in
           (* not in tinygrad: with [k.loop_opts] (the CPU mode), two CPU loops (Weak axes) swap too: the loops nest in
              the order of their axis ids (Linearizer.do_split_ends), so the swap reorders them
              (the CPU mode's tile of a convolution's weight gradient puts the batch split outermost) *)
           check ((axis_of rng = Global && axis_of altrng = Global)
                  || (k.loop_opts && axis_of rng = Weak && axis_of altrng = Weak))
             "swap only for globals";
           k.ast <- P.substitute k.ast
               [ (rng, replace rng ~arg:(Range (range_ids altrng, axis_of rng)) ~tag:(Int 1));
                 (altrng, replace altrng ~arg:(Range (range_ids rng, axis_of altrng)) ~tag:(Int 1)) ];
           k.ast <- P.graph_rewrite ~name:"swap remove tags" remove_all_tags () k.ast;
           None
         | Opt.BLOCK ->
           (* not in tinygrad: a cache block. The output loop is split into a block of [arg] iterations and an
              outer loop over the blocks, which runs above every other loop of the kernel (its range id is below
              all others: ENDs nest by id, Linearizer.do_split_ends); the operand that does not depend on the loop
              is then walked once per block instead of once per point of the other output loops: a matmul whose B
              does not stay in the cache next to A and C, blocked by a few register tiles of its columns, keeps B's
              panel (the reduce times the block) in L2 while the rows of A go by. A loop order, not an
              upcast: every point keeps its value, so the opt is checked like THREAD (an output loop that every
              STAGE of the kernel shares). The CPU of CPU_OPT=fast only. *)
           check k.loop_opts "BLOCK is a CPU_OPT=fast opt of the CPU";
           check (List.memq rng (globalizable_rngs k) && rng.src.(0).op == Ops.Const)
             "block is for a const output loop";
           let inner = match opt.arg with Opt.Int a -> a | _ -> raise (Kernel_opt_error "BLOCK arg must be an int") in
           let size = int_of_const (vmax rng) + 1 in
           check (inner > 1 && size > inner && size mod inner = 0)
             (Printf.sprintf "block %d does not split %d in %s" inner size (colored_shape k));
           let id = List.fold_left (fun m r -> min m (List.hd (range_ids r))) 0 (rngs k) - 1 in
           let outer = range ~dtype:rng.dtype ~axis_type:Loop (Sint (size / inner)) id in
           Some (shift_to k rng (size / inner) Loop ~top:true ~input_new_rng:outer)
         | Opt.OVERLAP -> Some (overlap k rng opt.arg)
         | op -> raise (Kernel_opt_error ("unsupported opt " ^ Opt.opt_ops_to_string op))) in
    if append_opt then k.applied_opts <- k.applied_opts @ [ opt ];
    ret
  end

(* [apply_opt] of a TC opt, returning the tensor-core ranges (tinygrad's apply_opt returns them for TC) *)
let apply_tc ?(append_opt = true) k axis (tc_select, tc_opt, use_tc) : Uop.t list =
  let opt = { Opt.op = Opt.TC; axis = Some axis; arg = Opt.Tc (tc_select, tc_opt, use_tc) } in
  let r = tc_checks ~apply_opt:(fun ~append_opt k o -> apply_opt ~append_opt k o) k opt in
  if append_opt then k.applied_opts <- k.applied_opts @ [ opt ];
  r

(* [heuristic] (hand_coded_optimizations) as apply_opts applies it (a copy of [k]). NOTE: hand_coded_optimizations
   doesn't support multiblock opts yet: a kernel with a STAGE gets none, or [multiblock]'s (not in
   tinygrad) *)
let hand_coded ~heuristic ?multiblock k =
  if List.exists (fun (u : Uop.t) -> u.op == Ops.Stage) (backward_slice k.ast) then
    match multiblock with Some f -> f k | None -> copy k
  else heuristic k

(* tinygrad imports search.py inside apply_opts, as search.py imports the codegen that calls apply_opts: the same
   cycle (Codegen -> Postrange -> Search -> Codegen) is broken here by a hook that Search sets when the library is
   linked (it is linked whole), so the default never runs. The heuristic is passed to apply_opts instead. *)
let beam_search_hook : (t -> int -> t) ref = ref (fun _ _ -> failwith "apply_opts: Search is not linked")

(* tinygrad: codegen/opt/postrange.py apply_opts *)
let apply_opts ?(loop_opts = false) ?multiblock (ast : Uop.t) (ren : Renderer.t) ~(beam : int)
    ~hand_coded:heuristic : Uop.t =
  if ast.tag <> No_arg then ast
  else begin
    let k = create ~loop_opts ast ren in
    convert_loop_to_global k;
    let ki = kernel_info ast in
    let k =
      match ki with
      | Some { opts_to_apply = Some opts; _ } -> List.iter (fun o -> ignore (apply_opt k o)) opts; k
      | _ when beam >= 1 -> !beam_search_hook k beam
      | _ when Helpers.noopt.value = 0 && (match ki with None -> true | Some ki -> ki.applied_opts = []) ->
        hand_coded ~heuristic ?multiblock k
      | _ -> k in
    let name_override = match ki with Some ki when ki.kname <> "test" -> Some ki.kname | _ -> None in
    get_optimized_ast ?name_override k
  end
