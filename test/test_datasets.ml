(* Nn.Datasets (tinygrad nn/datasets.py mnist) and the gzip reader behind it. Oracles: Python's gzip/zlib output
   and numpy's view of the Fashion-MNIST files (generated once with the venv, values pasted here). *)
open Tinygrad.Compiler
open Test_util

let of_hex h = String.init (String.length h / 2) (fun i -> Char.chr (int_of_string ("0x" ^ String.sub h (2 * i) 2)))

(* the text Python compressed: b"".join(b"line %d: the quick brown fox jumps over the lazy dog %d\n" % (i, i*i % 97)) *)
let text = String.concat "" (List.init 60 (fun i -> Printf.sprintf "line %d: the quick brown fox jumps over the lazy dog %d\n" i (i * i mod 97)))

(* gzip.compress(text, compresslevel=9, mtime=0): dynamic Huffman blocks *)
let gz9 = "1f8b08000000000002039dd6595203310c45d17f56e125c4833cb01b860602210d8130ad9e827e5ac0f577ea9565eb489dc3feb884dd65787f58c2eb797ff314ae4febe731dcad5fe1f1fcfcf216d68fe5f4fff3e1eae73bdcaef7617771f84b45968a5b2ab154d95299a5c6962ab0c2bac58cc5926db1ca6259a735f820ba5b67b1aa871c2cd6d5b5088964c5a091a42a2355d294834e5a520e4af1189492fd352195eae7412b433223c492bd7d504bd36648504bd4fd12e462aa33412e43a3972097229e097219befba097e2f7835e86d709bd98f70f7ae98a412e553c33e49234ed1972e9aa33432ee61f21c8258975865cba567c865caa9865fa25f23e402ed1cfa35c347e997a51ae402f457d2fd04b56ff0af412fd3ce8c5af47b78bb644815cbada5e2097e6ffae2097e6e7412ecdef37e672b69babd3e2dcbb589aeb83e5b9be5b99626636a7daeadc14599b9b5aeb735bc206de4abf4070db2c0d0d0000"

(* gzip.compress(b"hello hello hello", mtime=0): a fixed-Huffman block with a back-reference *)
let small = "1f8b0800000000000203cb48cdc9c957c84090008088f9e511000000"

let le32 n = String.init 4 (fun i -> Char.chr ((n lsr (8 * i)) land 0xff))

(* a gzip member with one stored block (BTYPE 00), built by hand from RFC 1951/1952 *)
let stored_gzip data =
  let n = String.length data in
  "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" ^ "\x01" ^ String.init 2 (fun i -> Char.chr ((n lsr (8 * i)) land 0xff))
  ^ String.init 2 (fun i -> Char.chr (((lnot n) lsr (8 * i)) land 0xff)) ^ data
  ^ le32 (Inflate.crc32 (Bytes.of_string data) 0 n) ^ le32 n

(* a gzip member of stored blocks of at most 65,535 bytes each (RFC 1951 3.2.4) *)
let stored_blocks_gzip data =
  let n = String.length data in
  let le16 v = String.init 2 (fun i -> Char.chr ((v lsr (8 * i)) land 0xff)) in
  let rec blocks off =
    let len = min 65535 (n - off) in
    let last = off + len >= n in
    ((if last then "\x01" else "\x00") ^ le16 len ^ le16 (lnot len land 0xffff) ^ String.sub data off len)
    :: (if last then [] else blocks (off + len)) in
  "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" ^ String.concat "" (blocks 0)
  ^ le32 (Inflate.crc32 (Bytes.of_string data) 0 n) ^ le32 n

let write_file fn s = let oc = open_out_bin fn in output_string oc s; close_out oc

let tmpdir name =
  let d = Filename.concat (Filename.get_temp_dir_name ()) (Printf.sprintf "tg_ds_%s_%d" name (Random.bits ())) in
  (try Sys.mkdir d 0o755 with Sys_error _ -> ());
  d

(* removes a test directory and its files *)
let rm_dir d = Array.iter (fun f -> Sys.remove (Filename.concat d f)) (Sys.readdir d); Sys.rmdir d

let be32 n = String.init 4 (fun i -> Char.chr ((n lsr (8 * (3 - i))) land 0xff))

let idx_images n r c data = "\x00\x00\x08\x03" ^ be32 n ^ be32 r ^ be32 c ^ data
let idx_labels n data = "\x00\x00\x08\x01" ^ be32 n ^ data

let fashion_present () = Sys.file_exists (Filename.concat Datasets.default_dir "train-images-idx3-ubyte.gz")

let tests : case list = [
  ("crc32 check value", fun () ->
      (* the CRC-32 check value of "123456789" (ISO 3309 / zlib) *)
      check_int ~what:"crc" 0xCBF43926 (Inflate.crc32 (Bytes.of_string "123456789") 0 9);
      check_int ~what:"text crc (zlib.crc32)" 752578624 (Inflate.crc32 (Bytes.of_string text) 0 (String.length text)));
  ("gunzip dynamic huffman (python gzip level 9)", fun () ->
      check_int ~what:"length" 3341 (String.length text);
      check_str ~what:"text" text (Inflate.gunzip (of_hex gz9)));
  ("gunzip fixed huffman", fun () -> check_str ~what:"hello" "hello hello hello" (Inflate.gunzip (of_hex small)));
  ("gunzip stored block and concatenated members", fun () ->
      check_str ~what:"stored" text (Inflate.gunzip (stored_gzip text));
      check_str ~what:"two members" ("hello hello hello" ^ text) (Inflate.gunzip (of_hex small ^ of_hex gz9));
      check_str ~what:"empty stored" "" (Inflate.gunzip (stored_gzip "")));
  ("gunzip allocates its output once, at the size in the trailer", fun () ->
      let n = 4 * 1024 * 1024 in
      let data = String.init n (fun i -> Char.chr ((i * 7) land 0xff)) in
      let gz = stored_blocks_gzip data in
      ignore (Inflate.crc32 (Bytes.of_string "x") 0 1);
      let before = Gc.allocated_bytes () in
      let out = Inflate.gunzip gz in
      let allocated = Gc.allocated_bytes () -. before in
      check_str ~what:"4 MiB of stored blocks" data out;
      check (allocated < 1.5 *. float_of_int n) "gunzip of %d bytes allocated %.0f bytes" n allocated;
      (* zero padding after the member: the last four bytes are no size, the output grows as needed *)
      check_str ~what:"padded" data (Inflate.gunzip (gz ^ String.make 8 '\000')));
  ("gunzip errors", fun () ->
      let raises what s = match Inflate.gunzip s with
        | _ -> fail "%s: expected Inflate.Error" what | exception Inflate.Error _ -> () in
      let g = of_hex gz9 in
      raises "truncated" (String.sub g 0 (String.length g - 20));
      raises "not gzip" "hello";
      let bad_crc = Bytes.of_string g in
      Bytes.set bad_crc (Bytes.length bad_crc - 8) (Char.chr (Char.code g.[String.length g - 8] lxor 1));
      raises "crc" (Bytes.to_string bad_crc));
  ("mnist from plain and gzip IDX files in a directory", fun () ->
      let d = tmpdir "idx" in
      let px = String.init (3 * 2 * 2) (fun i -> Char.chr (i * 20)) in
      write_file (Filename.concat d "train-images-idx3-ubyte") (idx_images 3 2 2 px);
      write_file (Filename.concat d "train-labels-idx1-ubyte") (idx_labels 3 "\x07\x00\x09");
      write_file (Filename.concat d "t10k-images-idx3-ubyte.gz") (stored_gzip (idx_images 1 2 2 "\x01\x02\x03\xff"));
      write_file (Filename.concat d "t10k-labels-idx1-ubyte.gz") (stored_gzip (idx_labels 1 "\x04"));
      let xt, yt, xs, ys = Datasets.mnist ~dir:d () in
      check (Tensor.shape xt = [| 3; 1; 2; 2 |]) "x_train shape";
      check (Tensor.dtype xt == Dtype.Uint8) "x_train dtype uint8";
      check (Tensor.to_int_array xt = Array.init 12 (fun i -> i * 20)) "x_train values";
      check (Tensor.to_int_array yt = [| 7; 0; 9 |]) "y_train values";
      check (Tensor.shape xs = [| 1; 1; 2; 2 |] && Tensor.to_int_array xs = [| 1; 2; 3; 255 |]) "x_test";
      check (Tensor.shape ys = [| 1 |] && Tensor.to_int_array ys = [| 4 |]) "y_test";
      rm_dir d);
  ("mnist errors", fun () ->
      check_invalid_arg ~what:"missing dir" (fun () -> Datasets.mnist ~dir:"/nonexistent/dir" ());
      let d = tmpdir "bad" in
      write_file (Filename.concat d "train-images-idx3-ubyte") "\x00\x00\x0d\x03garbage";
      check_invalid_arg ~what:"float IDX" (fun () -> Datasets.mnist ~dir:d ());
      write_file (Filename.concat d "train-images-idx3-ubyte") (idx_images 3 2 2 "short");
      check_invalid_arg ~what:"short IDX" (fun () -> Datasets.mnist ~dir:d ());
      rm_dir d);
  ("fashion-mnist (Debian dataset-fashion-mnist) vs numpy", fun () ->
      if not (fashion_present ()) then
        Test_util.skip "/usr/share/datasets/fashion-mnist not installed (apt-get install dataset-fashion-mnist)"
      else begin
        let xt, yt, xs, ys = Datasets.mnist () in
        check (Tensor.shape xt = [| 60000; 1; 28; 28 |]) "x_train shape";
        check (Tensor.shape yt = [| 60000 |]) "y_train shape";
        check (Tensor.shape xs = [| 10000; 1; 28; 28 |]) "x_test shape";
        check (Tensor.shape ys = [| 10000 |]) "y_test shape";
        List.iter (fun t -> check (Tensor.dtype t == Dtype.Uint8) "uint8") [ xt; yt; xs; ys ];
        (* numpy: yt[:10], ys[:10], sums, pixel row 14 of image 0 *)
        let yv = Tensor.to_int_array yt and ysv = Tensor.to_int_array ys in
        check (Array.sub yv 0 10 = [| 9; 0; 0; 3; 0; 2; 7; 2; 5; 5 |]) "y_train[:10]";
        check (Array.sub ysv 0 10 = [| 9; 2; 1; 1; 6; 1; 4; 6; 5; 7 |]) "y_test[:10]";
        check_int ~what:"sum y_train" 270000 (Array.fold_left ( + ) 0 yv);
        check_int ~what:"sum y_test" 45000 (Array.fold_left ( + ) 0 ysv);
        let xv = Tensor.to_int_array xt in
        check_int ~what:"sum x_train[0]" 76247 (Array.fold_left ( + ) 0 (Array.sub xv 0 784));
        check_int ~what:"sum x_train[-1]" 16684 (Array.fold_left ( + ) 0 (Array.sub xv (59999 * 784) 784));
        check_int ~what:"sum x_train" 3431114169 (Array.fold_left ( + ) 0 xv);
        check (Array.sub xv (14 * 28) 28 = [| 0; 0; 1; 4; 6; 7; 2; 0; 0; 0; 0; 0; 237; 226; 217; 223; 222; 219; 222; 221; 216;
                                              223; 229; 215; 218; 255; 77; 0 |]) "x_train[0,0,14,:]";
        (* the tensor path: a lazy sum on the device *)
        check_int ~what:"sum x_test (device)" 573469082
          (int_of_float (Tensor.item (Tensor.sum (Tensor.cast xs Dtype.Int64))))
      end);
]
