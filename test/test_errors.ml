(* User mistakes raise Invalid_argument naming the op and the shapes involved:
   incompatible shapes in binary ops, reshape to a different element count, out-of-range axes, unknown devices.
   Each case runs the op (and reads the result, so an error raised lazily at realize time is also caught) and
   checks the message: it must contain the op's name (any of the given spellings, case-insensitive) and each
   given shape as a run of consecutive integers ("(2, 3)", "[2; 3]", "2x3" all match). *)

open Test_util
module T = Tinygrad.Tensor

(* the integers of a message, in order ("-1" kept as negative) *)
let ints_of s =
  let n = String.length s in
  let rec go i acc =
    if i >= n then List.rev acc
    else
      let neg = s.[i] = '-' && i + 1 < n && s.[i + 1] >= '0' && s.[i + 1] <= '9' in
      let j0 = if neg then i + 1 else i in
      if j0 < n && s.[j0] >= '0' && s.[j0] <= '9' then begin
        let j = ref j0 in
        while !j < n && s.[!j] >= '0' && s.[!j] <= '9' do incr j done;
        let v = int_of_string (String.sub s j0 (!j - j0)) in
        go !j ((if neg then -v else v) :: acc)
      end else go (i + 1) acc in
  go 0 []

(* [sub] occurs as a contiguous run in [l] *)
let rec has_run sub l =
  let rec prefix a b = match a, b with [], _ -> true | x :: xs, y :: ys -> x = y && prefix xs ys | _ -> false in
  prefix sub l || (match l with [] -> false | _ :: r -> has_run sub r)

let contains_ci hay needle =
  let hay = String.lowercase_ascii hay and needle = String.lowercase_ascii needle in
  let lh = String.length hay and ln = String.length needle in
  let rec at i = i + ln <= lh && (String.sub hay i ln = needle || at (i + 1)) in
  at 0

(* [f] must raise Invalid_argument whose message names one of [ops] and contains every shape of [shapes]
   and every string of [words] *)
let expect_invalid ?(words = []) ~ops ~shapes what f =
  match f () with
  | () -> fail "%s: no exception, expected Invalid_argument" what
  | exception Invalid_argument m ->
    check (List.exists (contains_ci m) ops) "%s: message %S names none of the ops [%s]" what m (String.concat ", " ops);
    let is = ints_of m in
    List.iter (fun sh ->
        check (has_run (Array.to_list sh) is) "%s: message %S lacks the shape (%s)" what m
          (String.concat ", " (List.map string_of_int (Array.to_list sh)))) shapes;
    List.iter (fun w -> check (contains_ci m w) "%s: message %S lacks %S" what m w) words
  | exception e -> fail "%s: expected Invalid_argument, got %s" what (Printexc.to_string e)

let t sh = T.ones sh
let force x = ignore (T.to_float_array x)

let test_broadcast () =
  expect_invalid "add (2,3) + (4,5)" ~ops:[ "add" ] ~shapes:[ [| 2; 3 |]; [| 4; 5 |] ]
    (fun () -> force (T.add (t [| 2; 3 |]) (t [| 4; 5 |])));
  expect_invalid "add (3,) + (4,)" ~ops:[ "add" ] ~shapes:[ [| 3 |]; [| 4 |] ]
    (fun () -> force (T.add (t [| 3 |]) (t [| 4 |])));
  expect_invalid "mul (2,3,4) * (3,5)" ~ops:[ "mul" ] ~shapes:[ [| 2; 3; 4 |]; [| 3; 5 |] ]
    (fun () -> force (T.mul (t [| 2; 3; 4 |]) (t [| 3; 5 |])));
  expect_invalid "sub (6,7) - (7,6)" ~ops:[ "sub" ] ~shapes:[ [| 6; 7 |]; [| 7; 6 |] ]
    (fun () -> force (T.sub (t [| 6; 7 |]) (t [| 7; 6 |])))

let test_reshape () =
  expect_invalid "reshape (2,3) -> (4,2)" ~ops:[ "reshape" ] ~shapes:[ [| 2; 3 |]; [| 4; 2 |] ]
    (fun () -> force (T.reshape (t [| 2; 3 |]) [| 4; 2 |]));
  expect_invalid "reshape (2,3) -> (7,)" ~ops:[ "reshape" ] ~shapes:[ [| 2; 3 |]; [| 7 |] ]
    (fun () -> force (T.reshape (t [| 2; 3 |]) [| 7 |]));
  expect_invalid "reshape (2,3) -> (4,-1)" ~ops:[ "reshape" ] ~shapes:[ [| 2; 3 |] ]
    (fun () -> force (T.reshape (t [| 2; 3 |]) [| 4; -1 |]))

let test_axis () =
  expect_invalid "sum axis 2 of (2,3)" ~ops:[ "sum"; "reduce" ] ~shapes:[ [| 2; 3 |] ]
    (fun () -> force (T.sum ~axis:[ 2 ] (t [| 2; 3 |])));
  expect_invalid "sum axis -3 of (2,3)" ~ops:[ "sum"; "reduce" ] ~shapes:[ [| 2; 3 |] ]
    (fun () -> force (T.sum ~axis:[ -3 ] (t [| 2; 3 |])));
  expect_invalid "max axis 5 of (4,)" ~ops:[ "max"; "reduce" ] ~shapes:[ [| 4 |] ]
    (fun () -> force (T.max ~axis:[ 5 ] (t [| 4 |])));
  expect_invalid "permute (0,2) of (2,3)" ~ops:[ "permute" ] ~shapes:[ [| 2; 3 |] ]
    (fun () -> force (T.permute (t [| 2; 3 |]) [| 0; 2 |]));
  expect_invalid "flip axis 3 of (2,3)" ~ops:[ "flip" ] ~shapes:[ [| 2; 3 |] ]
    (fun () -> force (T.flip (t [| 2; 3 |]) [ 3 ]))

let test_device () =
  expect_invalid "unknown device" ~ops:[ "device"; "NOSUCHDEV" ] ~shapes:[] ~words:[ "NOSUCHDEV" ]
    (fun () -> force (T.of_float_array ~device:"NOSUCHDEV" [| 2 |] [| 1.0; 2.0 |]));
  expect_invalid "unknown device (zeros)" ~ops:[ "device"; "NOSUCHDEV" ] ~shapes:[] ~words:[ "NOSUCHDEV" ]
    (fun () -> force (T.zeros ~device:"NOSUCHDEV" [| 3 |]))

(* the message checker itself, on hand-written messages *)
let test_checker () =
  check (ints_of "reshape: (2, 3) -> [4; -1], 2x3" = [ 2; 3; 4; -1; 2; 3 ]) "ints_of";
  check (has_run [ 4; -1 ] [ 2; 3; 4; -1 ]) "has_run";
  check (not (has_run [ 3; 4; 5 ] [ 2; 3; 4; -1 ])) "has_run (absent)";
  check (contains_ci "Add: x" "add") "contains_ci"

(* a broken invariant below a public function is Helpers.Bug, naming the stage and showing the graph; a user's
   Invalid_argument ("op: ...") passes through untouched *)
let test_internal_errors_are_bugs () =
  let module H = Tinygrad.Compiler.Helpers in
  let bug f =
    match H.internal_errors_as_bug ~what:"scheduling" ~show:(fun () -> "SINK(x)") f with
    | () -> fail "expected Bug"
    | exception H.Bug m ->
      check (String.length m > 10 && String.sub m 0 10 = "scheduling") "names the stage: %s" m;
      check (let n = String.length m in String.sub m (n - 7) 7 = "SINK(x)") "shows the graph: %s" m
  in
  bug (fun () -> failwith "x");
  bug (fun () -> raise Not_found);
  bug (fun () -> ignore (List.nth [] 3));
  bug (fun () -> ignore [||].(1));
  bug (fun () -> assert false);
  (match H.internal_errors_as_bug ~what:"s" ~show:(fun () -> "") (fun () -> invalid_arg "reshape: bad") with
   | () -> fail "expected Invalid_argument"
   | exception Invalid_argument m -> check (m = "reshape: bad") "user error untouched: %s" m);
  check (Printexc.to_string (H.Bug "b") <> "") "printer"

let tests : case list =
  [ ("checker", test_checker);
    ("internal_errors_are_bugs", test_internal_errors_are_bugs);
    ("broadcast", test_broadcast);
    ("reshape", test_reshape);
    ("axis", test_axis);
    ("device", test_device) ]
