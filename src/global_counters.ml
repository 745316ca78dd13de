(* tinygrad: helpers.py GlobalCounters, re-exported at the top level as [Tinygrad.Global_counters] *)
include Helpers.Global_counters
