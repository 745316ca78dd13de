(** Helpers for the golden corpus (/work/shared/golden/corpus): a minimal JSON reader, SHA-256 and
    tinygrad's [UOp.key] (so a rebuilt kernel AST can be checked against the corpus [ast_key]). *)

(** A JSON value; numbers keep their source text so integers stay exact. *)
type json = Null | Bool of bool | Num of string | Str of string | Arr of json list | Obj of (string * json) list

(** Raised on malformed JSON or a missing/mistyped member. *)
exception Error of string

(** [parse s] parses one JSON document. *)
val parse : string -> json

(** [read_file path] reads and parses the JSON file at [path]. *)
val read_file : string -> json

(** [member k j] is the value of key [k] of the object [j] ([Error] when absent). *)
val member : string -> json -> json

(** [member_opt k j] is the value of key [k] of the object [j], if any. *)
val member_opt : string -> json -> json option

(** The string of a [Str] ([Error] otherwise). *)
val to_str : json -> string

(** The int of a [Num] ([Error] otherwise). *)
val to_int : json -> int

(** The elements of an [Arr] ([Error] otherwise). *)
val to_list : json -> json list

(** [sha256 s] is the raw 32-byte SHA-256 digest of [s]. *)
val sha256 : string -> string

(** [hex s] is the lowercase hex of the bytes of [s]. *)
val hex : string -> string

(** Python's [str((op, dtype, arg))] for a UOp, as tinygrad's [UOp.key] hashes it. *)
val key_str : Tinygrad.Compiler.Uop.t -> string

(** tinygrad [UOp.key]: sha256(str((op, dtype, arg)) + the keys of the srcs), raw bytes. *)
val uop_key : Tinygrad.Compiler.Uop.t -> string

(** The corpus directory ($GOLDEN_CORPUS or /work/shared/golden/corpus). *)
val corpus_dir : unit -> string

(** The corpus program ids (sorted subdirectory names holding [file]), [] when the corpus is absent. *)
val programs : file:string -> string list

(** The codegen entry point the golden and hand-built kernel tests use: [to_program ast] with the ClangRenderer,
    i.e. [Some (fun ast -> Codegen.to_program ast (Cstyle.clang_renderer ()))] once src/codegen/codegen.ml is in
    the build; [None] makes those tests print "skipped" (this is the one line to switch). *)
val to_program : (Tinygrad.Compiler.Uop.t -> Tinygrad.Compiler.Uop.t) option

