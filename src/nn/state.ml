(* tinygrad: nn/state.py — state dicts (get_state_dict, get_parameters, load_state_dict) and the safetensors format
   (safe_load_metadata, safe_load, safe_save). tinygrad reads and writes safetensors through DISK tensors (a mapped
   file, copied to the device when realized); we map the file (Unix.map_file, private) and make each tensor a
   buffer of its own that views the mapping on CPU where it is aligned (Device.Buffer.of_bigarray), else a copy made
   at load; the file is written with OCaml channels. *)

(* ---------- a small JSON (the safetensors header); Python json's output format ---------- *)

module Json = struct
  type t = Null | Bool of bool | Int of int | Float of float | String of string | List of t list
         | Assoc of (string * t) list

  (* tinygrad: json.dumps(..., separators=(',', ':')) with ensure_ascii: non-ASCII as \uXXXX (UTF-16) *)
  let escape_string b s =
    Buffer.add_char b '"';
    let n = String.length s in
    let u16 c = Buffer.add_string b (Printf.sprintf "\\u%04x" c) in
    let i = ref 0 in
    while !i < n do
      let c = Char.code s.[!i] in
      (match s.[!i] with
       | '"' -> Buffer.add_string b "\\\""
       | '\\' -> Buffer.add_string b "\\\\"
       | '\n' -> Buffer.add_string b "\\n"
       | '\r' -> Buffer.add_string b "\\r"
       | '\t' -> Buffer.add_string b "\\t"
       | '\b' -> Buffer.add_string b "\\b"
       | '\012' -> Buffer.add_string b "\\f"
       | _ when c < 0x20 || c = 0x7f -> u16 c
       | _ when c < 0x80 -> Buffer.add_char b s.[!i]
       | _ ->
         (* decode one UTF-8 sequence; a malformed byte is written as itself (U+00XX) *)
         let cont k = if !i + k < n then Char.code s.[!i + k] land 0x3f else 0 in
         let cp, len =
           if c land 0xe0 = 0xc0 then (((c land 0x1f) lsl 6) lor cont 1, 2)
           else if c land 0xf0 = 0xe0 then (((c land 0x0f) lsl 12) lor (cont 1 lsl 6) lor cont 2, 3)
           else if c land 0xf8 = 0xf0 then (((c land 0x07) lsl 18) lor (cont 1 lsl 12) lor (cont 2 lsl 6) lor cont 3, 4)
           else (c, 1) in
         if cp >= 0x10000 then begin
           let v = cp - 0x10000 in
           u16 (0xd800 lor (v lsr 10)); u16 (0xdc00 lor (v land 0x3ff))
         end
         else u16 cp;
         i := !i + len - 1);
      incr i
    done;
    Buffer.add_char b '"'

  (* Python's float repr for the finite values JSON can hold *)
  let float_repr f =
    if Float.is_integer f && Float.abs f < 1e16 then Printf.sprintf "%.1f" f
    else
      let rec go p = let s = Printf.sprintf "%.*g" p f in if p >= 17 || float_of_string s = f then s else go (p + 1) in
      go 1

  let rec write b = function
    | Null -> Buffer.add_string b "null"
    | Bool v -> Buffer.add_string b (if v then "true" else "false")
    | Int i -> Buffer.add_string b (string_of_int i)
    | Float f -> Buffer.add_string b (float_repr f)
    | String s -> escape_string b s
    | List l -> Buffer.add_char b '[';
      List.iteri (fun i v -> if i > 0 then Buffer.add_char b ','; write b v) l; Buffer.add_char b ']'
    | Assoc l -> Buffer.add_char b '{';
      List.iteri (fun i (k, v) -> if i > 0 then Buffer.add_char b ','; escape_string b k; Buffer.add_char b ':'; write b v) l;
      Buffer.add_char b '}'

  let to_string v = let b = Buffer.create 256 in write b v; Buffer.contents b

  exception Parse_error of string

  let of_string s =
    let n = String.length s in
    let pos = ref 0 in
    let fail msg = raise (Parse_error (Printf.sprintf "%s at byte %d" msg !pos)) in
    let peek () = if !pos < n then s.[!pos] else '\000' in
    let rec ws () = if !pos < n && (match s.[!pos] with ' ' | '\t' | '\n' | '\r' -> true | _ -> false) then (incr pos; ws ()) in
    let expect c = if peek () = c then incr pos else fail (Printf.sprintf "expected '%c'" c) in
    let add_utf8 b cp =
      if cp < 0x80 then Buffer.add_char b (Char.chr cp)
      else if cp < 0x800 then (Buffer.add_char b (Char.chr (0xc0 lor (cp lsr 6)));
                               Buffer.add_char b (Char.chr (0x80 lor (cp land 0x3f))))
      else if cp < 0x10000 then (Buffer.add_char b (Char.chr (0xe0 lor (cp lsr 12)));
                                 Buffer.add_char b (Char.chr (0x80 lor ((cp lsr 6) land 0x3f)));
                                 Buffer.add_char b (Char.chr (0x80 lor (cp land 0x3f))))
      else (Buffer.add_char b (Char.chr (0xf0 lor (cp lsr 18)));
            Buffer.add_char b (Char.chr (0x80 lor ((cp lsr 12) land 0x3f)));
            Buffer.add_char b (Char.chr (0x80 lor ((cp lsr 6) land 0x3f)));
            Buffer.add_char b (Char.chr (0x80 lor (cp land 0x3f)))) in
    let hex4 () =
      if !pos + 4 > n then fail "short \\u escape";
      let v = try int_of_string ("0x" ^ String.sub s !pos 4) with _ -> fail "bad \\u escape" in
      pos := !pos + 4; v in
    let str () =
      expect '"';
      let b = Buffer.create 16 in
      let rec go () =
        if !pos >= n then fail "unterminated string";
        let c = s.[!pos] in
        incr pos;
        match c with
        | '"' -> ()
        | '\\' ->
          let e = peek () in
          incr pos;
          (match e with
           | '"' -> Buffer.add_char b '"' | '\\' -> Buffer.add_char b '\\' | '/' -> Buffer.add_char b '/'
           | 'b' -> Buffer.add_char b '\b' | 'f' -> Buffer.add_char b '\012' | 'n' -> Buffer.add_char b '\n'
           | 'r' -> Buffer.add_char b '\r' | 't' -> Buffer.add_char b '\t'
           | 'u' ->
             let u = hex4 () in
             if u >= 0xd800 && u < 0xdc00 && !pos + 6 <= n && s.[!pos] = '\\' && s.[!pos + 1] = 'u' then begin
               pos := !pos + 2;
               let l = hex4 () in
               if l >= 0xdc00 && l < 0xe000 then add_utf8 b (0x10000 + ((u - 0xd800) lsl 10) + (l - 0xdc00))
               else (add_utf8 b u; add_utf8 b l)
             end
             else add_utf8 b u
           | _ -> fail "bad escape");
          go ()
        | c -> Buffer.add_char b c; go () in
      go ();
      Buffer.contents b in
    let number () =
      let start = !pos in
      let isnum c = match c with '0' .. '9' | '-' | '+' | '.' | 'e' | 'E' -> true | _ -> false in
      while !pos < n && isnum s.[!pos] do incr pos done;
      let t = String.sub s start (!pos - start) in
      if t = "" then fail "expected a value";
      if String.exists (fun c -> c = '.' || c = 'e' || c = 'E') t then
        (match float_of_string_opt t with Some f -> Float f | None -> fail "bad number")
      else (match int_of_string_opt t with Some i -> Int i
                                          | None -> (match float_of_string_opt t with Some f -> Float f | None -> fail "bad number")) in
    let lit word v = if !pos + String.length word <= n && String.sub s !pos (String.length word) = word
      then (pos := !pos + String.length word; v) else fail "bad literal" in
    let rec value () =
      ws ();
      let v = match peek () with
        | '{' -> incr pos; ws ();
          if peek () = '}' then (incr pos; Assoc [])
          else begin
            let rec members acc =
              ws (); let k = str () in ws (); expect ':'; let v = value () in ws ();
              match peek () with
              | ',' -> incr pos; members ((k, v) :: acc)
              | '}' -> incr pos; Assoc (List.rev ((k, v) :: acc))
              | _ -> fail "expected ',' or '}'" in
            members []
          end
        | '[' -> incr pos; ws ();
          if peek () = ']' then (incr pos; List [])
          else begin
            let rec elems acc =
              let v = value () in ws ();
              match peek () with
              | ',' -> incr pos; elems (v :: acc)
              | ']' -> incr pos; List (List.rev (v :: acc))
              | _ -> fail "expected ',' or ']'" in
            elems []
          end
        | '"' -> String (str ())
        | 't' -> lit "true" (Bool true)
        | 'f' -> lit "false" (Bool false)
        | 'n' -> lit "null" Null
        | _ -> number () in
      ws (); v in
    let v = value () in
    if !pos <> n then fail "trailing data";
    v
end

(* ---------- state dicts ---------- *)

(* tinygrad walks Python objects (__dict__, lists, tuples, dicts, namedtuples); OCaml has no reflection, so a model
   describes itself as this tree (attribute names as tinygrad's, in attribute order). *)
type obj = Tensor of Tensor.t | List of obj list | Dict of (string * obj) list | Nothing

(* a layer's named tensors (its [state_dict]) as an object with those attributes *)
let of_named (l : (string * Tensor.t) list) : obj = Dict (List.map (fun (k, t) -> (k, Tensor t)) l)

(* tinygrad: nn/state.py get_state_dict *)
let get_state_dict ?(prefix = "") (o : obj) : (string * Tensor.t) list =
  let order = ref [] and tbl = Hashtbl.create 16 in
  let add k v =
    match Hashtbl.find_opt tbl k with
    | Some r -> r := v
    | None -> Hashtbl.add tbl k (ref v); order := k :: !order in
  let strip_dots s =
    let n = String.length s in
    let i = ref 0 and j = ref n in
    while !i < n && s.[!i] = '.' do incr i done;
    while !j > !i && s.[!j - 1] = '.' do decr j done;
    String.sub s !i (!j - !i) in
  let rec go prefix = function
    | Tensor t -> add (strip_dots prefix) t
    | List l -> List.iteri (fun i x -> go (prefix ^ string_of_int i ^ ".") x) l
    | Dict d -> List.iter (fun (k, v) -> go (prefix ^ k ^ ".") v) d
    | Nothing -> () in
  go prefix o;
  List.rev_map (fun k -> (k, !(Hashtbl.find tbl k))) !order

(* torch's name for get_state_dict *)
let state_dict ?prefix o = get_state_dict ?prefix o

(* tinygrad: nn/state.py get_parameters *)
let get_parameters (o : obj) : Tensor.t list = List.map snd (get_state_dict o)

let shape_str s = "(" ^ String.concat ", " (List.map string_of_int (Array.to_list s)) ^ (if Array.length s = 1 then ",)" else ")")

(* tinygrad: Tensor.replace — the tensor now stands for [x]'s graph *)
let replace (v : Tensor.t) (x : Tensor.t) =
  if Tensor.shape v <> Tensor.shape x then
    invalid_arg (Printf.sprintf "replace: shape mismatch %s != %s" (shape_str (Tensor.shape v)) (shape_str (Tensor.shape x)));
  Tensor_base.set_uop v (Tensor.uop x)

(* tinygrad: nn/state.py load_state_dict (no [consume]); a sharded or replicated model tensor gets the value on
   its devices, split along its axis *)
let load_state_dict ?(strict = true) ?(verbose = true) ?(realize = true) (model : obj)
    (state_dict : (string * Tensor.t) list) : Tensor.t list =
  let start_mem_used = Global_counters.mem_used () in
  let st = Helpers.perf_counter () in
  let model_state_dict = get_state_dict model in
  let debug = Helpers.debug.value in
  if debug >= 1 && List.length state_dict > List.length model_state_dict then begin
    let unused = List.filter (fun (k, _) -> not (List.mem_assoc k model_state_dict)) state_dict in
    Printf.printf "WARNING: unused weights in state_dict [%s]\n%!"
      (String.concat ", " (List.sort compare (List.map (fun (k, _) -> "'" ^ k ^ "'") unused)))
  end;
  let ret = List.filter_map (fun (k, v) ->
      match List.assoc_opt k state_dict with
      | None when not strict -> if debug >= 1 then Printf.printf "WARNING: not loading %s\n%!" k; None
      | None -> invalid_arg (Printf.sprintf "load_state_dict: key %s missing from the state dict" k)
      | Some s ->
        let s =
          if Tensor.shape v = Tensor.shape s then s
          else if (Tensor.shape v = [||] && Tensor.shape s = [| 1 |]) || (Tensor.shape v = [| 1 |] && Tensor.shape s = [||])
          then Tensor.reshape s (Tensor.shape v)
          else invalid_arg (Printf.sprintf
                              "load_state_dict: Shape mismatch in layer `%s`: Expected shape %s, but found %s in state dict." k
                              (shape_str (Tensor.shape v)) (shape_str (Tensor.shape s))) in
        replace v (if Tensor.is_sharded v then (if Tensor.is_sharded s then s else Tensor.shard_like s v)
                   else Tensor.to_device s (Tensor.device v));
        if realize then ignore (Tensor.realize v);
        Some v) model_state_dict in
  if verbose then begin
    let et = Helpers.perf_counter () -. st in
    let b = float_of_int (Global_counters.mem_used () - start_mem_used) in
    Printf.printf "loaded weights in %7.2f ms, %.2f GB loaded at %.2f GB/s\n%!" (et *. 1e3) (b /. 1e9)
      (if et > 0. then b /. (et *. 1e9) else 0.)
  end;
  ret

(* ---------- safetensors ---------- *)

(* tinygrad: nn/state.py safe_dtypes *)
let safe_dtypes =
  [ ("BOOL", Dtype.Bool); ("I8", Dtype.Int8); ("U8", Dtype.Uint8); ("I16", Dtype.Int16); ("U16", Dtype.Uint16);
    ("I32", Dtype.Int32); ("U32", Dtype.Uint32); ("I64", Dtype.Int64); ("U64", Dtype.Uint64);
    ("F8_E4M3", Dtype.Fp8e4m3); ("F8_E5M2", Dtype.Fp8e5m2); ("F16", Dtype.Float16); ("BF16", Dtype.Bfloat16);
    ("F32", Dtype.Float32); ("F64", Dtype.Float64) ]

let inverse_safe_dtypes = List.map (fun (k, v) -> (v, k)) safe_dtypes

(* a uint8 tensor holding the bytes (one copy into a fresh device buffer) *)
let tensor_of_bytes ?device (s : string) : Tensor.t =
  let device = Mixin_creation.canonicalize_device ~op:"safe_load" device in
  let n = String.length s in
  let b = Device.Buffer.create device n Dtype.Uint8 in
  if n > 0 then begin
    let ba = Bigarray.Array1.create Bigarray.char Bigarray.c_layout n in
    for i = 0 to n - 1 do Bigarray.Array1.unsafe_set ba i (String.unsafe_get s i) done;
    Device.Buffer.copyin b ba
  end;
  Tensor_base.wrap ~op:"safe_load" (Mixin_movement.reshape (Buffers.from_buffer b) [ Uop.Sint n ])

(* the bytes of a tensor in C order (realizes) *)
let tensor_data (t : Tensor.t) : string =
  if Tensor.numel t = 0 then ""
  else begin
    let u8 = Tensor.contiguous (Tensor.bitcast (Tensor.reshape t [| Tensor.numel t |]) Dtype.Uint8) in
    let v = Tensor.to_int_array u8 in
    String.init (Array.length v) (fun i -> Char.unsafe_chr (v.(i) land 0xff))
  end

(* ---- reading: the header checks shared by files and tensors ---- *)

type entry = { key : string; dtype : Dtype.t; shape : int array; start : int; stop : int }

(* tinygrad: nn/state.py safe_load_metadata's header, checked against a data section of [dlen] bytes: every entry has
   a known dtype, a shape of non-negative ints, offsets inside the data matching the shape's byte size, and no two
   entries overlap *)
let parse_header ~what ~dlen (meta : Json.t) : entry list =
  let fail fmt = Printf.ksprintf (fun m -> invalid_arg (Printf.sprintf "safe_load: %s: %s" what m)) fmt in
  let entries = match meta with Json.Assoc l -> l | _ -> fail "header is not a JSON object" in
  let entries = List.filter_map (fun (k, v) ->
      if k = "__metadata__" then None
      else begin
        let fields = match v with Json.Assoc l -> l | _ -> fail "tensor %S: entry is not a JSON object" k in
        let field f = match List.assoc_opt f fields with Some x -> x | None -> fail "tensor %S: no %S" k f in
        let dtype = match field "dtype" with
          | Json.String d ->
            (match List.assoc_opt d safe_dtypes with Some dt -> dt | None -> fail "tensor %S: unknown dtype %S" k d)
          | _ -> fail "tensor %S: dtype is not a string" k in
        let ints f = match field f with
          | Json.List l -> List.map (function Json.Int i when i >= 0 -> i | _ -> fail "tensor %S: bad %s" k f) l
          | _ -> fail "tensor %S: %s is not a list" k f in
        let shape = Array.of_list (ints "shape") in
        let start, stop = match ints "data_offsets" with [ a; b ] -> (a, b) | _ -> fail "tensor %S: data_offsets is not [begin, end]" k in
        if stop < start || stop > dlen then
          fail "tensor %S: data_offsets [%d, %d] out of range (the data section has %d bytes)" k start stop dlen;
        let numel = Array.fold_left (fun acc d -> if d > 0 && acc > max_int / d then fail "tensor %S: shape %s too large" k (shape_str shape) else acc * d) 1 shape in
        if numel > max_int / Dtype.itemsize dtype || numel * Dtype.itemsize dtype <> stop - start then
          fail "tensor %S: %d bytes for shape %s of %s" k (stop - start) (shape_str shape) (Dtype.to_string dtype);
        Some { key = k; dtype; shape; start; stop }
      end) entries in
  let by_start = List.sort (fun a b -> compare (a.start, a.stop) (b.start, b.stop)) (List.filter (fun e -> e.stop > e.start) entries) in
  ignore (List.fold_left (fun prev e ->
      (match prev with
       | Some p when e.start < p.stop -> fail "tensors %S and %S overlap (bytes [%d, %d] and [%d, %d])" p.key e.key p.start p.stop e.start e.stop
       | _ -> ());
      Some e) None by_start);
  entries

let le_int64 get off =
  let r = ref 0L in
  for i = 7 downto 0 do r := Int64.logor (Int64.shift_left !r 8) (Int64.of_int (Char.code (get (off + i)))) done;
  !r

(* the data start from the first 8 bytes (a little-endian u64 header length), checked against the file size *)
let data_start_of ~what ~len get =
  if len < 8 then invalid_arg (Printf.sprintf "safe_load: %s: %d bytes, too short for a safetensors header" what len);
  let n = le_int64 get 0 in
  if Int64.compare n 0L < 0 || Int64.compare n (Int64.of_int (len - 8)) > 0 then
    invalid_arg (Printf.sprintf "safe_load: %s: header length %Lu past the end (%d bytes)" what n len);
  8 + Int64.to_int n

let parse_json ~what j =
  try Json.of_string j with Json.Parse_error m -> invalid_arg (Printf.sprintf "safe_load: %s: header is not JSON: %s" what m)

(* tinygrad: nn/state.py safe_load_metadata — the file as a uint8 tensor, the data start, the JSON header *)
let safe_load_metadata_tensor (t : Tensor.t) : Tensor.t * int * Json.t =
  if Tensor.ndim t <> 1 || Tensor.dtype t != Dtype.Uint8 then invalid_arg "safe_load: Tensor must be 1d and of dtype uint8!";
  let len = (Tensor.shape t).(0) in
  let head = if len < 8 then "" else tensor_data (Tensor.shrink t [| (0, 8) |]) in
  let data_start = data_start_of ~what:"tensor" ~len (String.get head) in
  let meta = parse_json ~what:"tensor" (tensor_data (Tensor.shrink t [| (8, data_start) |])) in
  (t, data_start, meta)

(* tinygrad: nn/state.py safe_load *)
let safe_load_tensor (t : Tensor.t) : (string * Tensor.t) list =
  let t, data_start, metadata = safe_load_metadata_tensor t in
  let len = (Tensor.shape t).(0) in
  let data = Tensor.shrink t [| (data_start, len) |] in
  List.map (fun e ->
      let slice = Tensor.shrink data [| (e.start, e.stop) |] in
      let slice = if e.dtype == Dtype.Uint8 then slice else Tensor.bitcast slice e.dtype in
      (e.key, Tensor.reshape slice e.shape)) (parse_header ~what:"tensor" ~dlen:(len - data_start) metadata)

(* ---- reading files: mapped, tensors viewing the mapping ---- *)

type mapping = (char, Bigarray.int8_unsigned_elt, Bigarray.c_layout) Bigarray.Array1.t

(* the file mapped privately (copy-on-write: writes through a view never reach the file) *)
let map_file ?(op = "safe_load") fn : mapping =
  let fd = try Unix.openfile fn [ Unix.O_RDONLY; Unix.O_CLOEXEC ] 0
    with Unix.Unix_error (e, _, _) -> invalid_arg (Printf.sprintf "%s: %s: %s" op fn (Unix.error_message e)) in
  Fun.protect ~finally:(fun () -> Unix.close fd) (fun () ->
      let len = (Unix.fstat fd).Unix.st_size in
      if len = 0 then Bigarray.Array1.create Bigarray.char Bigarray.c_layout 0
      else
        try Bigarray.array1_of_genarray (Unix.map_file fd Bigarray.char Bigarray.c_layout false [| len |])
        with Unix.Unix_error (e, _, _) -> invalid_arg (Printf.sprintf "%s: %s: cannot map: %s" op fn (Unix.error_message e)))

external release_pages : mapping -> unit = "tg_ba_release_pages"

(* a tensor of the bytes [m] holds, as [dtype] and [shape]: a view of the mapping where the device and alignment
   allow (Device.Buffer.of_bigarray), else a copy, after which the mapped pages leave the resident set *)
let tensor_of_mapping ~device dtype shape (m : mapping) =
  let b = Device.Buffer.of_bigarray ~device dtype (Bigarray.genarray_of_array1 m) in
  if not (Device.Buffer.shares_memory b (Bigarray.genarray_of_array1 m)) then release_pages m;
  let u = Buffers.from_buffer b in
  Tensor_base.wrap ~op:"safe_load" (Mixin_movement.reshape u (Array.to_list (Array.map (fun d -> Uop.Sint d) shape)))

let mapped_header fn =
  let m = map_file fn in
  let len = Bigarray.Array1.dim m in
  let data_start = data_start_of ~what:fn ~len (Bigarray.Array1.get m) in
  let meta = parse_json ~what:fn (String.init (data_start - 8) (fun i -> Bigarray.Array1.get m (8 + i))) in
  (m, data_start, meta)

let safe_load_metadata ?device (fn : string) =
  let device = Mixin_creation.canonicalize_device ~op:"safe_load" device in
  let m, data_start, meta = mapped_header fn in
  (tensor_of_mapping ~device Dtype.Uint8 [| Bigarray.Array1.dim m |] m, data_start, meta)

let safe_load ?device (fn : string) : (string * Tensor.t) list =
  let device = Mixin_creation.canonicalize_device ~op:"safe_load" device in
  let m, data_start, meta = mapped_header fn in
  let entries = parse_header ~what:fn ~dlen:(Bigarray.Array1.dim m - data_start) meta in
  List.map (fun e ->
      (e.key, tensor_of_mapping ~device e.dtype e.shape (Bigarray.Array1.sub m (data_start + e.start) (e.stop - e.start))))
    entries

let round_up n m = (n + m - 1) / m * m

(* tinygrad: nn/state.py safe_save *)
let safe_save ?metadata (tensors : (string * Tensor.t) list) (fn : string) : unit =
  if List.exists (fun (_, v) -> Dtype.is_weak (Tensor.dtype v)) tensors then invalid_arg "safe_save: safe_save requires concrete dtypes";
  let offset = ref 0 in
  let headers = List.map (fun (k, v) ->
      let dt = Tensor.dtype v in
      let name = match List.assq_opt dt inverse_safe_dtypes with
        | Some n -> n | None -> invalid_arg ("safe_save: no safetensors name for " ^ Dtype.to_string dt) in
      let nbytes = Tensor.numel v * Dtype.itemsize dt in
      let h = (k, Json.Assoc [ ("dtype", Json.String name);
                               ("shape", Json.List (List.map (fun d -> Json.Int d) (Array.to_list (Tensor.shape v))));
                               ("data_offsets", Json.List [ Json.Int !offset; Json.Int (!offset + nbytes) ]) ]) in
      offset := !offset + nbytes;
      h) tensors in
  let headers = match metadata with
    | Some (_ :: _ as m) -> ("__metadata__", Json.Assoc (List.map (fun (k, v) -> (k, Json.String v)) m)) :: headers
    | _ -> headers in
  let j = Json.to_string (Json.Assoc headers) in
  let j = j ^ String.make (round_up (String.length j) 8 - String.length j) ' ' in
  let datas = List.map (fun (_, v) -> tensor_data v) tensors in
  let oc = open_out_bin fn in
  Fun.protect ~finally:(fun () -> close_out oc) (fun () ->
      let n = String.length j in
      for i = 0 to 7 do output_char oc (Char.chr ((n lsr (8 * i)) land 0xff)) done;
      output_string oc j;
      List.iter (output_string oc) datas)

(* ---------- archives: zip and tar ---------- *)

(* the bytes of an archive or checkpoint: a mapped file (tensors view the mapping where they can) or a tensor's
   data (tensors are slices of it); [view dt off n] is the [n] bytes at [off] as a 1-d tensor of [dt] *)
type source = { what : string; len : int; get : int -> char; view : Dtype.t -> int -> int -> Tensor.t }

let source_sub src off n = String.init n (fun i -> src.get (off + i))

let source_of_mapping ~device what (m : mapping) =
  let len = Bigarray.Array1.dim m in
  let view dt off n =
    if n = 0 then Tensor.empty ~dtype:dt ~device [| 0 |]
    else tensor_of_mapping ~device dt [| n / Dtype.itemsize dt |] (Bigarray.Array1.sub m off n) in
  { what; len; get = Bigarray.Array1.get m; view }

let source_of_tensor (t : Tensor.t) =
  if Tensor.ndim t <> 1 || Tensor.dtype t != Dtype.Uint8 then
    invalid_arg (Printf.sprintf "torch_load: the tensor must be 1-d uint8, not %s of shape %s"
                   (Dtype.to_string (Tensor.dtype t)) (shape_str (Tensor.shape t)));
  let data = tensor_data t in
  let view dt off n =
    let s = Tensor.shrink t [| (off, off + n) |] in
    if dt == Dtype.Uint8 then s else Tensor.bitcast s dt in
  { what = "tensor"; len = String.length data; get = String.get data; view }

(* a file of an archive: where its bytes start and how many, and whether they are deflated *)
type member = { fname : string; off : int; size : int; deflated : bool }

let le_at src off n =
  if off < 0 || off + n > src.len then
    invalid_arg (Printf.sprintf "zip_extract: %s: read of %d bytes at %d past the end (%d bytes)" src.what n off src.len);
  let r = ref 0 in
  for i = n - 1 downto 0 do r := (!r lsl 8) lor Char.code (src.get (off + i)) done;
  !r

let has_magic src off m = off >= 0 && off + String.length m <= src.len && source_sub src off (String.length m) = m

(* the end of central directory record, searched backwards over the comment that may follow it *)
let find_eocd src =
  let rec go i = if i < 0 || i < src.len - 22 - 0xffff then None else if has_magic src i "PK\005\006" then Some i
    else go (i - 1) in
  go (src.len - 22)

(* tinygrad: nn/state.py zip_extract (Python's zipfile reads the central directory; zip64 included) *)
let zip_members src : member list =
  let fail fmt = Printf.ksprintf (fun m -> invalid_arg (Printf.sprintf "zip_extract: %s: %s" src.what m)) fmt in
  let eocd = match find_eocd src with Some e -> e | None -> fail "not a zip file (no end of central directory)" in
  let entries = le_at src (eocd + 10) 2 and cd_off = le_at src (eocd + 16) 4 in
  let entries, cd_off =
    if (entries = 0xffff || cd_off = 0xffffffff) && has_magic src (eocd - 20) "PK\006\007" then begin
      let z64 = le_at src (eocd - 20 + 8) 8 in
      if not (has_magic src z64 "PK\006\006") then fail "bad zip64 end of central directory at %d" z64;
      (le_at src (z64 + 32) 8, le_at src (z64 + 48) 8)
    end else (entries, cd_off) in
  let rec entry i p acc =
    if i = entries then List.rev acc
    else begin
      if not (has_magic src p "PK\001\002") then fail "bad central directory entry %d at %d" i p;
      let meth = le_at src (p + 10) 2 and csize = le_at src (p + 20) 4 and usize = le_at src (p + 24) 4 in
      let nlen = le_at src (p + 28) 2 and xlen = le_at src (p + 30) 2 and clen = le_at src (p + 32) 2 in
      let hoff = le_at src (p + 42) 4 in
      let fname = source_sub src (p + 46) (min nlen (max 0 (src.len - p - 46))) in
      (* zip64 extra field: the 8-byte values of the fields that hold 0xffffffff, in this order *)
      let rec extra q csize hoff =
        if q + 4 > p + 46 + nlen + xlen then (csize, hoff)
        else if le_at src q 2 = 1 then begin
          let r = ref (q + 4) in
          let next v = if v = 0xffffffff then (let x = le_at src !r 8 in r := !r + 8; x) else v in
          ignore (next usize);
          let csize = next csize in
          let hoff = next hoff in
          (csize, hoff)
        end else extra (q + 4 + le_at src (q + 2) 2) csize hoff in
      let csize, hoff = extra (p + 46 + nlen) csize hoff in
      if not (has_magic src hoff "PK\003\004") then fail "%s: no local header at %d" fname hoff;
      let off = hoff + 30 + le_at src (hoff + 26) 2 + le_at src (hoff + 28) 2 in
      if csize < 0 || off + csize > src.len then fail "%s: %d bytes at %d past the end (%d bytes)" fname csize off src.len;
      let deflated = match meth with 0 -> false | 8 -> true | m -> fail "%s: compression %d not supported" fname m in
      entry (i + 1) (p + 46 + nlen + xlen + clen) ({ fname; off; size = csize; deflated } :: acc)
    end in
  entry 0 cd_off []

(* the bytes of a member (inflated if deflated), for the pickles *)
let member_bytes src m =
  let raw = source_sub src m.off m.size in
  if m.deflated then (try Inflate.inflate raw
                      with Inflate.Error e -> invalid_arg (Printf.sprintf "zip_extract: %s: %s: %s" src.what m.fname e))
  else raw

(* a member as a 1-d uint8 tensor: a view where it is stored, else its inflated bytes *)
let member_tensor src m = if m.deflated then tensor_of_bytes (member_bytes src m) else src.view Dtype.Uint8 m.off m.size

let tar_octal src ~off ~n =
  if Char.code (src.get off) land 0x80 <> 0 then
    (* base-256 for sizes past 8 GiB *)
    (let r = ref (Char.code (src.get off) land 0x7f) in
     for i = 1 to n - 1 do r := (!r lsl 8) lor Char.code (src.get (off + i)) done; Some !r)
  else begin
    let s = String.trim (String.map (fun c -> if c = '\000' then ' ' else c) (source_sub src off n)) in
    if s = "" then Some 0 else int_of_string_opt ("0o" ^ s)
  end

(* a tar header's checksum: its bytes summed with the checksum field read as spaces (Python's tarfile) *)
let tar_checksum_ok src off =
  off + 512 <= src.len
  && (match tar_octal src ~off:(off + 148) ~n:8 with
      | Some c ->
        let s = ref 0 in
        for i = 0 to 511 do s := !s + (if i >= 148 && i < 156 then 32 else Char.code (src.get (off + i))) done;
        c = !s
      | None -> false)

let cstring src off n =
  let s = source_sub src off n in
  match String.index_opt s '\000' with Some i -> String.sub s 0 i | None -> s

(* tinygrad: nn/state.py tar_extract — the regular files of a tar archive (ustar prefixes, GNU and pax long names) *)
let tar_members src : member list =
  let fail fmt = Printf.ksprintf (fun m -> invalid_arg (Printf.sprintf "tar_extract: %s: %s" src.what m)) fmt in
  let rec go off long_name acc =
    if off + 512 > src.len || String.for_all (fun c -> c = '\000') (source_sub src off 512) then List.rev acc
    else begin
      if not (tar_checksum_ok src off) then fail "bad header checksum at %d" off;
      let size = match tar_octal src ~off:(off + 124) ~n:12 with Some s -> s | None -> fail "bad size at %d" off in
      let data = off + 512 in
      if data + size > src.len then fail "member at %d: %d bytes past the end (%d bytes)" off size src.len;
      let next = data + (size + 511) / 512 * 512 in
      let name = match long_name with
        | Some n -> n
        | None ->
          let prefix = if has_magic src (off + 257) "ustar" then cstring src (off + 345) 155 else "" in
          let n = cstring src off 100 in
          if prefix = "" then n else prefix ^ "/" ^ n in
      match src.get (off + 156) with
      | '0' | '\000' -> go next None ({ fname = name; off = data; size; deflated = false } :: acc)
      | 'L' -> go next (Some (cstring src data size)) acc
      | 'x' ->
        (* pax records "LEN key=value\n": only the path matters here *)
        let recs = String.split_on_char '\n' (source_sub src data size) in
        let path = List.find_map (fun r -> match String.index_opt r ' ' with
            | Some i -> let kv = String.sub r (i + 1) (String.length r - i - 1) in
              if String.starts_with ~prefix:"path=" kv then Some (String.sub kv 5 (String.length kv - 5)) else None
            | None -> None) recs in
        go next path acc
      | _ -> go next None acc
    end in
  go 0 None []

let zip_extract_source src = List.map (fun m -> (m.fname, member_tensor src m)) (zip_members src)
let tar_extract_source src = List.map (fun m -> (m.fname, src.view Dtype.Uint8 m.off m.size)) (tar_members src)

let with_file_source ?device ~op fn f =
  let device = Mixin_creation.canonicalize_device ~op device in
  f (source_of_mapping ~device fn (map_file ~op fn))

let zip_extract ?device fn = with_file_source ?device ~op:"zip_extract" fn zip_extract_source
let zip_extract_tensor t = zip_extract_source (source_of_tensor t)
let tar_extract ?device fn = with_file_source ?device ~op:"tar_extract" fn tar_extract_source
let tar_extract_tensor t = tar_extract_source (source_of_tensor t)

(* ---------- torch checkpoints ---------- *)

(* the dtypes of torch's typed storages (tinygrad's torch_load intercept, completed) and of its dtype globals *)
let torch_storage_dtypes =
  [ ("FloatStorage", Dtype.Float32); ("DoubleStorage", Dtype.Float64); ("HalfStorage", Dtype.Float16);
    ("BFloat16Storage", Dtype.Bfloat16); ("LongStorage", Dtype.Int64); ("IntStorage", Dtype.Int32);
    ("ShortStorage", Dtype.Int16); ("CharStorage", Dtype.Int8); ("ByteStorage", Dtype.Uint8);
    ("BoolStorage", Dtype.Bool); ("UntypedStorage", Dtype.Uint8) ]

let torch_dtypes =
  [ ("float32", Dtype.Float32); ("float", Dtype.Float32); ("float64", Dtype.Float64); ("double", Dtype.Float64);
    ("float16", Dtype.Float16); ("half", Dtype.Float16); ("bfloat16", Dtype.Bfloat16); ("int64", Dtype.Int64);
    ("long", Dtype.Int64); ("int32", Dtype.Int32); ("int", Dtype.Int32); ("int16", Dtype.Int16);
    ("short", Dtype.Int16); ("int8", Dtype.Int8); ("uint8", Dtype.Uint8); ("bool", Dtype.Bool);
    ("uint16", Dtype.Uint16); ("uint32", Dtype.Uint32); ("uint64", Dtype.Uint64);
    ("float8_e4m3fn", Dtype.Fp8e4m3); ("float8_e5m2", Dtype.Fp8e5m2); ("float8_e4m3fnuz", Dtype.Fp8e4m3fnuz);
    ("float8_e5m2fnuz", Dtype.Fp8e5m2fnuz) ]

(* a storage of a checkpoint: its key, its element dtype (uint8 for an untyped storage) and element count *)
type storage = { skey : string; sdtype : Dtype.t; numel : int }

let pickle_int ~what = function
  | Pickle.Int z when Z.fits_int z -> Z.to_int z
  | v -> invalid_arg (Printf.sprintf "torch_load: %s: expected an int, got %s" what (Pickle.to_string v))

let pickle_key = function
  | Pickle.Str s | Pickle.Bytes s -> s
  | Pickle.Int z -> Z.to_string z
  | v -> invalid_arg ("torch_load: a storage key that is not a string: " ^ Pickle.to_string v)

(* a storage type global: torch.FloatStorage ... *)
let storage_dtype ~what = function
  | Pickle.Global (m, n) when String.starts_with ~prefix:"torch" m ->
    (match List.assoc_opt n torch_storage_dtypes with
     | Some d -> d | None -> invalid_arg (Printf.sprintf "torch_load: %s: storage type %s not supported" what n))
  | v -> invalid_arg (Printf.sprintf "torch_load: %s: not a storage type: %s" what (Pickle.to_string v))

(* a persistent id ('storage', storage_type, key, location, numel[, view_metadata]) of the zip and legacy formats *)
let rec storage_of_pid ~what = function
  | Pickle.Persistent pid -> storage_of_pid ~what pid
  | Pickle.Tuple (Pickle.Str "storage" :: ty :: key :: _location :: numel :: _) ->
    { skey = pickle_key key; sdtype = storage_dtype ~what ty; numel = pickle_int ~what numel }
  | v -> invalid_arg (Printf.sprintf "torch_load: %s: unsupported persistent id %s" what (Pickle.to_string v))

(* tinygrad: nn/state.py torch_load _rebuild_tensor_v2, for any strides a view of one storage can have: the
   elements are laid as a sub-block of a contiguous container (dims sorted by stride, each stride a multiple of the
   next one's extent), then permuted back; stride-0 dims are expanded *)
let as_strided ~what (st : Tensor.t) ~offset (size : int list) (stride : int list) =
  let fail fmt = Printf.ksprintf (fun m -> invalid_arg (Printf.sprintf "torch_load: %s: %s" what m)) fmt in
  let ndim = List.length size in
  if List.length stride <> ndim then fail "size and stride have different lengths";
  if List.exists (fun s -> s < 0) size || List.exists (fun s -> s < 0) stride || offset < 0 then
    fail "negative size, stride or offset";
  let n = (Tensor.shape st).(0) in
  let shape = Array.of_list size in
  (* bounds that keep the sums below from overflowing: each dim's reach inside the storage, the element count *)
  if offset > n || List.fold_left (fun acc s -> if s > 0 && acc > max_int / s then max_int else acc * s) 1 size > 1 lsl 40
  then fail "offset %d or size %s out of range for a storage of %d" offset (shape_str shape) n;
  if not (List.mem 0 size) then
    List.iter2 (fun s t -> if t > 0 && s - 1 > n / t then fail "size %d with stride %d past a storage of %d" s t n)
      size stride;
  if Helpers.prod size = 0 then Tensor.reshape (Tensor.shrink st [| (0, 0) |]) shape
  else begin
    let last = offset + List.fold_left2 (fun acc s t -> acc + (s - 1) * t) 0 size stride in
    if last >= n then fail "elements up to %d in a storage of %d" last n;
    let dims = List.combine size stride |> List.mapi (fun d (s, t) -> (d, s, t)) in
    let real = List.filter (fun (_, s, t) -> s > 1 && t > 0) dims in
    let by_stride = List.stable_sort (fun (_, _, a) (_, _, b) -> compare b a) real in
    let rec nested = function
      | (_, _, ta) :: ((_, sb, tb) :: _ as rest) -> ta mod tb = 0 && ta >= tb * sb && nested rest
      | _ -> true in
    if not (nested by_stride) then
      fail "strides %s of size %s are not a view of a contiguous block" (shape_str (Array.of_list stride)) (shape_str shape);
    let x = match by_stride with
      | [] -> Tensor.shrink st [| (offset, offset + 1) |]
      | (_, s0, t0) :: _ ->
        let strides = List.map (fun (_, _, t) -> t) by_stride in
        let t_last = List.nth strides (List.length strides - 1) in
        let inner = List.map2 (fun a b -> a / b) (Helpers.take (List.length strides - 1) strides) (List.tl strides) in
        let container = (s0 :: inner) @ [ t_last ] in
        let total = s0 * t0 in
        let span = Tensor.shrink st [| (offset, min n (offset + total)) |] in
        let span = if offset + total > n then Tensor.pad span [| (0, offset + total - n) |] else span in
        let sizes = List.map (fun (_, s, _) -> s) by_stride in
        let block = Tensor.shrink (Tensor.reshape span (Array.of_list container))
            (Array.of_list (List.map (fun s -> (0, s)) sizes @ [ (0, 1) ])) in
        let block = Tensor.reshape block (Array.of_list sizes) in
        (* back to the order of the dims in the tensor *)
        let order = List.map (fun (d, _, _) -> d) by_stride in
        let pos d = let rec go i = function x :: r -> if x = d then i else go (i + 1) r | [] -> assert false in go 0 order in
        Tensor.permute block (Array.of_list (List.map (fun (d, _, _) -> pos d) real)) in
    let ones = Array.of_list (List.map (fun (_, s, t) -> if s > 1 && t > 0 then s else 1) dims) in
    Tensor.expand (Tensor.reshape x ones) shape
  end

(* the object of a checkpoint's pickle, with its tensors made: [storage_tensor s dt] is storage [s] as a 1-d tensor
   of [dt]; the tensors of a dict (nested dicts and lists too) keyed by their dotted paths, in order *)
let rebuild_tensors ~what ~(tensor_of_persistent : Pickle.value -> Tensor.t option)
    ~(storage_tensor : storage -> Dtype.t -> Tensor.t) (obj : Pickle.value) : (string * Tensor.t) list =
  let fail fmt = Printf.ksprintf (fun m -> invalid_arg (Printf.sprintf "torch_load: %s: %s" what m)) fmt in
  let ints = function
    | Pickle.Tuple l -> List.map (pickle_int ~what) l
    | Pickle.List l -> List.map (pickle_int ~what) (Pickle.items l)
    | v -> fail "expected a tuple of ints, got %s" (Pickle.to_string v) in
  let rebuild ?dtype pid offset size stride =
    let s = storage_of_pid ~what pid in
    let dt = Option.value dtype ~default:s.sdtype in
    let isz = Dtype.itemsize dt and ssz = Dtype.itemsize s.sdtype in
    if s.numel * ssz mod isz <> 0 then fail "storage %s of %d bytes holds no whole %s" s.skey (s.numel * ssz) (Dtype.to_string dt);
    as_strided ~what:(what ^ ": storage " ^ s.skey) (storage_tensor s dt) ~offset:(pickle_int ~what offset)
      (ints size) (ints stride) in
  let rec tensor = function
    | Pickle.Call (Pickle.Global (m, ("_rebuild_tensor_v2" | "_rebuild_tensor")), pid :: off :: size :: stride :: _)
      when String.starts_with ~prefix:"torch" m -> Some (rebuild pid off size stride)
    | Pickle.Call (Pickle.Global (m, "_rebuild_tensor_v3"), pid :: off :: size :: stride :: _ :: _ :: dt :: _)
      when String.starts_with ~prefix:"torch" m ->
      let dtype = match dt with
        | Pickle.Global ("torch", n) ->
          (match List.assoc_opt n torch_dtypes with Some d -> d | None -> fail "dtype torch.%s not supported" n)
        | v -> fail "not a dtype: %s" (Pickle.to_string v) in
      Some (rebuild ~dtype pid off size stride)
    | Pickle.Call (Pickle.Global (m, "_rebuild_parameter"), data :: _) when String.starts_with ~prefix:"torch" m ->
      tensor data
    | Pickle.Built (Pickle.Call (Pickle.Global (_, "Parameter"), _), Pickle.Tuple (data :: _)) -> tensor data
    | Pickle.Persistent pid -> tensor_of_persistent pid
    | _ -> None in
  let out = ref [] in
  let visit = Pickle.budget ~what:("torch_load: " ^ what) in
  let rec walk ?(depth = 0) prefix v =
    visit depth;
    let walk = walk ~depth:(depth + 1) in
    match tensor v with
    | Some t -> out := (prefix, t) :: !out
    | None ->
      let sub k = if prefix = "" then k else prefix ^ "." ^ k in
      (match v with
       | Pickle.Dict d -> List.iter (fun (k, x) -> walk (sub (pickle_key_str k)) x) (Pickle.items d)
       | Pickle.List l -> List.iteri (fun i x -> walk (sub (string_of_int i)) x) (Pickle.items l)
       | Pickle.Tuple l -> List.iteri (fun i x -> walk (sub (string_of_int i)) x) l
       | _ -> ())
  and pickle_key_str = function
    | Pickle.Str s | Pickle.Bytes s -> s
    | Pickle.Int z -> Z.to_string z
    | k -> Pickle.to_string k in
  walk "" obj;
  List.rev !out

(* tinygrad's find_class: collections.OrderedDict becomes a dict (filled by SETITEMS); other calls stay data *)
let torch_reduce (f : Pickle.value) (args : Pickle.value list) =
  match f, args with
  | Pickle.Global ("collections", "OrderedDict"), [] -> Some (Pickle.Dict (Pickle.items_of_list []))
  | Pickle.Global ("collections", "OrderedDict"), [ ((Pickle.List _ | Pickle.Tuple _) as l) ] ->
    let l = match l with Pickle.List l -> Pickle.items l | Pickle.Tuple l -> l | _ -> [] in
    Some (Pickle.Dict (Pickle.items_of_list (List.map (function
        | Pickle.Tuple [ k; v ] -> (k, v)
        | v -> invalid_arg ("torch_load: an OrderedDict item that is not a pair: " ^ Pickle.to_string v)) l)))
  | _ -> None

(* one storage tensor per (storage, dtype), so tensors that share a storage share its buffer *)
let storage_cache (make : storage -> Dtype.t -> Tensor.t) =
  let tbl = Hashtbl.create 16 in
  fun s dt ->
    match Hashtbl.find_opt tbl (s.skey, dt) with
    | Some t -> t
    | None -> let t = make s dt in Hashtbl.add tbl (s.skey, dt) t; t

let torch_load_zip src =
  let members = zip_members src in
  let base = match members with
    | m :: _ -> (match String.index_opt m.fname '/' with Some i -> String.sub m.fname 0 i | None -> m.fname)
    | [] -> invalid_arg (Printf.sprintf "torch_load: %s: an empty zip file" src.what) in
  let pkl = match List.find_opt (fun m -> m.fname = base ^ "/data.pkl") members with
    | Some m -> m | None -> invalid_arg (Printf.sprintf "torch_load: %s: no %s/data.pkl" src.what base) in
  let obj, _ = Pickle.load ~what:("torch_load: " ^ src.what ^ ": data.pkl") ~reduce:torch_reduce (member_bytes src pkl) 0 in
  let storage_tensor = storage_cache (fun s dt ->
      let fname = base ^ "/data/" ^ s.skey in
      match List.find_opt (fun m -> m.fname = fname) members with
      | None -> invalid_arg (Printf.sprintf "torch_load: %s: storage %s missing" src.what fname)
      | Some m ->
        if s.numel < 0 || s.numel > max_int / 16 then
          invalid_arg (Printf.sprintf "torch_load: %s: storage %s of %d elements" src.what fname s.numel);
        let nbytes = s.numel * Dtype.itemsize s.sdtype in
        let used = nbytes / Dtype.itemsize dt * Dtype.itemsize dt in
        let short have =
          invalid_arg (Printf.sprintf "torch_load: %s: storage %s has %d bytes, %d expected" src.what fname have nbytes) in
        if m.deflated then begin
          let b = member_bytes src m in
          if String.length b < nbytes then short (String.length b);
          let t = tensor_of_bytes (String.sub b 0 used) in
          if dt == Dtype.Uint8 then t else Tensor.bitcast t dt
        end else begin
          if m.size < nbytes then short m.size;
          src.view dt m.off used
        end) in
  rebuild_tensors ~what:src.what ~tensor_of_persistent:(fun _ -> None) ~storage_tensor obj

(* the legacy format: magic, protocol and sys_info pickles, the object, the storage keys, then each storage as an
   8-byte element count and its bytes *)
let torch_load_legacy src =
  let s = source_sub src 0 src.len in
  let load p = Pickle.load ~what:("torch_load: " ^ src.what) ~reduce:torch_reduce s p in
  let magic, p = load 0 in
  (match magic with
   | Pickle.Int z when Z.equal z (Z.of_string "0x1950a86a20f9469cfc6c") -> ()
   | _ -> invalid_arg (Printf.sprintf "torch_load: %s: not a torch checkpoint (bad magic number)" src.what));
  let _protocol, p = load p in
  let _sys_info, p = load p in
  let obj, p = load p in
  let keys, p = load p in
  let keys = match keys with
    | Pickle.List l -> List.map pickle_key (Pickle.items l)
    | Pickle.Tuple l -> List.map pickle_key l
    | v -> invalid_arg ("torch_load: the storage keys are not a list: " ^ Pickle.to_string v) in
  (* the storages' sizes come from the pickle's persistent ids *)
  let sizes = Hashtbl.create 16 in
  let visit = Pickle.budget ~what:("torch_load: " ^ src.what) in
  let rec collect depth v =
    visit depth;
    match v with
    | Pickle.Tuple (Pickle.Str "storage" :: _) as pid ->
      let st = storage_of_pid ~what:src.what pid in Hashtbl.replace sizes st.skey st
    | v -> Pickle.iter_children (collect (depth + 1)) v in
  collect 0 obj;
  let offsets = Hashtbl.create 16 in
  ignore (List.fold_left (fun off k ->
      let numel = le_at src off 8 in
      let itemsize = match Hashtbl.find_opt sizes k with Some st -> Dtype.itemsize st.sdtype | None -> 1 in
      let nbytes = if numel < 0 || numel > src.len then src.len + 1 else numel * itemsize in
      if off + 8 + nbytes > src.len then
        invalid_arg (Printf.sprintf "torch_load: %s: storage %s: %d bytes at %d past the end (%d bytes)" src.what k nbytes
                       (off + 8) src.len);
      Hashtbl.replace offsets k (off + 8, nbytes);
      off + 8 + nbytes) p keys);
  let storage_tensor = storage_cache (fun s dt ->
      match Hashtbl.find_opt offsets s.skey with
      | None -> invalid_arg (Printf.sprintf "torch_load: %s: storage %s missing" src.what s.skey)
      | Some (off, nbytes) -> src.view dt off (nbytes / Dtype.itemsize dt * Dtype.itemsize dt)) in
  rebuild_tensors ~what:src.what ~tensor_of_persistent:(fun _ -> None) ~storage_tensor obj

(* the tar format of torch before 0.1.10: "storages" (count, then (key, location, storage_type) and an 8-byte
   element count before each storage's bytes), "tensors" (count, then (key, storage_id, type), ndim, sizes,
   strides, offset), "pickle" (the object, whose persistent ids are tensor keys) *)
let torch_load_tar src =
  let members = tar_members src in
  let member name = match List.find_opt (fun m -> m.fname = name) members with
    | Some m -> m | None -> invalid_arg (Printf.sprintf "torch_load: %s: no %S in the tar archive" src.what name) in
  let what = src.what in
  let storages_m = member "storages" in
  let sbytes = member_bytes src storages_m in
  let load s p = Pickle.load ~what:("torch_load: " ^ what) ~reduce:torch_reduce s p in
  let le s p n =
    if p + n > String.length s then invalid_arg (Printf.sprintf "torch_load: %s: truncated" what);
    let r = ref 0 in for i = n - 1 downto 0 do r := (!r lsl 8) lor Char.code s.[p + i] done; !r in
  let count, p = load sbytes 0 in
  let storages = Hashtbl.create 16 in
  let p = ref p in
  for _ = 1 to pickle_int ~what count do
    let hdr, q = load sbytes !p in
    let key, ty = match hdr with
      | Pickle.Tuple [ key; _location; ty ] -> (pickle_key key, ty)
      | v -> invalid_arg ("torch_load: a storage header that is not (key, location, type): " ^ Pickle.to_string v) in
    let dt = storage_dtype ~what ty in
    let numel = le sbytes q 8 in
    let nbytes = if numel < 0 || numel > String.length sbytes then String.length sbytes + 1 else numel * Dtype.itemsize dt in
    if q + 8 + nbytes > String.length sbytes then
      invalid_arg (Printf.sprintf "torch_load: %s: storage %s past the end of \"storages\"" what key);
    Hashtbl.replace storages key ({ skey = key; sdtype = dt; numel }, storages_m.off + q + 8);
    p := q + 8 + nbytes
  done;
  let storage_tensor = storage_cache (fun s dt ->
      let _, off = Hashtbl.find storages s.skey in
      let nbytes = s.numel * Dtype.itemsize s.sdtype in
      src.view dt off (nbytes / Dtype.itemsize dt * Dtype.itemsize dt)) in
  let tbytes = member_bytes src (member "tensors") in
  let count, q = load tbytes 0 in
  let tensors = Hashtbl.create 16 in
  let q = ref q in
  for _ = 1 to pickle_int ~what count do
    let hdr, r = load tbytes !q in
    let key, sid = match hdr with
      | Pickle.Tuple [ key; sid; _ ] -> (pickle_key key, pickle_key sid)
      | v -> invalid_arg ("torch_load: a tensor header that is not (key, storage, type): " ^ Pickle.to_string v) in
    let ndim = le tbytes r 4 in
    let int64s p k = List.init k (fun i -> le tbytes (p + 8 * i) 8) in
    let size = int64s (r + 8) ndim and stride = int64s (r + 8 + 8 * ndim) ndim in
    let offset = le tbytes (r + 8 + 16 * ndim) 8 in
    let s, _ = match Hashtbl.find_opt storages sid with
      | Some s -> s | None -> invalid_arg (Printf.sprintf "torch_load: %s: tensor %s: storage %s missing" what key sid) in
    Hashtbl.replace tensors key
      (as_strided ~what:(what ^ ": tensor " ^ key) (storage_tensor s s.sdtype) ~offset size stride);
    q := r + 8 + 16 * ndim + 8
  done;
  let obj, _ = load (member_bytes src (member "pickle")) 0 in
  rebuild_tensors ~what ~storage_tensor
    ~tensor_of_persistent:(fun pid -> Hashtbl.find_opt tensors (pickle_key pid)) obj

(* tinygrad: nn/state.py torch_load — the zip format (torch.save's default), the tar format, else the legacy
   pickle stream *)
let torch_load_source src =
  if find_eocd src <> None && has_magic src 0 "PK\003\004" then torch_load_zip src
  else if tar_checksum_ok src 0 then torch_load_tar src
  else torch_load_legacy src

let torch_load ?device fn = with_file_source ?device ~op:"torch_load" fn torch_load_source
let torch_load_tensor t = torch_load_source (source_of_tensor t)
