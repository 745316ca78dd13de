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

(* the .ml and .mli files under [dir] (relative to the repository root), recursively *)
let rec source_files root dir =
  let path = Filename.concat root dir in
  List.concat_map (fun f ->
      let rel = dir ^ "/" ^ f in
      if Sys.is_directory (Filename.concat root rel) then source_files root rel
      else if Filename.check_suffix f ".ml" || Filename.check_suffix f ".mli" then [ rel ] else [])
    (List.sort compare (Array.to_list (Sys.readdir path)))

let contains s sub =
  let ls = String.length s and lsub = String.length sub in
  let rec at i = i + lsub <= ls && (String.sub s i lsub = sub || at (i + 1)) in
  at 0

(* [src] without its OCaml comments (nested) and string literals, so that a check sees code only *)
let strip_comments src =
  let b = Buffer.create (String.length src) and n = String.length src in
  let rec code i =
    if i >= n then ()
    else if i + 1 < n && src.[i] = '(' && src.[i + 1] = '*' then comment 1 (i + 2)
    else if src.[i] = '"' then (Buffer.add_string b "\"\""; str (i + 1))
    else (Buffer.add_char b src.[i]; code (i + 1))
  and comment depth i =
    if i >= n then ()
    else if i + 1 < n && src.[i] = '(' && src.[i + 1] = '*' then comment (depth + 1) (i + 2)
    else if i + 1 < n && src.[i] = '*' && src.[i + 1] = ')' then
      (if depth = 1 then code (i + 2) else comment (depth - 1) (i + 2))
    else comment depth (i + 1)
  and str i =
    if i >= n then ()
    else if src.[i] = '\\' then str (i + 2)
    else if src.[i] = '"' then code (i + 1)
    else str (i + 1) in
  code 0;
  Buffer.contents b

(* every file of src/ that marks a divergence ("not in tinygrad", any case) is listed in docs/divergences.md (by its
   path, with or without the extension), so the list of divergences stays whole *)
let test_divergences () =
  let root = repo_root () in
  let doc = read_file (Filename.concat root "docs/divergences.md") in
  let marked = List.filter (fun f ->
      contains (String.lowercase_ascii (read_file (Filename.concat root f))) "not in tinygrad")
      (source_files root "src") in
  check (List.length marked >= 10) "only %d files of src/ mark a divergence: the scan is broken" (List.length marked);
  let missing = List.filter (fun f -> not (contains doc (Filename.remove_extension f))) marked in
  check (missing = []) "docs/divergences.md does not list: %s" (String.concat ", " missing)

(* no pass reaches into the runtime or runs a process: the code (comments and strings left out) of src/uop,
   src/codegen and src/renderer names no module of src/runtime and calls no process function *)
let test_layers () =
  let root = repo_root () in
  let runtime_modules = List.sort_uniq compare (List.filter_map (fun f ->
      if Filename.check_suffix f ".ml" then Some (String.capitalize_ascii (Filename.basename (Filename.remove_extension f)))
      else None) (source_files root "src/runtime")) in
  check (List.mem "Compiler_cpu" runtime_modules) "src/runtime lists no Compiler_cpu: the scan is broken";
  let process_calls = [ "Sys.command"; "Unix.open_process"; "Unix.create_process"; "Unix.fork"; "Unix.exec";
                        "Unix.system" ] in
  let bad = List.concat_map (fun f ->
      let code = strip_comments (read_file (Filename.concat root f)) in
      List.filter_map (fun m -> if contains code (m ^ ".") then Some (f ^ " names " ^ m) else None) runtime_modules
      @ List.filter_map (fun p -> if contains code p then Some (f ^ " calls " ^ p) else None) process_calls)
      (List.concat_map (source_files root) [ "src/uop"; "src/codegen"; "src/renderer" ]) in
  check (bad = []) "a pass reaches into the runtime: %s" (String.concat "; " bad)

let tests = [ ("tour.md is what gen_tour prints", test_tour); ("README example and its output", test_readme_example);
              ("divergences.md lists every marked file", test_divergences);
              ("no pass reaches into the runtime", test_layers) ]
