(* tinygrad: engine/realize.py — compile a LINEAR schedule (kernel ASTs lowered to PROGRAMs through Codegen.to_program,
   deduplicated by AST), run it (kernels and copies on Device buffers), Global_counters and the DEBUG=2 line.
   A call on a tuple of devices runs once per device (unwrap_multi). VALIDATE_WITH_CPU, HCQ, graphs and local size
   search are not ported. *)

open Uop
module P = Upat
module GC = Global_counters

(* **************** Helpers **************** *)

(* tinygrad: get_call_arg_uops *)
let get_call_arg_uops (call : Uop.t) =
  List.filter (fun s -> not (Buffers.is_bound_var s)) (List.tl (Array.to_list call.src))

let program_info (prg : Uop.t) = match prg.arg with Program_info p -> p | _ -> invalid_arg "not a PROGRAM"

(* tinygrad: get_call_name *)
let get_call_name (call : Uop.t) =
  let ast = call.src.(0) in
  match ast.op with
  | Ops.Program -> (program_info ast).pname
  | Ops.Copy ->
    let args = get_call_arg_uops call in
    let a0 = List.hd args and a1 = List.nth args 1 in
    let d7 d = if String.length d > 7 then String.sub d 0 7 else d in
    let dev u = match Buffers.mdevice u with
      | Some d -> String.concat ", " (List.map d7 (Uop.device_list d))
      | None -> "" in
    Printf.sprintf "copy %10s, %7s <- %-7s" (Helpers.size_to_str (max_numel a0 * Dtype.itemsize a0.dtype)) (dev a0) (dev a1)
  | _ -> invalid_arg "get_call_name is not implemented"

(* **************** Stat **************** *)

let sint_val var_vals (s : sint) =
  match s with
  | Sint i -> i
  | Suop u -> Z.to_int (zi (sym_infer u (List.map (fun (k, v) -> (k, Dtype.I (Z.of_int v))) var_vals)))

(* tinygrad: estimate_uop — (ops, lds, mem) *)
let estimate_uop var_vals (call : Uop.t) : int * int * int =
  let ast = call.src.(0) in
  match ast.op with
  | Ops.Program ->
    (match ast.src.(0).arg with
     | Kernel_info { estimates = Some e; _ } -> (sint_val var_vals e.ops, sint_val var_vals e.lds, sint_val var_vals e.mem)
     | _ -> (0, 0, 0))
  | Ops.Copy ->
    let a = call.src.(1) in
    let nbytes = max_numel a * Dtype.itemsize a.dtype in
    (0, nbytes, nbytes)
  | _ -> (0, 0, 0)

(* tinygrad: first_run_cache *)
let first_run_cache : unit Tbl.t = Tbl.create 16

(* tinygrad ansipad *)
let ansipad s n = s ^ String.make (max 0 (n - Helpers.ansilen s)) ' '

(* tinygrad: get_call_kernels — a call runs once on each device of its first argument *)
let call_devices (call : Uop.t) =
  match Buffers.mdevice call.src.(1) with Some d -> Uop.device_list d | None -> [ Device.default () ]

(* tinygrad: track_stats — one count and one DEBUG=2 line per device the call ran on *)
let track_stats ~update_stats ~var_vals ~nargs (call : Uop.t) (ets : float option list) =
  let ops, lds, mem = estimate_uop var_vals call in
  let devices = call_devices call in
  if update_stats then begin
    List.iteri (fun i _ ->
        let et = match List.nth_opt ets i with Some e -> e | None -> None in
        GC.count_run ~copy:(call.src.(0).op == Ops.Copy) ~ops ~mem et) devices
  end;
  if Helpers.debug.value >= 2 && update_stats then
  List.iteri (fun i device ->
    let et = match List.nth_opt ets i with Some e -> e | None -> None in
    let dev7 = if String.length device > 7 then String.sub device 0 7 else device in
    let fresh = not (Tbl.mem first_run_cache call.src.(0)) in
    let header = Printf.sprintf "*** %-7s %4d" dev7 (GC.kernel_and_copy_count ()) in
    let header = if fresh && Helpers.no_color.value = 0 then "\027[32m" ^ header ^ "\027[0m" else header in
    let et_v = Option.value et ~default:0.0 in
    let d = if et_v > 0.0 then et_v else 1e-20 in
    let flops = float_of_int ops /. d and membw = float_of_int mem /. d and ldsbw = float_of_int lds /. d in
    let flops_str = if flops < 1e14 then Printf.sprintf "%7.0f GFLOPS" (flops *. 1e-9) else Printf.sprintf "%7.0f TFLOPS" (flops *. 1e-12) in
    let mem_str = if membw < 1e13 && ldsbw < 1e15 then Printf.sprintf "%4.0f|%-6.0f GB/s" (membw *. 1e-9) (ldsbw *. 1e-9)
      else Printf.sprintf "%4.0f|%-6.0f TB/s" (membw *. 1e-12) (ldsbw *. 1e-12) in
    Printf.printf "%s %s arg %2d mem %6.2f GB%s\n%!" header (ansipad (get_call_name call) 46) nargs
      (float_of_int (GC.mem_used ()) /. 1e9)
      (match et with
       | None -> ""
       | Some t ->
         Printf.sprintf " tm %s/%9.2fms (%s %s)" (Helpers.time_to_str ~w:9 t) (GC.time_sum_s () *. 1e3)
           flops_str mem_str);
    Tbl.replace first_run_cache call.src.(0) ()) devices

(* **************** runtime cache **************** *)

(* tinygrad: runtime_cache, keyed by the PROGRAM (hash-consed: identity is its key) and device *)
let runtime_cache : (string * Device.program) list Tbl.t = Tbl.create 16

(* tinygrad: get_runtime *)
let get_runtime device (prg : Uop.t) : Device.program =
  let l = Option.value (Tbl.find_opt runtime_cache prg) ~default:[] in
  match List.assoc_opt device l with
  | Some r -> r
  | None ->
    let info = program_info prg in
    let src = Codegen.program_source prg in
    let dev = Device.get device in
    let lib = dev.compiler.compile_cached src in
    let runtimevars = List.concat (List.mapi (fun i v -> if expr v = "core_id" then [ (expr v, i) ] else []) info.vars) in
    let r = dev.runtime ~name:(Helpers.to_function_name info.pname) ~lib ~runtimevars in
    Tbl.replace runtime_cache prg ((device, r) :: l);
    r

(* **************** run linear **************** *)

(* tinygrad: _resolve / resolve_params *)
let resolve (inputs : Uop.t array) (b : Uop.t) : Uop.t =
  match b.op with
  | (Ops.Mselect | Ops.Shrink) when b.src.(0).op == Ops.Param ->
    replace b ~src:(Array.append [| inputs.((param_arg b.src.(0)).slot) |] (Array.sub b.src 1 (Array.length b.src - 1)))
  | Ops.Param -> inputs.((param_arg b).slot)
  | Ops.Mstack -> replace b ~src:(Array.map (fun (x : Uop.t) ->
      match x.op with
      | Ops.Param -> inputs.((param_arg x).slot)
      | (Ops.Mselect | Ops.Shrink) when x.src.(0).op == Ops.Param ->
        replace x ~src:(Array.append [| inputs.((param_arg x.src.(0)).slot) |] (Array.sub x.src 1 (Array.length x.src - 1)))
      | _ -> x) b.src)
  | _ -> b

let resolve_params (call : Uop.t) inputs = List.map (resolve inputs) (get_call_arg_uops call)

(* tinygrad: unwrap_multi — the buffers of each launch: one launch on single-device buffers, else one per device
   on each argument's buffer for that device, with the DEVICE axis bound to the device's number (_device_num) *)
let unwrap_multi (resolved : Uop.t list) : (Device.Buffer.t list * (string * int) list) list =
  if not (List.exists (fun u -> Buffers.is_multi u) resolved) then
    [ (List.map (fun u -> List.hd (Callify.device_buffers u)) resolved, []) ]
  else begin
    let per_arg = List.map (fun u -> Callify.device_buffers u) resolved in
    let n = List.length (List.hd per_arg) in
    if List.exists (fun l -> List.length l <> n) per_arg then
      invalid_arg "realize: the buffers of a multi-device kernel are on different numbers of devices";
    List.init n (fun j -> (List.map (fun l -> List.nth l j) per_arg, [ ("_device_num", j) ]))
  end

(* tinygrad: exec_copy *)
let exec_copy ~inputs (call : Uop.t) : float option list =
  List.map (fun (bufs, _) ->
      match bufs with
      | dest :: src :: _ ->
        let dest = Device.Buffer.ensure_allocated dest and src = Device.Buffer.ensure_allocated src in
        Device.Buffer.copy_from dest src;
        None
      | _ -> invalid_arg "exec_copy: a copy needs two buffers") (unwrap_multi (resolve_params call inputs))

(* tinygrad: ProgramInfo.vals and launch_dims — the Variable values (runtime vars such as core_id get 0: the
   runtime fills them in per shard) and the global and local sizes of a PROGRAM *)
let launch_dims (prg : Uop.t) var_vals =
  let info = program_info prg in
  let vals = List.map (fun v ->
      if expr v = "core_id" then 0
      else match List.assoc_opt (expr v) var_vals with
        | Some x -> x
        | None -> invalid_arg ("exec_kernel: unbound Variable " ^ expr v ^ " used by " ^ info.pname)) info.vars in
  let gs = Array.of_list (List.map (sint_val var_vals) info.global_size) in
  let ls = Option.map (fun l -> Array.of_list (List.map (sint_val var_vals) l)) info.local_size in
  (vals, gs, ls)

(* tinygrad: exec_kernel — the program runs on each device of its first argument *)
let exec_kernel ~inputs ~var_vals ~wait (call : Uop.t) (prg : Uop.t) : float option list =
  let info = program_info prg in
  let resolved = Array.of_list (resolve_params call inputs) in
  let lanes = unwrap_multi (List.map (fun g -> resolved.(g)) info.globals) in
  List.map2 (fun device (bufs, device_vars) ->
      let bufs = List.map Device.Buffer.ensure_allocated bufs in
      let rt = get_runtime device prg in
      let vals, gs, ls = launch_dims prg (device_vars @ var_vals) in
      let t = Device.run_program ~global_size:gs ?local_size:ls ~wait rt (Device.Launch.of_buffers bufs vals) in
      if wait then Some t else None) (call_devices call) lanes

(* **************** prepared launches **************** *)

(* not in tinygrad, whose eager calls are rebuilt and packed on every run: a call on one device with its program
   loaded, its sizes and Variable values resolved and its argument arrays made once (a kernel), or a copy, so that
   running it again only fills in the buffers *)
type prepared =
  | Kernel of { rt : Device.program; launch : Device.launch; gs : int array; ls : int array option; ops : int;
                mem : int }
  | Copy_call of { bytes : int }

let prepare ~var_vals (call : Uop.t) =
  let ast = call.src.(0) in
  match ast.op, Buffers.mdevice call.src.(1) with
  | Ops.Program, Some (One device) ->
    let vals, gs, ls = launch_dims ast var_vals in
    let launch = Device.Launch.create ~nbufs:(List.length (program_info ast).globals) ~nvars:(List.length vals) in
    List.iteri (Device.Launch.set_var launch) vals;
    let ops, _, mem = estimate_uop var_vals call in
    Some (Kernel { rt = get_runtime device ast; launch; gs; ls; ops; mem })
  | Ops.Copy, Some (One _) when Buffers.mdevice call.src.(2) <> None && not (Buffers.is_multi call.src.(2)) ->
    let _, _, mem = estimate_uop var_vals call in
    Some (Copy_call { bytes = mem })
  | _ -> None

(* tinygrad: the buffers of exec_kernel's launch, [bufs[g] for g in p.globals], and exec_copy's destination and
   source *)
let prepared_args (call : Uop.t) =
  let args = get_call_arg_uops call in
  match call.src.(0).arg with
  | Program_info p -> let a = Array.of_list args in List.map (fun g -> a.(g)) p.globals
  | _ -> Helpers.take 2 args

let exec_prepared (p : prepared) (bufs : Device.Buffer.t array) =
  match p with
  | Kernel k ->
    Array.iteri (fun i b -> Device.Launch.set_buf k.launch i (Device.Buffer.ensure_allocated b)) bufs;
    ignore (Device.run_program ~global_size:k.gs ?local_size:k.ls k.rt k.launch);
    (* the launch lives as long as its cache entry: once the call returned it holds the memory of its
       buffers no longer, as a launch made for one run ([exec_kernel]) does, so a dropped output dies with
       its tensor *)
    Array.fill k.launch.keep 0 (Array.length k.launch.keep) None;
    GC.count_run ~copy:false ~ops:k.ops ~mem:k.mem None
  | Copy_call c ->
    Device.Buffer.copy_from (Device.Buffer.ensure_allocated bufs.(0)) (Device.Buffer.ensure_allocated bufs.(1));
    GC.count_run ~copy:true ~ops:0 ~mem:c.bytes None

(* tinygrad: pm_flatten_linear — flatten LINEAR-in-LINEAR *)
let pm_flatten_linear : unit P.matcher =
  P.(matcher
       [ rule (make ~op:[ Ops.Linear ] ~name:"lin" ~custom_early_reject:[ Ops.Linear ] ()) (fun m ->
             let lin = get m "lin" in
             Some (replace lin ~src:(Array.concat (List.map (fun (c : Uop.t) -> if c.op == Ops.Linear then c.src else [| c |])
                                                      (Array.to_list lin.src))))) ])

(* tinygrad: lower_and_compile — every kernel AST lowered once (Codegen.to_program caches by AST), swapped into its
   calls *)
let lower_and_compile (linear : Uop.t) : Uop.t =
  let progs : Uop.t Tbl.t = Tbl.create 16 in
  let new_src = Array.map (fun (c : Uop.t) ->
      if c.op == Ops.Call && c.src.(0).op == Ops.Sink then begin
        let ast = c.src.(0) in
        let prg = match Tbl.find_opt progs ast with
          | Some p -> p
          | None ->
            let device = match Buffers.mdevice c with Some d -> List.hd (Uop.device_list d) | None -> Device.default () in
            let p =
              Helpers.internal_errors_as_bug ~what:"lowering a kernel" ~show:(fun () -> Uop.to_string ast) (fun () ->
                  Codegen.to_program ast (Device.renderer device)) in
            (* a program not loaded yet: its compiler runs while the next kernels are lowered *)
            if not (List.mem_assoc device (Option.value (Tbl.find_opt runtime_cache p) ~default:[])) then
              (Device.get device).compiler.prefetch (Codegen.program_source p);
            Tbl.replace progs ast p;
            p in
        replace c ~src:(Array.append [| prg |] (Array.sub c.src 1 (Array.length c.src - 1)))
      end else c) linear.src in
  replace linear ~src:new_src

(* tinygrad: pm_beam — a kernel SINK not searched yet gets the BEAM width in its KernelInfo *)
let pm_beam : int P.matcher =
  P.(matcher
       [ rule_ctx (pat Ops.Call ~name:"call" ~src:(In_order [ pat Ops.Sink ~name:"sink" ]) ~allow_any_len:true)
           (fun beam m ->
              let call = get m "call" and sink = get m "sink" in
              match sink.arg with
              | Kernel_info k when k.beam = 0 ->
                let sink = replace sink ~arg:(Kernel_info { k with beam }) in
                Some (replace call ~src:(Array.append [| sink |] (Array.sub call.src 1 (Array.length call.src - 1))))
              | _ -> None) ])

(* tinygrad: compile_linear (BEAM from [beam], else the BEAM context var) *)
let compile_linear ?beam (linear : Uop.t) : Uop.t =
  let beam_val = match beam with Some b -> b | None -> Helpers.beam.value in
  let linear = if beam_val >= 1 then P.graph_rewrite ~walk:true pm_beam beam_val linear else linear in
  lower_and_compile linear

(* tinygrad: run_linear *)
let run_linear ?(var_vals = []) ?(input_uops = [||]) ?(update_stats = true) ?(jit = false) ?(wait = false) (linear : Uop.t) : unit =
  let linear = if jit then linear else compile_linear linear in
  let wait = wait || Helpers.debug.value >= 2 in
  Array.iter (fun (call : Uop.t) ->
      let ast = call.src.(0) in
      let et = match ast.op with
        | Ops.Copy -> exec_copy ~inputs:input_uops call
        | Ops.Program -> exec_kernel ~inputs:input_uops ~var_vals ~wait call ast
        | op -> invalid_arg ("run_linear: cannot execute a call of " ^ Ops.to_string op) in
      track_stats ~update_stats ~var_vals ~nargs:(List.length (get_call_arg_uops call)) call et) linear.src

(* **************** buffer lifetime **************** *)

(* the BUFFER under a call argument (a buffer, or a SHRINK/BITCAST/RESHAPE view of one) *)
let rec arg_buffer (u : Uop.t) =
  match u.op with
  | Ops.Buffer -> Some u
  | Ops.Shrink | Ops.Bitcast | Ops.Reshape -> arg_buffer u.src.(0)
  | _ -> None

(* tinygrad frees a schedule's internal buffers (the memory planner's arenas, the buffers made for a cached
   schedule) by refcount once run_linear drops the schedule: Buffer.__del__ hands the memory to the LRUAllocator's
   cache. Here they are freed the same way, explicitly: every buffer the LINEAR's calls use that is not under one
   of [held] (the realize call's arguments, the buffers tensors can see) is deallocated, its memory back in the
   allocator's cache for the next schedule *)
let internal_buffers ~(held : Uop.t list) (linear : Uop.t) =
  let keep : unit Tbl.t = Tbl.create 16 in
  List.iter (fun u -> match arg_buffer u with Some b -> Tbl.replace keep b () | None -> ()) held;
  let internal = ref [] in
  Array.iter (fun (call : Uop.t) ->
      List.iter (fun a ->
          match arg_buffer a with
          | Some b when not (Tbl.mem keep b) -> Tbl.replace keep b (); internal := b :: !internal
          | Some _ | None -> ()) (get_call_arg_uops call)) linear.src;
  List.rev !internal

let free_buffer (b : Uop.t) =
  match Buffers.find b with
  | Some buf when buf.Device.Buffer.base_buf = None && Device.Buffer.is_allocated buf ->
    Device.Buffer.deallocate buf;
    Buffers.remove b
  | Some _ | None -> ()

let free_internal_buffers ~held linear = List.iter free_buffer (internal_buffers ~held linear)

(* **************** JIT capture (N-jit) **************** *)

(* tinygrad: jit.py JitError (here so that Tensor can raise it while capturing) *)
exception Jit_error of string

(* tinygrad: capturing — the JITs capturing schedules (their add_linear) *)
let capturing_now : (Uop.t -> (string * int) list -> unit) option ref = ref None

let capturing () = !capturing_now

let with_capturing add_linear f =
  capturing_now := Some add_linear;
  Fun.protect ~finally:(fun () -> capturing_now := None) f
