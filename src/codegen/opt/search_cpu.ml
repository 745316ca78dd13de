(* Not in tinygrad: the CPU mode's BEAM search (CPU_OPT=fast on the CPU). Search.beam_search is tinygrad's;
   it asks [policy] once per kernel for the stages where its search departs from tinygrad's: where the beam
   starts (the hand-coded kernel, timed), the actions added for the CPU's tiles, the slice of the loops
   candidates are timed on, the limits that end a search, and the pick among the finalists on the whole
   kernel. *)

open Uop
module K = Postrange

(* a timing of a program: its runs' times *)
type timer = ?early_stop:float -> ?cnt:int -> ?scale:float -> Uop.t -> float list

(* Search.try_compile: the program and its compile time, or None *)
type compile = ?uops_max:int -> K.t -> (Uop.t * float) option

(* the actions that express Heuristic's CPU tiles, which tinygrad's amounts (upcast 2..7, unroll 4 and 7)
   cannot: an upcast or unroll by each host vector width wider than float4 (a row of accumulators, a vector
   accumulator of cpu_vector_reduce) and by 8 (the tile's rows), a THREAD by the core count where tinygrad's
   amounts miss it, and a cache BLOCK of 2, 4 or 8 iterations of each of the first output loops
   (Postrange.apply_opt). Appended after tinygrad's list, so tinygrad's action indices keep their meaning. *)
let actions ~(tinygrad : Opt.t list) (ren : Renderer.t) : Opt.t list =
  let widths = List.filter (fun w -> w > 4) (Renderer.float_lengths ren) in
  let amts = List.sort_uniq compare (8 :: widths) in
  let cores = match ren.global_max with Some (g :: _) when ren.has_threads -> [ g ] | _ -> [] in
  let in_tinygrad c = List.exists (fun (a : Opt.t) -> a.op = Opt.THREAD && a.arg = Opt.Int c) tinygrad in
  Opt.on_axes Opt.UPCAST amts 8 @ Opt.on_axes Opt.UNROLL amts 5
  @ Opt.on_axes Opt.THREAD (List.filter (fun c -> c > 1 && not (in_tinygrad c)) cores) 3
  @ Opt.on_axes Opt.BLOCK [ 2; 4; 8 ] 3

(* tinygrad times a GPU candidate on a smaller launch (get_test_global_size); a CPU kernel's output axes are
   loops inside it, so under CPU_OPT=fast a candidate is timed with its outer loops cut to about
   1/[fraction] of their iterations, its times multiplied by the true ratio (returned). The outermost loops
   are cut first: the inner ones, where the register tile and the cache reuse live, keep their sizes. Only
   the output loops are cut (never a reduce, upcast or thread axis), so every index stays in bounds. *)
let shrink_loops (k : K.t) (fraction : float) : K.t * float =
  (* a slice of half or more of the kernel saves less than it costs to compile another copy *)
  if fraction <= 2. then (k, 1.)
  else begin
    let loops = List.filter_map (fun ((r : Uop.t), t) -> match t, r.src.(0).op with
        | (Global | Loop | Weak), Ops.Const ->
          (match K.sint_int (Suop r.src.(0)) with n when n > 1 -> Some (r, n) | _ -> None)
        | _ -> None) (List.combine (K.rngs k) (K.axis_types k)) in
    let total = float_of_int (List.fold_left (fun a (_, n) -> a * n) 1 loops) in
    let target = total /. fraction in
    let cur, pairs = List.fold_left (fun (cur, pairs) ((r : Uop.t), n) ->
        if cur <= target then (cur, pairs)
        else begin
          let n' = max 1 (min n (int_of_float (float_of_int n *. target /. cur))) in
          (cur /. float_of_int n *. float_of_int n',
           if n' < n then (r, replace r ~src:[| const_int ~dtype:r.src.(0).dtype n' |]) :: pairs else pairs)
        end) (total, []) loops in
    if pairs = [] then (k, 1.)
    else begin
      let k = K.copy k in
      k.ast <- Upat.substitute k.ast pairs;
      (k, total /. cur)
    end
  end

(* the limits of the CPU search. A kernel whose hand-coded time is below [min_time] seconds is
   not searched (the most it could gain is less than that); candidates are timed on a slice of about
   [test_time] seconds ([shrink_loops]); a level must gain [min_gain] of the best time to go on (a smaller
   gain is timing noise on a shared machine); no candidate starts after [budget] seconds of search *)
let min_time = 1e-3
let test_time = 5e-3
let min_gain = 0.02
let budget = 20.

(* the CPU search in the disk cache's key: its actions and limits, and the version of its procedure (a
   change to the procedure bumps it) *)
let search_key ~tinygrad (ren : Renderer.t) =
  String.concat "," ("cpu-search 6"
                     :: Printf.sprintf "%d,%g,%g,%g,%g" Helpers.cpu_vec.value min_time test_time min_gain
                       budget
                     :: List.map Opt.to_string (actions ~tinygrad ren))

(* where the search starts *)
type start =
  | Unsearched of K.t  (** the hand-coded kernel, which runs under the search's minimum time *)
  | Beam of { beam : (K.t * float) list; fraction : float; hand_coded : (K.t * Uop.t) option }
  (** the first beam, the slice of the loops candidates are timed on ([shrink_loops]), and the hand-coded
      kernel with its whole program for the final check *)

(* the CPU search's beam starts from the hand-coded kernel, timed, so the search never returns a kernel
   slower than the heuristic's; tinygrad starts from the kernel without opts, whose children can run for
   minutes on a CPU. The hand-coded kernel is what runs without BEAM, so it has no uops limit (a matmul's
   blocked tile has thousands). It runs twice: the first run also faults the fresh buffers' pages in. *)
let cpu_start ~(try_compile : compile) ~(time : timer) ~min_time ~seen_libs (s : K.t) : start =
  let unoptimized = Beam { beam = [ (s, infinity) ]; fraction = 1.; hand_coded = None } in
  let hc = K.hand_coded ~heuristic:Codegen.hand_coded_optimizations
      ?multiblock:(Codegen.multiblock_optimizations s.ren) s in
  match Option.map fst (try_compile ~uops_max:0 hc) with
  | None -> unoptimized
  | Some hc_prg ->
    match List.fold_left Float.min infinity (time ~cnt:2 hc_prg) with
    | exception _ -> unoptimized
    | t_full when t_full < min_time ->
      if Helpers.debug.value >= 2 then
        Printf.printf "BEAM: %s runs %s, not searched\n%!" (K.colored_shape hc)
          (Helpers.time_to_str ~w:0 t_full);
      Unsearched hc
    | t_full ->
      let fraction = t_full /. test_time in
      let hs, scale = shrink_loops hc fraction in
      match try_compile ~uops_max:0 hs with
      | None -> Beam { beam = [ (hc, t_full) ]; fraction = 1.; hand_coded = None }
      | Some (prg, _) ->
        Hashtbl.replace seen_libs (Codegen.program_source prg) ();
        let t = match time ~scale prg with
          | tms -> List.fold_left Float.min infinity tms
          | exception _ -> t_full in
        if Helpers.debug.value >= 2 then
          Printf.printf "   %s hand-coded %s (full run %s), timed on 1/%.0f of its loops\n%!"
            (K.colored_shape hc) (Helpers.time_to_str ~w:0 t) (Helpers.time_to_str ~w:0 t_full) scale;
        Beam { beam = [ (hc, t) ]; fraction; hand_coded = Some (hc, hc_prg) }

(* the CPU search's pick. Up to 3 [finalists] are timed with the hand-coded kernel on the whole kernel, 5
   runs each, interleaved; the fastest is kept, a finalist only when faster than the hand-coded kernel by
   [min_gain]: a slice's ranking can differ from the whole kernel's (caches), and timings taken minutes
   apart on a shared machine differ. The kernel kept and its time; None without a finalist other than it. *)
let pick_on_whole_kernel ~(try_compile : compile) ~(time : timer) (hc, hc_prg) finalists
    : (K.t * float) option =
  let others = Helpers.dedupq finalists |> List.filter (fun k -> k != hc) |> Helpers.take 3
               |> List.filter_map (fun k -> match try_compile ~uops_max:0 k with
                   | Some (p, _) -> Some (k, p)
                   | None | (exception _) -> None) in
  if others = [] then None else
  let entries = Array.of_list ((hc, hc_prg) :: others) in
  let times = Array.make (Array.length entries) infinity in
  for _ = 1 to 5 do
    Array.iteri (fun i (_, p) -> match time ~cnt:1 p with
        | t :: _ -> times.(i) <- Float.min times.(i) t
        | [] | (exception _) -> ()) entries
  done;
  let bi = ref 0 in
  Array.iteri (fun i t ->
      if i > 0 && t < times.(!bi) && (!bi > 0 || t < times.(0) *. (1. -. min_gain)) then bi := i) times;
  if Helpers.debug.value >= 2 then
    Printf.printf "BEAM: whole kernel: hand-coded %s, found %s: %s kept\n%!"
      (Helpers.time_to_str ~w:0 times.(0))
      (String.concat ", " (List.map (fun t -> Helpers.time_to_str ~w:0 t) (List.tl (Array.to_list times))))
      (if !bi = 0 then "hand-coded" else Printf.sprintf "finalist %d" !bi);
  Some (fst entries.(!bi), times.(!bi))

(* The stages of a search: tinygrad's, or the CPU mode's *)
type t = {
  extra_actions : Opt.t list;
  cache_key : string option;
  zero_buffers : bool;
  start :
    try_compile:compile -> time:timer -> min_time:float -> seen_libs:(string, unit) Hashtbl.t -> K.t -> start;
  max_upcast : int;
  over_budget : float -> bool;
  chunk : int -> int;
  min_progress : float -> float -> float;
  keeps_finalists : bool;
}

(* tinygrad's search *)
let tinygrad () =
  { extra_actions = []; cache_key = None; zero_buffers = false;
    start = (fun ~try_compile:_ ~time:_ ~min_time:_ ~seen_libs:_ s ->
        Beam { beam = [ (s, infinity) ]; fraction = 1.; hand_coded = None });
    max_upcast = Helpers.beam_upcast_max.value; over_budget = (fun _ -> false); chunk = (fun n -> max 1 n);
    min_progress = (fun m _ -> m); keeps_finalists = false }

(* the CPU search: it starts from the hand-coded kernel; its buffers are zeroed (their pages written) before
   any timing, since untouched pages all read one cached zero page, which favoured tiles that are slower on
   real data; it allows 4x BEAM_UPCAST_MAX, so that the hand-coded register tile (16x8 on AVX-512) can still
   be unrolled or widened; it renders and compiles PARALLEL candidates at a time and starts no chunk once
   over its budget (the candidates of a big kernel take seconds each); a level must gain [min_gain] of the
   best time; the last level's best and the beam before it are checked on the whole kernel *)
let fast ~tinygrad ren =
  { extra_actions = actions ~tinygrad ren; cache_key = Some ("CPU_OPT=fast," ^ search_key ~tinygrad ren);
    zero_buffers = true; start = cpu_start; max_upcast = 4 * Helpers.beam_upcast_max.value;
    over_budget = (fun searched -> searched > budget); chunk = (fun _ -> max 1 Helpers.parallel.value);
    min_progress = (fun m best -> if best < infinity then Float.max m (min_gain *. best) else m);
    keeps_finalists = true }

let policy ~tinygrad:tg (ren : Renderer.t) =
  if Renderer.cpu_fast ren then fast ~tinygrad:tg ren else tinygrad ()
