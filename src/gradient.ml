(* tinygrad: mixin/gradient.py — the local derivative of each op (pm_gradient) and reverse-mode accumulation
   over a UOp graph (compute_gradient). [ctx] is the gradient flowing into a node's output; a rule returns one
   optional gradient per source (None: no gradient flows to that source). *)

open Uop

let cf = Uop.const_float
let ci = Uop.const_int
let range n = List.init n (fun i -> i)
let div = Mixin_elementwise.div ?rounding_mode:None

(* tinygrad: reduce_gradient *)
let reduce_gradient (ctx : Uop.t) (ret : Uop.t) op =
  let n = match ret.arg with Reduce_arg (_, n) -> n | _ -> invalid_arg "gradient: REDUCE without (op, n) arg" in
  let x = ret.src.(0) in
  match op with
  | Ops.Add -> [| Some (Mixin_movement.broadcast_to ctx (shape x)) |]
  | Ops.Max ->
    let mask = Uop.cast ctx.dtype (Uop.eq x ret) in
    [| Some (Uop.mul (div mask (Mixin_reduce.rop mask Ops.Add (range n))) ctx) |]
  | Ops.Mul ->
    (* d(prod x)/dx_j = prod_{i!=j} x_i: ret/x_j whenever x_j != 0 (any zero makes ret 0), else the product of the others *)
    let is_zero = Uop.eq x (ci 0) in
    let safe_x = Uop.where is_zero (ci 1) x in
    let axes = range n in
    let zero_count = Mixin_reduce.rop (Uop.cast (Dtype.sum_acc_dtype is_zero.dtype) is_zero) Ops.Add axes in
    [| Some (Uop.mul ctx (Uop.where is_zero (Uop.where (Uop.eq zero_count (ci 1)) (Mixin_reduce.rop safe_x Ops.Mul axes) (ci 0))
                            (div ret safe_x))) |]
  | _ -> invalid_arg ("gradient: no gradient for REDUCE " ^ Ops.to_string op)

(* argsort of a permutation *)
let argsort (l : int list) =
  List.map snd (List.sort compare (List.mapi (fun i x -> (x, i)) l))

let pairs (u : Uop.t) = match Uop.marg u with `Pairs p -> p | _ -> invalid_arg "gradient: PAD/SHRINK arg"

(* [ctx[i]] on the leading axis: tinygrad's getitem with an int *)
let index0 (ctx : Uop.t) i =
  let sh = shape ctx in
  let sl = Mixin_movement.shrink ctx (Some (Sint i, Sint (i + 1)) :: List.map (fun _ -> None) (List.tl sh)) in
  Mixin_movement.reshape sl (List.tl sh)

(* tinygrad: pm_gradient — the rules in tinygrad's order; [None] when no rule matches *)
let pm_gradient (ctx : Uop.t) (ret : Uop.t) : Uop.t option array option =
  let src i = ret.src.(i) in
  let nsrc = Array.length ret.src in
  let none_rest first = Array.init nsrc (fun i -> if i = 0 then Some first else None) in
  match ret.op with
  | Ops.Cast -> Some [| Some (Uop.cast (src 0).dtype ctx) |]
  | Ops.Reciprocal -> Some [| Some (Uop.mul (Uop.mul (Uop.neg ctx) ret) ret) |]
  | Ops.Sin -> Some [| Some (Uop.mul (Uop.sin (Uop.sub (cf (Float.pi /. 2.)) (src 0))) ctx) |]
  | Ops.Log2 -> Some [| Some (div ctx (Uop.mul (src 0) (cf (Stdlib.log 2.)))) |]
  | Ops.Exp2 -> Some [| Some (Uop.mul (Uop.mul ret ctx) (cf (Stdlib.log 2.))) |]
  | Ops.Sqrt -> Some [| Some (div ctx (Uop.mul ret (ci 2))) |]
  | Ops.Trunc -> Some [| Some (Uop.const_like ctx (Dtype.I Z.zero)) |]
  | Ops.Cmplt | Ops.Cmpne -> Some [| None; None |]
  | Ops.Add -> Some [| Some ctx; Some ctx |]
  | Ops.Pow ->
    let b = src 0 and e = src 1 in
    Some [| Some (Uop.mul ctx (Uop.where (Uop.eq e (ci 0)) e (Uop.mul e (Uop.pow b (Uop.sub e (ci 1))))));
            Some (Uop.mul ctx (Uop.where (Uop.eq b (ci 0))
                                 (Uop.where (Uop.lt e (ci 0)) (Uop.const_like ret (Dtype.F Float.neg_infinity)) (ci 0))
                                 (Uop.mul (Uop.mul ret (Uop.log2 b)) (cf (Stdlib.log 2.0))))) |]
  | Ops.Max when nsrc = 2 ->
    let x = src 0 and y = src 1 in
    let half = Uop.where (Uop.eq x y) (Uop.mul ctx (cf 0.5)) (ci 0) in
    Some [| Some (Uop.where (Uop.gt x y) ctx half); Some (Uop.where (Uop.lt x y) ctx half) |]
  | Ops.Mul -> Some [| Some (Uop.mul (src 1) ctx); Some (Uop.mul (src 0) ctx) |]
  | Ops.Where ->
    Some [| None; Some (Uop.where (src 0) ctx (Uop.const_like ctx (Dtype.I Z.zero)));
            Some (Uop.where (src 0) (Uop.const_like ctx (Dtype.I Z.zero)) ctx) |]
  | Ops.Reduce -> (match ret.arg with Reduce_arg (op, _) -> Some (reduce_gradient ctx ret op) | _ -> None)
  | Ops.Contiguous -> Some [| Some ctx |]
  | Ops.Contiguous_backward -> Some [| Some (Mixin_elementwise.contiguous ctx) |]
  | Ops.Reshape -> Some (none_rest (Mixin_movement.reshape ctx (shape (src 0))))
  | Ops.Expand -> Some (none_rest ctx)
  | Ops.Pad ->
    Some (none_rest (Mixin_movement.shrink ctx
                       (List.map2 (fun s (p0, _) -> Some (p0, Uop.sint_add s p0)) (shape (src 0)) (pairs ret))))
  | Ops.Shrink ->
    let neg (s : sint) = match s with Sint i -> Sint (-i) | Suop u -> Uop.sint_of_uop (Uop.neg u) in
    Some (none_rest (Mixin_movement.pad ctx
                       (List.map2 (fun s (p0, p1) -> Some (p0, Uop.sint_add (Uop.sint_add s (neg p0)) (neg p1)))
                          (shape (src 0)) (pairs ret))))
  | Ops.Permute ->
    (match Uop.marg ret with `Perm p -> Some [| Some (Mixin_movement.permute ctx (argsort p)) |] | _ -> None)
  | Ops.Flip ->
    (match Uop.marg ret with
     | `Flip f -> Some [| Some (Mixin_movement.flip ctx (List.concat (List.mapi (fun i x -> if x then [ i ] else []) f))) |]
     | _ -> None)
  | Ops.Stack -> Some (Array.init nsrc (fun i -> Some (index0 ctx i)))
  | Ops.Copy ->
    (match Buffers.mdevice (src 0) with
     | Some d -> Some (none_rest (Rangeify.copy_to_device ctx d))
     | None -> None)
  (* the gradient of a sharded value: the whole gradient on the devices, each shard's part to its shard *)
  | Ops.Unshard ->
    (match Buffers.mdevice ret with
     | Some (Multi ds) -> Some (Array.map Option.some (Multi.shard ctx ds (Uop.axis ret)).src)
     | _ -> None)
  | Ops.Tuple -> Some (Array.map Option.some ctx.src)
  (* AFTER(d, CALL k): the gradient reaches d; the CALL of a realized kernel has no grad_fxn here (see the .mli) *)
  | Ops.After when nsrc = 2 && (src 1).op == Ops.Call -> Some [| Some ctx; None |]
  (* clone/assign gradient passes through to val *)
  | Ops.After when nsrc = 2 && (src 1).op == Ops.Store -> Some [| None; Some ctx |]
  | Ops.Store when nsrc = 2 -> Some [| None; Some ctx |]
  (* there's no gradient for bitcast *)
  | Ops.Bitcast -> Some [| None |]
  | _ -> None

(* tinygrad: _deepwalk — the nodes on a path from a target to the root, sources first, without DETACH; and the
   in-target-path map *)
let deepwalk (root : Uop.t) (targets : unit Tbl.t) : Uop.t list * bool Tbl.t =
  let in_target_path : bool Tbl.t = Tbl.create 256 in
  let order = ref [] in
  (* tinygrad: UOp.topovisit (iterative post-order, shared cache) *)
  let stack = Stack.create () in
  Stack.push (root, false) stack;
  while not (Stack.is_empty stack) do
    let node, visited = Stack.pop stack in
    if not (Tbl.mem in_target_path node) then begin
      if not visited then begin
        Stack.push (node, true) stack;
        for i = Array.length node.src - 1 downto 0 do Stack.push (node.src.(i), false) stack done
      end else begin
        let v = Array.exists (fun x -> Tbl.find in_target_path x || Tbl.mem targets x) node.src in
        Tbl.replace in_target_path node v;
        order := node :: !order
      end
    end
  done;
  (List.filter (fun n -> n.op != Ops.Detach && Tbl.find in_target_path n) (List.rev !order), in_target_path)

let shape_differs (k : Uop.t) (v : Uop.t) =
  match shape_opt k, shape_opt v with
  | Some ks, Some vs -> not (List.length ks = List.length vs && Uop.equal_sints ks vs)
  | _ -> false

let noop () = Uop.create Ops.Noop
let param_slot (p : Uop.t) = (param_arg p).slot

(* tinygrad: mixin/gradient.py _compact_params — the body's PARAMs renumbered from 0 in slot order, and the
   args they stand for *)
let compact_params (body : Uop.t) (all_args : Uop.t array) =
  let by_slot = Hashtbl.create 8 in
  List.iter (fun (p : Uop.t) ->
      if p.op == Ops.Param && param_slot p >= 0 then Hashtbl.replace by_slot (param_slot p) p)
    (Uop.toposort body);
  let used = List.sort compare (Hashtbl.fold (fun slot p acc -> (slot, p) :: acc) by_slot []) in
  let body = Upat.substitute ~walk:true body (List.mapi (fun j (_, (p : Uop.t)) ->
      (p, Uop.replace ~arg:(Param { (param_arg p) with slot = j }) p)) used) in
  (body, List.map (fun (i, _) -> all_args.(i)) used)

(* tinygrad: mixin/gradient.py call_gradient without a grad_fxn (CallInfo is not modelled) and never
   precompiled: one backward FUNCTION computing the gradients of the [needed] args, with the output gradients
   as extra args *)
let call_gradient compute_gradient (ctx : Uop.t) (k : Uop.t) (needed : int list) =
  let fxn = k.src.(0) and args = Array.sub k.src 1 (Array.length k.src - 1) in
  if fxn.op != Ops.Tuple then
    invalid_arg ("gradient: no gradient through " ^ Ops.to_string k.op ^ " of " ^ Ops.to_string fxn.op
                 ^ " without a grad_fxn");
  let params = Hashtbl.create 8 in
  List.iter (fun (x : Uop.t) -> if x.op == Ops.Param then Hashtbl.replace params (param_slot x) x)
    (Uop.toposort ~enter_calls:false fxn);
  let nargs = Array.length args in
  let root_grad = Uop.create Ops.Tuple ~src:(Array.mapi (fun i (g : Uop.t) ->
      if g.op == Ops.Noop || Buffers.mdevice g = None then g else Buffers.param_like (nargs + i) g)
      ctx.src) in
  let grads = compute_gradient fxn root_grad (Hashtbl.fold (fun _ p acc -> p :: acc) params []) in
  let grad_bodies = List.filter_map (fun i ->
      Option.bind (Hashtbl.find_opt params i) (fun p -> Option.map (fun g -> (i, g)) (Tbl.find_opt grads p)))
      (List.sort_uniq compare needed) in
  let bwd_body = Uop.create Ops.Tuple ~src:(Array.of_list (List.map snd grad_bodies)) in
  let bwd_body, compact_args = compact_params bwd_body (Array.append args ctx.src) in
  let bwd_call = Buffers.call bwd_body compact_args in
  let gb_map = List.mapi (fun idx (i, _) -> (i, idx)) grad_bodies in
  Array.append [| None |] (Array.init nargs (fun i ->
      Option.map (Buffers.gettuple bwd_call) (List.assoc_opt i gb_map)))

(* tinygrad: compute_gradient *)
let rec compute_gradient (root : Uop.t) (root_grad : Uop.t) (targets : Uop.t list) : Uop.t Tbl.t =
  let tset : unit Tbl.t = Tbl.create 16 in
  List.iter (fun t -> Tbl.replace tset t ()) targets;
  let walk, in_target_path = deepwalk root tset in
  let grads : Uop.t Tbl.t = Tbl.create 256 in
  Tbl.replace grads root root_grad;
  List.iter (fun (t0 : Uop.t) ->
      match Tbl.find_opt grads t0 with
      | None -> ()
      | Some g when g.op == Ops.Noop -> ()
      (* GETTUPLE: the gradient gathers into a TUPLE on the FUNCTION, used when the walk reaches it *)
      | Some g when t0.op == Ops.Gettuple ->
        let k = t0.src.(0) in
        let idx = match t0.arg with Int i -> i | _ -> invalid_arg "gradient: GETTUPLE without an index" in
        if k.op != Ops.Function || k.src.(0).op != Ops.Tuple then
          invalid_arg ("gradient: GETTUPLE of " ^ Ops.to_string k.op ^ ", not of a FUNCTION");
        let prev = match Tbl.find_opt grads k with
          | Some t -> t.src
          | None -> Array.init (Array.length k.src.(0).src) (fun _ -> noop ()) in
        Tbl.replace grads k (Uop.create Ops.Tuple ~src:(Array.mapi (fun i (p : Uop.t) ->
            if i <> idx then p else if p.op != Ops.Noop then Uop.add p g else g) prev))
      | Some g ->
        let lgrads = match (if t0.op == Ops.Function || t0.op == Ops.Call then begin
            (* only the gradients of the args on a path to a target are computed *)
            let needed = List.filter_map (fun i ->
                let a = t0.src.(i + 1) in
                if Tbl.mem tset a || Tbl.find_opt in_target_path a = Some true then Some i else None)
                (List.init (Array.length t0.src - 1) Fun.id) in
            Some (call_gradient compute_gradient g t0 needed) end
          else pm_gradient g t0) with
          | Some l -> l
          | None ->
            let s = Uop.to_string t0 in
            invalid_arg (Printf.sprintf "gradient: failed to compute gradient for %s\n\nin %s..." (Ops.to_string t0.op)
                           (if String.length s > 1000 then String.sub s 0 1000 else s)) in
        if Array.length lgrads <> Array.length t0.src then
          invalid_arg (Printf.sprintf "gradient: got %d gradient, expected %d" (Array.length lgrads) (Array.length t0.src));
        Array.iteri (fun i v ->
            match v with
            | None -> ()
            | Some v ->
              let k = t0.src.(i) in
              (* a shaped edge's gradient is summed to its source's shape *)
              let v =
                if shape_differs k v then
                  Uop.cast v.dtype
                    (Mixin_movement.reshape
                       (Mixin_reduce.rop (Uop.cast (Dtype.sum_acc_dtype v.dtype) v) Ops.Add
                          (Mixin_movement.broadcast_axes (shape k) (shape v)))
                       (shape k))
                else v in
              (match Tbl.find_opt grads k with
               | Some p when p.op != Ops.Noop ->
                 if v.op == Ops.Tuple && p.op == Ops.Tuple then
                   Tbl.replace grads k
                     (Uop.create Ops.Tuple ~src:(Array.map2 (fun (p : Uop.t) (n : Uop.t) ->
                          if p.op != Ops.Noop && n.op != Ops.Noop then Uop.add p n else if p.op == Ops.Noop then n else p)
                          p.src v.src))
                 else Tbl.replace grads k (Uop.add p v)
               | _ -> Tbl.replace grads k v)) lgrads)
    (List.rev walk);
  grads

(* tinygrad: OpMixin.gradient on UOps *)
let gradient ?gradient (self : Uop.t) (targets : Uop.t list) : Uop.t list =
  if gradient = None && (match shape self with [] -> false | _ -> true) then
    invalid_arg (Printf.sprintf "gradient: when no gradient is provided, backward must be called on a scalar tensor, got shape %s"
                   (Uop.shape_str (shape self)));
  let is_fp (u : Uop.t) = Dtype.is_float u.dtype in
  if not (is_fp self && List.for_all is_fp targets) then invalid_arg "gradient: only float Tensors have gradient";
  if List.exists (fun (t : Uop.t) -> Dtype.is_weak t.dtype) targets then
    invalid_arg "gradient: cannot take gradient wrt a weak Tensor";
  let gradient = match gradient with Some g -> g | None -> Uop.const_like self (Dtype.F 1.0) in
  let grads = compute_gradient self gradient targets in
  List.map (fun x -> match Tbl.find_opt grads x with Some g -> g | None -> Uop.const_like x (Dtype.I Z.zero)) targets
