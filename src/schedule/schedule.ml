(* tinygrad: schedule/__init__.py — the schedule linearizer (create_schedule), the schedule cache
   (lower_sink_to_linear, pm_schedule), resolving the LINEAR call (pm_resolve_linear_call), copy kernels
   (pm_copy_from_store) and create_linear_with_vars. *)

open Uop
module P = Upat

(* **** schedule linearizer *)

(* tinygrad: _unwrap_src — unwrap VIEW/CAST/etc to find the actual data source (kernel output, buffer, or multi-device op) *)
let rec unwrap_src (s : Uop.t) =
  if Array.length s.src > 0 && not (List.memq s.op [ Ops.After; Ops.Buffer; Ops.Param; Ops.Mselect; Ops.Mstack ])
  then unwrap_src s.src.(0) else s

(* tinygrad: _states — a buffer state is AFTER | BUFFER | PARAM. MSELECT/MSTACK join per-device states *)
let rec states (s : Uop.t) : Uop.t list =
  let s = unwrap_src s in
  if List.memq s.op [ Ops.Mselect; Ops.Mstack ] then List.concat_map states (Array.to_list s.src)
  else begin
    if not (List.memq s.op [ Ops.After; Ops.Buffer; Ops.Param ]) then
      failwith ("input to kernel must resolve to a buffer state, not " ^ Ops.to_string s.op);
    [ s ]
  end

let tl_list (a : Uop.t array) = List.tl (Array.to_list a)

(* tinygrad: _split_after *)
let split_after (after : Uop.t) : Uop.t list * Uop.t list =
  let kernels, remaining = List.partition (fun (s : Uop.t) -> s.op == Ops.Call || s.op == Ops.End) (tl_list after.src) in
  let deps, remaining = List.partition (fun (s : Uop.t) -> s.op == Ops.After) remaining in
  (match List.find_opt (fun (s : Uop.t) -> s.op <> Ops.Store) remaining with
   | Some s -> failwith ("AFTER source should be CALL, END, STORE, or AFTER, not " ^ Ops.to_string s.op)
   | None -> ());
  (kernels, deps)

(* tinygrad: gate_kernel_sink *)
let gate_kernel_sink (x : Uop.t) =
  match x.op, x.arg with
  | Ops.Linear, _ -> false
  | Ops.Sink, Kernel_info _ -> false
  | _ -> true

(* an insertion-ordered table (Python dict) *)
module Otbl = struct
  type 'a t = { tbl : 'a Tbl.t; mutable order : Uop.t list (* reversed *) }
  let create () = { tbl = Tbl.create 64; order = [] }
  let find_opt t k = Tbl.find_opt t.tbl k
  let setdefault t k v = match Tbl.find_opt t.tbl k with
    | Some x -> x
    | None -> Tbl.replace t.tbl k v; t.order <- k :: t.order; v
  let set t k v = if not (Tbl.mem t.tbl k) then t.order <- k :: t.order; Tbl.replace t.tbl k v
  let keys t = List.rev t.order
end

(* tinygrad: create_schedule — the kernel graph (SINK of AFTERs) to a LINEAR of kernel calls on buffers, ordered by
   read-after-write and write-after-read dependencies *)
let create_schedule (sched_sink : Uop.t) : Uop.t =
  (* build kernel dependency graph: edges from producer kernel to consumer kernels *)
  let children : Uop.t list Otbl.t = Otbl.create () in
  let in_degree : int Otbl.t = Otbl.create () in
  let add_child p c = Otbl.set children p (c :: Option.value (Otbl.find_opt children p) ~default:[]) in
  let incr_deg k = Otbl.set in_degree k (Option.value (Otbl.find_opt in_degree k) ~default:0 + 1) in
  (* buffer -> (AFTER, prior state, new kernels) *)
  let writes : (Uop.t * Uop.t * Uop.t list) list Otbl.t = Otbl.create () in
  (* (reader AFTER, reader kernel, buffer state read) *)
  let reads = ref [] in
  List.iter (fun (u : Uop.t) ->
      if u.op == Ops.After then begin
        let kernels, after_deps = split_after u in
        let prev_state = unwrap_src u.src.(0) in
        let prev_kernels = if prev_state.op == Ops.After then fst (split_after prev_state) else [] in
        let bu = Buffers.buf_uop u in
        Otbl.set writes bu (Option.value (Otbl.find_opt writes bu) ~default:[]
                            @ [ (u, prev_state, List.filter (fun k -> not (List.memq k prev_kernels)) kernels) ]);
        List.iter (fun (k : Uop.t) ->
            ignore (Otbl.setdefault in_degree k 0);
            if k.op == Ops.End && k.src.(0).op <> Ops.Call then
              failwith ("END src[0] should be KERNEL, not " ^ Ops.to_string k.src.(0).op);
            let kernel_deps = if k.op == Ops.End then tl_list k.src.(0).src else tl_list k.src in
            let read_states = List.concat_map states kernel_deps in
            reads := List.rev_append (List.map (fun st -> (u, k, st)) read_states) !reads;
            (* RAW deps: a kernel runs after the kernels that produced the states it reads or joins *)
            List.iter (fun (st : Uop.t) ->
                if st.op == Ops.After then
                  List.iter (fun t -> add_child t k; incr_deg k) (fst (split_after st)))
              (read_states @ List.concat_map states after_deps)) kernels
      end) (toposort ~gate:gate_kernel_sink sched_sink);
  (* children lists were built reversed *)
  List.iter (fun k -> Otbl.set children k (List.rev (Option.get (Otbl.find_opt children k)))) (Otbl.keys children);
  (* WAR deps: a kernel reading buffer state S must run before another write that supersedes S. an AFTER only
     supersedes its immediate prior state; join members already present in that prior state are ordering deps, not writes *)
  List.iter (fun (u, (k : Uop.t), (s : Uop.t)) ->
      List.iter (fun (a, prev_state, write_kernels) ->
          if not (a == u || prev_state != s) then
            List.iter (fun t ->
                if t != k && not (List.memq t (backward_slice k)) then begin
                  Otbl.set children k (Option.value (Otbl.find_opt children k) ~default:[] @ [ t ]);
                  incr_deg t
                end) write_kernels)
        (Option.value (Otbl.find_opt writes (Buffers.buf_uop s)) ~default:[]))
    (List.rev !reads);
  (* linearize schedule *)
  let queue = Queue.create () in
  List.iter (fun k -> if Otbl.find_opt in_degree k = Some 0 then Queue.push k queue) (Otbl.keys in_degree);
  let linearized = ref [] in
  while not (Queue.is_empty queue) do
    let rk = Queue.pop queue in
    if rk.op == Ops.Linear then linearized := List.rev_append (Array.to_list rk.src) !linearized
    else begin
      let k = if rk.op == Ops.End then rk.src.(0) else rk in
      if k.op <> Ops.Call then failwith ("unexpected op in queue: " ^ Ops.to_string k.op);
      let buf_uops = List.filter_map (fun s -> if Buffers.is_bound_var s then None else Some (Buffers.buf_uop (unwrap_src s)))
          (tl_list k.src) in
      linearized := Buffers.call k.src.(0) buf_uops :: !linearized
    end;
    List.iter (fun x ->
        let d = Option.get (Otbl.find_opt in_degree x) - 1 in
        Otbl.set in_degree x d;
        if d = 0 then Queue.push x queue) (Option.value (Otbl.find_opt children rk) ~default:[])
  done;
  if List.exists (fun k -> Otbl.find_opt in_degree k <> Some 0) (Otbl.keys in_degree) then
    failwith "cycle detected in assign graph";
  create Ops.Linear ~src:(Array.of_list (List.rev !linearized))

(* tinygrad: create_new_buffer *)
let create_new_buffer (ctx : Uop.t Tbl.t * Uop.t array) (b : Uop.t) =
  match Tbl.find_opt (fst ctx) b with
  | Some r -> r
  | None ->
    let d = match Buffers.mdevice b with Some d -> d | None -> failwith "create_new_buffer: no device" in
    let r = Buffers.new_mbuffer d (max_numel b) b.dtype in
    Tbl.replace (fst ctx) b r;
    r

(* tinygrad: pm_post_sched_cache *)
let pm_post_sched_cache : (Uop.t Tbl.t * Uop.t array) P.matcher =
  P.matcher
    [ (* only resolve buffer PARAMs (slot>=0); ALU/shape vars use slot=-1 and must not be swapped for call args *)
      P.rule_ctx (P.pat Ops.Param ~name:"x") (fun ctx m ->
          let x = P.get m "x" in
          let slot = (param_arg x).slot in
          if slot >= 0 then Some (snd ctx).(slot) else None);
      (* create new BUFFERs *)
      P.rule_ctx (P.pat Ops.Buffer ~name:"b" ~src:(P.In_order [ P.wild ])) (fun ctx m ->
          let b = P.get m "b" in
          match b.arg with Param _ when addrspace b = Some Dtype.Global -> Some (create_new_buffer ctx b) | _ -> None) ]

(* tinygrad: resolve_linear_call *)
let rec resolve_linear_call ?(outer_binds = []) (linear_call : Uop.t) : Uop.t =
  let args = Array.sub linear_call.src 1 (Array.length linear_call.src - 1) in
  let linear = P.graph_rewrite ~walk:true ~name:"params to buffers" pm_post_sched_cache (Tbl.create 16, args) linear_call.src.(0) in
  (* nested LINEAR calls are lexical scopes: their positional params shadow the enclosing scope *)
  let binds = ref outer_binds in
  Array.iteri (fun i (x : Uop.t) ->
      if Buffers.is_bound_var x then binds := (Printf.sprintf "p%d" i, replace x.src.(0) ~op:Ops.Param) :: !binds) args;
  let binds = !binds in
  let apply_binds (si : Uop.t) =
    if si.op == Ops.Call && si.src.(0).op == Ops.Linear then resolve_linear_call ~outer_binds:binds si
    else if binds = [] then si
    else begin
      let subs = List.filter_map (fun v -> Option.map (fun b -> (v, b)) (List.assoc_opt (expr v) binds)) (variables si) in
      if subs = [] then si else replace si ~src:(Array.map (fun s -> P.substitute s subs) si.src)
    end in
  replace linear ~src:(Array.map apply_binds linear.src)

(* tinygrad: pm_resolve_linear_call *)
let pm_resolve_linear_call : unit P.matcher =
  P.(matcher
       [ rule (pat Ops.Call ~name:"linear_call" ~allow_any_len:true ~src:(In_order [ pat Ops.Linear ])) (fun m ->
             Some (resolve_linear_call (get m "linear_call"))) ]
     @@@ Realize.pm_flatten_linear)

(* tinygrad: schedule_cache, keyed by the function's structure. UOps are hash-consed, so the function node itself
   is its structural key (tinygrad hashes UOp.key). Not in tinygrad: a table per CPU mode, whose rules
   (Rangeify_cpu) change the schedule of one function *)
let schedule_caches : Uop.t Tbl.t * Uop.t Tbl.t = (Tbl.create 16, Tbl.create 16)
let schedule_cache () = if Rangeify_cpu.enabled () then fst schedule_caches else snd schedule_caches

(* tinygrad: lower_sink_to_linear; [get_kernel_graph] builds the kernel graph (Rangeify.get_kernel_graph) *)
let lower_sink_to_linear ~get_kernel_graph (fn : Uop.t) : Uop.t option =
  match fn.arg with
  | Kernel_info _ -> None
  | _ ->
    let st = Helpers.perf_counter_ns () in
    let scache = Helpers.scache.value <> 0 in
    let hit = if scache then Tbl.find_opt (schedule_cache ()) fn else None in
    let linear = match hit with
      | Some l -> l
      | None ->
        if Helpers.spec.value > 0 then Spec.type_verify Spec.spec_tensor fn;
        let l = create_schedule (get_kernel_graph fn) in
        if scache then Tbl.replace (schedule_cache ()) fn l;
        l in
    let d = Helpers.debug.value in
    if (d >= 1 && Array.length linear.src > 1) || d >= 3 then
      Printf.printf "scheduled %5d kernels in %8.2f ms | %s\n%!" (Array.length linear.src)
        (float_of_int (Helpers.perf_counter_ns () - st) /. 1e6)
        (if scache && hit <> None then " cache hit" else "CACHE MISS");
    Some linear

(* tinygrad: pm_schedule *)
let pm_schedule : (Uop.t -> Uop.t) P.matcher =
  P.(matcher [ rule_ctx (pat Ops.Sink ~name:"function") (fun get_kernel_graph m ->
      lower_sink_to_linear ~get_kernel_graph (get m "function")) ])

(* tinygrad: assert_all_same_devices *)
let assert_all_same_devices (ast : Uop.t) =
  let devs = Helpers.dedup (List.filter_map (fun (x : Uop.t) -> if x.op == Ops.Param then Buffers.mdevice x else None) (toposort ast)) in
  if List.length devs >= 2 then
    invalid_arg ("realize: all buffers of a kernel must be on the same device: " ^ String.concat ", " (List.map Uop.device_to_string devs));
  None

(* tinygrad: copy_kernel_to_copy_uop *)
let copy_kernel_to_copy_uop (call : Uop.t) (dst : Uop.t) (src : Uop.t) =
  let dd = Buffers.mdevice dst and sd = Buffers.mdevice src in
  if dd = sd && not (match dd with Some (One d) -> String.length d >= 4 && String.sub d 0 4 = "DISK" | _ -> false) then None
  else
    Some (replace call ~src:(Array.append [| create Ops.Copy ~src:[| src |] ~arg:(arg_of_device (Option.get dd)) |]
                               (Array.sub call.src 1 (Array.length call.src - 1))))

(* tinygrad: pm_copy_from_store (simplify_copy_kernel is for SDMA devices and is not ported) *)
let pm_copy_from_store : unit P.matcher =
  let open P in
  let param_idx name i = index (pat Ops.Param ~name) [ i ] in
  matcher
    [ (* replace this with a copy if it's a copy *)
      rule (pat Ops.Call ~name:"call" ~allow_any_len:true
              ~src:(In_order [ sink [ store (param_idx "dst" (const (I Z.zero))) [ param_idx "src" (const (I Z.zero)) ] ] ]))
        (fun m -> copy_kernel_to_copy_uop (get m "call") (get m "dst") (get m "src"));
      rule (pat Ops.Call ~name:"call" ~allow_any_len:true
              ~src:(In_order [ sink [ end_ (store (param_idx "dst" (pat Ops.Range ~name:"r")) [ param_idx "src" (pat Ops.Range ~name:"r") ])
                                        [ pat Ops.Range ~name:"r" ] ] ]))
        (fun m -> copy_kernel_to_copy_uop (get m "call") (get m "dst") (get m "src"));
      (* if it wasn't copy, it currently can't be cross device *)
      rule (pat Ops.Call ~allow_any_len:true ~src:(In_order [ pat Ops.Sink ~name:"ast" ])) (fun m -> assert_all_same_devices (get m "ast")) ]

(* tinygrad: create_linear_with_vars — the CALL from transform_to_call to a memory-planned LINEAR of kernel calls on
   buffers, and the values of the Variables it uses *)
let create_linear_with_vars ?(get_kernel_graph = Multi.get_kernel_graph) (big_sink : Uop.t)
  : Uop.t * (string * int) list =
  (* big_sink srcs are all the Tensors *)
  let linear_call = P.graph_rewrite ~enter_calls:true ~name:"schedule to linear" pm_schedule get_kernel_graph big_sink in
  (* this recursively resolves the linear_call and allocates buffers *)
  let linear = P.graph_rewrite ~name:"resolve linear call" pm_resolve_linear_call () linear_call in
  (* create copies *)
  let linear = P.graph_rewrite ~name:"create COPY kernels for SDMA" pm_copy_from_store () linear in
  (* vars used in the schedule *)
  let used_vars =
    if Array.exists Buffers.is_bound_var big_sink.src then
      List.concat_map (fun (si : Uop.t) -> List.map expr (variables si.src.(0))) (Array.to_list linear.src)
    else [] in
  (* get var_vals from the bound Variables in the call args *)
  let var_vals = ref [] in
  Array.iteri (fun i b ->
      if i > 0 && Buffers.is_bound_var b then begin
        let v, value = Buffers.unbind b in
        let nm = expr v in
        if List.mem nm used_vars then begin
          (match List.assoc_opt nm !var_vals with
           | Some x when x <> value -> invalid_arg (Printf.sprintf "realize: bind mismatch on %s, %d != %d" nm x value)
           | _ -> ());
          if not (List.mem_assoc nm !var_vals) then var_vals := !var_vals @ [ (nm, value) ]
        end
      end) big_sink.src;
  (* jit captures this schedule, no need to execute. *)
  match Realize.capturing () with
  | Some add_linear when Helpers.capturing.value <> 0 ->
    add_linear linear !var_vals;
    (create Ops.Linear ~src:[||], !var_vals)
  | _ ->
  let held_bufs = if linear_call.op == Ops.Call then List.filter (fun (b : Uop.t) -> b.op == Ops.Buffer) (tl_list linear_call.src) else [] in
  (Memory.memory_plan_rewrite ~held_bufs linear, !var_vals)

(* tinygrad: Tensor.linear_with_vars — callify a big SINK of tensor graphs, apply the buffer map to the live tensors
   ([apply_map], e.g. [Callify.apply_map_to_tensors] over the live set) and schedule; also the CALL, whose arguments
   are the buffers the tensors see, and the becomes map *)
let schedule_with_call ?get_kernel_graph ?(op = "realize") ~(apply_map : (Uop.t * Uop.t) list -> unit) (big_sink : Uop.t) =
  (* weakness ends where storage begins *)
  if Array.exists (fun (u : Uop.t) -> Dtype.is_weak u.dtype && Buffers.mdevice u <> None) big_sink.src then
    invalid_arg (op ^ ": cannot realize a weak dtype; cast to a concrete dtype first");
  let call, becomes_map = Callify.transform_to_call big_sink in
  apply_map becomes_map;
  let linear, var_vals = create_linear_with_vars ?get_kernel_graph call in
  (call, becomes_map, linear, var_vals)

(* tinygrad: Tensor.linear_with_vars *)
let linear_with_vars ?get_kernel_graph ~apply_map (uops : Uop.t list) : Uop.t * (string * int) list =
  let _, _, linear, var_vals = schedule_with_call ?get_kernel_graph ~op:"linear_with_vars" ~apply_map (sink uops) in
  (linear, var_vals)

(* tinygrad: Tensor.realize's filter — what needs realizing (not virtual, not already a buffer) *)
let needs_realize (u : Uop.t) = not (Buffers.is_virtual u) && not (Buffers.has_buffer_identity u)
