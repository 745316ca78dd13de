(** Not in tinygrad: the CPU mode's BEAM search (CPU_OPT=fast on the CPU): the stages where
    [Search.beam_search] departs from tinygrad's, which it asks {!policy} for once per kernel. *)

(** A timing of a program: its runs' times ([early_stop]: stop once a run is slower; [cnt] runs; times
    multiplied by [scale]). *)
type timer = ?early_stop:float -> ?cnt:int -> ?scale:float -> Uop.t -> float list

(** [Search.try_compile]: a kernel's program and its compile time, or [None] ([uops_max] 0: no limit). *)
type compile = ?uops_max:int -> Postrange.t -> (Uop.t * float) option

(** [actions ~tinygrad ren]: the actions that express the CPU heuristic's tiles, appended after tinygrad's
    ([tinygrad]): upcasts and unrolls by the host vector widths wider than 4 and by 8, THREAD by the core
    count where tinygrad's amounts miss it, and cache BLOCKs of 2, 4 and 8 iterations on the first three
    axes. *)
val actions : tinygrad:Opt.t list -> Renderer.t -> Opt.t list

(** [shrink_loops k fraction] is [k] with its outer output loops cut to about [1/fraction] of their iterations
    (outermost first) and the ratio of the iterations cut, by which a time of the copy is multiplied;
    [(k, 1.)] when [fraction <= 2]. The CPU search times candidates on such a slice. *)
val shrink_loops : Postrange.t -> float -> Postrange.t * float

(** Seconds: a kernel whose hand-coded time is below it is not searched (the default [min_time] of
    [Search.beam_search]). *)
val min_time : float

(** Where a search starts. *)
type start =
  | Unsearched of Postrange.t  (** the hand-coded kernel, which runs under the search's minimum time *)
  | Beam of { beam : (Postrange.t * float) list; fraction : float; hand_coded : (Postrange.t * Uop.t) option }
  (** the first beam, the slice of the loops candidates are timed on ({!shrink_loops}), and the hand-coded
      kernel with its whole program for the final check *)

(** [pick_on_whole_kernel ~try_compile ~time (hc, prg) finalists]: up to 3 finalists timed with the hand-coded
    kernel on the whole kernel, interleaved; the fastest kept, a finalist only when 2% faster than the
    hand-coded kernel. [None] without a finalist other than it. *)
val pick_on_whole_kernel :
  try_compile:compile -> time:timer -> Postrange.t * Uop.t -> Postrange.t list -> (Postrange.t * float) option

(** The stages of a search. *)
type t = {
  extra_actions : Opt.t list;  (** searched after tinygrad's actions *)
  cache_key : string option;  (** appended to the disk cache key *)
  zero_buffers : bool;  (** the buffers timed on are zeroed first *)
  start : try_compile:compile -> time:timer -> min_time:float -> seen_libs:(string, unit) Hashtbl.t ->
    Postrange.t -> start;  (** where the search starts *)
  max_upcast : int;  (** the upcast limit of an action *)
  over_budget : float -> bool;  (** whether a search that ran this many seconds starts no more candidates *)
  chunk : int -> int;  (** how many of this many candidates are compiled together *)
  min_progress : float -> float -> float;  (** [min_progress m best]: the gain a level must make *)
  keeps_finalists : bool;  (** the last level's best are checked with {!pick_on_whole_kernel} *)
}

(** [policy ~tinygrad ren]: the CPU search where [Renderer.cpu_fast ren] holds, else tinygrad's
    (from the kernel without opts, no extra actions, no budget). *)
val policy : tinygrad:Opt.t list -> Renderer.t -> t
