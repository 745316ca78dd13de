(* tinygrad: engine/jit.py — TinyJit: the first call runs the function, the second captures the LINEARs its
   realizes schedule (Schedule.create_linear_with_vars hands them to [Realize.capturing]), memory-plans and compiles
   them with the input buffers as PARAMs, and runs them; from the third call the captured LINEAR is replayed on the
   new input buffers. The CPU has no graph runner here, so graph_split_rewrite / GraphRunner are not ported (every
   captured call runs through [Realize.run_linear ~jit:true]); JITBEAM as tinygrad's. *)

open Uop
module P = Upat

exception Jit_error = Realize.Jit_error

let jit_error fmt = Printf.ksprintf (fun s -> raise (Jit_error s)) fmt

(* tinygrad: prune_linear — the calls that depend on the inputs (transitively through the buffers they touch) are
   kept, the others run once *)
let prune_linear (linear : Uop.t) (needed : Uop.t list) : Uop.t * Uop.t =
  let needed : unit Tbl.t = let t = Tbl.create 16 in List.iter (fun b -> Tbl.replace t b ()) needed; t in
  let kept = ref [] and onetime = ref [] in
  Array.iter (fun (si : Uop.t) ->
      let si_bufs = List.concat_map Memory.collect_bufs (List.tl (Array.to_list si.src)) in
      if List.exists (fun b -> Tbl.mem needed b) si_bufs then begin
        kept := si :: !kept;
        List.iter (fun b -> Tbl.replace needed b ()) si_bufs
      end else onetime := si :: !onetime) linear.src;
  (replace linear ~src:(Array.of_list (List.rev !kept)), replace linear ~src:(Array.of_list (List.rev !onetime)))

(* tinygrad: _copy_input — a fresh buffer holding a copy of [u] *)
let copy_input (u : Uop.t) : Uop.t =
  let dev = match Buffers.mdevice u with Some d -> d | None -> One (Device.default ()) in
  let nb = Buffers.new_mbuffer dev (max_numel u) u.dtype in
  let cp = Uop.create Ops.Copy ~src:[| u |] ~arg:(arg_of_device dev) in
  Realize.run_linear (Uop.create Ops.Linear ~src:[| Buffers.call cp [ nb; u ] |]);
  nb

(* tinygrad: jit_lower — input buffers become PARAMs (slot = input position), the rest is memory planned (held
   buffers excepted) and compiled *)
let jit_lower (linear : Uop.t) (held_bufs : Uop.t list) (input_uops : Uop.t list) : Uop.t =
  let linear =
    P.substitute ~walk:true linear
      (List.mapi (fun i (u : Uop.t) -> (u, Uop.param ~shape:(Uop.shape u) ?device:(Buffers.mdevice u) i u.dtype)) input_uops) in
  let linear = Memory.memory_plan_rewrite ~held_bufs linear in
  Realize.compile_linear ~beam:(if Helpers.jitbeam.value >= 0 then Helpers.jitbeam.value else Helpers.beam.value) linear

(* tinygrad: get_call_outs_ins *)
let get_call_outs_ins (call : Uop.t) : int list * int list =
  let ast = call.src.(0) in
  match ast.op, ast.arg with
  | Ops.Program, Program_info p -> (p.outs, p.ins)
  | Ops.Copy, _ -> ([ 0 ], [ 1 ])
  | _ -> ([], [])

(* an input as the JIT sees it: its view with the buffer replaced by NOOP, its Variables, dtype and device
   (tinygrad's expected_input_info entry); the shape is kept for error messages *)
type input_info = { view : Uop.t; vars : Uop.t list; idtype : Dtype.t; idevice : Uop.device option; ishape : sint list }

let same_info a b =
  a.view == b.view && List.length a.vars = List.length b.vars && List.for_all2 ( == ) a.vars b.vars
  && a.idtype == b.idtype && a.idevice = b.idevice

let info_str i =
  Printf.sprintf "%s %s%s%s" (Uop.shape_str i.ishape) (Dtype.to_string i.idtype)
    (match i.idevice with Some d -> " on " ^ Uop.device_to_string d | None -> "")
    (match i.view.op with Ops.Noop -> "" | _ when i.view.src = [||] -> "" | _ -> " (view " ^ Ops.to_string i.view.op ^ ")")

(* tinygrad: CapturedJit *)
type 'r captured = {
  ret : 'r;
  linear : Uop.t;
  expected_names : int list;
  expected_input_info : input_info list;
  expected_vars : string list;
  mutable written : Uop.t list option;
}

(* tinygrad: CapturedJit._written_uops — the BUFFERs the captured calls write (and do not also read) *)
let written_uops (c : 'r captured) : Uop.t list =
  match c.written with
  | Some w -> w
  | None ->
    let out = ref [] in
    Array.iter (fun (call : Uop.t) ->
        if call.op == Ops.Call then begin
          let arg_uops = Array.of_list (Realize.get_call_arg_uops call) in
          let outs, ins = get_call_outs_ins call in
          List.iter (fun k ->
              if not (List.mem k ins) then begin
                let u = arg_uops.(k) in
                let b = match Callify.contiguous_view u with None -> u | Some (b, _) -> b in
                if b.op == Ops.Buffer && not (List.memq b !out) then out := b :: !out
              end) (List.sort_uniq compare outs)
        end) c.linear.src;
    let w = List.rev !out in
    c.written <- Some w;
    w

(* tinygrad: CapturedJit.__call__ *)
let run_captured (c : 'r captured) (input_uops : Uop.t list) var_vals : 'r =
  let written = written_uops c in
  let concrete = List.map (fun u -> if List.memq u written then copy_input u else u) input_uops in
  if Helpers.debug.value >= 1 && Array.length c.linear.src >= 10 then
    Printf.printf "jit execs %d calls\n%!" (Array.length c.linear.src);
  Realize.run_linear ~var_vals ~input_uops:(Array.of_list concrete) ~jit:true c.linear;
  c.ret

(* tinygrad: CapturedJit.free_intermediates *)
let free_intermediates (c : 'r captured) =
  List.iter (fun u ->
      match Buffers.find u with
      | Some b when Device.Buffer.is_allocated b -> Device.Buffer.deallocate b
      | _ -> ()) (written_uops c)

(* tinygrad: UOp.unbind_all — bound Variables replaced by their Variables, with the values *)
let unbind_all (u : Uop.t) : Uop.t * (Uop.t * int) list =
  let bound = List.filter Buffers.is_bound_var (toposort u) in
  if bound = [] then (u, [])
  else
    let pairs = List.map Buffers.unbind bound in
    (P.substitute u (List.map2 (fun b (v, _) -> (b, v)) bound pairs), pairs)

(* tinygrad: _prepare_jit_inputs — the input buffers, Variable values, names and expected input info *)
(* mop_cleanup as substitute's extra rules *)
let mop_cleanup_subst = lazy (P.lift Movement.mop_cleanup)

let prepare_jit_inputs (args : Tensor.t list) =
  let names = List.mapi (fun i _ -> i) args in
  let uops () = List.map Tensor.uop args in
  if List.exists Buffers.is_virtual (uops ()) then jit_error "JIT inputs must be real buffers; use clone";
  let unrealized = List.filter (fun x -> not (Buffers.is_realized (Tensor.uop x))) args in
  if unrealized <> [] then Tensor.realize_all unrealized;
  let input_uops = uops () in
  (* collect buffer UOps *)
  (* a sharded input's buffer is under its UNSHARD (tinygrad: get_input_uops) *)
  let input_buf_uops = List.filter_map (fun (u : Uop.t) ->
      let b = base (if u.op == Ops.Unshard then u.src.(0) else u) in
      if Buffers.realized b <> None then Some b else None) input_uops in
  let rec has_dup = function [] -> false | x :: r -> List.memq x r || has_dup r in
  if has_dup input_buf_uops then jit_error "duplicate inputs to JIT";
  let noop = Uop.create Ops.Noop in
  let inputs = List.map (fun (u : Uop.t) ->
      let b = base (if u.op == Ops.Unshard then u.src.(0) else u) in
      let view, vv = unbind_all (P.substitute ~extra_pm:(Lazy.force mop_cleanup_subst) u [ (b, noop) ]) in
      (view, vv, u)) input_uops in
  let var_vals = ref [] in
  List.iter (fun (_, vv, _) -> List.iter (fun (v, x) -> if not (List.mem_assoc (expr v) !var_vals) then
                                             var_vals := !var_vals @ [ (expr v, x) ]) vv) inputs;
  let expected_input_info = List.map (fun (view, vv, (u : Uop.t)) ->
      { view; vars = List.sort (fun a b -> compare (expr a) (expr b)) (List.map fst vv); idtype = u.dtype;
        idevice = Buffers.mdevice u; ishape = Uop.shape u }) inputs in
  (input_buf_uops, !var_vals, names, expected_input_info)

(* tinygrad: _prepare_jit_inputs, the bound-Variable arguments: (name, value) of each *)
let prepare_jit_vars (vars : Sint.t list) =
  List.mapi (fun i s ->
      if not (Variable.is_bound s) then
        invalid_arg (Printf.sprintf "Tiny_jit.call_v: argument %d (%s) is not a bound Variable" i (Sint.to_string s));
      let v, n = Variable.unbind s in
      (Variable.name v, n)) vars

(* tinygrad: _TinyJit *)
type 'r t = {
  fxn : (Tensor.t list -> Sint.t list -> 'r) option;
  outputs : 'r -> Tensor.t list;
  mutable captured : 'r captured option;
  mutable cnt : int;
  prune : bool;
  mutable linears : Uop.t list;
}

let make_v ?(prune = false) ~outputs fxn = { fxn = Some fxn; outputs; captured = None; cnt = 0; prune; linears = [] }
let make ?prune ~outputs fxn = make_v ?prune ~outputs (fun ts _ -> fxn ts)
let create ?prune fxn = make ?prune ~outputs:(fun r -> [ r ]) fxn
let create_list ?prune fxn = make ?prune ~outputs:(fun r -> r) fxn
let create_unit ?prune fxn = make ?prune ~outputs:(fun () -> []) fxn
let create_v ?prune fxn = make_v ?prune ~outputs:(fun r -> [ r ]) fxn
let create_list_v ?prune fxn = make_v ?prune ~outputs:(fun r -> r) fxn
let create_unit_v ?prune fxn = make_v ?prune ~outputs:(fun () -> []) fxn

let of_captured ~outputs c = { fxn = None; outputs; captured = Some c; cnt = 2; prune = false; linears = [] }

(* tinygrad: _TinyJit.reset *)
let reset j =
  if j.fxn = None then invalid_arg "Tiny_jit.reset: can't reset without function";
  j.cnt <- 0;
  j.captured <- None

let cnt j = j.cnt
let captured j = j.captured
let captured_linear c = c.linear

(* tinygrad assert_jit_cache_len's count: the calls of the captured LINEAR (0 before capture) *)
let jit_cache_len j = match j.captured with None -> 0 | Some c -> Array.length c.linear.src

let get_fxn j = match j.fxn with Some f -> f | None -> invalid_arg "Tiny_jit: no function"

let dedup_uops l =
  let seen = Tbl.create 16 in
  List.filter (fun u -> if Tbl.mem seen u then false else (Tbl.replace seen u (); true)) l

(* the live tensors' BUFFERs (tinygrad: held_bufs' all_tensors part) *)
let live_tensor_bufs () : unit Tbl.t =
  let t = Tbl.create 256 in
  let seen = Tbl.create 1024 in
  let rec go (u : Uop.t) =
    if not (Tbl.mem seen u) then begin
      Tbl.replace seen u ();
      if u.op == Ops.Buffer then Tbl.replace t u ();
      Array.iter go u.src
    end in
  List.iter (fun x -> go (Tensor.uop x)) (Tensor_base.all_tensors ());
  t

(* tinygrad: _TinyJit.__call__ *)
let call_v (j : 'r t) (args : Tensor.t list) (vars : Sint.t list) : 'r =
  let arg_vals = prepare_jit_vars vars in
  let input_buf_uops, var_vals, names, expected_input_info = prepare_jit_inputs args in
  List.iter (fun (k, v) ->
      match List.assoc_opt k var_vals with
      | Some v' when v' <> v ->
        invalid_arg (Printf.sprintf "Tiny_jit.call_v: Variable %s bound to %d and to %d" k v v')
      | _ -> ()) arg_vals;
  let var_vals = arg_vals @ List.filter (fun (k, _) -> not (List.mem_assoc k arg_vals)) var_vals in
  let var_names = List.map fst arg_vals in
  let ret =
    if Helpers.jit.value = 0 || j.cnt = 0 then begin
      (* jit ignore *)
      let ret = (get_fxn j) args vars in
      (match j.outputs ret with [] -> () | params -> Tensor.realize_all params);
      ret
    end else if j.cnt = 1 then begin
      (* jit capture *)
      let fxn = get_fxn j in
      if Realize.capturing () <> None then
        failwith "having TinyJit inside another TinyJit is not supported len(capturing)=1";
      j.linears <- [];
      let ret =
        Realize.with_capturing (fun linear _var_vals -> j.linears <- linear :: j.linears)
          (fun () ->
             let ret = fxn args vars in
             (match j.outputs ret with [] -> () | params -> Tensor.realize_all params);
             ret) in
      let linears = List.rev j.linears in
      j.linears <- [];
      if linears = [] then jit_error "didn't JIT anything!";
      if Helpers.debug.value >= 1 then
        Printf.printf "JIT captured %d linears with %d inputs\n%!" (List.length linears) (List.length input_buf_uops);
      (* combine all captured linears into one, memory plan, and graph split *)
      let big_linear = Uop.create Ops.Linear ~src:(Array.concat (List.map (fun (l : Uop.t) -> l.src) linears)) in
      let big_linear =
        if j.prune then begin
          let big, onetime = prune_linear big_linear input_buf_uops in
          if Helpers.debug.value >= 1 then
            Printf.printf "pruned from %d -> %d kernels\n%!" (Array.length big.src + Array.length onetime.src) (Array.length big.src);
          Realize.run_linear ~var_vals onetime;
          big
        end else big_linear in
      (* hold all buffers reachable from live Tensors (e.g. lazy grads created during capture) and those with a
         Buffer already (tinygrad's set(buffers)): the memory planner can't suballocate those *)
      (* Python frees the function's local tensors when it returns; here they stay in the weak registry until
         the GC runs, so collect before looking at the live tensors *)
      Helpers.collect_unreachable ();
      let live = live_tensor_bufs () in
      let held_bufs =
        dedup_uops
          (List.filter (fun b -> Tbl.mem live b || Buffers.find b <> None)
             (List.concat_map (fun (si : Uop.t) -> List.concat_map Memory.collect_bufs (List.tl (Array.to_list si.src)))
                (Array.to_list big_linear.src))) in
      (* the captured kernels hold every buffer they use, as tinygrad's captured ExecItems do: none is
         released when its tensors let go of it *)
      let disown_args (si : Uop.t) =
        Array.iteri (fun i a -> if i > 0 then List.iter Buffers.disown (Memory.collect_bufs a)) si.src in
      Array.iter disown_args big_linear.src;
      let linear = jit_lower big_linear held_bufs input_buf_uops in
      let c = { ret; linear; expected_names = names; expected_input_info; expected_vars = var_names; written = None } in
      j.captured <- Some c;
      run_captured c input_buf_uops var_vals
    end else begin
      (* jit exec *)
      let c = match j.captured with Some c -> c | None -> invalid_arg "Tiny_jit: nothing captured" in
      if c.expected_names <> names then
        invalid_arg (Printf.sprintf "Tiny_jit: args mismatch in JIT: %d inputs expected, got %d"
                       (List.length c.expected_names) (List.length names));
      if not (List.length c.expected_input_info = List.length expected_input_info
              && List.for_all2 same_info c.expected_input_info expected_input_info) then
        invalid_arg (Printf.sprintf "Tiny_jit: args mismatch in JIT: expected inputs [%s], got [%s]"
                       (String.concat "; " (List.map info_str c.expected_input_info))
                       (String.concat "; " (List.map info_str expected_input_info)));
      if c.expected_vars <> var_names then
        invalid_arg (Printf.sprintf "Tiny_jit.call_v: Variables mismatch in JIT: expected [%s], got [%s]"
                       (String.concat "; " c.expected_vars) (String.concat "; " var_names));
      run_captured c input_buf_uops var_vals
    end in
  j.cnt <- j.cnt + 1;
  ret

let call j args = call_v j args []
