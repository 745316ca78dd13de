(** A small DEFLATE (RFC 1951) decoder and gzip (RFC 1952) reader in OCaml, so {!Datasets} reads [.gz] files without
    a C library or an external command. tinygrad: helpers.py [fetch(gunzip=True)] (Python's [gzip.decompress]). *)

(** A malformed or truncated stream, with the reason. *)
exception Error of string

(** The decompressed bytes of a raw deflate stream. *)
val inflate : string -> string

(** Whether the data start with the gzip magic bytes [1f 8b]. *)
val is_gzip : string -> bool

(** The decompressed bytes of gzip data (all members; CRC-32 and length checked). *)
val gunzip : string -> string

(** The CRC-32 (ISO 3309, as gzip and zlib) of [len] bytes at [off], continuing from [crc] (default 0). *)
val crc32 : ?crc:int -> Bytes.t -> int -> int -> int
