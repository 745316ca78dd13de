(* tinygrad: codegen/decomp/dtype.py (emulation of dtypes the renderer lacks: long as two ints, floats via
   integer bit manipulation of their storage).

   Python ints in the tinygrad source become Z constants here ([zc], [ic]); [shl]/[shr] on a UOp are
   transcendental.py's (x * 2**y, x // 2**y), on python ints they are [pshl] (exact, Z). *)

open Uop

type ctx = (Dtype.t, unit) Hashtbl.t * Renderer.t

(* ---------- python int helpers ---------- *)

let zc z = const (Dtype.I z)  (* UOp.const(python int): a weak int *)
let ic n = zc (Z.of_int n)
let pshl a b = Z.shift_left (Z.of_int a) b  (* tinygrad shl(int, int) = a * 2**b *)
let ushl = Transcendental.shl  (* shl(UOp, int) *)
let ushr = Transcendental.shr  (* shr(UOp, int) *)
let is_long d = d == Dtype.Int64 || d == Dtype.Uint64
let longs = [ Dtype.Int64; Dtype.Uint64 ]
let fp8_fnuz = [ Dtype.Fp8e4m3fnuz; Dtype.Fp8e5m2fnuz ]  (* dtypes.fp8_fnuz *)

(* ***** long as 2 ints ***** *)

(* tinygrad: l2i_dt *)
let l2i_dt = function
  | Dtype.Int64 -> Dtype.Int32
  | Dtype.Uint64 -> Dtype.Uint32
  | d -> invalid_arg ("l2i_dt: not a long dtype " ^ Dtype.to_string d)

(* tinygrad: unpack32 *)
let unpack32 v = (and_ (bitcast Dtype.Uint32 v) (ic 0xFFFF), ushr (bitcast Dtype.Uint32 v) 16)

(* tinygrad: reindex *)
let reindex ?(mul = 2) (idx : Uop.t) off =
  if idx.op == Ops.Shrink then begin
    if mul <> 1 then failwith "can't reindex SHRINK with mul != 1";
    replace ~op:Ops.Index ~src:[| idx.src.(0); add idx.src.(1) (ic off) |] idx
  end
  else
    let rest = Array.sub idx.src 2 (Array.length idx.src - 2) in
    replace ~src:(Array.append [| idx.src.(0); add (Uop.mul idx.src.(1) (ic mul)) (ic off) |] rest) idx

(* l2i returns a word pair (a long) or one value (a comparison, a cast out of long) *)
type l2i_res = Pair of Uop.t * Uop.t | One of Uop.t

let pair = function Pair (a, b) -> (a, b) | One _ -> failwith "l2i: expected a word pair"
let one = function One a -> a | Pair _ -> failwith "l2i: expected a single value"
let word r w = let a, b = pair r in if w = 0 then a else b

(* tinygrad: l2i. 4.3.1 is the relevant section in TAOCP *)
let rec l2i (op : Ops.t) (dt : Dtype.t) (uops : Uop.t list) : l2i_res =
  let zero = const_int ~dtype:dt 0 in
  let u = Array.of_list uops in
  let n = Array.length u in
  let a0 () = u.(0) and a1 () = u.(1) and b0 () = u.(2) and b1 () = u.(3) in
  let ui = Dtype.Uint32 in
  match op with
  | Ops.Neg -> l2i Ops.Sub dt (zero :: zero :: uops)
  | Ops.Cast when is_long dt && not (Dtype.is_float u.(0).dtype) ->
    (* the high word is the sign extension, and unsigned and bool sources zero extend *)
    let x = u.(0) in
    let lo = cast (l2i_dt dt) x in
    if x.dtype == Dtype.Bool || List.memq x.dtype Dtype.uints then Pair (lo, const_like_int lo 0)
    else Pair (lo, where (lt x (const_like_int x 0)) (const_like_int lo (-1)) (const_like_int lo 0))
  | Ops.Cast when is_long dt ->
    let lo = cast (l2i_dt dt) u.(0) in
    Pair (lo, sub (cast (l2i_dt dt) (div u.(0) (zc (pshl 1 32)))) (and_ (lt u.(0) (ic 0)) (ne lo (ic 0))))
  | Ops.Cast when Dtype.is_float dt ->
    let a0 = a0 () and a1 = a1 () in
    let small = or_ (and_ (eq a1 (ic 0)) (ge a0 (ic 0))) (and_ (eq a1 (ic (-1))) (lt a0 (ic 0))) in
    let cdt = if dt == Dtype.Float64 then dt else Dtype.Float32 in
    One (where small (cast dt a0)
           (cast dt (add (Uop.mul (cast cdt a1) (zc (pshl 1 32))) (cast cdt (bitcast ui a0)))))
  | Ops.Cast -> One (cast dt (bitcast ui (a0 ())))
  | Ops.Bitcast -> Pair (bitcast dt (a0 ()), bitcast dt (a1 ()))
  | Ops.Shl ->
    let a0 = a0 () and a1 = a1 () and b0 = b0 () in
    let a0u = bitcast ui a0 and a1u = bitcast ui a1 and nn = cast ui (and_ b0 (ic 31)) in
    let lo = bitcast dt (shl a0u nn) and hi = bitcast dt (or_ (shl a1u nn) (shr (shr a0u (ic 1)) (sub (ic 31) nn))) in
    Pair (where (ge b0 (ic 32)) zero lo, where (ge b0 (ic 32)) lo hi)
  | Ops.Shr ->
    let a0 = a0 () and a1 = a1 () and b0 = b0 () in
    let a0u = bitcast ui a0 and a1u = bitcast ui a1 and nn = cast ui (and_ b0 (ic 31)) in
    let lo = bitcast dt (or_ (shr a0u nn) (shl (shl a1u (ic 1)) (sub (ic 31) nn))) and hi = shr a1 (and_ b0 (ic 31)) in
    (* vacated high word: sign bits when signed, else 0 *)
    let fill = if dt == Dtype.Int32 then shr a1 (ic 31) else zero in
    Pair (where (ge b0 (ic 32)) hi lo, where (ge b0 (ic 32)) fill hi)
  | Ops.Add ->
    let a0 = a0 () and a1 = a1 () and b0 = b0 () and b1 = b1 () in
    let low = add a0 b0 in
    Pair (low, add (add a1 b1) (lt (bitcast ui low) (bitcast ui a0)))
  | Ops.Sub ->
    let a0 = a0 () and a1 = a1 () and b0 = b0 () and b1 = b1 () in
    Pair (sub a0 b0, sub (sub a1 b1) (lt (bitcast ui a0) (bitcast ui b0)))
  | Ops.Mul ->
    let a0 = a0 () and a1 = a1 () and b0 = b0 () and b1 = b1 () in
    let a00, a01 = unpack32 a0 and b00, b01 = unpack32 b0 in
    let m1 = Uop.mul a00 b01 and m2 = Uop.mul a01 b00 in
    let mid0, mid1 = pair (l2i Ops.Add dt [ bitcast dt (ushl m1 16); bitcast dt (ushr m1 16);
                                            bitcast dt (ushl m2 16); bitcast dt (ushr m2 16) ]) in
    l2i Ops.Add dt [ mid0; mid1; bitcast dt (Uop.mul a00 b00);
                     add (add (bitcast dt (Uop.mul a01 b01)) (Uop.mul a0 b1)) (Uop.mul a1 b0) ]
  | Ops.Cdiv | Ops.Cmod ->
    (* TAOCP Algorithm 4.3.1D could be faster here, but must be parameterized over the width of b *)
    let a0 = ref (a0 ()) and a1 = ref (a1 ()) and b0 = ref (b0 ()) and b1 = ref (b1 ()) in
    let a_neg = ref zero and b_neg = ref zero in
    if dt == Dtype.Int32 then begin
      let ua0 = bitcast ui !a0 and ua1 = bitcast ui !a1 and ub0 = bitcast ui !b0 and ub1 = bitcast ui !b1 in
      a_neg := lt !a1 zero;
      let n0, n1 = pair (l2i Ops.Neg ui [ ua0; ua1 ]) in
      a0 := where !a_neg n0 ua0; a1 := where !a_neg n1 ua1;
      b_neg := lt !b1 zero;
      let n0, n1 = pair (l2i Ops.Neg ui [ ub0; ub1 ]) in
      b0 := where !b_neg n0 ub0; b1 := where !b_neg n1 ub1
    end;
    let z = const_int ~dtype:ui 0 in
    let q = ref (z, z) and r = ref (z, z) in
    for i = 63 downto 0 do
      r := pair (l2i Ops.Shl ui [ fst !r; snd !r; const_int ~dtype:ui 1; z ]);
      r := (or_ (fst !r) (and_ (one_or_first (l2i Ops.Shr ui [ !a0; !a1; const_int ~dtype:ui i; z ])) (ic 1)), snd !r);
      let cond = logical_not (one (l2i Ops.Cmplt ui [ fst !r; snd !r; !b0; !b1 ])) in
      let diff0, diff1 = pair (l2i Ops.Sub ui [ fst !r; snd !r; !b0; !b1 ]) in
      q := (if i < 32 then (or_ (fst !q) (ushl (cast ui cond) (i mod 32)), snd !q)
            else (fst !q, or_ (snd !q) (ushl (cast ui cond) (i mod 32))));
      r := pair (l2i Ops.Where ui [ cond; diff0; diff1; fst !r; snd !r ])
    done;
    if dt == Dtype.Int32 then begin
      let nq0, nq1 = pair (l2i Ops.Bitcast dt (let a, b = pair (l2i Ops.Neg ui [ fst !q; snd !q ]) in [ a; b ])) in
      let nr0, nr1 = pair (l2i Ops.Bitcast dt (let a, b = pair (l2i Ops.Neg ui [ fst !r; snd !r ]) in [ a; b ])) in
      let q0, q1 = pair (l2i Ops.Bitcast dt [ fst !q; snd !q ]) and r0, r1 = pair (l2i Ops.Bitcast dt [ fst !r; snd !r ]) in
      if op == Ops.Cmod then Pair (where !a_neg nr0 r0, where !a_neg nr1 r1)
      else let s = xor !a_neg !b_neg in Pair (where s nq0 q0, where s nq1 q1)
    end
    else if op == Ops.Cmod then Pair (fst !r, snd !r) else Pair (fst !q, snd !q)
  | Ops.Cmplt ->
    let a0 = a0 () and a1 = a1 () and b0 = b0 () and b1 = b1 () in
    One (or_ (lt a1 b1) (and_ (eq a1 b1) (lt (bitcast ui a0) (bitcast ui b0))))
  | Ops.Cmpeq -> One (and_ (eq (a0 ()) (b0 ())) (eq (a1 ()) (b1 ())))
  | Ops.Cmpne -> One (or_ (ne (a0 ()) (b0 ())) (ne (a1 ()) (b1 ())))
  | Ops.Xor | Ops.Or | Ops.And -> Pair (alu op [ a0 (); b0 () ], alu op [ a1 (); b1 () ])
  | Ops.Where when n = 5 -> Pair (where u.(0) u.(1) u.(3), where u.(0) u.(2) u.(4))
  | Ops.Max -> l2i Ops.Where dt (one (l2i Ops.Cmplt dt uops) :: [ b0 (); b1 (); a0 (); a1 () ])
  | _ -> failwith (Printf.sprintf "long decomposition of %s unsupported" (Ops.to_string op))

(* python's [l2i(...)[0]] on the SHR pair *)
and one_or_first r = match r with Pair (a, _) -> a | One a -> a

(* tinygrad: the tag (w, dt): the 32-bit word this node becomes (0 low, 1 high) and the dtype the consumer wants *)
let wtag w dt = Tuple [ Int w; Dtype dt ]
let tag_word (x : Uop.t) = match x.tag with
  | Tuple [ Int w; _ ] -> w
  | _ -> failwith ("long decomposition: untagged " ^ Ops.to_string x.op)
let untagged (x : Uop.t) = x.tag = No_arg

(* the memo of split_l2i: (op, dt, uop ids) -> result, for one pass *)
type long_ctx = (Ops.t * Dtype.t * int list, l2i_res) Hashtbl.t

let split_words dt (s : Uop.t) = [ rtag ~tag:(wtag 0 dt) s; rtag ~tag:(wtag 1 dt) s ]

(* tinygrad: split_l2i. l2i does arithmetic on its inputs; rules enter here to split them to 32-bit words first,
   l2i recurses on itself. Both word halves of a node ask for the same split, so ctx memos it for the pass *)
let rec split_l2i (ctx : long_ctx) op dt (uops : Uop.t list) =
  let key = (op, dt, List.map (fun (x : Uop.t) -> x.id) uops) in
  match Hashtbl.find_opt ctx key with
  | Some r -> r
  | None ->
    let s = Upat.graph_rewrite ~bottom_up:true (Lazy.force pm_long_decomp_lazy) ctx (sink uops) in
    let r = l2i op dt (Array.to_list s.src) in
    Hashtbl.replace ctx key r; r

(* tinygrad: pm_long_decomp. tag is the 32-bit word this node becomes - (0 for the low word, 1 for the high, the
   dtype the consumer wants) *)
and pm_long_decomp_lazy : long_ctx Upat.matcher Lazy.t = lazy (
  let g = Upat.get in
  let alu_ops = List.filter (fun o -> not (Ops.Group.is_comparison o || o == Ops.Shl || o == Ops.Shr || o == Ops.Where))
      Ops.Group.alu @ [ Ops.Bitcast ] in
  Upat.matcher [
    Upat.rule (Upat.make ~op:Ops.Group.defines ~dtype:longs ~src:(Upat.In_order [ Upat.var "sz" ]) ~name:"x" ()) (fun c ->
        let x = g c "x" and sz = g c "sz" in
        let p = param_arg x in
        Some (create x.op ~src:[| Uop.mul sz (ic 2) |] ~arg:(Param { p with pdtype = l2i_dt x.dtype }) ~tag:x.tag));
    Upat.rule (Upat.pat Ops.Index ~dtype:longs ~name:"x") (fun c ->
        let x = g c "x" in
        if untagged x then None else Some (replace ~tag:No_arg (reindex x (tag_word x))));
    Upat.rule (Upat.pat Ops.Store ~src:(Upat.In_order [ Upat.var ~dtype:longs "idx"; Upat.var "val" ]) ~name:"st") (fun c ->
        let st = g c "st" and idx = g c "idx" and v = g c "val" in
        if not (untagged v) then None
        else
          let dt = l2i_dt idx.dtype in
          Some (group [ replace ~src:[| rtag ~tag:(wtag 0 dt) idx; rtag ~tag:(wtag 0 dt) v |] st;
                        replace ~src:[| rtag ~tag:(wtag 1 dt) idx; rtag ~tag:(wtag 1 dt) v |] st ]));
    Upat.rule_ctx (Upat.make ~op:Ops.Group.comparison ~src:(Upat.Permuted [ Upat.var ~dtype:longs "a"; Upat.wild ]) ~name:"x" ()) (fun ctx c ->
        let a = g c "a" and x = g c "x" in
        let dt = l2i_dt a.dtype in
        Some (one (split_l2i ctx x.op dt (List.concat_map (split_words dt) (Array.to_list x.src)))));
    Upat.rule_ctx (Upat.pat Ops.Cast ~dtype:longs ~src:(Upat.In_order [ Upat.var ~dtype:longs "a" ]) ~name:"x") (fun ctx c ->
        let a = g c "a" and x = g c "x" in
        Some (word (split_l2i ctx Ops.Bitcast (l2i_dt x.dtype) (split_words (l2i_dt a.dtype) a)) (tag_word x)));
    Upat.rule_ctx (Upat.pat Ops.Cast ~dtype:longs ~src:(Upat.In_order [ Upat.var "a" ]) ~name:"x") (fun ctx c ->
        let a = g c "a" and x = g c "x" in
        if untagged x then None else Some (word (split_l2i ctx x.op x.dtype [ a ]) (tag_word x)));
    Upat.rule_ctx (Upat.pat Ops.Cast ~src:(Upat.In_order [ Upat.var ~dtype:longs "a" ]) ~name:"x") (fun ctx c ->
        let a = g c "a" and x = g c "x" in
        if is_long x.dtype || not (untagged a) then None
        else Some (one (split_l2i ctx x.op x.dtype (split_words (l2i_dt a.dtype) a))));
    Upat.rule_ctx (Upat.ops [ Ops.Shl; Ops.Shr ] ~dtype:longs ~src:(Upat.In_order [ Upat.var "a"; Upat.var "b" ]) ~name:"x") (fun ctx c ->
        let a = g c "a" and b = g c "b" and x = g c "x" in
        if untagged x then None
        else
          let dt = l2i_dt x.dtype in
          Some (word (split_l2i ctx x.op dt (split_words dt a @ [ rtag ~tag:(wtag 0 dt) b ])) (tag_word x)));
    Upat.rule_ctx (Upat.pat Ops.Where ~dtype:longs ~src:(Upat.In_order [ Upat.var "c"; Upat.var "a"; Upat.var "b" ]) ~name:"x") (fun ctx c ->
        let a = g c "a" and b = g c "b" and cc = g c "c" and x = g c "x" in
        if untagged x then None
        else
          let dt = l2i_dt x.dtype in
          Some (word (split_l2i ctx x.op dt ((cc :: split_words dt a) @ split_words dt b)) (tag_word x)));
    Upat.rule_ctx (Upat.ops alu_ops ~dtype:longs ~name:"x") (fun ctx c ->
        let x = g c "x" in
        if untagged x then None
        else
          let dt = l2i_dt x.dtype in
          Some (word (split_l2i ctx x.op dt (List.concat_map (split_words dt) (Array.to_list x.src))) (tag_word x)));
    Upat.rule_ctx (Upat.pat Ops.Load ~dtype:longs ~src:(Upat.In_order [ Upat.var "idx" ]) ~name:"x") (fun ctx c ->
        let x = g c "x" and idx = g c "idx" in
        if untagged x then None
        else
          let idx' = Upat.graph_rewrite ~bottom_up:true (Lazy.force pm_long_decomp_lazy) ctx idx in
          Some (Uop.load (replace ~tag:No_arg (reindex idx' (tag_word x))) []));
    Upat.rule (Upat.make ~op:[ Ops.Const ]
            ~tag:(List.concat_map (fun w -> List.map (fun dt -> wtag w dt) [ Dtype.Int32; Dtype.Uint32 ]) [ 0; 1 ])
            ~name:"x" ()) (fun c ->
        let x = g c "x" in
        let dt = match x.tag with Tuple [ _; Dtype d ] -> d | _ -> assert false in
        let v = zi (const_val x) in
        let w = if tag_word x = 1 then Z.shift_right v 32 else Z.logand v (Z.of_string "0xFFFFFFFF") in
        Some (const ~dtype:dt (Dtype.truncate dt (Dtype.I w)))) ])

let pm_long_decomp = Lazy.force pm_long_decomp_lazy

(* ***** floats ***** *)

(* tinygrad: f2f_dt: the unsigned int of a float's width *)
let f2f_dt d = match Dtype.bitsize d with
  | 8 -> Dtype.Uint8 | 16 -> Dtype.Uint16 | 32 -> Dtype.Uint32 | 64 -> Dtype.Uint64
  | _ -> invalid_arg ("f2f_dt: " ^ Dtype.to_string d)

(* tinygrad: rne — round to nearest even when dropping the low [s] bits *)
let rne v s =
  add (ushr v s)
    (and_ (and_ (ushr v (s - 1)) (ic 1))
       (or_ (ne (and_ v (zc (Z.pred (pshl 1 (s - 1))))) (ic 0)) (and_ (ushr v s) (ic 1))))

(* tinygrad: f2f_clamp *)
let f2f_clamp ?(sat = true) (v : Uop.t) (dt : Dtype.t) =
  let e, m = Dtype.finfo dt in
  let max_exp, max_man =
    if List.memq dt fp8_fnuz then ((1 lsl e) - 1, (1 lsl m) - 1)
    else if dt == Dtype.Fp8e4m3 then ((1 lsl e) - 1, (1 lsl m) - 2)
    else ((1 lsl e) - 2, (1 lsl m) - 1) in
  let mx = const_like v (Dtype.F (Float.ldexp 1.0 (max_exp - Transcendental.exponent_bias dt)
                                  *. (1.0 +. float_of_int max_man /. float_of_int (1 lsl m)))) in
  let satv = if List.memq dt Dtype.fp8s && sat then mx else const_like v (Dtype.F infinity) in
  (* FIXME: CMPLT of nan is undefined *)
  where (ne v v) v (where (lt v (neg mx)) (neg satv) (where (lt mx v) satv v))

(* tinygrad: f2f — convert the bits [v] (as f2f_dt[fr]) of a [fr] float to [to_]. NB: denormals are zero! *)
let f2f ?(sat = true) (v : Uop.t) (fr : Dtype.t) (to_ : Dtype.t) : Uop.t =
  let fs = Dtype.bitsize fr and fb = Transcendental.exponent_bias fr and fe, fm = Dtype.finfo fr in
  let ts = Dtype.bitsize to_ and tb = Transcendental.exponent_bias to_ and te, tm = Dtype.finfo to_ in
  if fe <= te && fm < tm then begin
    let sign = ushl (cast (f2f_dt to_) (and_ v (zc (pshl 1 (fs - 1))))) (ts - fs) in
    let nosign = cast (f2f_dt to_) (and_ v (zc (Z.pred (pshl 1 (fs - 1))))) in
    let exp = ushr nosign fm and norm = add (ushl nosign (tm - fm)) (zc (Z.mul (Z.of_int (tb - fb)) (pshl 1 tm))) in
    let nan = or_ (ushl nosign (tm - fm)) (zc (Z.mul (Z.pred (pshl 1 te)) (pshl 1 tm))) in
    if List.memq fr fp8_fnuz then begin
      let fnuz_nan = and_ (ne sign (ic 0)) (eq nosign (ic 0)) in
      let qnan = zc (Z.logor (Z.mul (Z.pred (pshl 1 te)) (pshl 1 tm)) (pshl 1 (tm - 1))) in
      (* the fnuz bias can exceed the target's: exp in [1, fb-tb] is normal in fr but lands below to's normal range,
         so it flushes like a denormal *)
      bitcast to_ (where fnuz_nan qnan (or_ sign (where (lt exp (ic (max (fb - tb) 0 + 1))) (ic 0) norm)))
    end
    else
      (* fp8e4m3 has only one nan *)
      let is_nan = if fr == Dtype.Fp8e4m3 then eq nosign (zc (Z.pred (pshl 1 (fm + fe))))
        else eq exp (zc (Z.pred (pshl 1 fe))) in
      bitcast to_ (or_ sign (where (eq exp (ic 0)) (ic 0) (where is_nan nan norm)))
  end
  else if fe >= te && fm > tm then begin
    let v = bitcast (f2f_dt fr) (f2f_clamp ~sat (bitcast fr v) to_) in
    let sign = and_ (ushr v (fs - ts)) (zc (pshl 1 (ts - 1))) and nosign = and_ v (zc (Z.pred (pshl 1 (fs - 1)))) in
    let norm = cast (f2f_dt to_) (sub (rne nosign (fm - tm)) (zc (Z.mul (Z.of_int (fb - tb)) (pshl 1 tm)))) in
    let emask = zc (Z.pred (pshl 1 fe)) in
    let underflow = lt (and_ (ushr v fm) emask) (ic (1 + fb - tb)) in
    let nan_mantissa = if to_ == Dtype.Fp8e4m3 then zc (Z.pred (pshl 1 tm))
      else and_ (ushr nosign (fm - tm)) (zc (Z.pred (pshl 1 tm))) in
    let nan = cast (f2f_dt to_) (or_ (or_ sign nan_mantissa) (zc (Z.mul (Z.pred (pshl 1 te)) (pshl 1 tm)))) in
    let is_nan = eq (and_ (ushr v fm) emask) emask in
    if List.memq to_ fp8_fnuz then
      where is_nan (zc (pshl 1 (ts - 1))) (where underflow (ic 0) (or_ (cast (f2f_dt to_) sign) norm))
    else where is_nan nan (or_ (cast (f2f_dt to_) sign) (where underflow (ic 0) norm))
  end
  else failwith (Printf.sprintf "unsupported decomp %s -> %s" (Dtype.to_string fr) (Dtype.to_string to_))

(* tinygrad: f2f_load; [pm] is the float decomposition itself, which rewrites the index first *)
let f2f_load pm (x : Uop.t) fr to_ =
  let storage_idx = Upat.graph_rewrite ~bottom_up:true pm (fr, to_) x.src.(0) in
  let rest = Array.to_list (Array.sub x.src 1 (Array.length x.src - 1)) in
  let n = max_numel x in
  if n = 1 then f2f (load storage_idx rest) fr to_
  else stack (List.init n (fun i -> f2f (load (reindex ~mul:1 storage_idx i) rest) fr to_))

(* tinygrad: f2f_store *)
let f2f_store (st : Uop.t) (idx : Uop.t) (v : Uop.t) fr to_ =
  let n = max_numel v in
  if n = 1 then replace ~src:[| idx; f2f (bitcast (f2f_dt to_) v) to_ fr |] st
  else group (List.init n (fun i ->
      replace ~src:[| reindex ~mul:1 idx i; f2f (bitcast (f2f_dt to_) (index v [ const_int i ])) to_ fr |] st))

(* float decomposition patterns - ctx is (fr, to); an index is rewritten by the same patterns before a load reads
   it, hence the recursion through the lazy value *)
let rec pm_float_decomp_lazy : (Dtype.t * Dtype.t) Upat.matcher Lazy.t = lazy (
  let self () = Lazy.force pm_float_decomp_lazy in
  let g = Upat.get in
  let tag_is (u : Uop.t) fr = match u.tag with Dtype d -> d == fr | _ -> false in
  let all_but l = List.filter (fun o -> not (List.memq o l)) Ops.Group.all in
  Upat.matcher [
    Upat.rule_ctx (Upat.make ~op:Ops.Group.defines ~name:"x" ()) (fun (fr, _) c ->
        let x = g c "x" in
        if x.dtype != fr then None
        else Some (create x.op ~src:x.src ~arg:(Param { (param_arg x) with pdtype = f2f_dt fr }) ~tag:(Dtype fr)));
    (* INDEX into a LOAD/STACK selects a lane of an already converted value, the load rules below own those *)
    Upat.rule_ctx (Upat.make ~op:[ Ops.Index; Ops.Shrink ] ~src:(Upat.In_order [ Upat.make ~op:(all_but [ Ops.Load; Ops.Stack ]) () ])
                ~allow_any_len:true ~name:"x" ()) (fun ((fr, _) as ctx) c ->
        let x = g c "x" in
        if x.dtype != fr then None
        else
          let s0 = Upat.graph_rewrite ~bottom_up:true (self ()) ctx x.src.(0) in
          Some (create x.op ~src:(Array.append [| s0 |] (Array.sub x.src 1 (Array.length x.src - 1))) ~arg:x.arg
                  ~tag:(Dtype fr)));
    Upat.rule_ctx (Upat.pat Ops.Load ~dtype:Dtype.floats ~name:"x") (fun (fr, to_) c ->
        let x = g c "x" in
        if x.dtype == fr then Some (f2f_load (self ()) x fr to_) else None);
    (* bitcasted load should just replace load *)
    Upat.rule_ctx (Upat.pat Ops.Bitcast ~src:(Upat.In_order [ Upat.pat Ops.Load ~name:"ld" ]) ~name:"bc") (fun ((fr, _) as ctx) c ->
        let bc = g c "bc" and ld = g c "ld" in
        if ld.dtype != fr then None
        else
          let i = Upat.graph_rewrite ~bottom_up:true (self ()) ctx ld.src.(0) in
          Some (bitcast bc.dtype (load i (Array.to_list (Array.sub ld.src 1 (Array.length ld.src - 1))))));
    (* bitcast from *)
    Upat.rule_ctx (Upat.pat Ops.Bitcast ~src:(Upat.In_order [ Upat.var ~dtype:Dtype.floats "x" ]) ~name:"bc") (fun (fr, to_) c ->
        let bc = g c "bc" and x = g c "x" in
        if x.dtype == to_ && Dtype.bitsize bc.dtype = Dtype.bitsize fr then
          Some (replace ~src:[| f2f (bitcast (f2f_dt to_) x) to_ fr |] bc)
        else None);
    (* bitcast to *)
    Upat.rule_ctx (Upat.pat Ops.Bitcast ~src:(Upat.In_order [ Upat.var "x" ]) ~name:"bc") (fun (fr, to_) c ->
        let bc = g c "bc" and x = g c "x" in
        if bc.dtype == fr then Some (f2f (bitcast (f2f_dt fr) x) fr to_) else None);
    Upat.rule_ctx (Upat.pat Ops.Cast ~dtype:Dtype.floats ~src:(Upat.In_order [ Upat.var "val" ]) ~name:"x") (fun (fr, to_) c ->
        let x = g c "x" and v = g c "val" in
        if x.dtype == fr then Some (f2f_clamp (cast to_ v) fr) else None);
    (* a CONST has no srcs to cast, it restates its value at the emulating dtype *)
    Upat.rule_ctx (Upat.pat Ops.Const ~dtype:Dtype.floats ~name:"x") (fun (fr, to_) c ->
        let x = g c "x" in
        if x.dtype == fr then Some (const ~dtype:to_ (const_val x)) else None);
    Upat.rule_ctx (Upat.make ~op:(all_but (Ops.Group.defines @ [ Ops.Cast; Ops.Bitcast; Ops.Const ])) ~dtype:Dtype.floats ~name:"x" ())
      (fun (fr, to_) c ->
         let x = g c "x" in
         if x.dtype != fr then None
         else Some (create x.op ~src:(Array.map (fun (s : Uop.t) -> if s.dtype == fr then cast to_ s else s) x.src)
                      ~arg:x.arg ~tag:x.tag));
    Upat.rule_ctx (Upat.pat Ops.Store ~src:(Upat.In_order [ Upat.var "idx"; Upat.pat Ops.Bitcast ~dtype:Dtype.floats ~name:"val" ]) ~name:"st")
      (fun (fr, _) c ->
         let st = g c "st" and idx = g c "idx" and v = g c "val" in
         if v.dtype == fr && tag_is idx fr then Some (replace ~src:[| idx; bitcast (f2f_dt fr) v.src.(0) |] st) else None);
    Upat.rule_ctx (Upat.pat Ops.Store ~src:(Upat.In_order [ Upat.or_casted (Upat.var "idx"); Upat.var ~dtype:Dtype.floats "val" ]) ~name:"st")
      (fun (fr, to_) c ->
         let st = g c "st" and idx = g c "idx" and v = g c "val" in
         if v.dtype == to_ && tag_is idx fr then Some (f2f_store st idx v fr to_) else None) ])

let pm_float_decomp = Lazy.force pm_float_decomp_lazy

(* ---------- the pass ---------- *)

(* tinygrad: EMULATED_DTYPES.tolist(dtypes): a comma separated list of dtype names *)
let emulated_dtypes () =
  List.filter_map (fun n ->
      if n = "" then None
      else match Dtype.of_string n with Some d -> Some d | None -> invalid_arg ("EMULATED_DTYPES: unknown dtype " ^ n))
    (String.split_on_char ',' Helpers.emulated_dtypes.value)

(* tinygrad: do_dtype_decomps *)
let do_dtype_decomps (sink : Uop.t) ((dts, ren) : ctx) : Uop.t =
  let emulated = emulated_dtypes () in
  (* ren.supported_dtypes(): the base Renderer drops double when long is emulated (read at call time in tinygrad) *)
  let should_emulate dt =
    List.memq dt emulated || not (List.memq dt ren.Renderer.supported_dtypes)
    || (dt == Dtype.Float64 && List.memq Dtype.Int64 emulated) in
  let todo = List.sort Dtype.compare (List.filter should_emulate (Hashtbl.fold (fun d () acc -> d :: acc) dts [])) in
  let sink = List.fold_left (fun sink fr ->
      let to_ =
        if fr == Dtype.Int64 then Dtype.Int32
        else if (not (should_emulate Dtype.Float16)) && List.memq fr Dtype.fp8s then Dtype.Float16
        else Dtype.Float32 in
      if Helpers.debug.value >= 2 then Printf.printf "emulating %s as %s\n%!" (Dtype.to_string fr) (Dtype.to_string to_);
      let name = Printf.sprintf "decomp %s -> %s" (Dtype.to_string fr) (Dtype.to_string to_) in
      if Dtype.is_float fr then Upat.graph_rewrite ~bottom_up:true ~name pm_float_decomp (fr, to_) sink
      else Upat.graph_rewrite ~bottom_up:true ~name pm_long_decomp (Hashtbl.create 64) sink) sink todo in
  Hashtbl.reset dts;
  sink

(* tinygrad: pm_dtype_decomps *)
let pm_dtype_decomps : ctx Upat.matcher =
  Upat.matcher [
    (* detect dtypes to decompose *)
    Upat.rule_ctx (Upat.make ~op:Ops.Group.all ~dtype:(Dtype.fp8s @ [ Dtype.Bfloat16; Dtype.Float16; Dtype.Int64; Dtype.Uint64 ])
                     ~name:"x" ())
      (fun ((dts, _) : ctx) c ->
         let dt = (Upat.get c "x").dtype in
         Hashtbl.replace dts (if dt == Dtype.Uint64 then Dtype.Int64 else dt) ();
         None);
    (* do the rewrites *)
    Upat.rule_ctx (Upat.pat Ops.Sink ~name:"sink") (fun ctx c ->
        let s = Upat.get c "sink" in
        let r = do_dtype_decomps s ctx in
        if r == s then None else Some r) ]
