(* GPT-2 as tinygrad's examples/gpt2.py writes it (Attention, FeedForward, TransformerBlock, Transformer, GPT2.build),
   loading a Hugging Face GPT2LMHeadModel checkpoint (model.safetensors). *)
open Tinygrad

type config = { n_layers : int; n_heads : int; dim : int; norm_eps : float; vocab_size : int; max_seq_len : int }

(* tinygrad: examples/gpt2.py MODEL_PARAMS['gpt2'] *)
let gpt2_small = { n_layers = 12; n_heads = 12; dim = 768; norm_eps = 1e-5; vocab_size = 50257; max_seq_len = 1024 }

type attention = {
  c_attn : Nn.Linear.t;
  c_proj : Nn.Linear.t;
  n_heads : int;
  dim : int;
  head_dim : int;
  mutable cache_kv : Tensor.t option;  (* (2, bsz, max_context, n_heads, head_dim), made on the first call *)
}

type block = { attn : attention; c_fc : Nn.Linear.t; mlp_proj : Nn.Linear.t; ln_1 : Nn.LayerNorm.t; ln_2 : Nn.LayerNorm.t }

type t = {
  config : config;
  max_context : int;
  wte : Nn.Embedding.t;
  wpe : Nn.Embedding.t;
  h : block array;
  ln_f : Nn.LayerNorm.t;
  lm_head : Nn.Linear.t;
  mutable allpos : Tensor.t option;
  mutable devices : string list option;  (* the devices of a sharded model: its inputs, cache and positions go there *)
  mutable step_jit : (float * Tensor.t Tiny_jit.t) option;  (* the one-token step's JIT, for one temperature *)
  mutable full_jit : (float * Tensor.t Tiny_jit.t) option;  (* the no-cache step's JIT *)
}

let config m = m.config
let max_context m = m.max_context

(* the value of a start position: an int, or a bound Variable's value *)
let value (s : Sint.t) = match s with Sint i -> i | Suop _ -> Variable.value s

let dims sh = String.concat ", " (Array.to_list (Array.map string_of_int sh))

(* tinygrad: examples/gpt2.py Attention.__call__ — the cache is written at [start_pos] by a shrink and an assign;
   the keys and values are the cache's first [start_pos + seqlen] rows. With a bound Variable as [start_pos] (a
   one-token step) those shapes are symbolic and the kernels serve every position. *)
let attention ?(keep = []) a (x : Tensor.t) ~max_context ~(start_pos : Sint.t) ~(mask : Tensor.t option) =
  (* no symbolic shapes when consuming a prompt *)
  let start_pos = if Option.is_some mask || value start_pos = 0 then Sint.of_int (value start_pos) else start_pos in
  let xqkv = Nn.Linear.forward a.c_attn x in
  let bsz, seqlen = match Tensor.shape x with [| b; s; _ |] -> (b, s) | sh -> invalid_arg ("gpt2 attention: x is " ^ dims sh) in
  let qkv i =
    Tensor.reshape (Tensor.shrink xqkv [| (0, bsz); (0, seqlen); (i * a.dim, (i + 1) * a.dim) |])
      [| bsz; seqlen; a.n_heads; a.head_dim |] in
  let xq = qkv 0 and xk = qkv 1 and xv = qkv 2 in
  let cache_kv = match a.cache_kv with
    | Some c -> c
    | None ->
      let c = Tensor.contiguous (Tensor.zeros [| 2; bsz; max_context; a.n_heads; a.head_dim |]) in
      (* a sharded model keeps its cache on every device, as its keys and values are *)
      let c = Tensor.realize c in
      let c = if Tensor.is_sharded x then Tensor.realize (Tensor.to_devices c (Tensor.devices x)) else c in
      a.cache_kv <- Some c; c in
  let s = Sint.of_int and stop = Sint.(start_pos + of_int seqlen) in
  let window = [| (s 0, s 2); (s 0, s bsz); (start_pos, stop); (s 0, s a.n_heads); (s 0, s a.head_dim) |] in
  (* not in tinygrad: the block's input and qkv are realized with the cache write, so that the later layers read
     them instead of computing every earlier layer again (tinygrad realizes the write alone and recomputes) *)
  Tensor.realize_all (Tensor.assign (Tensor.Sym.shrink cache_kv window) (Tensor.stack [ xk; xv ]) :: xqkv :: keep);
  let cached i =
    Tensor.Sym.reshape
      (Tensor.Sym.shrink cache_kv [| (s i, s (i + 1)); (s 0, s bsz); (s 0, stop); (s 0, s a.n_heads); (s 0, s a.head_dim) |])
      [| s bsz; stop; s a.n_heads; s a.head_dim |] in
  let keys, values = if value start_pos > 0 then (cached 0, cached 1) else (xk, xv) in
  let tr t = Tensor.transpose ~dim0:1 ~dim1:2 t in
  let out = Tensor.scaled_dot_product_attention ?attn_mask:mask (tr xq) (tr keys) (tr values) in
  Nn.Linear.forward a.c_proj (Tensor.reshape (tr out) [| bsz; seqlen; a.dim |])

(* tinygrad: examples/gpt2.py TransformerBlock.__call__ (with FeedForward) *)
let block b x ~max_context ~start_pos ~mask =
  let h = Tensor.add x (attention ~keep:[ x ] b.attn (Nn.LayerNorm.forward b.ln_1 x) ~max_context ~start_pos ~mask) in
  let ff = Nn.Linear.forward b.mlp_proj (Tensor.gelu (Nn.Linear.forward b.c_fc (Nn.LayerNorm.forward b.ln_2 h))) in
  Tensor.add h ff

let allpos m =
  match m.allpos with
  | Some p -> p
  | None ->
    let p = Tensor.contiguous (Tensor.reshape (Tensor.arange m.max_context) [| 1; -1 |]) in
    let p = Tensor.realize (match m.devices with Some ds -> Tensor.to_devices (Tensor.realize p) ds | None -> p) in
    m.allpos <- Some p; p

(* the causal mask of a [seqlen]-token step at [start_pos]: -inf above the diagonal (tinygrad's [triu(start_pos+1)]) *)
let causal_mask ~start_pos ~seqlen =
  Tensor.triu ~diagonal:(start_pos + 1) (Tensor.full [| 1; 1; seqlen; start_pos + seqlen |] Float.neg_infinity)

type tokens = Ids of Tensor.t | Token of Sint.t

(* tinygrad: examples/gpt2.py Transformer.forward up to the last block — (bsz, seqlen, dim). A one-token step may
   take the token as a bound Variable: its embedding is then a symbolic shrink of wte, not a lookup over the
   vocabulary. *)
let hidden m (tokens : tokens) ~(start_pos : Sint.t) =
  let d = m.config.dim and s = Sint.of_int in
  let seqlen, tok_emb = match tokens with
    | Token t -> (1, Tensor.Sym.reshape (Tensor.Sym.shrink m.wte.weight [| (t, Sint.(t + of_int 1)); (s 0, s d) |])
                     [| s 1; s 1; s d |])
    | Ids ids ->
      (match Tensor.shape ids with
       | [| _; n |] ->
         let ids = match m.devices with Some ds -> Tensor.to_devices ids ds | None -> ids in
         (n, Nn.Embedding.forward m.wte ids)
       | sh -> invalid_arg (Printf.sprintf "gpt2: tokens must be (batch, seqlen), got (%s)" (dims sh))) in
  let sp = value start_pos in
  if sp < 0 || sp + seqlen > m.max_context then
    invalid_arg (Printf.sprintf "gpt2: positions %d..%d outside the context of %d" sp (sp + seqlen) m.max_context);
  let pos = Tensor.Sym.shrink (allpos m) [| (s 0, s 1); (start_pos, Sint.(start_pos + of_int seqlen)) |] in
  let h = Tensor.add tok_emb (Nn.Embedding.forward m.wpe pos) in
  let mask = if seqlen > 1 then Some (causal_mask ~start_pos:sp ~seqlen) else None in
  let mask = match m.devices, mask with Some ds, Some k -> Some (Tensor.to_devices (Tensor.realize k) ds) | _ -> mask in
  Array.fold_left (fun h b -> block b h ~max_context:m.max_context ~start_pos ~mask) h m.h

let head m h = Nn.Linear.forward m.lm_head (Nn.LayerNorm.forward m.ln_f h)

let logits m tokens ~start_pos = head m (hidden m tokens ~start_pos)

(* the next token of each row of (bsz, vocab) logits: the argmax, or a sample of the softmax at [temperature] *)
let sample ~temperature last =
  if temperature < 1e-6 then Tensor.argmax ~axis:(-1) last
  else Tensor.multinomial (Tensor.softmax (Tensor.div last (Tensor.scalar temperature)))

(* tinygrad: examples/gpt2.py Transformer.forward — the next token of each batch row, from the last position *)
let forward ?(temperature = 0.0) m tokens ~start_pos =
  let h = hidden m tokens ~start_pos in
  let sh = Tensor.shape h in
  (* not in tinygrad: the head runs on the last position only (tinygrad computes every position's logits and keeps
     the last) *)
  let last = Tensor.reshape (Tensor.shrink h [| (0, sh.(0)); (sh.(1) - 1, sh.(1)); (0, sh.(2)) |]) [| sh.(0); sh.(2) |] in
  Tensor.realize (Tensor.flatten (sample ~temperature (head m last)))

(* ---- weights ---- *)

(* Hugging Face names: "transformer.h.0.attn.c_attn.weight" in GPT2LMHeadModel files, "h.0.attn.c_attn.weight" in
   GPT2Model ones *)
let strip_prefix (k, t) =
  let p = "transformer." in
  let n = String.length p in
  if String.length k > n && String.sub k 0 n = p then (String.sub k n (String.length k - n), t) else (k, t)

(* the model's tensors by tinygrad's names (its get_state_dict of Transformer) *)
let state_obj m =
  let lin (l : Nn.Linear.t) = State.of_named (Nn.Linear.state_dict l) in
  let ln (l : Nn.LayerNorm.t) =
    State.Dict (List.filter_map (fun (k, t) -> Option.map (fun t -> (k, State.Tensor t)) t)
                  [ ("weight", l.weight); ("bias", l.bias) ]) in
  let block b =
    State.Dict [ ("attn", State.Dict [ ("c_attn", lin b.attn.c_attn); ("c_proj", lin b.attn.c_proj) ]);
                 ("mlp", State.Dict [ ("c_fc", lin b.c_fc); ("c_proj", lin b.mlp_proj) ]);
                 ("ln_1", ln b.ln_1); ("ln_2", ln b.ln_2) ] in
  State.Dict [ ("wte", State.Dict [ ("weight", State.Tensor m.wte.weight) ]);
               ("wpe", State.Dict [ ("weight", State.Tensor m.wpe.weight) ]);
               ("h", State.List (Array.to_list (Array.map block m.h))); ("ln_f", ln m.ln_f); ("lm_head", lin m.lm_head) ]

(* tinygrad: examples/gpt2.py Transformer.__init__ — freshly initialised layers (lazy: load_state_dict replaces
   them before they are ever computed) *)
let create ~max_context (config : config) =
  let d = config.dim in
  let block _ =
    { attn = { c_attn = Nn.Linear.create d (3 * d); c_proj = Nn.Linear.create d d; n_heads = config.n_heads; dim = d;
               head_dim = d / config.n_heads; cache_kv = None };
      c_fc = Nn.Linear.create d (4 * d); mlp_proj = Nn.Linear.create (4 * d) d;
      ln_1 = Nn.LayerNorm.create ~eps:config.norm_eps d; ln_2 = Nn.LayerNorm.create ~eps:config.norm_eps d } in
  let wte = Nn.Embedding.create config.vocab_size d in
  (* lm_head is wte's tensor: GPT2.build loads wte's weight into both, and a sharded model then shards one tensor *)
  { config; max_context; wte; wpe = Nn.Embedding.create config.max_seq_len d; h = Array.init config.n_layers block;
    ln_f = Nn.LayerNorm.create ~eps:config.norm_eps d; lm_head = { Nn.Linear.weight = wte.weight; bias = None };
    allpos = None; devices = None; step_jit = None; full_jit = None }

(* the Conv1D weights of a Hugging Face checkpoint, (in, out): Linear's transposed *)
let conv1d_weights = [ "attn.c_attn.weight"; "attn.c_proj.weight"; "mlp.c_fc.weight"; "mlp.c_proj.weight" ]

let ends_with ~suffix k =
  let n = String.length suffix and m = String.length k in
  m >= n && String.sub k (m - n) n = suffix

(* tinygrad: examples/gpt2.py GPT2.build — the Conv1D weights transposed (views of the checkpoint's tensors),
   lm_head tied to wte, and load_state_dict *)
let of_state_dict ?max_context (config : config) sd =
  let max_context = Option.value max_context ~default:(min 128 config.max_seq_len) in
  if config.dim mod config.n_heads <> 0 then
    invalid_arg (Printf.sprintf "gpt2: width %d is not a multiple of %d heads" config.dim config.n_heads);
  if max_context > config.max_seq_len then
    invalid_arg (Printf.sprintf "gpt2: max_context %d exceeds n_positions %d" max_context config.max_seq_len);
  let sd = List.map (fun (k, t) ->
      let k, t = strip_prefix (k, t) in
      if List.exists (fun suffix -> ends_with ~suffix k) conv1d_weights then (k, Tensor.transpose t) else (k, t)) sd in
  let sd = match List.assoc_opt "wte.weight" sd with Some w -> ("lm_head.weight", w) :: sd | None -> sd in
  let m = create ~max_context config in
  ignore (State.load_state_dict ~verbose:false (state_obj m) sd);
  m

(* Model parallelism over [devices] (Megatron's split of each block): the qkv and MLP-up projections split along
   their input features, the attention output and MLP-down projections along their output features, so each device
   holds half of every attention and MLP weight; the layer norms' statistics and the projections' sums over a split
   axis are allreduced by the multi-device rewrite. Embeddings, norms and biases are replicated. *)
let shard m devices =
  let rep (t : Tensor.t) = ignore (Tensor.shard_ t devices) and split axis (t : Tensor.t) = ignore (Tensor.shard_ ~axis t devices) in
  let rep_ln (l : Nn.LayerNorm.t) = Option.iter rep l.weight; Option.iter rep l.bias in
  Array.iter (fun b ->
      split 1 b.attn.c_attn.weight; Option.iter rep b.attn.c_attn.bias;
      split 0 b.attn.c_proj.weight; Option.iter rep b.attn.c_proj.bias;
      split 1 b.c_fc.weight; Option.iter rep b.c_fc.bias;
      split 0 b.mlp_proj.weight; Option.iter rep b.mlp_proj.bias;
      rep_ln b.ln_1; rep_ln b.ln_2) m.h;
  (* lm_head is tied to wte *)
  rep m.wte.weight; rep m.wpe.weight; rep_ln m.ln_f;
  m.devices <- Some devices;
  m.allpos <- None;
  Tensor.realize_all (List.concat_map (fun b ->
      [ b.attn.c_attn.weight; b.attn.c_proj.weight; b.c_fc.weight; b.mlp_proj.weight ]) (Array.to_list m.h)
    @ [ m.wte.weight; m.wpe.weight ])

(* ---- config.json ---- *)

let config_of_json (j : State.Json.t) =
  let fields = match j with State.Json.Assoc l -> l | _ -> invalid_arg "gpt2: config.json is not an object" in
  let int key default = match List.assoc_opt key fields with
    | Some (State.Json.Int n) -> n
    | None -> default
    | Some _ -> invalid_arg (Printf.sprintf "gpt2: config.json %s is not an int" key) in
  let float key default = match List.assoc_opt key fields with
    | Some (State.Json.Float f) -> f
    | Some (State.Json.Int n) -> float_of_int n
    | None -> default
    | Some _ -> invalid_arg (Printf.sprintf "gpt2: config.json %s is not a number" key) in
  let g = gpt2_small in
  { n_layers = int "n_layer" g.n_layers; n_heads = int "n_head" g.n_heads; dim = int "n_embd" g.dim;
    norm_eps = float "layer_norm_epsilon" g.norm_eps; vocab_size = int "vocab_size" g.vocab_size;
    max_seq_len = int "n_positions" g.max_seq_len }

let read_file path =
  let ic = open_in_bin path in
  Fun.protect ~finally:(fun () -> close_in ic) (fun () -> really_input_string ic (in_channel_length ic))

let load ?max_context dir =
  let cfg_path = Filename.concat dir "config.json" in
  let config = if Sys.file_exists cfg_path then config_of_json (State.Json.of_string (read_file cfg_path)) else gpt2_small in
  let st = Filename.concat dir "model.safetensors" and bin = Filename.concat dir "pytorch_model.bin" in
  let sd = if (not (Sys.file_exists st)) && Sys.file_exists bin then State.torch_load bin else State.safe_load st in
  of_state_dict ?max_context config sd

(* ---- generation ---- *)

(* tinygrad: examples/gpt2.py Variable("tokens", 0, VOCAB_SIZE), Variable("start_pos", 1, MAX_CONTEXT) — bounded by
   the last token id and the last position *)
let token_var m = Variable.create "tokens" 0 (m.config.vocab_size - 1)
let start_pos_var m = Variable.create "start_pos" 1 (m.max_context - 1)

let jit_for slot ~temperature make =
  match slot with Some (t, j) when Float.equal t temperature -> (j, slot) | _ -> let j = make () in (j, Some (temperature, j))

(* tinygrad: examples/gpt2.py Transformer.forward_jit — the one-token step, captured once for every token and
   position (both bound Variables) *)
let step_jit ?(temperature = 0.0) m =
  let j, slot = jit_for m.step_jit ~temperature (fun () ->
      Tiny_jit.create_v (fun _ vars ->
          match vars with
          | [ tok; start_pos ] -> forward ~temperature m (Token tok) ~start_pos
          | _ -> invalid_arg "gpt2 step: expected the token and start_pos Variables")) in
  m.step_jit <- slot; j

(* tinygrad: examples/gpt2.py Transformer.__call__ — one-token steps go through the JIT when [jit] (default true) *)
let step ?(temperature = 0.0) ?(jit = true) m tokens ~start_pos =
  match tokens with
  | Token tok when jit -> Tiny_jit.call_v (step_jit ~temperature m) [] [ tok; start_pos ]
  | Ids _ | Token _ -> forward ~temperature m tokens ~start_pos

let tokens_tensor ids = Tensor.of_int_array [| 1; List.length ids |] (Array.of_list ids)

(* tinygrad: examples/gpt2.py GPT2.generate (batch 1): the prompt in one step, then one step per token, the token
   and its position as bound Variables *)
let generate_cached ~temperature ~jit ~on_token m prompt count =
  let tv = token_var m and sv = start_pos_var m in
  let rec go toks n_toks last acc n =
    if n = 0 then List.rev acc
    else begin
      let tokens, start_pos = match last with
        | None -> (Ids (tokens_tensor toks), Sint.of_int 0)
        | Some tok -> (Token (Variable.bind tv tok), Variable.bind sv (n_toks - 1)) in
      let tok = (Tensor.to_int_array (step ~temperature ~jit m tokens ~start_pos)).(0) in
      on_token tok;
      go toks (n_toks + 1) (Some tok) (tok :: acc) (n - 1)
    end in
  go prompt (List.length prompt) None [] count

(* Without a cache every step runs the whole sequence, padded to the context window so that every step has one
   shape (the causal mask keeps the padding out of the earlier positions); the token is sampled at the last real
   position. *)
let full_step ~temperature m ids =
  let l = logits m (Ids ids) ~start_pos:(Sint.of_int 0) in
  Tensor.realize (Tensor.flatten (sample ~temperature (Tensor.reshape l [| m.max_context; m.config.vocab_size |])))

let full_jit ~temperature m =
  let j, slot = jit_for m.full_jit ~temperature (fun () ->
      Tiny_jit.create (function [ ids ] -> full_step ~temperature m ids | _ -> invalid_arg "gpt2 full step: one input")) in
  m.full_jit <- slot; j

let generate_uncached ~temperature ~jit ~on_token m prompt count =
  let rec go toks n acc =
    if n = 0 then List.rev acc
    else begin
      let len = List.length toks in
      let ids = Tensor.of_int_array [| 1; m.max_context |] (Array.init m.max_context (fun i -> if i < len then List.nth toks i else 0)) in
      let out = if jit then Tiny_jit.call (full_jit ~temperature m) [ ids ] else full_step ~temperature m ids in
      let tok = (Tensor.to_int_array out).(len - 1) in
      on_token tok;
      go (toks @ [ tok ]) (n - 1) (tok :: acc)
    end in
  go prompt count []

let generate ?(temperature = 0.0) ?(use_cache = true) ?(jit = true) ?(on_token = ignore) m prompt count =
  let n = List.length prompt in
  if n = 0 then invalid_arg "gpt2 generate: empty prompt";
  if n + count - 1 > m.max_context then
    invalid_arg (Printf.sprintf "gpt2 generate: %d prompt tokens and %d new ones exceed the context of %d" n count m.max_context);
  (if use_cache then generate_cached else generate_uncached) ~temperature ~jit ~on_token m prompt count
