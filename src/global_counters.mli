(** tinygrad's [GlobalCounters] ([Helpers.Global_counters] at the top level): what the kernels run so far did. *)

(** Operations counted by the kernels run. *)
val global_ops : int ref

(** Bytes moved by the kernels run. *)
val global_mem : int ref

(** Seconds spent in kernels (when timed). *)
val time_sum_s : float ref


(** Bytes allocated on all devices (not reset). *)
val mem_used : int ref

(** Resets ops, mem, time and kernel count (not mem_used). *)
val reset : unit -> unit

(** Adds (or with a negative count, removes) allocated bytes on a device. *)
val add_mem_used : string -> int -> unit

(** Bytes allocated on a device. *)
val mem_used_on : string -> int

(** Compiled kernels run since the last [reset], copies not counted. *)
val kernel_count : unit -> int
