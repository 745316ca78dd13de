(* A tiny test runner: named cases, failures reported with their message, skips with their reason, and the closing
   line "N passed, N failed, N skipped" that CI reads. *)

exception Failed of string

(* the reasons the running case skipped a check for (empty: it skipped nothing) *)
let skips : string list ref = ref []

(* [skip reason]: the running case could not run a check (an absent corpus, compiler or package); it is reported as
   skipped, with [reason], and not as passed *)
let skip fmt = Printf.ksprintf (fun s -> skips := s :: !skips) fmt

type case = string * (unit -> unit)

let fail fmt = Printf.ksprintf (fun s -> raise (Failed s)) fmt

let check cond fmt = Printf.ksprintf (fun s -> if not cond then raise (Failed s)) fmt

let check_eq ~pp ~eq ~what expected actual =
  if not (eq expected actual) then fail "%s: expected %s, got %s" what (pp expected) (pp actual)

let check_str ~what expected actual = check_eq ~pp:(Printf.sprintf "%S") ~eq:String.equal ~what expected actual
let check_int ~what expected actual = check_eq ~pp:string_of_int ~eq:Int.equal ~what expected actual
let check_bool ~what expected actual = check_eq ~pp:string_of_bool ~eq:Bool.equal ~what expected actual

(* the raising function must raise Invalid_argument *)
let check_invalid_arg ~what f =
  match f () with
  | _ -> fail "%s: expected Invalid_argument" what
  | exception Invalid_argument _ -> ()

(* a realized tensor's buffer (the BUFFER under its UOp's views) *)
(* a whole file as a string *)
let read_file path =
  let ic = open_in_bin path in
  Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic))

(* whether [sub] occurs in [s] *)
let contains s sub =
  let n = String.length sub in
  let rec at i = i + n <= String.length s && (String.sub s i n = sub || at (i + 1)) in
  at 0

let realized_buffer t =
  let open Tinygrad.Compiler in
  match Buffers.realized (Uop.base (Tensor.uop t)) with
  | Some b -> b
  | None -> fail "realized_buffer: the tensor is not realized"

let run_suites (suites : (string * case list) list) =
  let filter = Sys.getenv_opt "TEST_FILTER" in
  (* TEST_SHARD=i/n runs the i-th of n interleaved slices of the selected cases (0 <= i < n), so that n processes
     share a suite *)
  let shard = match Sys.getenv_opt "TEST_SHARD" with
    | None | Some "" -> None
    | Some s -> (match String.split_on_char '/' s with
        | [ i; n ] -> (match int_of_string_opt i, int_of_string_opt n with
            | Some i, Some n when n > 0 && i >= 0 && i < n -> Some (i, n)
            | _ -> invalid_arg ("TEST_SHARD: expected i/n with 0 <= i < n, got " ^ s))
        | _ -> invalid_arg ("TEST_SHARD: expected i/n with 0 <= i < n, got " ^ s)) in
  let index = ref (-1) in
  let passed = ref 0 and failed = ref 0 and skipped = ref 0 and failures = ref [] in
  List.iter (fun (suite, cases) ->
      let p0 = !passed and f0 = !failed and s0 = !skipped in
      List.iter (fun (name, f) ->
          let full = suite ^ "." ^ name in
          let selected = match filter with
            | None | Some "" -> true
            | Some pat ->
              let lp = String.length pat and lf = String.length full in
              let rec has i = i + lp <= lf && (String.sub full i lp = pat || has (i + 1)) in has 0 in
          let selected = selected && (incr index;
                                      match shard with None -> true | Some (i, n) -> !index mod n = i) in
          if selected then begin
            skips := [];
            match f () with
            | () when !skips <> [] ->
              incr skipped;
              List.iter (fun r -> Printf.printf "SKIP %s: %s\n%!" full r) (List.rev !skips)
            | () -> incr passed
            | exception e ->
              incr failed;
              let msg = match e with Failed s -> s | e -> Printexc.to_string e in
              if Sys.getenv_opt "TEST_BACKTRACE" <> None then Printexc.print_backtrace stdout;
              failures := (full, msg) :: !failures;
              Printf.printf "FAIL %s: %s\n%!" full msg
          end) cases;
      if !passed + !failed + !skipped > p0 + f0 + s0 then
        Printf.printf "suite %-20s %4d passed, %d failed, %d skipped\n%!" suite (!passed - p0) (!failed - f0)
          (!skipped - s0)) suites;
  Printf.printf "\n%d passed, %d failed, %d skipped\n" !passed !failed !skipped;
  if !failed > 0 then exit 1
