(* The golden op-suite replay (/work/shared/golden/ops): every recorded case of tinygrad's test_ops.py run through
   the OCaml translation of its test function (test/ops_cases_{a,b,c}.ml) and compared with tinygrad's stored output
   and gradients (test/ops_harness.ml). The default run replays the first case of every test function; OPS_ALL=1
   (make test-ops) replays every case. The closing line reads "ops golden: M/N pass (fwd), K/L (grad)". *)

module H = Ops_harness

let translations : (string * H.fwd) list = Ops_cases_a.tests @ Ops_cases_b.tests @ Ops_cases_c.tests

(* Cases (case_id, or a test name for all its cases) known to fail, with the reason. A listed case that fails does
   not fail the suite; one that passes is reported so it can be removed from the list. *)
let known_failures : (string * string) list = [
  ("test_meshgrid__14", "meshgrid(indexing=\"bad\") must raise; the OCaml ~indexing is the closed variant [`Ij | `Xy], \
                         so the bad value is a type error, not a runtime one");
]

let known c = match List.assoc_opt c.H.case_id known_failures with
  | Some r -> Some r
  | None -> List.assoc_opt c.H.test_name known_failures

let all_cases () = Sys.getenv_opt "OPS_ALL" = Some "1"

let selected () =
  let cs = H.cases () in
  if all_cases () then cs
  else
    let seen = Hashtbl.create 512 in
    List.filter (fun c -> if Hashtbl.mem seen c.H.test_name then false else (Hashtbl.add seen c.H.test_name (); true)) cs

(* per category: fwd pass, fwd total, grad pass, grad total, grad not run, untranslated *)
type counts = { mutable fp : int; mutable ft : int; mutable gp : int; mutable gt : int; mutable gn : int; mutable miss : int }

let counts : (string, counts) Hashtbl.t = Hashtbl.create 16
let cat c =
  match Hashtbl.find_opt counts c with
  | Some x -> x
  | None -> let x = { fp = 0; ft = 0; gp = 0; gt = 0; gn = 0; miss = 0 } in Hashtbl.add counts c x; x

let known_passing = ref []

let run_one (c : H.case) () =
  let k = cat c.H.category in
  match List.assoc_opt c.H.test_name translations with
  | None -> k.miss <- k.miss + 1; Test_util.skip "%s: no OCaml translation of %s" c.H.case_id c.H.test_name
  | Some f ->
    let fwd, grad = H.run_case f c in
    k.ft <- k.ft + 1;
    if fwd = H.Pass then k.fp <- k.fp + 1;
    (match grad with
     | H.Pass -> k.gt <- k.gt + 1; k.gp <- k.gp + 1
     | H.Fail _ -> k.gt <- k.gt + 1
     | H.Not_run _ -> if c.H.grads <> [] then k.gn <- k.gn + 1);
    let msgs = (match fwd with H.Fail m -> [ "fwd: " ^ m ] | _ -> [])
               @ (match grad with H.Fail m -> [ "grad: " ^ m ] | _ -> []) in
    match msgs, known c with
    | [], Some _ -> known_passing := c.H.case_id :: !known_passing
    | [], None -> ()
    | _ :: _, Some reason -> Test_util.skip "%s: known failure (%s)" c.H.case_id reason
    | _ :: _, None -> Test_util.fail "%s" (String.concat "; " msgs)

let summary () =
  let cats = List.sort compare (Hashtbl.fold (fun k _ acc -> k :: acc) counts []) in
  let tot = { fp = 0; ft = 0; gp = 0; gt = 0; gn = 0; miss = 0 } in
  List.iter (fun name ->
      let k = Hashtbl.find counts name in
      tot.fp <- tot.fp + k.fp; tot.ft <- tot.ft + k.ft; tot.gp <- tot.gp + k.gp; tot.gt <- tot.gt + k.gt;
      tot.gn <- tot.gn + k.gn; tot.miss <- tot.miss + k.miss;
      Printf.printf "  ops golden %-12s fwd %4d/%-4d grad %4d/%-4d (grad not run %d, untranslated %d)\n" name k.fp k.ft
        k.gp k.gt k.gn k.miss) cats;
  List.iter (fun id -> Printf.printf "  ops golden: known failure %s now passes\n" id) (List.rev !known_passing);
  Printf.printf "ops golden: %d/%d pass (fwd), %d/%d (grad)%s; grad not run %d, untranslated %d\n%!" tot.fp tot.ft
    tot.gp tot.gt (if all_cases () then " [all cases]" else " [first case of each test; make test-ops for all]")
    tot.gn tot.miss

let tests : Test_util.case list =
  match selected () with
  | [] -> [ ("suite_found", fun () -> Test_util.skip "ops golden: suite not found (GOLDEN_OPS)") ]
  | cs -> List.map (fun c -> (c.H.case_id, run_one c)) cs @ [ ("summary", summary) ]
