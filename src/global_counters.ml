(* tinygrad: helpers.py GlobalCounters, re-exported at the top level as [Tinygrad.Global_counters] *)
include Helpers.Global_counters

(* kernels run since the last reset, copies not counted (tinygrad's counter, which counts copies too, is
   [Helpers.Global_counters.kernel_count]) *)
let kernel_count () = !Helpers.Global_counters.compute_kernel_count
