(* tinygrad: codegen/opt/search.py — BEAM search over kernel opts, candidates compiled and timed on the device.
   Differences: candidates are compiled one after another (tinygrad may use a worker pool; there is no compile
   timeout), duplicate candidates are recognised by their source (tinygrad: by the compiled library), and the disk
   cache is a file per key under [Helpers.cache_dir ()]/beam_search.
   Not in tinygrad: the stages where the CPU mode's search departs from tinygrad's (where it starts, the
   actions added, the slice candidates are timed on, its limits, the pick on the whole kernel) come from
   [Search_cpu.policy], asked once per kernel; CPU_OPT=tinygrad keeps tinygrad's search and action list. *)

open Uop
module K = Postrange

let opt ?axis ?(arg = Opt.No_arg) op : Opt.t = { Opt.op; axis; arg }

(* tinygrad: search.py actions *)
let actions : Opt.t list Lazy.t = lazy begin
  let ( let* ) l f = List.concat_map f l in
  let range n = List.init n (fun i -> i) in
  let mk = Opt.on_axes in
  mk Opt.UPCAST [ 0; 2; 3; 4; 5; 7 ] 8
  @ mk Opt.UNROLL [ 0; 4; 7 ] 5
  @ mk Opt.LOCAL [ 2; 3; 4; 8; 13; 16; 29 ] 6
  @ mk Opt.GROUPTOP [ 13; 16; 28; 29; 32; 49; 64; 256 ] 3
  @ mk Opt.GROUP [ 0; 4; 8; 16 ] 3
  @ (if Helpers.beam_padto.value <> 0 then mk Opt.PADTO [ 32 ] 7 else [])
  @ [ opt Opt.LOCAL ~axis:0 ~arg:(Opt.Int 32); opt Opt.LOCAL ~axis:6 ~arg:(Opt.Int 2) ]
  @ [ opt Opt.TC ~axis:0 ~arg:(Opt.Tc (-1, 0, Helpers.use_tc.value)) ]
  (* covers resnet kernels (3 global * 3 reduce) *)
  @ List.map (fun axis -> opt Opt.TC ~axis ~arg:(Opt.Tc (-1, Helpers.beam_tc_opt.value, Helpers.use_tc.value))) (range 9)
  @ (let* axis_0 = range 5 in let* axis_1 = List.filter (fun a -> a > axis_0) (range 5) in
     [ opt Opt.SWAP ~axis:axis_0 ~arg:(Opt.Int axis_1) ])
  @ mk Opt.THREAD [ 2; 3; 4; 5; 8; 12; 16; 24; 32; 64 ] 3
  @ (if Helpers.nolocals.value <> 0 then [ opt Opt.NOLOCALS ] else [])
end

(* ---------- the CPU search (not in tinygrad) ---------- *)

(* the stages of the search of a kernel for [ren] (not in tinygrad: the CPU mode's, Search_cpu) *)
let policy ren = Search_cpu.policy ~tinygrad:(Lazy.force actions) ren

(* the actions searched on kernels of [ren]: tinygrad's, then the policy's *)
let kernel_actions (ren : Renderer.t) : Opt.t list = Lazy.force actions @ (policy ren).extra_actions

let sint_val vv = function Sint i -> i | Suop u -> Z.to_int (zi (sym_infer u vv))

(* tinygrad: get_test_global_size *)
let get_test_global_size (global_size : sint list) max_global_size vv : int array * float =
  let t = Array.of_list (List.map (sint_val vv) global_size) in
  let prod a = Array.fold_left ( * ) 1 a in
  let input_size = prod t in
  while prod t > max_global_size do
    let exception Break in
    (try for j = Array.length t - 1 downto 0 do if t.(j) > 16 then begin t.(j) <- t.(j) / 2; raise Break end done
     with Break -> ())
  done;
  (t, float_of_int input_size /. float_of_int (prod t))

(* tinygrad: args_from_ast — a buffer per PARAM slot and each variable at the middle of its range. Not in tinygrad:
   [zero] allocates them zeroed *)
let args_from_ast ?(zero = false) (ast : Uop.t) dname : (int * Device.Buffer.t) list * (string * Dtype.const) list =
  let glbls = List.filter (fun (x : Uop.t) -> x.op == Ops.Param && (param_arg x).slot >= 0) (backward_slice ast) in
  let glbls = List.sort_uniq (fun a b -> compare (param_arg a).slot (param_arg b).slot) glbls in
  let options = { Device.default_spec with zero } in
  (List.map (fun x -> ((param_arg x).slot, Device.Buffer.create ~options dname (max_numel x) x.dtype)) glbls,
   List.map (fun v -> (expr v, Dtype.I (Z.div (Z.add (zi (vmax v)) (zi (vmin v))) (Z.of_int 2)))) (variables ast))

(* the device a search runs its candidates on. Not in tinygrad (which takes the renderer's device): the kernel's
   PARAMs name the device of its buffers, which differs from the renderer's where the emulator renders for CUDA or
   Metal *)
let run_device (s : K.t) =
  let params = List.filter (fun (x : Uop.t) -> x.op == Ops.Param) (backward_slice s.ast) in
  let first_device x = match (param_arg x).device with
    | Some (Uop.One d) | Some (Uop.Multi (d :: _)) -> Some d
    | Some (Uop.Multi []) | None -> None in
  match List.find_map first_device params with Some d -> d | None -> s.ren.device

(* tinygrad: _time_program. [None] when the program fails to run *)
let time_program ~device (prg : Uop.t) src vv (rawbufs : (int * Device.Buffer.t) list) ~early_stop ~allow_test_size
    ?(max_global_size = 65536) ?(cnt = 3) ?(scale = 1.0) () : float list =
  let info = match prg.arg with Program_info p -> p | _ -> invalid_arg "time_program: no ProgramInfo" in
  let gs, factor =
    if allow_test_size then get_test_global_size info.global_size max_global_size vv
    else (Array.of_list (List.map (sint_val vv) info.global_size), 1.0) in
  let dev = Device.get device in
  let local_size = Option.map (fun l -> Array.of_list (List.map (sint_val vv) l)) info.local_size in
  let lib = dev.compiler.compile_cached src in
  let vnames = List.map expr info.vars in
  let runtimevars = List.concat (List.mapi (fun i v -> if v = "core_id" then [ (v, i) ] else []) vnames) in
  let p = dev.runtime ~name:(Helpers.to_function_name info.pname) ~lib ~runtimevars in
  let var_value v = match List.assoc_opt v vv with Some c -> Z.to_int (zi c) | None -> 0 in
  let launch = Device.Launch.of_buffers (List.map (fun s -> List.assoc s rawbufs) info.globals) (List.map var_value vnames) in
  let rec go acc n =
    if n = 0 then List.rev acc
    else begin
      let t = Device.run_program ~global_size:gs ?local_size ~wait:true p launch *. factor *. scale in
      let acc = t :: acc in
      if early_stop < List.fold_left min infinity acc then List.rev acc else go acc (n - 1)
    end in
  go [] cnt

(* tinygrad: _try_compile — the PROGRAM and its compile time, or None. Not in tinygrad: [uops_max] (default
   BEAM_UOPS_MAX; 0: no limit) *)
let try_compile ?(uops_max = Helpers.beam_uops_max.value) (s : K.t) : (Uop.t * float) option =
  try
    let st = Helpers.perf_counter () in
    let ast = K.get_optimized_ast ~name_override:"test" (K.copy s) in
    let prg = Codegen.to_program ast s.ren in
    let et = Helpers.perf_counter () -. st in
    let uops = (List.find (fun (u : Uop.t) -> u.op == Ops.Linear) (Array.to_list prg.src)).src in
    if Array.length uops >= uops_max && uops_max > 0 then begin
      if Helpers.beam_log_surpass_max.value <> 0 then
        Printf.printf "too many uops. len(uops)=%d, uops_max=%d\n" (Array.length uops) uops_max;
      None
    end else Some (prg, et)
  with e -> if Helpers.beam_strict_mode.value <> 0 then raise e else None

(* *** external API *** *)

(* tinygrad: get_kernel_actions — the index in [actions] (+1, 0 for [s] itself) and the Scheduler after it *)
let get_kernel_actions ?(include_0 = true) ?max_up (s : K.t) : (int * K.t) list =
  let max_up = match max_up with Some m -> m | None -> Helpers.beam_upcast_max.value in
  let max_lcl = Helpers.beam_local_max.value in
  let kernel_actions = kernel_actions s.ren in
  let acted = ref (if include_0 then [ (0, s) ] else []) in
  List.iteri (fun i (a : Opt.t) ->
      let skip =
        match a.axis with
        | Some _ when a.op <> Opt.TC ->
          (match K.real_axis s a.op a.axis with
           | exception Opt.Kernel_opt_error _ -> true
           | ax ->
             ax >= K.shape_len s
             || (List.nth (K.full_shape s) ax = Sint (match a.arg with Opt.Int n -> n | _ -> -1)
                 && (match a.arg with Opt.Int _ -> true | _ -> false)
                 && List.mem { a with arg = Opt.Int 0 } kernel_actions))
        | _ -> false in
      if not skip then begin
        let s2 = K.copy s in
        try
          ignore (K.apply_opt s2 a);
          let up = ref 1 and lcl = ref 1 in
          let tc_up = match s2.K.tensor_core with
            | Some tc -> let n, m, k = tc.Tc.dims in n * m * k / tc.Tc.threads
            | None -> 1 in
          List.iter2 (fun x t ->
              let x = K.sint_int x in
              match t with
              | Upcast | Unroll -> up := !up * x
              | Warp | Local | Group_reduce -> lcl := !lcl * x
              | _ -> ()) (K.full_shape s2) (K.axis_types s2);
          if !up / tc_up > max_up || !lcl > max_lcl then begin
            if Helpers.beam_log_surpass_max.value <> 0 then
              Printf.printf "too many upcast/local. up//tc_up=%d, max_up=%d, lcl=%d, max_lcl=%d\n" (!up / tc_up) max_up !lcl max_lcl
          end else acted := (i + 1, s2) :: !acted
        with Opt.Kernel_opt_error _ -> ()
      end) kernel_actions;
  List.rev !acted

(* ---------- the disk cache (tinygrad: diskcache_get / diskcache_put "beam_search") ---------- *)

(* opts as text, one per line: "UPCAST 1 4" ("-" for no axis / arg) *)
let opt_to_line (o : Opt.t) =
  let op = Opt.opt_ops_to_string o.op in
  let op = String.sub op 7 (String.length op - 7) in
  let axis = match o.axis with None -> "-" | Some a -> string_of_int a in
  let arg = match o.arg with Opt.No_arg -> "-" | Opt.Int i -> string_of_int i
                           | Opt.Tc (a, b, c) -> Printf.sprintf "%d,%d,%d" a b c in
  String.concat " " [ op; axis; arg ]

let opt_of_line l : Opt.t =
  match String.split_on_char ' ' l with
  | [ op; axis; arg ] ->
    let op = match op with
      | "TC" -> Opt.TC | "UPCAST" -> Opt.UPCAST | "UNROLL" -> Opt.UNROLL | "LOCAL" -> Opt.LOCAL | "THREAD" -> Opt.THREAD
      | "GROUP" -> Opt.GROUP | "GROUPTOP" -> Opt.GROUPTOP | "NOLOCALS" -> Opt.NOLOCALS | "PADTO" -> Opt.PADTO
      | "SWAP" -> Opt.SWAP | "BLOCK" -> Opt.BLOCK | "OVERLAP" -> Opt.OVERLAP
      | _ -> failwith ("beam cache: bad op " ^ op) in
    let axis = if axis = "-" then None else Some (int_of_string axis) in
    let arg = if arg = "-" then Opt.No_arg
      else match String.split_on_char ',' arg with
        | [ a ] -> Opt.Int (int_of_string a)
        | [ a; b; c ] -> Opt.Tc (int_of_string a, int_of_string b, int_of_string c)
        | _ -> failwith "beam cache: bad arg" in
    { Opt.op; axis; arg }
  | _ -> failwith ("beam cache: bad line " ^ l)

(* the cache key: tinygrad hashes {"ast": ast.key, "amt", "allow_test_size", "device", "suffix"}; the AST is keyed
   here by its pyrender text, which determines it *)
let cache_path (s : K.t) amt allow_test_size =
  let key = String.concat "\x00" [ Render.pyrender s.ast; string_of_int amt; string_of_bool allow_test_size;
                                   s.ren.device; s.ren.suffix ]
            (* not in tinygrad's key: CPU_OPT and CPU_VEC change the programs and the search, so their searches are
               kept apart *)
            ^ (match (policy s.ren).cache_key with Some k -> "\x00" ^ k | None -> "") in
  Filename.concat (Filename.concat (Helpers.cache_dir ()) "beam_search") (Digest.to_hex (Digest.string key))

(* an entry: "beam_search v2", the opts one per line, "end" (a file cut short has no "end"). [None]: no entry;
   [Some (Error why)]: an entry that cannot be read, searched again *)
let header = "beam_search v2"

let diskcache_get path : (Opt.t list, string) result option =
  if not (Sys.file_exists path) then None
  else
    Some (try
            let ic = open_in_bin path in
            let rec lines acc = match input_line ic with l -> lines (l :: acc) | exception End_of_file -> List.rev acc in
            let ls = Fun.protect ~finally:(fun () -> close_in ic) (fun () -> lines []) in
            match ls with
            | h :: rest when h = header ->
              (match List.rev rest with
               | "end" :: opts -> Ok (List.map opt_of_line (List.rev opts))
               | _ -> Error "no end line (truncated)")
            | _ -> Error "not a beam_search v2 entry"
          with Sys_error m | Failure m -> Error m)

let diskcache_put path (opts : Opt.t list) =
  Helpers.mkdir_p (Filename.dirname path);
  let tmp = Filename.temp_file ~temp_dir:(Filename.dirname path) "beam" ".tmp" in
  let oc = open_out_bin tmp in
  output_string oc (String.concat "\n" ((header :: List.map opt_to_line opts) @ [ "end" ]) ^ "\n");
  close_out oc;
  Sys.rename tmp path

(* the kernel with the cached opts applied, or why they do not apply (an entry for another kernel, edited by hand) *)
let apply_cached (s : K.t) opts =
  let ret = K.copy s in
  match List.iteri (fun i o -> if i >= List.length s.applied_opts then ignore (K.apply_opt ret o)) opts with
  | () -> Ok ret
  | exception Opt.Kernel_opt_error m -> Error m
  | exception (Invalid_argument m | Failure m) -> Error m
  | exception (Not_found | Division_by_zero) -> Error "opts do not apply"

(* the number of searches run (not answered from the cache), for tests *)
let search_count = ref 0
let searches () = !search_count

(* tinygrad: beam_search *)
let beam_search ?(allow_test_size = Helpers.beam_estimate.value <> 0) ?(disable_cache = Helpers.ignore_beam_cache.value <> 0)
    ?(min_time = Search_cpu.min_time) (s : K.t) (amt : int) : K.t =
  let path = cache_path s amt allow_test_size in
  let damaged why =
    if Helpers.debug.value >= 1 then Printf.printf "BEAM: ignoring the damaged cache entry %s (%s), searching again\n%!" path why;
    None in
  let cached = match (if (not disable_cache) && Helpers.cachelevel.value >= 1 then diskcache_get path else None) with
    | None -> None
    | Some (Error why) -> damaged why
    | Some (Ok opts) -> (match apply_cached s opts with Ok k -> Some k | Error why -> damaged why) in
  match cached with
  | Some ret -> ret
  | None ->
    incr search_count;
    (* not in tinygrad: the policy's stages (Search_cpu) *)
    let policy = policy s.ren in
    let device = run_device s in
    let rawbufs, var_vals = args_from_ast ~zero:policy.zero_buffers s.ast device in
    let beam_debug = Helpers.beam_debug.value in
    let debug = Helpers.debug.value in
    let seen_libs = Hashtbl.create 64 in
    let min_progress = float_of_string (Helpers.beam_min_progress.value) /. 1e6 in
    if beam_debug <> 0 then (print_endline "BEAM_SEARCH:"; print_endline (Render.pyrender s.ast));
    if debug >= 2 then Printf.printf "   0.00s:                from   1 ->   1 actions %s\n%!" (K.colored_shape s);
    List.iter (fun (_, b) -> ignore (Device.Buffer.ensure_allocated b)) rawbufs;
    let st = Helpers.perf_counter () in
    let time : Search_cpu.timer = fun ?early_stop ?cnt ?scale prg ->
      time_program ~device prg (Codegen.program_source prg) var_vals rawbufs
        ~early_stop:(Option.value early_stop ~default:infinity) ~allow_test_size ?cnt ?scale () in
    match policy.start ~try_compile ~time ~min_time ~seen_libs s with
    | Search_cpu.Unsearched hc ->
      if Helpers.cachelevel.value >= 1 then diskcache_put path hc.applied_opts;
      hc
    | Search_cpu.Beam { beam = beam0; fraction; hand_coded } ->
    let beam = ref beam0 in
    (* not in tinygrad: the finalists a policy checks on the whole kernel at the end (the last level's best
       [amt] and the beam before it) *)
    let finalists = ref [] in
    let exiting = ref false in
    let max_up = policy.max_upcast in
    while not !exiting do
      let candidates = Array.of_list (List.concat_map (fun (si, _) -> List.map snd (get_kernel_actions ~include_0:false ~max_up si)) !beam) in
      let timed = ref [] in
      let least_compute_ops = ref infinity in
      let compiled = Array.make (Array.length candidates) None in
      let time_candidate i (cand : K.t) =
        match compiled.(i) with
        | None -> ()
        | Some (prg, compile_et, scale) ->
          let src = Codegen.program_source prg in
          if not (Hashtbl.mem seen_libs src) then begin
            (* filter out kernels that use 1000x more compute than the smallest *)
            let this_compute_ops = match prg.src.(0).arg with
              | Kernel_info { estimates = Some e; _ } -> float_of_int (sint_val var_vals e.ops)
              | _ -> 0.0 in
            least_compute_ops := Float.min this_compute_ops !least_compute_ops;
            if !least_compute_ops *. 1000. < this_compute_ops then begin
              if Helpers.beam_log_surpass_max.value <> 0 then
                Printf.printf "too much compute. %g when least is %g\n" this_compute_ops !least_compute_ops
            end else begin
              Hashtbl.replace seen_libs src ();
              let early_stop = match !beam with (_, t) :: _ -> t *. 3. | [] -> 1.0 in
              match time ~early_stop ~scale prg with
              | exception e ->
                if beam_debug <> 0 then
                  Printf.printf "BEAM failed for opts: [%s]\n%s\n" (String.concat ", " (List.map Opt.to_string cand.K.applied_opts))
                    (Printexc.to_string e)
              | tms ->
                let t = List.fold_left Float.min infinity tms in
                timed := (cand, t) :: !timed;
                if beam_debug > 1 then
                  Printf.printf "%7.2fs: %5d %5d uops %s compile/%s run       %4d/%4d         %s\n%!"
                    (Helpers.perf_counter () -. st) i (Array.length prg.src.(1).src) (Helpers.time_to_str ~w:12 compile_et)
                    (Helpers.time_to_str ~w:12 t) (List.length !timed) (Array.length candidates) (K.colored_shape cand)
                else if debug >= 2 then
                  Printf.printf "\r%7.2fs: %s       %4d/%4d         %s\027[K%!" (Helpers.perf_counter () -. st)
                    (Helpers.time_to_str ~w:12 t) (List.length !timed) (Array.length candidates) (K.colored_shape cand)
            end
          end in
      (* tinygrad compiles the candidates in a pool of PARALLEL workers: here they are rendered in order, then
         their sources compiled into the cache PARALLEL at a time, then timed one by one. Not in tinygrad: a
         policy's chunks of candidates and its budget *)
      let over_budget () = policy.over_budget (Helpers.perf_counter () -. st) in
      let chunk = policy.chunk (Array.length candidates) in
      let rec chunks lo =
        if lo < Array.length candidates && not (over_budget ()) then begin
          let hi = min (Array.length candidates) (lo + chunk) in
          for i = lo to hi - 1 do
            compiled.(i) <- (let c, scale = Search_cpu.shrink_loops candidates.(i) fraction in
                             Option.map (fun (prg, et) -> (prg, et, scale)) (try_compile c))
          done;
          (Device.get device).compiler.compile_many
            (List.filter_map (Option.map (fun (prg, _, _) -> Codegen.program_source prg))
               (Array.to_list (Array.sub compiled lo (hi - lo))));
          for i = lo to hi - 1 do time_candidate i candidates.(i) done;
          chunks hi
        end in
      chunks 0;
      (* done *)
      let opts = List.stable_sort (fun (_, a) (_, b) -> compare a b) (List.rev !timed) in
      let best_beam = match !beam with (_, t) :: _ -> t | [] -> infinity in
      (* not in tinygrad: the gain a policy asks of a level *)
      let min_progress = policy.min_progress min_progress best_beam in
      (match opts with
       | [] -> exiting := true
       | (_, t0) :: _ ->
         exiting := t0 < min_progress || (!beam <> [] && best_beam -. t0 < min_progress) || over_budget ();
         if !exiting && policy.keeps_finalists then finalists := List.map fst (Helpers.take amt opts @ !beam);
         if not !exiting then beam := Helpers.take amt opts
         else if t0 < best_beam then beam := Helpers.take 1 opts);
      if debug >= 2 then
        Printf.printf "\r%7.2fs: %s from %3d -> %3d actions\027[K %s\n%!" (Helpers.perf_counter () -. st)
          (Helpers.colored (Helpers.time_to_str ~w:12 (snd (List.hd !beam))) (if !exiting then Some "green" else None))
          (Array.length candidates) (List.length opts) (K.colored_shape (fst (List.hd !beam)))
    done;
    let best, best_tm =
      match Option.bind hand_coded (fun hc ->
          Search_cpu.pick_on_whole_kernel ~try_compile ~time hc
            (if !finalists = [] then List.map fst !beam else !finalists)) with
      | Some picked -> picked
      | None -> List.hd !beam in
    if Helpers.cachelevel.value >= 1 then diskcache_put path best.applied_opts;
    if beam_debug <> 0 then
      Printf.printf "BEAM_SEARCH: final tm=%s, applied_opts=[%s]\n" (Helpers.time_to_str ~w:0 best_tm)
        (String.concat ", " (List.map Opt.to_string best.applied_opts));
    best

let () = K.beam_search_hook := (fun s amt -> beam_search s amt)
