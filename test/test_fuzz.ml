(* A short seeded run of the differential fuzzer (test/fuzz/fuzz.py) against tinygrad 0.14.0: random programs must
   agree with tinygrad in values, dtypes, shapes, kernel counts and raised errors, in default and NOOPT modes. It needs
   a python that imports tinygrad 0.14.0 ($PYTHON, else python3) and says it was skipped otherwise; `make fuzz N=...`
   runs longer (and makes bench/.venv when no python has tinygrad). *)

open Test_util

let python () = Option.value ~default:"python3" (Sys.getenv_opt "PYTHON")

let has_tinygrad py =
  Sys.command
    (Printf.sprintf "%s -c 'import importlib.metadata as m, numpy, tinygrad; assert m.version(\"tinygrad\") == \"0.14.0\"' >/dev/null 2>&1"
       (Filename.quote py)) = 0

let runner = "_build/default/test/fuzz/fuzz_runner.exe"

(* runs fuzz.py with [args]; fails with its output when it found an unexplained difference *)
let fuzz args () =
  let py = python () in
  if not (Sys.file_exists runner && Sys.file_exists "test/fuzz/fuzz.py") then
    Test_util.skip "fuzz: run from the repository root after `make build`"
  else if not (has_tinygrad py) then
    Test_util.skip "fuzz: tinygrad 0.14.0 is not importable with %s; set PYTHON" py
  else begin
    let log = Filename.temp_file "fuzz" ".log" in
    let rc = Sys.command (Printf.sprintf "%s test/fuzz/fuzz.py --runner %s %s > %s 2>&1"
                            (Filename.quote py) runner args log) in
    let out = read_file log in
    Sys.remove log;
    let lines = List.filter (fun l -> l <> "") (String.split_on_char '\n' out) in
    let last = match List.rev lines with l :: _ -> l | [] -> "" in
    Printf.printf "fuzz %s: %s\n%!" args last;
    check (rc = 0) "fuzzer found differences with tinygrad:\n%s" out
  end

let tests =
  [ ("short_seeded_run_agrees_with_tinygrad", fuzz "--n 100 --seed 0");
    ("short_seeded_run_with_backward_agrees_with_tinygrad", fuzz "--n 40 --seed 1 --grad --modes default") ]
