(* tinygrad: nn/datasets.py mnist — the four IDX files as uint8 tensors: train images (N, 1, 28, 28), train labels
   (N,), test images, test labels. tinygrad downloads them with [Tensor.from_url(gunzip=True)] and slices off the
   IDX headers ([0x10:] and [8:]); we read them from a directory (default: where Debian's dataset-fashion-mnist
   package puts Fashion-MNIST), gzip or not, and check the IDX headers instead of assuming them. *)

let default_dir = "/usr/share/datasets/fashion-mnist"

let read_file fn =
  let ic = open_in_bin fn in
  Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic))

(* the file's bytes, from [name] or [name.gz] (a gzip file is recognised by its magic bytes, whatever its name) *)
let load_bytes dir name =
  let plain = Filename.concat dir name in
  let gz = plain ^ ".gz" in
  let fn =
    if Sys.file_exists plain then plain
    else if Sys.file_exists gz then gz
    else invalid_arg (Printf.sprintf
                        "mnist: neither %s nor %s exists (install the Debian package dataset-fashion-mnist, or pass ~dir)" plain gz) in
  let s = try read_file fn with Sys_error m -> invalid_arg ("mnist: " ^ m) in
  if Inflate.is_gzip s then (try Inflate.gunzip s with Inflate.Error m -> invalid_arg (Printf.sprintf "mnist: %s: %s" fn m))
  else s

let be32 s off =
  (Char.code s.[off] lsl 24) lor (Char.code s.[off + 1] lsl 16) lor (Char.code s.[off + 2] lsl 8) lor Char.code s.[off + 3]

(* an IDX file of unsigned bytes: its dims and the offset of the data *)
let parse_idx name s =
  let n = String.length s in
  if n < 4 || s.[0] <> '\000' || s.[1] <> '\000' then invalid_arg (Printf.sprintf "mnist: %s: not an IDX file" name);
  if s.[2] <> '\x08' then invalid_arg (Printf.sprintf "mnist: %s: IDX data type 0x%02x is not unsigned byte" name (Char.code s.[2]));
  let nd = Char.code s.[3] in
  if n < 4 + 4 * nd then invalid_arg (Printf.sprintf "mnist: %s: truncated IDX header" name);
  let dims = Array.init nd (fun i -> be32 s (4 + 4 * i)) in
  let off = 4 + 4 * nd in
  let numel = Array.fold_left (fun acc d -> if d > 0 && acc > max_int / d then
                                   invalid_arg (Printf.sprintf "mnist: %s: IDX dims too large" name) else acc * d) 1 dims in
  if n - off <> numel then
    invalid_arg (Printf.sprintf "mnist: %s: %d data bytes for dims %s" name (n - off)
                   (String.concat "x" (List.map string_of_int (Array.to_list dims))));
  (dims, off)

(* a uint8 tensor of the bytes [off, off + len) of [s], in one fresh device buffer *)
let tensor_of_sub ?device s off len shape =
  let device = Mixin_creation.canonicalize_device ~op:"mnist" device in
  let b = Device.Buffer.create device len Dtype.Uint8 in
  if len > 0 then begin
    let ba = Bigarray.Array1.create Bigarray.char Bigarray.c_layout len in
    for i = 0 to len - 1 do Bigarray.Array1.unsafe_set ba i (String.unsafe_get s (off + i)) done;
    Device.Buffer.copyin b ba
  end;
  Tensor_base.wrap ~op:"mnist" (Mixin_movement.reshape (Buffers.from_buffer b) (List.map (fun d -> Uop.Sint d) (Array.to_list shape)))

let load_idx ?device dir name ~images =
  let s = load_bytes dir name in
  let dims, off = parse_idx name s in
  let shape =
    if images then
      (match dims with
       | [| n; r; c |] -> [| n; 1; r; c |]
       | _ -> invalid_arg (Printf.sprintf "mnist: %s: expected 3 IDX dims for images, got %d" name (Array.length dims)))
    else
      (match dims with
       | [| n |] -> [| n |]
       | _ -> invalid_arg (Printf.sprintf "mnist: %s: expected 1 IDX dim for labels, got %d" name (Array.length dims))) in
  tensor_of_sub ?device s off (String.length s - off) shape

(* tinygrad: nn/datasets.py mnist *)
let mnist ?device ?(dir = default_dir) () =
  let x_train = load_idx ?device dir "train-images-idx3-ubyte" ~images:true in
  let y_train = load_idx ?device dir "train-labels-idx1-ubyte" ~images:false in
  let x_test = load_idx ?device dir "t10k-images-idx3-ubyte" ~images:true in
  let y_test = load_idx ?device dir "t10k-labels-idx1-ubyte" ~images:false in
  if (Tensor.shape x_train).(0) <> (Tensor.shape y_train).(0) || (Tensor.shape x_test).(0) <> (Tensor.shape y_test).(0) then
    invalid_arg "mnist: image and label counts differ";
  (x_train, y_train, x_test, y_test)
