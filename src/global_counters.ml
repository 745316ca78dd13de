(* tinygrad: helpers.py GlobalCounters — module-level counters of the kernels run and the memory allocated,
   kept behind functions: the realize path and the devices count, everyone else reads and resets *)

let ops = ref 0
let mem = ref 0
let time_sum = ref 0.0
let kernels_and_copies = ref 0
let kernels = ref 0
let used = ref 0
let used_per_device : (string, int ref) Hashtbl.t = Hashtbl.create 4

let global_ops () = !ops
let global_mem () = !mem
let time_sum_s () = !time_sum
let kernel_and_copy_count () = !kernels_and_copies
let kernel_count () = !kernels
let mem_used () = !used

(* tinygrad: GlobalCounters.reset (mem_used is not reset) *)
let reset () = ops := 0; mem := 0; time_sum := 0.0; kernels_and_copies := 0; kernels := 0

(* the counting of tinygrad's track_stats *)
let count_run ~copy ~ops:n ~mem:m time =
  incr kernels_and_copies;
  if not copy then incr kernels;
  ops := !ops + n;
  mem := !mem + m;
  Option.iter (fun t -> time_sum := !time_sum +. t) time

let mem_used_on device = match Hashtbl.find_opt used_per_device device with Some c -> !c | None -> 0

(* the counter of the last device counted: every allocation and free counts, mostly on one device, under the
   name string its Buffer keeps *)
let last_counter : (string * int ref) option ref = ref None

let counter device =
  match !last_counter with
  | Some (name, c) when name == device -> c
  | Some _ | None ->
    let c = match Hashtbl.find_opt used_per_device device with
      | Some c -> c
      | None -> let c = ref 0 in Hashtbl.replace used_per_device device c; c in
    last_counter := Some (device, c);
    c

let add_mem_used device n =
  used := !used + n;
  let c = counter device in
  c := !c + n
