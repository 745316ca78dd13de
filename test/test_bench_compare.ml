(* bench/compare.py's load column: the CPUs other processes kept busy while a workload ran. A benchmark's ratio to
   torch is only meaningful when both sides saw the same load, so the column must see a process that competes for
   the CPUs, and must not count the benchmark's own CPU time. Needs python3 and Linux's /proc/stat. *)

open Test_util

let python () = "python3"

(* runs [code] with bench/ on python's path; its stdout, or None when it failed (with its output in the failure) *)
let run_python code =
  let script = Filename.temp_file "compare_test" ".py" and out = Filename.temp_file "compare_test" ".out" in
  let oc = open_out script in
  output_string oc ("import sys\nsys.path.insert(0, 'bench')\nimport compare\n" ^ code);
  close_out oc;
  let rc = Sys.command (Printf.sprintf "%s %s > %s 2>&1" (python ()) (Filename.quote script) (Filename.quote out)) in
  let text = read_file out in
  Sys.remove script; Sys.remove out;
  check (rc = 0) "compare.py check failed:\n%s" text;
  String.trim text

let available () =
  Sys.file_exists "bench/compare.py" && Sys.file_exists "/proc/stat"
  && Sys.command (python () ^ " -c 'pass' >/dev/null 2>&1") = 0

(* hand-derived: 3 busy CPU seconds over 2 s, 1 of them the benchmark's own, leave 1 CPU to the others; a window
   shorter than /proc/stat's ticks can resolve gives no figure *)
let others_cpus_arithmetic () =
  if not (available ()) then skip "bench_compare: needs python3, /proc/stat and the repository root"
  else
    check_str ~what:"others_cpus" "1.0 0.0 None"
      (run_python "print(compare.others_cpus(10.0, 13.0, 5.0, 6.0, 2.0), compare.others_cpus(10.0, 11.0, 5.0, 6.5, \
                   2.0), compare.others_cpus(10.0, 13.0, 5.0, 6.0, 0.1))")

(* a fake benchmark that spins on one CPU for 0.6 s between its first call and its result, beside a process that
   spins on the other: the hog is counted (at least half a CPU whatever else runs: the two spinners and any other
   work share the machine), the workload's result and INFO lines are parsed as before *)
let hog_is_counted () =
  if not (available ()) then skip "bench_compare: needs python3, /proc/stat and the repository root"
  else begin
    let out = run_python
        "import subprocess\n\
         spin = 'import time\\nt = time.time()\\nwhile time.time() - t < 0.6: pass\\n'\n\
         fake = 'print(\"INFO\\\\tconfig\\\\tfake\", flush=True)\\nprint(\"INFO\\\\tfirst_call\\\\tw\\\\t1.0\", \
         flush=True)\\n' + spin + 'print(\"RESULT\\\\tw\\\\t2.5\\\\t0\\\\t7\", flush=True)\\n'\n\
         hog = subprocess.Popen([sys.executable, '-c', 'while True: pass'])\n\
         try: res, info = compare.run([sys.executable, '-c', fake], {})\n\
         finally: hog.kill(); hog.wait()\n\
         print(res['w'][0], res['w'][2], info['config'], '%.2f' % info['load']['w'])\n" in
    match String.split_on_char ' ' out with
    | [ ms; reps; config; load ] ->
      check_str ~what:"parsed result" "2.5 7 fake" (String.concat " " [ ms; reps; config ]);
      check (float_of_string load >= 0.5) "a process spinning beside the workload counted as %s CPUs" load
    | _ -> fail "unexpected output: %s" out
  end

let tests =
  [ ("others_cpus_arithmetic", others_cpus_arithmetic); ("a_competing_process_is_counted", hog_is_counted) ]
