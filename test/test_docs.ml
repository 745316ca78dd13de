(* The documentation stays true: docs/tour.md is what docs/gen_tour.exe prints now, and the README quotes
   examples/readme_example.ml and its output exactly. The executables are built beside this one (make build). *)

open Test_util

let read_file path =
  let ic = open_in_bin path in
  Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic))

(* the repository root: the current directory or a parent of it (else of the executable, which lives in
   <root>/_build*/default/test) holding dune-project, README.md and docs/tour.md *)
let repo_root () =
  let is_root dir = List.for_all (fun f -> Sys.file_exists (Filename.concat dir f)) [ "dune-project"; "README.md"; "docs/tour.md" ] in
  let rec up dir n =
    if is_root dir then Some dir
    else if n = 0 || Filename.dirname dir = dir then None
    else up (Filename.dirname dir) (n - 1) in
  let exe_dir = Filename.dirname (if Filename.is_relative Sys.executable_name
                                  then Filename.concat (Sys.getcwd ()) Sys.executable_name else Sys.executable_name) in
  match up (Sys.getcwd ()) 8 with
  | Some d -> d
  | None -> (match up exe_dir 8 with Some d -> d | None -> fail "test_docs: cannot find the repository root")

(* an executable of this build (_build*/default/<dir>/<name>.exe), beside test/test_main.exe *)
let built_exe dir name =
  let p = Filename.concat (Filename.concat (Filename.dirname (Filename.dirname Sys.executable_name)) dir) name in
  if not (Sys.file_exists p) then fail "%s/%s is not built: run `make build` (or dune build %s/%s)" dir name dir name;
  p

(* stdout of a program (its stderr goes to ours) *)
let run_exe exe =
  let tmp = Filename.temp_file "test_docs" ".out" in
  let rc = Sys.command (Filename.quote_command exe [] ~stdout:tmp) in
  let out = read_file tmp in
  Sys.remove tmp;
  if rc <> 0 then fail "%s exited with %d" exe rc;
  out

let lines s = String.split_on_char '\n' s

(* the first line where two texts differ, for the failure message *)
let first_difference expected actual =
  let rec go i = function
    | e :: es, a :: as_ -> if e = a then go (i + 1) (es, as_) else Printf.sprintf "line %d:\n  committed: %s\n  now:       %s" i e a
    | e :: _, [] -> Printf.sprintf "line %d: committed has %S, the output ends" i e
    | [], a :: _ -> Printf.sprintf "line %d: the output has %S, the committed file ends" i a
    | [], [] -> "no line differs (line endings?)" in
  go 1 (lines expected, lines actual)

let test_tour () =
  let root = repo_root () in
  let committed = read_file (Filename.concat root "docs/tour.md") in
  let now = run_exe (built_exe "docs" "gen_tour.exe") in
  if committed <> now then
    fail "docs/tour.md differs from what docs/gen_tour.exe prints now (%s).\n\
          Regenerate it with `make tour`, read the diff (`git diff docs/tour.md`) and update the prose in \
          docs/gen_tour.ml if it no longer describes the output." (first_difference committed now)

(* the fenced block that follows the marker line [<!-- name -->] in the README *)
let readme_block readme name =
  let marker = "<!-- " ^ name ^ " -->" in
  let rec find = function
    | [] -> fail "README.md: marker %s not found" marker
    | l :: rest when String.trim l = marker ->
      (match rest with
       | fence :: body when String.length fence >= 3 && String.sub fence 0 3 = "```" ->
         let rec take acc = function
           | [] -> fail "README.md: unterminated block after %s" marker
           | l :: _ when String.trim l = "```" -> String.concat "\n" (List.rev acc)
           | l :: t -> take (l :: acc) t in
         take [] body
       | _ -> fail "README.md: no ``` block right after %s" marker)
    | _ :: rest -> find rest in
  find (lines readme)

let trim_end s =
  let n = ref (String.length s) in
  while !n > 0 && (s.[!n - 1] = '\n' || s.[!n - 1] = ' ') do decr n done;
  String.sub s 0 !n

let test_readme_example () =
  let root = repo_root () in
  let readme = read_file (Filename.concat root "README.md") in
  let source = read_file (Filename.concat root "examples/readme_example.ml") in
  let quoted = readme_block readme "readme-example" in
  if trim_end quoted <> trim_end source then
    fail "README.md's example is not examples/readme_example.ml (%s)" (first_difference (trim_end source) (trim_end quoted));
  let out = run_exe (built_exe "examples" "readme_example.exe") in
  let quoted_out = readme_block readme "readme-example-output" in
  check_str ~what:"README.md's example output vs examples/readme_example.exe" (trim_end quoted_out) (trim_end out)

let tests = [ ("tour.md is what gen_tour prints", test_tour); ("README example and its output", test_readme_example) ]
