(* State.torch_load, zip_extract and tar_extract (tinygrad nn/state.py). Oracle: torch 2.13 itself:
   test/fixtures/torch/gen_torch_fixtures.py writes checkpoints with torch.save (zip, legacy and, by hand, the old tar
   format), loads each back with torch.load, and records what torch.load gives in expected.json (and what Python's
   zipfile / tarfile list). The GPT-2 case builds the model from pytorch_model.bin and from model.safetensors. *)
open Test_util
open Tinygrad.Compiler
module Json = State.Json

let fixture name =
  let cands = [ Filename.concat "test/fixtures/torch" name; Filename.concat "fixtures/torch" name ] in
  match List.find_opt Sys.file_exists cands with Some p -> p | None -> fail "fixture %s not found" name

let read_file fn = let ic = open_in_bin fn in let s = really_input_string ic (in_channel_length ic) in close_in ic; s

let assoc ~what = function Json.Assoc l -> l | _ -> fail "%s is not an object" what
let field ~what k l = match List.assoc_opt k l with Some v -> v | None -> fail "%s has no %s" what k

let expected = lazy (assoc ~what:"expected.json" (Json.of_string (read_file (fixture "expected.json"))))

type entry = { dtype : string; shape : int array; values : float array }

let entry_of ~what j =
  let l = assoc ~what j in
  let num = function Json.Int i -> float_of_int i | Json.Float f -> f | Json.Bool b -> if b then 1. else 0.
                   | _ -> fail "%s: a value is not a number" what in
  let list k = match field ~what k l with Json.List x -> x | _ -> fail "%s.%s is not a list" what k in
  { dtype = (match field ~what "dtype" l with Json.String s -> s | _ -> fail "%s.dtype" what);
    shape = Array.of_list (List.map (function Json.Int i -> i | _ -> fail "%s.shape" what) (list "shape"));
    values = Array.of_list (List.map num (list "values")) }

let entries group = List.map (fun (k, j) -> (k, entry_of ~what:k j)) (assoc ~what:group (field ~what:"expected" group (Lazy.force expected)))
let names group = match field ~what:"expected" group (Lazy.force expected) with
  | Json.List l -> List.map (function Json.String s -> s | _ -> fail "%s" group) l | _ -> fail "%s" group

(* torch's dtype names as the port's dtypes *)
let torch_dtype = function
  | "float32" -> Dtype.Float32 | "float64" -> Dtype.Float64 | "float16" -> Dtype.Float16 | "bfloat16" -> Dtype.Bfloat16
  | "int64" -> Dtype.Int64 | "int32" -> Dtype.Int32 | "int16" -> Dtype.Int16 | "int8" -> Dtype.Int8
  | "uint8" -> Dtype.Uint8 | "bool" -> Dtype.Bool | "uint16" -> Dtype.Uint16 | "uint32" -> Dtype.Uint32
  | "uint64" -> Dtype.Uint64 | "float8_e4m3fn" -> Dtype.Fp8e4m3 | "float8_e5m2" -> Dtype.Fp8e5m2
  | d -> fail "unknown torch dtype %s" d

let check_tensor ~what (e : entry) t =
  check (Tensor.dtype t == torch_dtype e.dtype) "%s: dtype %s, torch has %s" what (Dtype.to_string (Tensor.dtype t)) e.dtype;
  check (Tensor.shape t = e.shape) "%s: shape" what;
  let got = Tensor.to_float_array t in
  check_int ~what:(what ^ " numel") (Array.length e.values) (Array.length got);
  Array.iteri (fun i v -> if not (Float.equal v got.(i)) then fail "%s: element %d is %h, torch has %h" what i got.(i) v) e.values

let check_loaded ~what ~keys sd =
  let exp = entries "sd" in
  check_eq ~pp:(String.concat ",") ~eq:( = ) ~what:(what ^ " keys") keys (List.map fst sd);
  List.iter (fun (k, t) -> check_tensor ~what:(what ^ " " ^ k) (List.assoc k exp) t) sd

let base_buffer t = Uop.base (Tensor.uop t)

(* ---- a large checkpoint written here, as torch.save lays it out (stored zip, data aligned to 64 bytes) ---- *)

let le32 b v = Buffer.add_int32_le b (Int32.of_int v)

(* a protocol-2 pickle of {"a": torch._utils._rebuild_tensor_v2(("storage", torch.FloatStorage, "0", "cpu", n), 0,
   (n,), (1,), False, collections.OrderedDict())}, opcode by opcode as torch writes it *)
let state_dict_pickle n =
  let b = Buffer.create 256 in
  let add = Buffer.add_string b in
  let str s = add "X"; le32 b (String.length s); add s in
  add "\x80\x02}(";
  str "a";
  add "ctorch._utils\n_rebuild_tensor_v2\n((";
  str "storage"; add "ctorch\nFloatStorage\n"; str "0"; str "cpu"; add "J"; le32 b n; add "tQ";
  add "K\x00J"; le32 b n; add "\x85K\x01\x85\x89ccollections\nOrderedDict\n)RtRu.";
  Buffer.contents b

(* a stored zip of the members, each one's data at a multiple of 64 (padding in the local header's extra field) *)
let write_zip fn (members : (string * string) list) =
  let oc = open_out_bin fn in
  let pos = ref 0 in
  let out s = output_string oc s; pos := !pos + String.length s in
  let u16 v = String.init 2 (fun i -> Char.chr ((v lsr (8 * i)) land 0xff)) in
  let u32 v = String.init 4 (fun i -> Char.chr ((v lsr (8 * i)) land 0xff)) in
  let central = List.map (fun (name, data) ->
      let off = !pos in
      let pad = (64 - (off + 30 + String.length name + 4) mod 64) mod 64 in
      let crc = Inflate.crc32 (Bytes.unsafe_of_string data) 0 (String.length data) in
      let common = u16 20 ^ u16 0 ^ u16 0 ^ u16 0 ^ u16 0 ^ u32 crc ^ u32 (String.length data) ^ u32 (String.length data)
                   ^ u16 (String.length name) in
      out ("PK\003\004" ^ common ^ u16 (pad + 4) ^ name ^ u16 0xcafe ^ u16 pad ^ String.make pad '\000');
      out data;
      "PK\001\002" ^ u16 20 ^ common ^ u16 0 ^ u16 0 ^ u16 0 ^ u16 0 ^ u32 0 ^ u32 off ^ name) members in
  let cd = !pos in
  List.iter out central;
  let n = List.length members in
  out ("PK\005\006" ^ u16 0 ^ u16 0 ^ u16 n ^ u16 n ^ u32 (!pos - cd) ^ u32 cd ^ u16 0);
  close_out oc;
  !pos

let zero_copy_case = ("torch_load of 32 MB: the storage views the file, resident memory grows by at most 1.2x", fun () ->
    let n = 8 * 1024 * 1024 in
    (* sum over i < n of (i mod 7) - 3, by hand: full cycles sum to 0 *)
    let expect = let r = n mod 7 in float_of_int (List.fold_left ( + ) 0 (List.init r (fun i -> i - 3))) in
    let data = Bytes.create (4 * n) in
    for i = 0 to n - 1 do Bytes.set_int32_le data (4 * i) (Int32.bits_of_float (float_of_int (i mod 7 - 3))) done;
    let fn = Test_state.tmp "big.pt" in
    let size = write_zip fn [ ("big/data.pkl", state_dict_pickle n); ("big/data/0", Bytes.unsafe_to_string data) ] in
    Gc.full_major ();
    let before = Test_state.rss_kb () in
    let sd = State.torch_load fn in
    let loaded = Test_state.rss_kb () in
    check (float_of_int (loaded - before) < 0.1 *. float_of_int size /. 1024.) "RSS grew %d kB at load" (loaded - before);
    let s = Tensor.item (Tensor.sum (List.assoc "a" sd)) in
    let grown = Test_state.rss_kb () - before in
    check (s = expect) "the tensor sums to %g, expected %g" s expect;
    check (float_of_int grown <= 1.2 *. float_of_int size /. 1024.) "RSS grew %d kB for a %d kB file" grown (size / 1024);
    ignore (Sys.opaque_identity sd);
    Sys.remove fn)

let tests : case list = zero_copy_case :: [
  ("zip_format_equals_torch", fun () ->
      check_loaded ~what:"sd_zip.pt" ~keys:(List.map fst (entries "sd")) (State.torch_load (fixture "sd_zip.pt")));
  ("legacy_format_equals_torch", fun () ->
      check_loaded ~what:"sd_legacy.pt" ~keys:(names "legacy") (State.torch_load (fixture "sd_legacy.pt")));
  ("deflated_zip_equals_torch", fun () ->
      check_loaded ~what:"sd_deflate.pt" ~keys:(List.map fst (entries "sd")) (State.torch_load (fixture "sd_deflate.pt")));
  ("tar_format_equals_torch", fun () ->
      check_loaded ~what:"sd_tar.tar" ~keys:(names "tar") (State.torch_load (fixture "sd_tar.tar")));
  ("nested_checkpoint", fun () ->
      let exp = entries "nested" in
      let got = State.torch_load (fixture "nested.pt") in
      check_eq ~pp:(String.concat ",") ~eq:( = ) ~what:"keys" (List.map fst exp) (List.map fst got);
      List.iter (fun (k, t) -> check_tensor ~what:k (List.assoc k exp) t) got);
  ("from_a_tensor_too", fun () ->
      List.iter (fun f ->
          let t = State.tensor_of_bytes (read_file (fixture f)) in
          let keys = if f = "sd_legacy.pt" then names "legacy" else List.map fst (entries "sd") in
          check_loaded ~what:(f ^ " from a tensor") ~keys (State.torch_load_tensor t)) [ "sd_zip.pt"; "sd_legacy.pt" ]);
  ("shared_storage_is_one_buffer", fun () ->
      List.iter (fun f ->
          let sd = State.torch_load (fixture f) in
          let w = List.assoc "w" sd in
          List.iter (fun k ->
              check (base_buffer (List.assoc k sd) == base_buffer w) "%s: %s does not share w's buffer" f k)
            [ "w_t"; "w_col"; "w_row"; "w_sub" ];
          check (base_buffer (List.assoc "f64" sd) != base_buffer w) "%s: f64 shares w's buffer" f)
        [ "sd_zip.pt"; "sd_legacy.pt"; "sd_tar.tar" ]);
  ("zip_and_tar_extract_list_members", fun () ->
      let members k = match field ~what:"expected" k (Lazy.force expected) with
        | Json.List l -> List.map (function Json.List [ Json.String n; Json.Int s ] -> (n, s) | _ -> fail "%s" k) l
        | _ -> fail "%s" k in
      let sizes l = List.map (fun (n, t) -> (n, Tensor.numel t)) l in
      let pp l = String.concat ", " (List.map (fun (n, s) -> Printf.sprintf "%s:%d" n s) l) in
      let zd = State.zip_extract (fixture "sd_deflate.pt") in
      check_eq ~pp ~eq:( = ) ~what:"zip members" (members "zip_members") (sizes zd);
      check_eq ~pp ~eq:( = ) ~what:"zip members (stored)" (members "zip_members")
        (sizes (State.zip_extract (fixture "sd_zip.pt")));
      let ver = State.tensor_data (List.assoc "sd_zip/.format_version" zd) in
      check_str ~what:".format_version" "1" ver;
      check_eq ~pp ~eq:( = ) ~what:"tar members" (members "tar_members") (sizes (State.tar_extract (fixture "sd_tar.tar"))));
  ("malformed_files_raise", fun () ->
      (* truncated and corrupted checkpoints raise Invalid_argument or load tensors that realize; loaded from files
         (no realize while parsing), all realized together *)
      let loaded = ref [] in
      (* a file of its own for each: a loaded tensor may view its mapping until the end *)
      let try_load s =
        let fn = Test_state.tmp "bad.pt" in
        let oc = open_out_bin fn in
        output_string oc s;
        close_out oc;
        (match State.torch_load fn with
         | sd -> loaded := List.map snd sd @ !loaded
         | exception Invalid_argument _ -> ());
        Sys.remove fn in
      List.iter (fun f ->
          let s = read_file (fixture f) in
          let n = String.length s in
          List.iter (fun c -> try_load (String.sub s 0 c))
            (List.sort_uniq compare (List.init 40 (fun i -> i * n / 40) @ [ 1; 8; 30; n - 22; n - 1 ]));
          for i = 0 to 63 do
            let b = Bytes.of_string s in
            let p = (i * 7919) mod n in
            Bytes.set b p (Char.chr (Char.code (Bytes.get b p) lxor 0x5a));
            try_load (Bytes.to_string b)
          done) [ "sd_zip.pt"; "sd_legacy.pt"; "sd_tar.tar"; "sd_deflate.pt" ];
      (* flipped bytes inside the tensors' data load: those tensors must realize *)
      check (List.length !loaded > 100) "only %d tensors loaded from the damaged files" (List.length !loaded);
      Tensor.realize_all !loaded;
      (* a legacy checkpoint whose object is a list holding itself (BINPUT, BINGET, APPEND) *)
      let magic = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19." in
      let cyclic = magic ^ "\x80\x02M\xe9\x03." ^ "\x80\x02}." ^ "\x80\x02]q\x00h\x00a." ^ "\x80\x02]." in
      check_invalid_arg ~what:"a list holding itself" (fun () -> State.torch_load_tensor (State.tensor_of_bytes cyclic));
      (match Pickle.load "\x80\x02]q\x00h\x00a." 0 with
       | v, 9 -> check (String.length (Pickle.to_string v) < 200) "to_string of a cyclic list"
       | _, p -> fail "the cyclic pickle ends at %d" p);
      check_invalid_arg ~what:"not a checkpoint" (fun () -> State.torch_load_tensor (State.tensor_of_bytes "hello world"));
      check_invalid_arg ~what:"empty" (fun () -> State.torch_load_tensor (State.tensor_of_bytes ""));
      check_invalid_arg ~what:"missing file" (fun () -> State.torch_load "/nonexistent/x.pt");
      check_invalid_arg ~what:"truncated zip" (fun () ->
          let s = read_file (fixture "sd_zip.pt") in
          State.torch_load_tensor (State.tensor_of_bytes (String.sub s 0 (String.length s / 2)))));
  ("gpt2_from_pytorch_model_bin", fun () ->
      let dir = Filename.dirname (Test_gpt2.fixture "model.safetensors") in
      let config = Gpt2.Model.config_of_json (Json.of_string (read_file (Filename.concat dir "config.json"))) in
      let e = Lazy.force Test_gpt2.expected in
      let logits sd =
        let m = Gpt2.Model.of_state_dict config sd in
        Tensor.to_float_array (Gpt2.Model.logits m (Gpt2.Model.Ids (Gpt2.Model.tokens_tensor e.prompt_ids))
                                 ~start_pos:(Sint.of_int 0)) in
      let from_bin = logits (State.torch_load (Filename.concat dir "pytorch_model.bin")) in
      let from_st = logits (State.safe_load (Filename.concat dir "model.safetensors")) in
      check_int ~what:"logits" (Array.length from_st) (Array.length from_bin);
      Array.iteri (fun i v -> if not (Float.equal v from_bin.(i)) then
                      fail "logit %d: %h from pytorch_model.bin, %h from model.safetensors" i from_bin.(i) v) from_st;
      Test_gpt2.check_logits ~what:"pytorch_model.bin logits" e.logits from_bin);
]
