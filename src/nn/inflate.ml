(* A small DEFLATE (RFC 1951) decoder and gzip (RFC 1952) reader, so [Datasets] reads [.gz] IDX files without a
   C library or an external command. tinygrad: helpers.py [fetch(gunzip=True)] uses Python's [gzip.decompress]. *)

exception Error of string

let err fmt = Printf.ksprintf (fun s -> raise (Error s)) fmt

(* ---------- growable output ---------- *)

type out = { mutable buf : Bytes.t; mutable len : int }

let ensure o n =
  if o.len + n > Bytes.length o.buf then begin
    let cap = ref (max 1024 (Bytes.length o.buf)) in
    while o.len + n > !cap do cap := 2 * !cap done;
    let nb = Bytes.create !cap in
    Bytes.blit o.buf 0 nb 0 o.len;
    o.buf <- nb
  end

let put o c =
  if o.len >= Bytes.length o.buf then ensure o 1;
  Bytes.unsafe_set o.buf o.len c;
  o.len <- o.len + 1

(* ---------- bit input (LSB first) ---------- *)

type st = { src : string; mutable pos : int; lim : int; mutable bitbuf : int; mutable bitcnt : int }

(* at least [need] (<= 24) bits in bitbuf; past the end zeros are shifted in (a few bytes of look-ahead; more means
   the stream was truncated: [check_end] at the end of the stream checks exactly) *)
let fill s need =
  while s.bitcnt < need do
    let b = if s.pos < s.lim then Char.code (String.unsafe_get s.src s.pos)
      else if s.pos > s.lim + 8 then err "inflate: unexpected end of data" else 0 in
    s.pos <- s.pos + 1;
    s.bitbuf <- s.bitbuf lor (b lsl s.bitcnt);
    s.bitcnt <- s.bitcnt + 8
  done

let check_end s = if s.pos - (s.bitcnt / 8) > s.lim then err "inflate: unexpected end of data"

let bits s need =
  if need = 0 then 0
  else begin
    fill s need;
    let v = s.bitbuf land ((1 lsl need) - 1) in
    s.bitbuf <- s.bitbuf lsr need;
    s.bitcnt <- s.bitcnt - need;
    v
  end

(* ---------- Huffman tables: an index by the next [maxlen] input bits ---------- *)

(* entry: symbol lsl 4 lor code length, or -1 where no code matches *)
type huff = { table : int array; maxlen : int }

let build (lengths : int array) n =
  let maxlen = ref 0 in
  for i = 0 to n - 1 do if lengths.(i) > !maxlen then maxlen := lengths.(i) done;
  let maxlen = max 1 !maxlen in
  let count = Array.make 16 0 in
  for i = 0 to n - 1 do count.(lengths.(i)) <- count.(lengths.(i)) + 1 done;
  count.(0) <- 0;
  (* over-subscribed code check *)
  let left = ref 1 in
  for l = 1 to 15 do
    left := (!left lsl 1) - count.(l);
    if !left < 0 then err "inflate: over-subscribed Huffman code"
  done;
  let next = Array.make 16 0 in
  let code = ref 0 in
  for l = 1 to 15 do
    code := (!code + count.(l - 1)) lsl 1;
    next.(l) <- !code
  done;
  let size = 1 lsl maxlen in
  let table = Array.make size (-1) in
  for sym = 0 to n - 1 do
    let l = lengths.(sym) in
    if l > 0 then begin
      let c = next.(l) in
      next.(l) <- c + 1;
      (* the code is sent most significant bit first: reverse it to index LSB-first input *)
      let rev = ref 0 in
      for i = 0 to l - 1 do if c land (1 lsl i) <> 0 then rev := !rev lor (1 lsl (l - 1 - i)) done;
      let e = (sym lsl 4) lor l in
      let k = ref !rev in
      while !k < size do table.(!k) <- e; k := !k + (1 lsl l) done
    end
  done;
  { table; maxlen }

let decode s h =
  fill s h.maxlen;
  let e = h.table.(s.bitbuf land ((1 lsl h.maxlen) - 1)) in
  if e < 0 then err "inflate: invalid Huffman code";
  let l = e land 15 in
  s.bitbuf <- s.bitbuf lsr l;
  s.bitcnt <- s.bitcnt - l;
  e lsr 4

(* ---------- blocks ---------- *)

let lbase = [| 3; 4; 5; 6; 7; 8; 9; 10; 11; 13; 15; 17; 19; 23; 27; 31; 35; 43; 51; 59; 67; 83; 99; 115; 131; 163; 195; 227; 258 |]
let lext = [| 0; 0; 0; 0; 0; 0; 0; 0; 1; 1; 1; 1; 2; 2; 2; 2; 3; 3; 3; 3; 4; 4; 4; 4; 5; 5; 5; 5; 0 |]
let dbase = [| 1; 2; 3; 4; 5; 7; 9; 13; 17; 25; 33; 49; 65; 97; 129; 193; 257; 385; 513; 769; 1025; 1537; 2049; 3073;
               4097; 6145; 8193; 12289; 16385; 24577 |]
let dext = [| 0; 0; 0; 0; 1; 1; 2; 2; 3; 3; 4; 4; 5; 5; 6; 6; 7; 7; 8; 8; 9; 9; 10; 10; 11; 11; 12; 12; 13; 13 |]

let codes s o lencode distcode =
  let fin = ref false in
  while not !fin do
    let sym = decode s lencode in
    if sym < 256 then put o (Char.unsafe_chr sym)
    else if sym = 256 then fin := true
    else begin
      let sym = sym - 257 in
      if sym >= 29 then err "inflate: invalid length symbol";
      let len = lbase.(sym) + bits s lext.(sym) in
      let dsym = decode s distcode in
      if dsym >= 30 then err "inflate: invalid distance symbol";
      let dist = dbase.(dsym) + bits s dext.(dsym) in
      if dist > o.len then err "inflate: distance too far back";
      ensure o len;
      let b = o.buf and start = o.len - dist in
      for i = 0 to len - 1 do Bytes.unsafe_set b (o.len + i) (Bytes.unsafe_get b (start + i)) done;
      o.len <- o.len + len
    end
  done

let fixed_tables = lazy (
  let l = Array.make 288 0 in
  for i = 0 to 143 do l.(i) <- 8 done;
  for i = 144 to 255 do l.(i) <- 9 done;
  for i = 256 to 279 do l.(i) <- 7 done;
  for i = 280 to 287 do l.(i) <- 8 done;
  (build l 288, build (Array.make 30 5) 30))

let order = [| 16; 17; 18; 0; 8; 7; 9; 6; 10; 5; 11; 4; 12; 3; 13; 2; 14; 1; 15 |]

let dynamic s o =
  let nlen = bits s 5 + 257 in
  let ndist = bits s 5 + 1 in
  let ncode = bits s 4 + 4 in
  if nlen > 286 || ndist > 30 then err "inflate: bad code counts";
  let lengths = Array.make 19 0 in
  for i = 0 to ncode - 1 do lengths.(order.(i)) <- bits s 3 done;
  let lencode = build lengths 19 in
  let lengths = Array.make (nlen + ndist) 0 in
  let i = ref 0 in
  while !i < nlen + ndist do
    let sym = decode s lencode in
    if sym < 16 then (lengths.(!i) <- sym; incr i)
    else begin
      let v, rep =
        if sym = 16 then begin
          if !i = 0 then err "inflate: repeat with no first length";
          (lengths.(!i - 1), 3 + bits s 2)
        end
        else if sym = 17 then (0, 3 + bits s 3)
        else (0, 11 + bits s 7) in
      if !i + rep > nlen + ndist then err "inflate: too many lengths";
      for _ = 1 to rep do lengths.(!i) <- v; incr i done
    end
  done;
  if lengths.(256) = 0 then err "inflate: no end-of-block code";
  let lencode = build (Array.sub lengths 0 nlen) nlen in
  let distcode = build (Array.sub lengths nlen ndist) ndist in
  codes s o lencode distcode

let stored s o =
  check_end s;
  s.bitbuf <- 0;
  (* whole bytes left in the bit buffer were read ahead: step back *)
  s.pos <- s.pos - (s.bitcnt / 8);
  s.bitcnt <- 0;
  if s.pos + 4 > s.lim then err "inflate: unexpected end of data";
  let b k = Char.code s.src.[s.pos + k] in
  let len = b 0 lor (b 1 lsl 8) and nlen = b 2 lor (b 3 lsl 8) in
  if len <> (lnot nlen) land 0xffff then err "inflate: stored block length mismatch";
  s.pos <- s.pos + 4;
  if s.pos + len > s.lim then err "inflate: unexpected end of data";
  ensure o len;
  Bytes.blit_string s.src s.pos o.buf o.len len;
  o.len <- o.len + len;
  s.pos <- s.pos + len

(* inflates the raw deflate stream at [pos]; returns the position after it (whole bytes) *)
let inflate_into o src pos =
  let s = { src; pos; lim = String.length src; bitbuf = 0; bitcnt = 0 } in
  let last = ref false in
  while not !last do
    last := bits s 1 = 1;
    match bits s 2 with
    | 0 -> stored s o
    | 1 -> let l, d = Lazy.force fixed_tables in codes s o l d
    | 2 -> dynamic s o
    | _ -> err "inflate: invalid block type 3"
  done;
  check_end s;
  s.pos - (s.bitcnt / 8)

let inflate src =
  let o = { buf = Bytes.create (max 1024 (4 * String.length src)); len = 0 } in
  ignore (inflate_into o src 0);
  Bytes.sub_string o.buf 0 o.len

(* ---------- gzip ---------- *)

let crc_table = lazy (Array.init 256 (fun n ->
    let c = ref n in
    for _ = 0 to 7 do c := if !c land 1 <> 0 then 0xedb88320 lxor (!c lsr 1) else !c lsr 1 done;
    !c))

let crc32 ?(crc = 0) (b : Bytes.t) off len =
  let t = Lazy.force crc_table in
  let c = ref (crc lxor 0xffffffff) in
  for i = off to off + len - 1 do
    c := t.((!c lxor Char.code (Bytes.unsafe_get b i)) land 0xff) lxor (!c lsr 8)
  done;
  !c lxor 0xffffffff

let is_gzip s = String.length s >= 2 && s.[0] = '\x1f' && s.[1] = '\x8b'

(* deflate expands a byte to at most this many *)
let max_expansion = 1032

let gunzip_bytes src =
  let n = String.length src in
  let byte i = if i >= n then err "gunzip: unexpected end of data" else Char.code src.[i] in
  let u32 i = byte i lor (byte (i + 1) lsl 8) lor (byte (i + 2) lsl 16) lor (byte (i + 3) lsl 24) in
  (* a one-member file ends with its decompressed size: the output is allocated once, at that size,
     rather than as four times the input and copied out at the end (a dataset's peak memory) *)
  let size_hint = if n >= 18 then u32 (n - 4) else 0 in
  let cap = if size_hint > 0 && size_hint <= max_expansion * n then size_hint else 4 * n in
  let o = { buf = Bytes.create (max 1024 cap); len = 0 } in
  let pos = ref 0 in
  (* members are concatenated (RFC 1952 2.2) *)
  while !pos < n do
    if byte !pos <> 0x1f || byte (!pos + 1) <> 0x8b then err "gunzip: not in gzip format";
    if byte (!pos + 2) <> 8 then err "gunzip: unknown compression method %d" (byte (!pos + 2));
    let flg = byte (!pos + 3) in
    let p = ref (!pos + 10) in
    if flg land 4 <> 0 then p := !p + 2 + byte !p + (byte (!p + 1) lsl 8);
    let skip_zstr () = while byte !p <> 0 do incr p done; incr p in
    if flg land 8 <> 0 then skip_zstr ();
    if flg land 16 <> 0 then skip_zstr ();
    if flg land 2 <> 0 then p := !p + 2;
    let start = o.len in
    let after = inflate_into o src !p in
    let crc = u32 after and isize = u32 (after + 4) in
    if isize <> (o.len - start) land 0xffffffff then err "gunzip: length check failed";
    if crc <> crc32 o.buf start (o.len - start) then err "gunzip: CRC check failed";
    pos := after + 8;
    (* trailing zero padding after the last member is ignored, as Python's gzip does *)
    let rec only_zeros i = i >= n || (src.[i] = '\x00' && only_zeros (i + 1)) in
    if only_zeros !pos then pos := n
  done;
  o

(* the output buffer itself when it is exactly full (nothing else refers to it) *)
let gunzip src =
  let o = gunzip_bytes src in
  if o.len = Bytes.length o.buf then Bytes.unsafe_to_string o.buf else Bytes.sub_string o.buf 0 o.len
