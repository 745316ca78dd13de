(* tinygrad: mixin/rand.py (RandMixin) as functions over UOps — threefry random bits from a (key, counter) pair,
   rand / randn / randint / uniform / normal, the init helpers, randperm, multinomial, dropout and
   scaled_dot_product_attention — and [Make], the same ops over a carrier with a per-device counter. The stateful
   counter (tinygrad Tensor._next_counter) is the carrier's: the UOp functions take it as [~next_counter]. *)

open Uop
module Mv = Mixin_movement
module E = Mixin_elementwise

let ci = E.ci
let cz z = Uop.const (Dtype.I z)
let ceildiv = Helpers.ceildiv
let dims l = List.map (fun i -> Sint i) l


(* tinygrad: Tensor.__getitem__ with an int / a slice *)
let idx u i = Mixin_op.getitem u [ Mixin_op.I i ]
let slice u a b = Mixin_op.getitem u [ Mixin_op.S (a, b, None) ]

(* ---------- SHA-256 (tinygrad's _next_counter hashes the device index with hashlib.sha256) ---------- *)

let sha256_k = [|
  0x428a2f98; 0x71374491; 0xb5c0fbcf; 0xe9b5dba5; 0x3956c25b; 0x59f111f1; 0x923f82a4; 0xab1c5ed5;
  0xd807aa98; 0x12835b01; 0x243185be; 0x550c7dc3; 0x72be5d74; 0x80deb1fe; 0x9bdc06a7; 0xc19bf174;
  0xe49b69c1; 0xefbe4786; 0x0fc19dc6; 0x240ca1cc; 0x2de92c6f; 0x4a7484aa; 0x5cb0a9dc; 0x76f988da;
  0x983e5152; 0xa831c66d; 0xb00327c8; 0xbf597fc7; 0xc6e00bf3; 0xd5a79147; 0x06ca6351; 0x14292967;
  0x27b70a85; 0x2e1b2138; 0x4d2c6dfc; 0x53380d13; 0x650a7354; 0x766a0abb; 0x81c2c92e; 0x92722c85;
  0xa2bfe8a1; 0xa81a664b; 0xc24b8b70; 0xc76c51a3; 0xd192e819; 0xd6990624; 0xf40e3585; 0x106aa070;
  0x19a4c116; 0x1e376c08; 0x2748774c; 0x34b0bcb5; 0x391c0cb3; 0x4ed8aa4a; 0x5b9cca4f; 0x682e6ff3;
  0x748f82ee; 0x78a5636f; 0x84c87814; 0x8cc70208; 0x90befffa; 0xa4506ceb; 0xbef9a3f7; 0xc67178f2 |]

let sha256 (msg : string) : string =
  let m32 x = x land 0xffffffff in
  let rotr x n = m32 ((x lsr n) lor (x lsl (32 - n))) in
  let h = [| 0x6a09e667; 0xbb67ae85; 0x3c6ef372; 0xa54ff53a; 0x510e527f; 0x9b05688c; 0x1f83d9ab; 0x5be0cd19 |] in
  let len = String.length msg in
  let padded_len = ((len + 9 + 63) / 64) * 64 in
  let b = Bytes.make padded_len '\000' in
  Bytes.blit_string msg 0 b 0 len;
  Bytes.set b len '\x80';
  let bitlen = len * 8 in
  for i = 0 to 7 do Bytes.set b (padded_len - 1 - i) (Char.chr ((bitlen lsr (8 * i)) land 0xff)) done;
  let w = Array.make 64 0 in
  for blk = 0 to padded_len / 64 - 1 do
    for t = 0 to 15 do
      let o = blk * 64 + 4 * t in
      w.(t) <- (Char.code (Bytes.get b o) lsl 24) lor (Char.code (Bytes.get b (o + 1)) lsl 16)
               lor (Char.code (Bytes.get b (o + 2)) lsl 8) lor Char.code (Bytes.get b (o + 3))
    done;
    for t = 16 to 63 do
      let s0 = rotr w.(t - 15) 7 lxor rotr w.(t - 15) 18 lxor (w.(t - 15) lsr 3) in
      let s1 = rotr w.(t - 2) 17 lxor rotr w.(t - 2) 19 lxor (w.(t - 2) lsr 10) in
      w.(t) <- m32 (w.(t - 16) + s0 + w.(t - 7) + s1)
    done;
    let a = ref h.(0) and bb = ref h.(1) and c = ref h.(2) and d = ref h.(3)
    and e = ref h.(4) and f = ref h.(5) and g = ref h.(6) and hh = ref h.(7) in
    for t = 0 to 63 do
      let s1 = rotr !e 6 lxor rotr !e 11 lxor rotr !e 25 in
      let ch = (!e land !f) lxor ((lnot !e) land 0xffffffff land !g) in
      let t1 = m32 (!hh + s1 + ch + sha256_k.(t) + w.(t)) in
      let s0 = rotr !a 2 lxor rotr !a 13 lxor rotr !a 22 in
      let maj = (!a land !bb) lxor (!a land !c) lxor (!bb land !c) in
      let t2 = m32 (s0 + maj) in
      hh := !g; g := !f; f := !e; e := m32 (!d + t1); d := !c; c := !bb; bb := !a; a := m32 (t1 + t2)
    done;
    List.iteri (fun i v -> h.(i) <- m32 (h.(i) + v)) [ !a; !bb; !c; !d; !e; !f; !g; !hh ]
  done;
  String.init 32 (fun i -> Char.chr ((h.(i / 4) lsr (8 * (3 - (i mod 4)))) land 0xff))

(* tinygrad: int.from_bytes(hashlib.sha256(n.to_bytes(4, "big")).digest(), "big") & 0xffffffff — the low 32 bits,
   which is what Tensor([...], dtype=dtypes.uint32) keeps *)
let device_seed_word n =
  let msg = String.init 4 (fun i -> Char.chr ((n lsr (8 * (3 - i))) land 0xff)) in
  let d = sha256 msg in
  (Char.code d.[28] lsl 24) lor (Char.code d.[29] lsl 16) lor (Char.code d.[30] lsl 8) lor Char.code d.[31]

(* ---------- threefry bits ---------- *)

(* tinygrad: RandMixin._threefry_random_bits *)
let threefry_random_bits key counts0 counts1 =
  let x = E.bitwise_or (E.lshift (Mixin_dtype.cast counts1 Dtype.Uint64) (ci 32)) (Mixin_dtype.cast counts0 Dtype.Uint64) in
  let x = E.threefry x (E.bitwise_or (E.lshift (Mixin_dtype.cast (idx key 1) Dtype.Uint64) (ci 32))
                          (Mixin_dtype.cast (idx key 0) Dtype.Uint64)) in
  Mixin_op.cat [ Mixin_dtype.cast x Dtype.Uint32; Mixin_dtype.cast (E.rshift x (ci 32)) Dtype.Uint32 ]

let uint32_max = 0xffffffff

(* tinygrad: RandMixin.random_bits *)
let random_bits key counter num =
  let low = slice counter (Some 0) (Some 1) and high = slice counter (Some 1) (Some 2) in
  let rec go i acc =
    if i >= num then List.rev acc
    else begin
      let chunk_num = min (num - i) uint32_max in
      let c_low = E.add low (ci (i land 0xffffffff)) in
      let c_high = E.add (E.add high (ci (i lsr 32))) (E.lt c_low low) in
      let new_key = threefry_random_bits key c_low c_high in
      let counts0 = Mixin_op.arange ~dtype:Dtype.Uint32 (ceildiv chunk_num 2) in
      let counts1 = E.add counts0 (ci (ceildiv chunk_num 2)) in
      let bits = slice (threefry_random_bits new_key counts0 counts1) None (Some chunk_num) in
      go (i + uint32_max) (bits :: acc)
    end in
  match go 0 [] with
  | [] -> slice counter (Some 0) (Some 0)
  | bits -> Mixin_op.cat bits

(* tinygrad: RandMixin._bits_to_rand *)
let bits_to_rand bits (shape : int list) dtype =
  let _, nmant = Dtype.finfo dtype in
  let uint_dtype = match Dtype.itemsize dtype with
    | 1 -> Dtype.Uint8 | 2 -> Dtype.Uint16 | 4 -> Dtype.Uint32 | 8 -> Dtype.Uint64
    | n -> invalid_arg (Printf.sprintf "rand: no unsigned dtype of %d bytes" n) in
  let uint_bits = Mixin_dtype.bitcast bits uint_dtype in
  let float_one_bits = match Dtype.bitcast (Dtype.F 1.0) dtype uint_dtype with
    | Dtype.I z -> z | _ -> invalid_arg "rand: bitcast of 1.0" in
  let r = E.bitwise_or (E.rshift uint_bits (ci (Dtype.bitsize dtype - nmant))) (cz float_one_bits) in
  let r = slice (Mixin_dtype.bitcast r dtype) None (Some (Helpers.prod shape)) in
  Mixin_movement.reshape (E.sub r (ci 1)) (dims shape)

(* tinygrad: RandMixin._rand *)
let rand_from key counter shape dtype ~contiguous =
  let bits = random_bits key counter (ceildiv (Helpers.prod shape * Dtype.itemsize dtype) 4) in
  let out = bits_to_rand bits shape dtype in
  if contiguous then E.contiguous out else out

(* the per-device (key, counter) source: tinygrad RandMixin._next_counter, which only Tensor implements *)
type next_counter = string -> int -> Uop.t * Uop.t

(* ---------- creation ---------- *)

let check_shape op (shape : int list) =
  if List.exists (fun s -> s < 0) shape then
    invalid_arg (Printf.sprintf "%s: invalid input shape=%s" op (Uop.shape_str (dims shape)))

(* tinygrad: RandMixin.rand — [devices] is tinygrad's tuple [device], which one counter cannot draw for *)
let rand ~(next_counter : next_counter) ?device ?devices ?dtype ?(contiguous = true) (shape : int list) =
  let dt = match dtype with Some d -> d | None -> Dtype.default_float () in
  if not (Dtype.is_float dt) || Dtype.is_weak dt then
    invalid_arg ("rand: rand only supports concrete float dtypes, got " ^ Dtype.to_string dt);
  check_shape "rand" shape;
  Option.iter (fun ds ->
      invalid_arg (Printf.sprintf "rand: rand only supports single device, got device=(%s)"
                     (String.concat ", " ds))) devices;
  let device = Mixin_creation.canonicalize_device ~op:"rand" device in
  let key, counter = next_counter device (ceildiv (Helpers.prod shape * Dtype.itemsize dt) 4) in
  rand_from key counter shape dt ~contiguous

(* the device a *_like draws on: the tensor's, the default for a device-less constant *)
let device_of (u : Uop.t) = Buffers.device u

(* tinygrad: RandMixin.rand_like — on a multi-device value, one draw per device of its shard's shape (or one
   draw replicated), through _multi_like, where a device of the caller's would contradict the value's own *)
let rand_like ~next_counter ?device ?devices ?dtype ?contiguous (u : Uop.t) =
  let dtype = match dtype with Some d -> d | None -> u.dtype in
  if Buffers.is_multi u then begin
    if device <> None || devices <> None then
      invalid_arg (Printf.sprintf
                     "rand_like: cannot specify device on *_like of a multi device tensor of shape %s"
                     (Uop.shape_str (Mv.shape u)));
    Mixin_creation.multi_like u (fun shape device ->
        let int_dim = function
          | Uop.Sint i -> i
          | Uop.Suop _ -> invalid_arg "rand_like: symbolic shape not supported" in
        rand ~next_counter ?device ~dtype ?contiguous (List.map int_dim shape))
  end else
    let device = match device with Some _ -> device | None -> device_of u in
    rand ~next_counter ?device ?devices ~dtype ?contiguous (Mv.ishape u)

(* tinygrad: RandMixin.randn_like — Box-Muller *)
let randn_like ~next_counter ?dtype (u : Uop.t) =
  let dt = match dtype with Some d -> d | None -> u.dtype in
  if Dtype.is_weak dt && dtype = None then invalid_arg ("randn_like: randn_like requires an explicit dtype for " ^ Dtype.to_string dt);
  let src = rand_like ~next_counter ~dtype:Dtype.Float32 (Mixin_movement.stack [ u; u ]) in
  let s0 = idx src 0 and s1 = idx src 1 in
  Mixin_dtype.cast
    (E.mul (E.cos (E.mul s0 (E.cf (2.0 *. Float.pi)))) (E.sqrt (E.mul (E.log (E.sub (ci 1) s1)) (ci (-2))))) dt

(* tinygrad: RandMixin.randn *)
let randn ~next_counter ?device ?dtype (shape : int list) =
  check_shape "randn" shape;
  randn_like ~next_counter ?dtype (Mixin_creation.empty ?device (dims shape))

(* tinygrad: RandMixin.uniform, with [low] / [high] as Python numbers (int or float constants) *)
let uniform_c ~next_counter ?device ?dtype ~(low : Dtype.const) ~(high : Dtype.const) (shape : int list) =
  check_shape "uniform" shape;
  let to_f = function Dtype.I z -> Z.to_float z | Dtype.F f -> f | _ -> invalid_arg "uniform: low/high must be numbers" in
  if to_f low >= to_f high then
    invalid_arg (Printf.sprintf "uniform: Tensor.uniform requires low < high, got low=%s, high=%s" (Dtype.float_repr (to_f low)) (Dtype.float_repr (to_f high)));
  let span = match low, high with
    | Dtype.I l, Dtype.I h -> Dtype.I (Z.sub h l)
    | _ -> Dtype.F (to_f high -. to_f low) in
  let r = E.mul (Uop.const span) (rand ~next_counter ?device shape) in
  E.add (Mixin_dtype.cast r (match dtype with Some d -> d | None -> Dtype.default_float ())) (Uop.const low)

(* tinygrad: RandMixin.uniform *)
let uniform ~next_counter ?device ?dtype ?(low = 0.0) ?(high = 1.0) shape =
  uniform_c ~next_counter ?device ?dtype ~low:(Dtype.F low) ~high:(Dtype.F high) shape

(* tinygrad: RandMixin.randint *)
let randint ~next_counter ?device ?(low = 0) ?(high = 10) ?(dtype = Dtype.Int32) shape =
  if not (Dtype.is_int dtype) then invalid_arg ("randint: dtype=" ^ Dtype.to_string dtype ^ " must be int");
  if low >= high then invalid_arg (Printf.sprintf "randint: Tensor.randint requires low < high, got low=%d, high=%d" low high);
  uniform_c ~next_counter ?device ~dtype ~low:(Dtype.I (Z.of_int low)) ~high:(Dtype.I (Z.of_int high)) shape

(* tinygrad: RandMixin.normal *)
let normal ~next_counter ?device ?dtype ?(mean = 0.0) ?(std = 1.0) shape =
  if std < 0.0 then invalid_arg (Printf.sprintf "normal: Tensor.normal requires std >= 0, got std=%s" (Dtype.float_repr std));
  E.add (E.mul (E.cf std) (randn ~next_counter ?device ?dtype shape)) (E.cf mean)

(* tinygrad: RandMixin.scaled_uniform *)
let scaled_uniform ~next_counter ?device ?dtype shape =
  E.mul (uniform ~next_counter ?device ?dtype ~low:(-1.0) ~high:1.0 shape) (E.cf (Float.pow (float_of_int (Helpers.prod shape)) (-0.5)))

let rest = function [] -> [] | _ :: r -> r
let first op = function d :: _ -> d | [] -> invalid_arg (op ^ ": needs at least one dimension")

(* tinygrad: RandMixin.glorot_uniform *)
let glorot_uniform ~next_counter ?device ?dtype shape =
  let bound = Float.pow (6.0 /. float_of_int (first "glorot_uniform" shape + Helpers.prod (rest shape))) 0.5 in
  uniform ~next_counter ?device ?dtype ~low:(-.bound) ~high:bound shape

(* tinygrad: RandMixin.kaiming_uniform *)
let kaiming_uniform ~next_counter ?device ?dtype ?(a = 0.01) shape =
  let bound = Float.pow (6.0 /. (1.0 +. a *. a) /. float_of_int (Helpers.prod (rest shape))) 0.5 in
  uniform ~next_counter ?device ?dtype ~low:(-.bound) ~high:bound shape

(* tinygrad: RandMixin.kaiming_normal *)
let kaiming_normal ~next_counter ?device ?dtype ?(a = 0.01) shape =
  let std = Float.pow (2.0 /. (1.0 +. a *. a) /. float_of_int (Helpers.prod (rest shape))) 0.5 in
  normal ~next_counter ?device ?dtype ~mean:0.0 ~std shape

(* tinygrad: RandMixin.randperm *)
let randperm ~next_counter ?device ?(dtype = Dtype.Int32) n =
  Mixin_dtype.cast (Mixin_op.argsort (rand ~next_counter ?device [ n ])) dtype

(* tinygrad: RandMixin.multinomial *)
let multinomial ~next_counter ?(num_samples = 1) ?(replacement = false) (u : Uop.t) =
  let nd = List.length (Uop.shape u) in
  if not (1 <= nd && nd <= 2 && num_samples > 0) then
    invalid_arg (Printf.sprintf "multinomial: ndim=%d must be 1 or 2 dim, num_samples=%d must be positive" nd num_samples);
  let weight = if nd = 1 then Mixin_movement.unsqueeze u 0 else u in
  let wshape = Mv.ishape weight in
  if not (replacement || num_samples <= List.nth wshape 1) then
    invalid_arg "multinomial: no replacement samples must not exceed population size";
  let indices =
    if replacement || num_samples = 1 then begin
      let cw = Mixin_dtype.float (Mixin_op.cumsum ~axis:1 weight) in
      let cdf = E.div cw (Mixin_movement.unsqueeze (Mixin_op.getitem cw [ Mixin_op.S (None, None, None); Mixin_op.I (-1) ]) 1) in
      let unif_samples = rand ~next_counter ?device:(device_of u) [ num_samples; List.hd (Mv.ishape cdf); 1 ] in
      Mixin_movement.permute (Mixin_reduce.sum ~axis:[ 2 ] (E.ge unif_samples cdf)) [ 1; 0 ]
    end else
      (* Efraimidis-Spirakis *)
      snd (Mixin_op.topk ~dim:1 (E.div (E.log2 (rand_like ~next_counter ~dtype:Dtype.Float32 weight)) weight) num_samples) in
  Mixin_dtype.cast (if nd = 1 then Mixin_movement.squeeze ~dim:0 indices else indices) Dtype.Int32

(* ---------- dropout and attention ---------- *)

(* tinygrad: RandMixin.dropout — the identity unless TRAINING *)
let dropout ~next_counter ?(p = 0.5) (u : Uop.t) =
  if not (0.0 <= p && p <= 1.0) then invalid_arg (Printf.sprintf "dropout: p=%s is out of range [0, 1]" (Dtype.float_repr p));
  if Helpers.training.value = 0 || p = 0.0 then u
  else if p = 1.0 then Uop.const_like u (Dtype.I Z.zero)
  else
    E.div (E.where (E.contiguous (E.ge (rand_like ~next_counter ~dtype:(Dtype.default_float ()) ~contiguous:false u) (E.cf p))) u (ci 0))
      (E.cf (1.0 -. p))

(* tinygrad: RandMixin.scaled_dot_product_attention *)
let scaled_dot_product_attention ~next_counter ?attn_mask ?(dropout_p = 0.0) ?(is_causal = false) ?(enable_gqa = false)
    (q : Uop.t) (key : Uop.t) (value : Uop.t) =
  let nth_from_end u i =
    let s = Mv.shape u in
    match List.nth s (List.length s - i) with
    | Sint n -> n
    | Suop _ -> invalid_arg (Printf.sprintf "scaled_dot_product_attention: dim -%d of %s must not be symbolic" i
                               (Uop.shape_str s)) in
  let key, value =
    if enable_gqa then
      (Mixin_movement.repeat_interleave ~dim:(-3) key (nth_from_end q 3 / nth_from_end key 3),
       Mixin_movement.repeat_interleave ~dim:(-3) value (nth_from_end q 3 / nth_from_end value 3))
    else (key, value) in
  let dt = Dtype.least_upper_dtype [ q.dtype; key.dtype; Dtype.Float32 ] in
  let qk = E.div (Mixin_op.matmul ~dtype:dt q (Mixin_movement.transpose ~dim0:(-2) ~dim1:(-1) key))
      (E.cf (Float.sqrt (float_of_int (nth_from_end q 1)))) in
  let attn_mask =
    if is_causal then begin
      if attn_mask <> None then invalid_arg "scaled_dot_product_attention: cannot set attn_mask when is_causal=True";
      Some (Mixin_op.tril (Uop.const_like ~dtype:Dtype.Bool qk (Dtype.B true)))
    end else attn_mask in
  let qk = match attn_mask with
    | None -> qk
    | Some m ->
      let m = if m.dtype == Dtype.Bool then E.where m (ci 0) (E.cf Float.neg_infinity) else m in
      E.add qk m in
  Mixin_op.matmul (dropout ~next_counter ~p:dropout_p (Mixin_op.softmax ~axis:(-1) (Mixin_dtype.cast qk q.dtype))) value

(* each right-hand side is the UOp function of the same name above, drawing from the carrier's counter *)
module Make (C : Mixin_intf.RAND_CARRIER) = struct
  let next_counter device num = let key, counter = C.next_counter device num in (C.uop key, C.uop counter)
  let named = Mixin_dtype.named
  let lift op f = named op @@ fun () -> C.wrap_uop ~op (f ())
  let rl = Array.to_list
  let rand ?dtype ?device ?devices ?contiguous shape =
    lift "rand" @@ fun () -> rand ~next_counter ?device ?devices ?dtype ?contiguous (rl shape)
  let rand_like ?dtype ?device ?devices ?contiguous x =
    lift "rand_like" @@ fun () -> rand_like ~next_counter ?device ?devices ?dtype ?contiguous (C.uop x)
  let randn ?dtype ?device shape = lift "randn" @@ fun () -> randn ~next_counter ?device ?dtype (rl shape)
  let randn_like ?dtype x = lift "randn_like" @@ fun () -> randn_like ~next_counter ?dtype (C.uop x)
  let randint ?dtype ?device ?low ?high shape =
    lift "randint" @@ fun () -> randint ~next_counter ?device ?low ?high ?dtype (rl shape)
  let uniform ?dtype ?device ?low ?high shape =
    lift "uniform" @@ fun () -> uniform ~next_counter ?device ?dtype ?low ?high (rl shape)
  let normal ?dtype ?device ?mean ?std shape =
    lift "normal" @@ fun () -> normal ~next_counter ?device ?dtype ?mean ?std (rl shape)
  let scaled_uniform ?dtype ?device shape =
    lift "scaled_uniform" @@ fun () -> scaled_uniform ~next_counter ?device ?dtype (rl shape)
  let glorot_uniform ?dtype ?device shape =
    lift "glorot_uniform" @@ fun () -> glorot_uniform ~next_counter ?device ?dtype (rl shape)
  let kaiming_uniform ?dtype ?device ?a shape =
    lift "kaiming_uniform" @@ fun () -> kaiming_uniform ~next_counter ?device ?dtype ?a (rl shape)
  let kaiming_normal ?dtype ?device ?a shape =
    lift "kaiming_normal" @@ fun () -> kaiming_normal ~next_counter ?device ?dtype ?a (rl shape)
  let randperm ?dtype ?device n = lift "randperm" @@ fun () -> randperm ~next_counter ?device ?dtype n
  let multinomial ?num_samples ?replacement x =
    lift "multinomial" @@ fun () -> multinomial ~next_counter ?num_samples ?replacement (C.uop x)
  (* the identity (no training, or p = 0) returns [x] itself, as tinygrad's [return self] *)
  let dropout ?p x =
    named "dropout" @@ fun () ->
    let u = dropout ~next_counter ?p (C.uop x) in
    if u == C.uop x then x else C.wrap_uop ~op:"dropout" u
  let scaled_dot_product_attention ?attn_mask ?dropout_p ?is_causal ?enable_gqa q k v =
    lift "scaled_dot_product_attention" @@ fun () ->
    scaled_dot_product_attention ~next_counter ?attn_mask:(Option.map C.uop attn_mask) ?dropout_p ?is_causal
      ?enable_gqa (C.uop q) (C.uop k) (C.uop v)
end
