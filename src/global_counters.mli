(** tinygrad's [GlobalCounters] (helpers.py): what the kernels run so far did, and the memory allocated. The
    counters are read through functions; the realize path counts runs ({!count_run}), the devices count memory
    ({!add_mem_used}). *)

(** Operations counted by the kernels run. *)
val global_ops : unit -> int

(** Bytes moved by the kernels run. *)
val global_mem : unit -> int

(** Seconds spent in kernels (when timed). *)
val time_sum_s : unit -> float

(** Kernels and copies run since the last {!reset} (tinygrad's [kernel_count]). *)
val kernel_and_copy_count : unit -> int

(** Compiled kernels run since the last {!reset}, copies not counted. *)
val kernel_count : unit -> int

(** Bytes allocated on all devices (not reset). *)
val mem_used : unit -> int

(** Resets ops, mem, time and the kernel counts (not the memory). *)
val reset : unit -> unit

(** [count_run ~copy ~ops ~mem time]: a kernel (or with [copy], a copy) ran, doing [ops] operations and moving
    [mem] bytes in [time] seconds when timed. *)
val count_run : copy:bool -> ops:int -> mem:int -> float option -> unit

(** Adds (or with a negative count, removes) allocated bytes on a device. *)
val add_mem_used : string -> int -> unit

(** Bytes allocated on a device. *)
val mem_used_on : string -> int
