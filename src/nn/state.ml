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

(* tinygrad: nn/state.py load_state_dict (single device: no sharding, no [consume]) *)
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
        replace v (Tensor.to_device s (Tensor.device v));
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
let map_file fn : mapping =
  let fd = try Unix.openfile fn [ Unix.O_RDONLY; Unix.O_CLOEXEC ] 0
    with Unix.Unix_error (e, _, _) -> invalid_arg (Printf.sprintf "safe_load: %s: %s" fn (Unix.error_message e)) in
  Fun.protect ~finally:(fun () -> Unix.close fd) (fun () ->
      let len = (Unix.fstat fd).Unix.st_size in
      if len = 0 then Bigarray.Array1.create Bigarray.char Bigarray.c_layout 0
      else
        try Bigarray.array1_of_genarray (Unix.map_file fd Bigarray.char Bigarray.c_layout false [| len |])
        with Unix.Unix_error (e, _, _) -> invalid_arg (Printf.sprintf "safe_load: %s: cannot map: %s" fn (Unix.error_message e)))

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
