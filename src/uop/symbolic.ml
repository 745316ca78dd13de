(* tinygrad: uop/symbolic.py — all of symbolic lives here: generic folding (phase 1), the deeper symbolic
   rules (phase 2), valid simplification, and the complete [sym] (phase 3). *)

open Uop
module P = Upat

let compare_const = Dtype.compare_const
let const_truthy = Dtype.const_truthy
let const_to_float = Dtype.const_to_float

let g = P.get
let v = P.var
let cv = P.cvar
let zero = Dtype.I Z.zero

(* the int value of a CONST; a Python int as a UOp operand (weakint CONST) *)
let zval (u : Uop.t) = zi (const_val u)
let cz (z : Z.t) = const (Dtype.I z)

(* Python's [val == n] / [val > n] on a CONST value (bool, int and float compare by value) *)
let val_cmp (c : Dtype.const) (n : int) = match c with Dtype.Invalid -> 1 | _ -> compare_const c (Dtype.I (Z.of_int n))
let val_eq c n = val_cmp c n = 0
let truthy (c : Dtype.const) = match c with Dtype.Invalid -> true | c -> const_truthy c
let ge0 (c : Dtype.const) = val_cmp c 0 >= 0
let pos (c : Dtype.const) = val_cmp c 0 > 0
let const_ge a b = compare_const a b >= 0
let const_le a b = compare_const a b <= 0
let zsum l = List.fold_left Z.add Z.zero l
let srcs_from (u : Uop.t) i = Array.to_list (Array.sub u.src i (Array.length u.src - i))

(* helpers.dedup: keep the first of each node *)
let dedup = Helpers.dedupq

(* helpers.prod: functools.reduce(mul, l, 1) *)
let py_prod l = List.fold_left mul (const_int 1) l

(* UPat true division, as OpMixin.div builds it on patterns: a * b.reciprocal() *)
let pdiv a b = P.alu Ops.Mul [ a; P.reciprocal b ]

(* ******** phase 1 of symbolic: the most generic folding rules ******** *)

(* tinygrad: codegen/decomp/transcendental.py xpow (kept here: symbolic imports it from there) *)
let xpow (base : Uop.t) (exponent : Uop.t) : Uop.t =
  let c0 = const_int 0 in
  (* start with b ** e = exp2(e * log2(b)) *)
  let ret = exp2 (mul (log2 (where (lt base c0) (neg base) base)) exponent) in
  (* negative base: nan for non-integer exponent, negate for odd integer exponent *)
  let non_int = ne exponent (cast exponent.dtype (cast Dtype.Int32 exponent)) in
  let is_odd = cast Dtype.Bool (mod_ (cast Dtype.Int32 (where (lt exponent c0) (neg exponent) exponent)) (const_int 2)) in
  let neg_base =
    where non_int (where (ne base (const_float neg_infinity)) (const_like ret (Dtype.F nan)) ret) (where is_odd (neg ret) ret) in
  (* x ** 0 = 1, including 0 ** 0 and inf ** 0 *)
  where (eq exponent c0) (const_like ret (Dtype.I Z.one)) (where (lt base c0) neg_base ret)

(* tinygrad: symbolic.py simplify_pow *)
let simplify_pow (x : Uop.t) (c : Uop.t) : Uop.t option =
  let cvl = const_val c in
  let num = match cvl with Dtype.F f -> Some f | Dtype.I z -> Some (Z.to_float z) | Dtype.B b -> Some (if b then 1. else 0.)
                         | Dtype.Invalid -> None in
  match num with
  | None -> None
  | Some f when not (Float.is_finite f) -> if f < 0. then Some (pow (reciprocal x) (const (Dtype.F (-.f)))) else None
  | Some f ->
    (* Python keeps an int exponent an int: -c.val and c.val//2 stay exact *)
    let zc = match cvl with Dtype.I z -> Some z | Dtype.B b -> Some (if b then Z.one else Z.zero) | _ -> None in
    if f < 0. then Some (pow (reciprocal x) (match zc with Some z -> cz (Z.neg z) | None -> const (Dtype.F (-.f))))
    else if f = 0. then Some (const_like x (Dtype.I Z.one))
    else if Float.trunc (f -. 0.5) +. 0.5 = f then Some (mul (pow x (const (Dtype.F (f -. 0.5)))) (sqrt x))
    else if Float.trunc f = f then
      let half = match zc with Some z -> cz (Z.fdiv z (Z.of_int 2)) | None -> const (Dtype.F (Float.floor (f /. 2.))) in
      let y = pow x half in
      Some (mul (mul y y) (if Float.rem f 2. = 1. then x else const_int 1))
    else None

(* tinygrad: symbolic.py fold_bitcast *)
let fold_bitcast (root : Uop.t) (c : Uop.t) : Uop.t option =
  if Dtype.fmt c.dtype = None || Dtype.fmt root.dtype = None || Dtype.itemsize c.dtype <> Dtype.itemsize root.dtype then None
  else Some (const_like root (Dtype.bitcast (Dtype.truncate c.dtype (const_val c)) c.dtype root.dtype))

(* const folding works for CONST and STACK *)
let const_folding_pat = P.ops [ Ops.Const; Ops.Stack ]

(* a scalar or a STACK of constants, tinygrad's const_arg result *)
type const_arg = Scalar of Dtype.const | Tuple of Dtype.const list

(* tinygrad: symbolic.py const_arg *)
let const_arg (u : Uop.t) : const_arg option =
  if u.op == Ops.Const then Some (Scalar (const_val u))
  else if u.op == Ops.Cast && u.src.(0).op == Ops.Const then Some (Scalar (Dtype.const u.dtype (const_val u.src.(0))))
  else if u.op == Ops.Stack && Array.for_all is_const u.src then
    Some (Tuple (Array.to_list (Array.map const_val u.src)))
  else None

(* tinygrad: symbolic.py fold_const_alu (exec_alu over tuples is elementwise) *)
let fold_const_alu (a : Uop.t) : Uop.t option =
  let vals = Array.to_list (Array.map const_arg a.src) in
  if List.exists Option.is_none vals then None
  else
    let vals = List.map Option.get vals in
    let count = List.fold_left (fun m x -> match x with Tuple l -> Stdlib.max m (List.length l) | Scalar _ -> m) (-1) vals in
    if count < 0 then
      Some (const_like a (exec_alu ~truncate_output:false a.op a.dtype (List.map (function Scalar c -> c | Tuple _ -> assert false) vals)))
    else
      let elems = List.init count (fun i ->
          exec_alu a.op a.dtype (List.map (function Scalar c -> c | Tuple l -> List.nth l i) vals)) in
      let ret = stack (List.map (fun c -> const ~dtype:a.dtype c) elems) in
      (match shape_opt a, shape_opt ret with
       | Some (_ :: _ as s), Some rs when not (List.length s = List.length rs && List.for_all2 sint_equal s rs) ->
         Some (mop Ops.Expand ret (`Shape s))
       | _ -> Some ret)

(* tinygrad: symbolic.py _quotient_base *)
let quotient_base (q : Uop.t) (base : Uop.t) (div : Z.t) : Uop.t option =
  let q, s = pop_const q and num, a = pop_const base in
  let s = zi s and a = zi a in
  if q.op != Ops.Floordiv || q.src.(1).op != Ops.Const then None
  else
    let qd = zval q.src.(1) in
    let sel =
      if Z.gt div Z.zero && num.op == Ops.Floordiv && num.src.(1).op == Ops.Const
         && Z.equal qd (Z.mul (zval num.src.(1)) div) then
        let c = zval num.src.(1) in Some (num.src.(0), Z.mul a c, Z.mul c div)
      else if Z.equal qd div then Some (num, a, div)
      else None in
    match sel with
    | None -> None
    | Some (num, a, dd) ->
      let x, xa = pop_const num and p, pa = pop_const q.src.(0) in
      let t = Z.sub (Z.add (zi xa) a) (zi pa) in
      if p != x || not (Z.equal (zfloormod t dd) Z.zero) then None
      else
        let k = Z.sub (zfloordiv t dd) s in
        Some (if Z.equal k Z.zero then base else sub base (cz (Z.mul k div)))

(* tinygrad: symbolic.py fold_add_divmod_recombine — (base%div)*mul recombines with q*(div*mul) *)
let fold_add_divmod_recombine (x : Uop.t) : Uop.t option =
  let terms = Array.of_list (split_uop x Ops.Add) in
  let n = Array.length terms in
  let rest i j = List.filteri (fun k _ -> k <> i && k <> j) (Array.to_list terms) in
  let result = ref None in
  (try
     for i = 0 to n - 1 do
       let md, ml = pop_const ~op:Ops.Mul terms.(i) in
       if md.op == Ops.Floormod && md.src.(1).op == Ops.Const then begin
         let base = md.src.(0) and div = zval md.src.(1) and ml = zi ml in
         for j = 0 to n - 1 do
           let q, scale = pop_const ~op:Ops.Mul terms.(j) in
           if i <> j && Z.equal (zi scale) (Z.mul div ml) then begin
             let r = rest i j in
             (match quotient_base q base div with
              | Some b -> result := Some (usum ~start:(mul b (cz ml)) r); raise Exit
              | None -> ());
             if q.op == Ops.Floormod && q.src.(1).op == Ops.Const && Z.gt (zval q.src.(1)) Z.zero then
               match quotient_base q.src.(0) base div with
               | Some b ->
                 result := Some (usum ~start:(mul (mod_ b (cz (Z.mul div (zval q.src.(1))))) (cz ml)) r); raise Exit
               | None -> ()
           end
         done
       end
     done
   with Exit -> ());
  !result

(* Invalid poisons the value: ops move inside the gate so the Invalid reaches the LOAD/STORE and folds there *)
let invalid_pat = P.pat Ops.Const ~arg:(Const Dtype.Invalid) ~name:"i"
let invalid_gate = P.where (v "cond") (v "x") invalid_pat
let unary_cast = Ops.Group.unary @ [ Ops.Cast; Ops.Bitcast ]
let binary_not_cmp = List.filter (fun o -> not (Ops.Group.is_comparison o)) Ops.Group.binary

let pm_data_invalid : unit P.matcher =
  P.matcher
    [ P.rule (P.broadcast invalid_pat) (fun m -> Some (g m "i"));
      P.rule (P.ops unary_cast ~src:(P.In_order [ invalid_pat ])) (fun m -> Some (g m "i"));
      P.rule (P.ops unary_cast ~src:(P.In_order [ invalid_gate ]) ~name:"op")
        (fun m -> Some (where (g m "cond") (replace (g m "op") ~src:[| g m "x" |]) (g m "i")));
      (* binary ops move inside the gate, with Invalid in the false branch *)
      P.rule (P.ops Ops.Group.binary ~src:(P.In_order [ invalid_gate; v "y" ]) ~name:"alu")
        (fun m -> Some (where (g m "cond") (alu (g m "alu").op [ g m "x"; g m "y" ]) (g m "i")));
      P.rule (P.ops Ops.Group.binary ~src:(P.In_order [ v "y"; invalid_gate ]) ~name:"alu")
        (fun m -> Some (where (g m "cond") (alu (g m "alu").op [ g m "y"; g m "x" ]) (g m "i")));
      P.rule (P.ops binary_not_cmp ~src:(P.Permuted [ invalid_pat; P.wild ])) (fun m -> Some (g m "i"));
      (* an Invalid condition poisons the whole where; a gated Invalid condition lifts the gate out *)
      P.rule (P.where invalid_pat P.wild P.wild) (fun m -> Some (g m "i"));
      P.rule (P.where invalid_gate (v "a") (v "b"))
        (fun m -> Some (where (g m "cond") (where (g m "x") (g m "a") (g m "b")) (g m "i")));
      (* normalize where(cond, Invalid, val) -> where(~cond, val, Invalid) *)
      P.rule (P.where (v "cond") invalid_pat (v "val"))
        (fun m ->
           let vl = g m "val" in
           Some (if not (is_invalid vl) then where (logical_not (g m "cond")) vl (g m "i") else g m "i"));
      (* lift Invalid out: a.where(cond.where(x, Invalid), c) -> (~a|cond).where(a.where(x,c), Invalid) *)
      P.rule (P.where (v "a") invalid_gate (v "c"))
        (fun m ->
           let a = g m "a" and c = g m "c" in
           if is_invalid c then None
           else Some (where (or_ (logical_not a) (g m "cond")) (where a (g m "x") c) (g m "i")));
      P.rule (P.where (v "a") (v "b") invalid_gate)
        (fun m ->
           let a = g m "a" and b = g m "b" in
           if is_invalid b then None else Some (where (or_ a (g m "cond")) (where a b (g m "x")) (g m "i")));
      (* fold gated LOAD/STORE *)
      P.rule
        (P.pat Ops.Store
           ~src:(P.In_order [ P.or_casted (P.pat Ops.Index ~src:(P.In_order [ P.wild; invalid_pat ]) ~allow_any_len:true);
                              P.wild ]))
        (fun _ -> Some (create Ops.Noop));
      P.rule
        (P.pat Ops.Load ~allow_any_len:true ~name:"x"
           ~src:(P.In_order [ P.or_casted (P.pat Ops.Index ~src:(P.In_order [ P.wild; invalid_pat ]) ~allow_any_len:true) ]))
        (fun m ->
           let x = g m "x" in
           Some (if Array.length x.src > 1 then x.src.(1) else const_like x zero)) ]

let pm_remove_invalid : unit P.matcher =
  P.matcher
    [ P.rule (P.named "w" invalid_gate)
        (fun m -> let w = g m "w" in Some (replace w ~src:[| g m "cond"; g m "x"; const_like w zero |]));
      P.rule (P.pat Ops.Stack ~name:"s")
        (fun m ->
           let s = g m "s" in
           if Array.exists is_invalid s.src then
             Some (replace s ~src:(Array.map (fun x -> if is_invalid x then const ~dtype:s.dtype zero else x) s.src))
           else None) ]

(* tinygrad: symbolic.py fold_const_where — folding a strong WHERE to a weak const branch keeps the strong dtype *)
let fold_const_where (gate : Uop.t) (c0 : Uop.t) (c1 : Uop.t) (w : Uop.t) : Uop.t option =
  let ret = if truthy (const_val gate) then c0 else c1 in
  Some (if ret.op == Ops.Const && Dtype.is_weak ret.dtype && not (Dtype.is_weak w.dtype) then Weak.commit_weak ret w.dtype
        else ret)

let ints_weak = Dtype.ints @ [ Dtype.Weakint ]
let ints_bool_weak = Dtype.ints @ [ Dtype.Bool; Dtype.Weakint ]

let symbolic_simple : unit P.matcher =
  let open P.O in
  let bool_x = v ~dtype:[ Dtype.Bool ] "x" in
  let ctrue = P.const ~dtype:[ Dtype.Bool ] (Dtype.B true) and cfalse = P.const ~dtype:[ Dtype.Bool ] (Dtype.B false) in
  P.( @@@ )
    (P.( @@@ ) pm_data_invalid
       (P.matcher
          [ (* ** self folding ** *)
            P.rule (P.ops [ Ops.Add; Ops.Xor; Ops.Or ] ~src:(P.Permuted [ v "x"; P.const zero ])) (fun m -> Some (g m "x"));
            P.rule (P.ops [ Ops.Shl; Ops.Shr ] ~src:(P.In_order [ v "x"; P.const zero ])) (fun m -> Some (g m "x"));
            P.rule (v "x" * i 1) (fun m -> Some (g m "x"));
            P.rule (v "x" // v "x") (fun m -> Some (const_like (g m "x") (Dtype.I Z.one)));
            P.rule (v "x" // i 1) (fun m -> Some (g m "x"));
            P.rule (v "x" // i (-1)) (fun m -> Some (neg (g m "x")));
            P.rule ((v "x" lxor v "y") lxor v "y") (fun m -> Some (g m "x"));
            (* (x%y)%y -> x%y *)
            P.rule (P.named "base" (P.wild mod v "y") mod v "y") (fun m -> Some (g m "base"));
            (* variations of (x%c)+(x//c)*c = x *)
            P.rule (P.pat Ops.Add ~dtype:[ Dtype.Weakint ] ~name:"x") (fun m -> fold_add_divmod_recombine (g m "x"));
            P.rule (bool_x land cv "c") (fun m -> let c = g m "c" in Some (if truthy (const_val c) then g m "x" else c));
            P.rule (bool_x lor cv "c") (fun m -> let c = g m "c" in Some (if truthy (const_val c) then c else g m "x"));
            P.rule (bool_x <> cfalse) (fun m -> Some (g m "x"));
            P.rule (P.ops Ops.Group.idempotent ~src:(P.In_order [ v "x"; v "x" ])) (fun m -> Some (g m "x"));
            P.rule (P.logical_not (P.logical_not bool_x)) (fun m -> Some (g m "x"));
            P.rule (P.where bool_x ctrue cfalse) (fun m -> Some (g m "x"));
            P.rule (P.where bool_x cfalse ctrue) (fun m -> Some (logical_not (g m "x")));
            (* CAST(bool -> int) != const: CAST(True)=1, CAST(False)=0 *)
            P.rule (P.make ~op:[ Ops.Cast ] ~dtype:ints_weak ~src:(P.In_order [ bool_x ]) () <> cv "c")
              (fun m ->
                 let x = g m "x" and c = const_val (g m "c") in
                 Some (if val_eq c 0 then x else if val_eq c 1 then logical_not x else const_like x (Dtype.B true)));
            P.rule (P.trunc (v ~dtype:ints_bool_weak "x")) (fun m -> Some (g m "x"));
            (* ** zero folding ** *)
            P.rule (v "x" < v "x") (fun m -> Some (const_like ~dtype:Dtype.Bool (g m "x") (Dtype.B false)));
            P.rule (v "x" mod v "x") (fun m -> Some (const_like (g m "x") zero));
            P.rule (v "x" lxor v "x") (fun m -> Some (const_like (g m "x") zero));
            P.rule (v "x" land i 0) (fun m -> Some (const_like (g m "x") zero));
            (* (x&mask)>>k -> x>>k when mask only clears bits below k *)
            P.rule ((v "x" land cv "mask") lsr cv "k")
              (fun m ->
                 let k = zval (g m "k") and mask = zval (g m "mask") in
                 if Z.equal (Z.logor mask (Z.pred (Z.shift_left Z.one (Z.to_int k)))) Z.minus_one then
                   Some (shr (g m "x") (cz k))
                 else None);
            P.rule ((v "x" land cv "mask") // cv "c")
              (fun m ->
                 let c = zval (g m "c") and mask = zval (g m "mask") in
                 if Z.gt c Z.zero && Z.equal (Z.logand c (Z.pred c)) Z.zero && Z.equal (Z.logor mask (Z.pred c)) Z.minus_one
                 then Some (idiv (g m "x") (cz c))
                 else None);
            (* x != x -> False (only ints) *)
            P.rule (v ~dtype:ints_bool_weak "x" <> v "x") (fun m -> Some (const_like ~dtype:Dtype.Bool (g m "x") (Dtype.B false)));
            (* ** constant folding ** *)
            (* a CAST to a concrete dtype over a CONST is a value conversion at the width the CAST states *)
            P.rule (P.pat Ops.Cast ~dtype:Dtype.all ~name:"root" ~src:(P.In_order [ cv "c" ]))
              (fun m -> Some (const_like (g m "root") (const_val (g m "c"))));
            P.rule (P.ops Ops.Group.unary ~src:(P.In_order [ const_folding_pat ]) ~name:"a") (fun m -> fold_const_alu (g m "a"));
            P.rule (P.ops (List.filter (fun o -> o != Ops.Threefry) Ops.Group.binary) ~name:"a"
                      ~src:(P.In_order [ const_folding_pat; const_folding_pat ]))
              (fun m -> fold_const_alu (g m "a"));
            P.rule (P.ops Ops.Group.ternary ~name:"a" ~src:(P.In_order [ const_folding_pat; const_folding_pat; const_folding_pat ]))
              (fun m -> fold_const_alu (g m "a"));
            (* bool MUL is AND, ADD/MAX is OR *)
            P.rule (v ~dtype:[ Dtype.Bool ] "x" * v ~dtype:[ Dtype.Bool ] "y") (fun m -> Some (and_ (g m "x") (g m "y")));
            P.rule (v ~dtype:[ Dtype.Bool ] "x" + v ~dtype:[ Dtype.Bool ] "y") (fun m -> Some (or_ (g m "x") (g m "y")));
            P.rule (P.maximum (v ~dtype:[ Dtype.Bool ] "x") (v ~dtype:[ Dtype.Bool ] "y")) (fun m -> Some (or_ (g m "x") (g m "y")));
            (* *** div rules *** *)
            P.rule (pdiv (cv ~arg:zero "x") (i 0)) (fun m -> Some (const_like (g m "x") (Dtype.F nan)));
            P.rule (pdiv (v "x" * i 0) (i 0)) (fun m -> Some (const_like (g m "x") (Dtype.F nan)));
            (* can be wrong if x or x2 is 0 *)
            P.rule (pdiv (v "x") (v "x")) (fun m -> Some (const_like (g m "x") (Dtype.I Z.one)));
            P.rule (pdiv (v "x" * v "x2") (v "x2")) (fun m -> Some (g m "x"));
            (* x*0 -> 0; a nan or inf CONST renders nan *)
            P.rule (v "x" * i 0)
              (fun m ->
                 let x = g m "x" in
                 let bad = x.op == Ops.Const && (match const_val x with Dtype.F f -> not (Float.is_finite f) | _ -> false) in
                 Some (const_like x (if bad then Dtype.F nan else zero)));
            (* *** cast/bitcast *** *)
            P.rule (P.ops [ Ops.Cast; Ops.Bitcast ] ~name:"root")
              (fun m -> let r = g m "root" in if r.dtype == r.src.(0).dtype then Some r.src.(0) else None);
            P.rule (P.pat Ops.Bitcast ~name:"root" ~src:(P.In_order [ cv "c" ])) (fun m -> fold_bitcast (g m "root") (g m "c"));
            (* b.cast(a).cast(b) -> b if a preserves all values in b *)
            P.rule (P.cast ~name:"b" (P.cast ~name:"a" (v "x")))
              (fun m ->
                 let x = g m "x" and a = g m "a" and b = g m "b" in
                 if x.dtype == b.dtype && Dtype.can_lossless_cast b.dtype a.dtype then Some x else None);
            (* bitcast twice *)
            P.rule (P.pat Ops.Bitcast ~name:"b" ~src:(P.In_order [ P.bitcast (v "x") ]))
              (fun m -> Some (bitcast (g m "b").dtype (g m "x")));
            P.rule (P.cast ~dtype:Dtype.Bool (v "x")) (fun m -> Some (ne (g m "x") (const_int 0)));
            (* ** pow ** *)
            P.rule (P.alu Ops.Pow [ v "x"; cv "c" ]) (fun m -> simplify_pow (g m "x") (g m "c"));
            (* positive const ** x *)
            P.rule (P.alu Ops.Pow [ cv "c"; v "x" ])
              (fun m ->
                 let c = g m "c" in
                 let cval = const_val c in
                 if val_eq cval 1 then Some c
                 else if pos cval then
                   Some (exp2 (mul (g m "x") (const_float (Float.log2 (const_to_float cval)))))
                 else None);
            (* unpack a uint64 packed from two uint32 (threefry) *)
            P.rule
              (P.cast ~dtype:Dtype.Uint32
                 ((P.make ~dtype:[ Dtype.Uint64 ] () lsl i 32) lor P.cast ~dtype:Dtype.Uint64 (v ~dtype:[ Dtype.Uint32 ] "y")))
              (fun m -> Some (g m "y"));
            P.rule
              (((P.cast ~dtype:Dtype.Uint64 (v ~dtype:[ Dtype.Uint32 ] "x") lsl i 32)
                lor P.cast ~dtype:Dtype.Uint64 (P.make ~dtype:[ Dtype.Uint32 ] ())) lsr i 32)
              (fun m -> Some (cast Dtype.Uint64 (g m "x")));
            (* ** simple where folding ** *)
            P.rule (P.where P.wild (v "val") (v "val")) (fun m -> Some (g m "val"));
            P.rule (P.named "w" (P.where (cv "gate") (v "c0") (v "c1")))
              (fun m -> fold_const_where (g m "gate") (g m "c0") (g m "c1") (g m "w"));
            (* a.where(b.where(c, d), d) -> (a & b).where(c, d) *)
            P.rule (P.where (v "a") (P.where (v "b") (v "c") (v "d")) (v "d"))
              (fun m -> Some (where (and_ (g m "a") (g m "b")) (g m "c") (g m "d")));
            (* a.where(c, b.where(c, d)) -> (a | b).where(c, d) *)
            P.rule (P.where (v "a") (v "c") (P.where (v "b") (v "c") (v "d")))
              (fun m -> Some (where (or_ (g m "a") (g m "b")) (g m "c") (g m "d"))) ]))
    Movement.mop_cleanup

(* ******** phase 2 builds on phase 1: the rules that match deeper ******** *)

(* tinygrad: symbolic.py lt_folding *)
let lt_folding (x : Uop.t) (c : Z.t) : Uop.t option =
  let p, np = List.partition (fun u -> Z.equal (const_factor u) Z.one) (split_uop x Ops.Add) in
  match np with
  | [] -> None
  | n0 :: nrest ->
    let d = List.fold_left (fun acc u -> Z.gcd acc (const_factor u)) c np in
    if Z.gt d Z.one && Z.leq Z.zero (zsum (List.map (fun u -> zi (vmin u)) p))
       && Z.lt (zsum (List.map (fun u -> zi (vmax u)) p)) d then
      Some (lt (Option.get (divides (usum ~start:n0 nrest) d)) (cz (zfloordiv c d)))
    else None

(* tinygrad: symbolic.py canonicalize_simplex — (a0*x0 + a1*x1 + ...) > 0 is x0 + x1 + ... > 0 if xi >= 0, ai > 0 *)
let canonicalize_simplex (xx : Uop.t) : Uop.t option =
  let changed = ref false in
  let rec go acc = function
    | [] -> Some (List.rev acc)
    | (u : Uop.t) :: rest ->
      let u =
        if u.op == Ops.Mul && u.src.(1).op == Ops.Const && val_cmp (const_val u.src.(1)) 0 > 0 then (changed := true; u.src.(0))
        else u in
      if not (Ops.Group.is_irreducible u.op && ge0 (vmin u)) then None else go (u :: acc) rest in
  match go [] (split_uop xx Ops.Add) with
  | Some (h :: t) when !changed -> Some (usum ~start:h t)
  | _ -> None

let commutative : unit P.matcher =
  P.matcher
    [ (* ** COMMUTATIVE flipping (only for index) ** *)
      P.rule (P.ops Ops.Group.commutative ~dtype:[ Dtype.Weakint ] ~name:"x")
        (fun m ->
           let x = g m "x" in
           if compare_tuplize x.src.(1) x.src.(0) < 0 && not (compare_tuplize x.src.(0) x.src.(1) < 0) then
             Some (replace x ~src:[| x.src.(1); x.src.(0) |])
           else None) ]

(* Not in tinygrad: a RANGE whose end depends on other ranges is a loop that runs only where its result is kept
   (Codegen.gate_reduce_loops), and it stays one loop however many values use it. A rewrite that knows a fact at one
   use (a valid, a WHERE's condition) must leave that end alone: rewritten, the end makes a second RANGE of the same
   axis, a loop rendered twice. [hiding_computed_ranges rngs f uop] is [f uop] with each such RANGE among [rngs]
   standing in as the plain loop of its axis over its largest count: same bounds and the same place in a sum's
   order (a variable in its place reordered terms, and the gated index flipped between the two orders forever).
   tinygrad's ends depend on no range: for them it is [f uop]. *)
let hiding_computed_ranges (rngs : Uop.t list) (f : Uop.t -> Uop.t) (uop : Uop.t) : Uop.t =
  match List.filter (fun (r : Uop.t) -> r.op == Ops.Range && ranges r.src.(0) <> []) rngs with
  | [] -> f uop
  | computed ->
    let hidden = List.map (fun (r : Uop.t) ->
        (r, replace r ~src:[| const_like r.src.(0) (Dtype.I (Z.succ (zi (vmax r)))) |])) computed in
    P.substitute (f (P.substitute uop hidden)) (List.map (fun (r, v) -> (v, r)) hidden)

(* tinygrad: symbolic.py fold_where_closure — in cond.where(t, f), cond is True within t and False within f
   (not entering a loop's computed end: hiding_computed_ranges) *)
let fold_where_closure (cond : Uop.t) (t : Uop.t) (f : Uop.t) : Uop.t option =
  if not (in_backward_slice_with_self cond t || in_backward_slice_with_self cond f) then None
  else if List.exists (fun u -> op_in_backward_slice_with_self u [ Ops.Index ]) [ cond; t; f ] then None
  else
    let fold x b = hiding_computed_ranges (toposort x) (fun x -> P.substitute x [ (cond, const_like cond (Dtype.B b)) ]) x in
    let t' = fold t true and f' = fold f false in
    if t' == t && f' == f then None else Some (where cond t' f')

let side_effect_ops = [ Ops.Range; Ops.Store; Ops.Call; Ops.Function; Ops.Barrier; Ops.End; Ops.Linear; Ops.Stage ]

let symbolic : unit P.matcher =
  let open P.O in
  let bool_x = v ~dtype:[ Dtype.Bool ] "x" in
  let wi = [ Dtype.Weakint ] in
  let rules =
    [ (* ** boolean algebra ** *)
      P.rule (bool_x lor P.logical_not bool_x) (fun m -> Some (const_like (g m "x") (Dtype.B true)));
      (* ** combine terms ** *)
      P.rule ((v "x" * cv "c0") + (v "x" * cv "c1")) (fun m -> Some (mul (g m "x") (add (g m "c0") (g m "c1"))));
      P.rule ((v "y" + (v "x" * cv "c0")) + (v "x" * cv "c1"))
        (fun m -> Some (add (g m "y") (mul (g m "x") (add (g m "c0") (g m "c1")))));
      P.rule (v "x" + (v "x" * cv "c")) (fun m -> Some (mul (g m "x") (add (g m "c") (const_int 1))));
      P.rule ((v "y" + v "x") + (v "x" * cv "c"))
        (fun m -> Some (add (g m "y") (mul (g m "x") (add (g m "c") (const_int 1)))));
      P.rule ((v "y" + (v "x" * cv "c")) + v "x")
        (fun m -> Some (add (g m "y") (mul (g m "x") (add (g m "c") (const_int 1)))));
      P.rule (v "x" + v "x") (fun m -> Some (mul (g m "x") (const_int 2)));
      P.rule ((v "y" + v "x") + v "x") (fun m -> Some (add (g m "y") (mul (g m "x") (const_int 2))));
      (* (x/x2)/x3 -> x/(x2*x3) *)
      P.rule (pdiv (pdiv (v "x") (v "x2")) (v "x3"))
        (fun m -> let x2 = g m "x2" and x3 = g m "x3" in if x2 != x3 then Some (div (g m "x") (mul x2 x3)) else None);
      (* -(x+c) -> -x + -c *)
      P.rule (i (-1) * (v "x" + cv "c")) (fun m -> Some (add (neg (g m "x")) (neg (g m "c"))));
      (* y*(x+c) -> y*x + y*c *)
      P.rule (cv "y" * (v ~dtype:wi "x" + cv "c"))
        (fun m -> let y = g m "y" in Some (add (mul y (g m "x")) (mul y (g m "c"))));
      (* ** where folding ** *)
      P.rule (P.where (P.logical_not (v ~dtype:[ Dtype.Bool ] "cond")) (v "t") (v "f"))
        (fun m -> let f = g m "f" in if not (is_invalid f) then Some (where (g m "cond") f (g m "t")) else None);
      (* in cond.where(t, f), uses of cond fold to True within t and False within f *)
      P.rule (P.where (v ~dtype:[ Dtype.Bool ] "cond") (v "t") (v "f"))
        (fun m -> fold_where_closure (g m "cond") (g m "t") (g m "f"));
      (* alu of two where with same conds can combine, only do if true branch or false branch is const *)
      P.rule
        (P.ops Ops.Group.binary ~name:"alu"
           ~src:(P.In_order [ P.where (v "c") (v "t") (v "f"); P.where (v "c") (v "tt") (v "ff") ]))
        (fun m ->
           let t = g m "t" and tt = g m "tt" and f = g m "f" and ff = g m "ff" and op = (g m "alu").op in
           if (t.op == Ops.Const && tt.op == Ops.Const) || (f.op == Ops.Const && ff.op == Ops.Const) then
             Some (where (g m "c") (alu op [ t; tt ]) (alu op [ f; ff ]))
           else None);
      (* if its a plus we add the associative variation too *)
      P.rule ((v "y" + P.where (v "c") (v "t") (v "f")) + P.where (v "c") (v "tt") (v "ff"))
        (fun m ->
           let t = g m "t" and tt = g m "tt" and f = g m "f" and ff = g m "ff" in
           if (t.op == Ops.Const && tt.op == Ops.Const) || (f.op == Ops.Const && ff.op == Ops.Const) then
             Some (add (g m "y") (where (g m "c") (add t tt) (add f ff)))
           else None);
      (* complementary zero branches under the same condition select directly *)
      P.rule (P.where (v "c") (v "t") (i 0) + P.where (v "c") (i 0) (v "f"))
        (fun m -> Some (where (g m "c") (g m "t") (g m "f")));
      (* ALU/variable min==max -> CONST *)
      P.rule (P.ops [ Ops.Cmplt; Ops.Cmpne; Ops.Floordiv; Ops.Floormod; Ops.Param; Ops.After; Ops.Special ] ~name:"x")
        (fun m -> let x = g m "x" in if compare_const (vmin x) (vmax x) = 0 then Some (const_like x (vmin x)) else None);
      P.rule (P.pat Ops.Range ~src:(P.In_order [ P.pat Ops.Const ]) ~name:"x")
        (fun m -> let x = g m "x" in if compare_const (vmin x) (vmax x) = 0 then Some (const_like x (vmin x)) else None);
      (* max folding *)
      P.rule (P.where (cv "a" < v "b") (v "b") (cv "c"))
        (fun m ->
           let a = g m "a" in
           if compare_const (const_val a) (const_val (g m "c")) = 0 then Some (maximum a (g m "b")) else None);
      P.rule (P.where (v "a" < cv "b") (cv "c") (v "a"))
        (fun m ->
           let b = g m "b" in
           if compare_const (const_val b) (const_val (g m "c")) = 0 then Some (maximum (g m "a") b) else None);
      P.rule (P.maximum (v "x") (v "y"))
        (fun m ->
           let x = g m "x" and y = g m "y" in
           if const_ge (vmin x) (vmax y) then Some x else if const_le (vmax x) (vmin y) then Some y else None) ]
    (* ** two stage ALU folding ** *)
    @ List.map (fun op ->
        P.rule (P.named "f" (P.alu op [ P.alu op [ v "x"; cv "c1" ]; cv "c2" ]))
          (fun m -> let f = g m "f" in Some (alu f.op [ g m "x"; alu f.op [ g m "c1"; g m "c2" ] ])))
      Ops.Group.associative
    @ [ (* (x//c1)//c2 -> x//(c1*c2) for c2>0 *)
      P.rule ((v "x" // cv "c1") // cv "c2")
        (fun m -> let c2 = g m "c2" in if pos (vmin c2) then Some (idiv (g m "x") (mul (g m "c1") c2)) else None);
      (* ** lt ** *)
      (* c0+x<c1 -> x < c1-c0 *)
      P.rule ((cv "c0" + v ~dtype:ints_weak "x") < cv "c1") (fun m -> Some (lt (g m "x") (sub (g m "c1") (g m "c0"))));
      (* c0*x<c1 -> sign(c0)*x < ceil(c1/abs(c0)) *)
      P.rule ((cv "c0" * v ~dtype:wi "x") < cv "c1")
        (fun m ->
           let c0 = zval (g m "c0") and c1 = zval (g m "c1") and x = g m "x" in
           if Z.gt (Z.abs c0) Z.one then
             Some (lt (if Z.gt c0 Z.zero then x else neg x) (cz (Z.neg (zfloordiv (Z.neg c1) (Z.abs c0)))))
           else None);
      (* x//d<c -> x<c*d for d>0, and -> c*d<x for d<0 *)
      P.rule ((v ~dtype:wi "x" // cv "d") < cv "c")
        (fun m ->
           let d = zval (g m "d") and c = zval (g m "c") and x = g m "x" in
           if Z.gt d Z.zero then Some (lt x (cz (Z.mul c d)))
           else if Z.lt d Z.zero then Some (gt x (cz (Z.mul c d)))
           else None);
      (* ** move add/mul consts to end ** *)
      P.rule ((v "x" + cv "c1") + v "y")
        (fun m -> let y = g m "y" in if y.op != Ops.Const then Some (add (add (g m "x") y) (g m "c1")) else None);
      P.rule ((v "x" * cv "c1") * v "y")
        (fun m -> let y = g m "y" in if y.op != Ops.Const then Some (mul (mul (g m "x") y) (g m "c1")) else None);
      (* *** rules from symbolic *** *)
      (* generic lt folding *)
      P.rule (v ~dtype:wi "x" < cv "c")
        (fun m -> let c = zval (g m "c") in if Z.gt c Z.zero then lt_folding (g m "x") c else None);
      P.rule ((v ~dtype:wi "x" * i (-1)) < (v "y" * i (-1))) (fun m -> Some (lt (g m "y") (g m "x")));
      (* canonicalize a simplex with positive coefficients > 0. NOTE: not x < 1 means x > 0 *)
      P.rule (P.ne (v ~dtype:wi "x" < i 1) (bl true))
        (fun m ->
           match canonicalize_simplex (g m "x") with
           | Some newx -> Some (ne (lt newx (const_int 1)) (const_bool true))
           | None -> None);
      (* a range mod its own upper bound is just the range *)
      P.rule (P.pat Ops.Range ~src:(P.Repeat (v "end")) ~name:"r" mod v "end") (fun m -> Some (g m "r"));
      P.rule (P.pat Ops.Range ~src:(P.Repeat (v "end")) ~name:"r" // v "end") (fun m -> Some (const_like (g m "r") zero));
      (* cast/long folding: if the intermediate cast doesnt narrow we can do it in one cast *)
      P.rule (P.cast ~name:"b" (P.cast ~name:"a" (v "x")))
        (fun m ->
           let x = g m "x" and a = g m "a" in
           if Dtype.can_lossless_cast x.dtype a.dtype then Some (cast (g m "b").dtype x) else None);
      P.rule (P.cast ~name:"b" (P.make ~op:[ Ops.Cast ] ~dtype:ints_weak ~name:"a" ~src:(P.In_order [ v ~dtype:ints_weak "x" ]) ()))
        (fun m ->
           let x = g m "x" and a = g m "a" in
           if const_le (Dtype.min a.dtype) (vmin x) && const_le (vmax x) (Dtype.max a.dtype) then
             Some (cast (g m "b").dtype x)
           else None);
      (* try to do math in int instead of long, keep weak const weak *)
      P.rule
        (P.ops Ops.Group.binary ~name:"u"
           ~src:(P.In_order [ v ~dtype:[ Dtype.Int64; Dtype.Weakint ] "x"; v ~dtype:[ Dtype.Int64; Dtype.Weakint ] "y" ]))
        (fun m ->
           let u = g m "u" and x = g m "x" and y = g m "y" in
           if (x.dtype == Dtype.Int64 || y.dtype == Dtype.Int64)
              && not (List.exists (fun w -> overflows w Dtype.Int32) [ u; x; y ]) then
             let narrow (w : Uop.t) = if w.op == Ops.Const then const (const_val w) else cast Dtype.Int32 w in
             Some (cast u.dtype (alu u.op [ narrow x; narrow y ]))
           else None);
      P.rule (P.make ~op:[ Ops.Cast ] ~dtype:Dtype.sints ~name:"cast" ~src:(P.In_order [ v ~dtype:wi "x" + cv "c" ]) ())
        (fun m ->
           let c = g m "cast" in
           Some (add (cast c.dtype (g m "x")) (const_like c (const_val (g m "c")))));
      (* only RANGE/IF/STORE/KERNEL have side effects *)
      P.rule (P.pat Ops.After ~name:"x")
        (fun m ->
           let x = g m "x" in
           let rest = List.concat_map (fun (y : Uop.t) ->
               if List.memq y.op side_effect_ops then [ y ] else Array.to_list y.src) (srcs_from x 1) in
           Some (replace x ~src:(Array.of_list (x.src.(0) :: dedup rest))));
      (* after/end with 1 src is just src[0] *)
      P.rule (P.ops [ Ops.After; Ops.End ] ~src:(P.In_order [ v "s" ])) (fun m -> Some (g m "s")) ] in
  P.( @@@ ) (P.( @@@ ) (P.( @@@ ) symbolic_simple commutative) (P.matcher rules)) Divandmod.div_and_mod_symbolic

(* ******** a small aside to "simplify_valid" to rewrite valids ******** *)

(* tinygrad: symbolic.py parse_valid — X <= c gives (X, true, c); X >= c gives (X, false, c) *)
let parse_valid (vv : Uop.t) : (Uop.t * bool * Z.t) option =
  if vv.op == Ops.Cmpne && vv.src.(1).op == Ops.Const && val_eq (const_val vv.src.(1)) 1
     && vv.src.(0).op == Ops.Cmplt && Dtype.is_int vv.src.(0).src.(0).dtype then
    (* (X < c).ne(True) -> X >= c *)
    let s0 = vv.src.(0) in Some (s0.src.(0), false, zi (vmin s0.src.(1)))
  else if vv.op == Ops.Cmplt && Dtype.is_int vv.src.(0).dtype then
    (* c < X -> X >= c+1; X < c -> X <= c-1 *)
    if vv.src.(0).op == Ops.Const then Some (vv.src.(1), false, Z.succ (zval vv.src.(0)))
    else Some (vv.src.(0), true, Z.pred (zi (vmax vv.src.(1))))
  else None

let all_same = function [] -> true | x :: rest -> List.for_all (fun y -> y == x) rest

(* tinygrad: symbolic.py uop_given_valid — simplify [uop] knowing [valid] is true *)
let uop_given_valid_core ~try_simplex (valid : Uop.t) (uop : Uop.t) : Uop.t =
  (* parse valid into {expr: (lower_bound, upper_bound)}, insertion ordered *)
  let bounds : (Uop.t * Z.t option ref * Z.t option ref) list ref = ref [] in
  List.iter (fun stmt ->
      match parse_valid stmt with
      | None -> ()
      | Some (expr, is_upper, c) ->
        let _, lo, hi =
          match List.find_opt (fun (e, _, _) -> e == expr) !bounds with
          | Some b -> b
          | None -> let b = (expr, ref None, ref None) in bounds := !bounds @ [ b ]; b in
        if is_upper then hi := Some c else lo := Some c) (split_uop valid Ops.And);
  let uop = ref uop in
  let all_candidates = ref [] in
  List.iteri (fun idx (expr, lo, hi) ->
      let v0 = match !lo with Some c -> Dtype.I c | None -> vmin expr in
      let v1 = match !hi with Some c -> Dtype.I c | None -> vmax expr in
      let name = Printf.sprintf "fake%d" idx in
      (* try checking the whole clause *)
      all_candidates := !all_candidates @ [ (expr, variable ~dtype:expr.dtype ~param:true name v0 v1) ];
      if try_simplex then begin
        let last = Helpers.last !all_candidates in
        let candidates =
          [ last ]
          :: (if expr.op == Ops.Add && val_eq v0 1
                 && List.for_all (fun (u : Uop.t) -> Ops.Group.is_irreducible u.op) (split_uop expr Ops.Add) then
                [ List.map (fun (xi : Uop.t) -> (xi, variable ~dtype:xi.dtype ~param:true name (Dtype.I Z.one) (vmax xi)))
                    (split_uop expr Ops.Add) ]
              else []) in
        List.iter (fun candidate ->
            if List.for_all (fun (x, _) -> in_backward_slice_with_self x !uop) candidate then begin
              let u = !uop in
              let newuops = List.map (fun (x, newx) ->
                  simplify (P.substitute (simplify (P.substitute u [ (x, newx) ])) [ (newx, x) ])) candidate in
              if all_same newuops then uop := List.hd newuops
              else if u.op == Ops.Stack && Array.length u.src = 2 then begin
                if all_same (List.map (fun (w : Uop.t) -> w.src.(0)) newuops) then
                  uop := replace !uop ~src:[| (List.hd newuops).src.(0); !uop.src.(1) |];
                if all_same (List.map (fun (w : Uop.t) -> w.src.(1)) newuops) then
                  uop := replace !uop ~src:[| !uop.src.(0); (List.hd newuops).src.(1) |]
              end
            end) candidates
      end) !bounds;
  (* try all the valids together (but only the whole expressions) *)
  let sub_dict = !all_candidates in
  let s_uop = P.substitute !uop sub_dict in
  if s_uop != !uop then
    simplify (P.substitute (simplify s_uop) (List.map (fun (x, newx) -> (newx, x)) sub_dict))
  else !uop

(* tinygrad: symbolic.py uop_given_valid — simplify [uop] knowing [valid] is true (not entering a loop's computed
   end: hiding_computed_ranges) *)
let uop_given_valid ?(try_simplex = true) (valid : Uop.t) (uop : Uop.t) : Uop.t =
  hiding_computed_ranges (ranges uop) (uop_given_valid_core ~try_simplex valid) uop

(* tinygrad: symbolic.py _valid_priority — a valid in other valids' parents goes first *)
let valid_priority (vv : Uop.t) (valids : Uop.t list) : int =
  match parse_valid vv with
  | None -> 0
  | Some (e, _, _) -> - List.length (List.filter (fun other -> in_backward_slice_with_self e other) valids)

(* tinygrad: symbolic.py simplify_valid *)
let simplify_valid (valid : Uop.t) : Uop.t option =
  if op_in_backward_slice_with_self valid [ Ops.Index ] then None
  else
    let valids = split_uop valid Ops.And in
    let valids = List.stable_sort (fun a b -> compare (valid_priority a valids) (valid_priority b valids)) valids in
    let ret = List.fold_left (fun ret stmt ->
        let stmt = match ret with [] -> stmt | h :: t -> uop_given_valid (uprod ~start:h t) stmt in
        ret @ [ stmt ]) [] (dedup valids) in
    let same = List.length ret = List.length valids && List.for_all2 ( == ) ret valids in
    if same then None else Some (uprod ~start:(List.hd ret) (List.tl ret))

(* ******** phase 3 is the complete symbolic ******** *)

(* tinygrad: symbolic.py reduce_mul_chain — move the muls that do not depend on the reduce ranges after it *)
let reduce_mul_chain (r : Uop.t) : Uop.t option =
  let rop = match r.arg with Reduce_arg (op, _) -> Some op | _ -> None in
  match rop with
  | Some rop when (rop == Ops.Add || rop == Ops.Max) && r.dtype == r.src.(0).dtype ->
    let rngs = srcs_from r 1 in
    let inside, outside = List.partition (fun (m : Uop.t) ->
        let parents = List.filter (fun x -> x != m) (toposort m) in
        not ((not (List.memq m rngs)) && List.for_all (fun rr -> not (List.memq rr parents)) rngs
             && (rop != Ops.Max || ge0 (vmin m)))) (split_uop r.src.(0) Ops.Mul) in
    (match outside with
     | [] -> None
     | _ ->
       let first = match inside with [] -> const_like r.src.(0) (Dtype.I Z.one) | _ -> py_prod inside in
       Some (mul (replace r ~src:(Array.of_list (first :: rngs))) (py_prod outside)))
  | _ -> None

(* tinygrad: symbolic.py drop_and_clauses *)
let drop_and_clauses (cond : Uop.t) (x : Uop.t) (i : Uop.t) : Uop.t option =
  let xr = ranges x in
  let keep, drop = List.partition (fun c -> List.exists (fun r -> List.memq r xr) (ranges c)) (split_uop cond Ops.And) in
  match drop with [] -> None | _ -> Some (where (uprod ~start:(const_bool true) keep) x i)

let pm_drop_and_clauses : unit P.matcher =
  P.matcher [ P.rule invalid_gate (fun m -> drop_and_clauses (g m "cond") (g m "x") (g m "i")) ]

(* tinygrad: symbolic.py where_on_load — move conditions from where to load's valid, drop clauses already in load *)
let where_on_load (cond : Uop.t) (buf : Uop.t) (idx : Uop.t) (or_cast : Uop.t) : Uop.t option =
  let where_clauses = split_uop cond Ops.And and load_valid = get_valid idx in
  let in_load = split_uop load_valid Ops.And in
  let idx_index = List.filter (fun (u : Uop.t) -> u.op == Ops.Index) (toposort idx) in
  let idx_ranges = ranges idx in
  (* can move if: condition's ranges are subset of idx's ranges, and no data dependent INDEX *)
  let can_move c =
    List.for_all (fun r -> List.memq r idx_ranges) (ranges c)
    && List.for_all (fun (u : Uop.t) -> u.op != Ops.Index || List.memq u idx_index) (toposort c) in
  let moved, keep = List.partition can_move (List.filter (fun c -> not (List.memq c in_load)) where_clauses) in
  if List.length keep = List.length where_clauses then None
  else
    let idx = index buf [ valid (get_idx idx) (uprod ~start:load_valid moved) ] in
    let ret_idx = if or_cast.op == Ops.Cast then cast or_cast.dtype idx else idx in
    Some (where (uprod ~start:(const_bool true) keep) ret_idx (const_like ret_idx zero))

(* where after gated load becomes alt value *)
let pm_move_where_on_load : unit P.matcher =
  let load_idx = P.or_casted ~name:"or_cast" (P.index (v "buf") [ v "idx" ]) in
  P.matcher
    [ P.rule (P.where (v "cond") load_idx (P.O.i 0))
        (fun m -> where_on_load (g m "cond") (g m "buf") (g m "idx") (g m "or_cast"));
      P.rule (P.where (v "cond") (P.O.i 0) load_idx)
        (fun m -> where_on_load (logical_not (g m "cond")) (g m "buf") (g m "idx") (g m "or_cast")) ]

(* tinygrad: symbolic.py gated_given_valid — pure index math only *)
let gated_given_valid (cond : Uop.t) (x : Uop.t) (i : Uop.t) : Uop.t option =
  if x.dtype != Dtype.Weakint || op_in_backward_slice_with_self x [ Ops.Index ] then None
  else if Helpers.image.value > 0 && op_in_backward_slice_with_self x [ Ops.Cdiv; Ops.Cmod; Ops.Floordiv; Ops.Floormod ] then None
  else Some (where cond (uop_given_valid ~try_simplex:false cond x) i)

let pm_simplify_valid : unit P.matcher =
  P.matcher
    [ P.rule (P.pat Ops.And ~name:"valid") (fun m -> simplify_valid (g m "valid"));
      P.rule invalid_gate (fun m -> gated_given_valid (g m "cond") (g m "x") (g m "i")) ]

(* this is symbol 2.0 *)
let remove_from_sink_like = [ Ops.Noop; Ops.Stack; Ops.Sink; Ops.Group ]

let pm_clean_up_group_sink : unit P.matcher =
  P.matcher
    [ P.rule (P.pat Ops.Group ~src:(P.In_order [ v "x" ])) (fun m -> Some (g m "x"));
      P.rule (P.ops [ Ops.Sink; Ops.Group ] ~name:"root")
        (fun m ->
           let root = g m "root" in
           if Array.exists (fun (x : Uop.t) -> List.memq x.op remove_from_sink_like) root.src then
             let src = List.concat_map (fun (x : Uop.t) ->
                 if List.memq x.op remove_from_sink_like then Array.to_list x.src else [ x ]) (Array.to_list root.src) in
             Some (create root.op ~src:(Array.of_list src) ~arg:root.arg)
           else None) ]

let sym : unit P.matcher =
  let open P.O in
  let recip1x = P.named "d" (P.reciprocal (i 1 + v "x")) in
  let extra =
    P.matcher
      [ (* reorder ALU/VECTORIZE *)
        P.rule
          (P.ops Ops.Group.alu ~name:"alu"
             ~src:(P.In_order [ P.pat Ops.Stack ~src:(P.Repeat (P.named "x" P.wild));
                                P.pat Ops.Stack ~src:(P.Repeat (P.named "y" P.wild)) ]))
          (fun m -> Some (create Ops.Stack ~src:[| create (g m "alu").op ~src:[| g m "x"; g m "y" |] |]));
        (* ** where ** *)
        (* push cast to branches *)
        P.rule (P.named "cast" (P.cast (P.where (v "s") (v "a") (v "b"))))
          (fun m ->
             let dt = (g m "cast").dtype in
             Some (where (g m "s") (Weak.commit_weak (g m "a") dt) (Weak.commit_weak (g m "b") dt)));
        (* ** pow ** *)
        P.rule (P.pat Ops.Pow ~name:"p") (fun m -> let p = g m "p" in Some (xpow p.src.(0) p.src.(1)));
        (* ** load/store folding ** *)
        P.rule (P.store (P.pat Ops.Index ~name:"index") [ P.load (P.pat Ops.Index ~name:"index") [] ])
          (fun _ -> Some (create Ops.Noop));
        P.rule
          (P.store (P.pat Ops.Index ~name:"index")
             [ P.where (v "gate") (v "alt") (P.load (P.pat Ops.Index ~name:"index") []) ])
          (fun m ->
             let index_ = g m "index" in
             Some (store (index index_.src.(0) [ valid index_.src.(1) (g m "gate") ]) (g m "alt")));
        (* fold gated LOAD/STORE *)
        P.rule (P.pat Ops.Store ~src:(P.In_order [ P.wild; invalid_pat ])) (fun _ -> Some (create Ops.Noop));
        (* store of where with invalid -> gated store *)
        P.rule (P.pat Ops.Store ~src:(P.In_order [ P.pat Ops.Index ~name:"index"; P.where (v "cond") (v "val") invalid_pat ]))
          (fun m ->
             let index_ = g m "index" in
             Some (store (index index_.src.(0) [ valid index_.src.(1) (g m "cond") ]) (g m "val")));
        (* 1/(x^c) -> (1/x)^c *)
        P.rule (P.reciprocal (v "x" * v "x")) (fun m -> let x = g m "x" in Some (mul (reciprocal x) (reciprocal x)));
        P.rule (P.reciprocal (v "x" * v "x" * v "x"))
          (fun m -> let x = g m "x" in Some (mul (mul (reciprocal x) (reciprocal x)) (reciprocal x)));
        (* 1/(x*c) -> (1/c)*(1/x) *)
        P.rule (P.reciprocal (v "x" * cv "c")) (fun m -> Some (mul (reciprocal (g m "x")) (reciprocal (g m "c"))));
        (* x*/(1+x) -> 1-1/(1+x) *)
        P.rule (v "x" * recip1x) (fun m -> Some (sub (const_int 1) (g m "d")));
        P.rule (v "x" * (recip1x * v "y")) (fun m -> Some (mul (g m "y") (sub (const_int 1) (g m "d"))));
        P.rule (v "x" * (recip1x + v "y"))
          (fun m -> Some (add (sub (const_int 1) (g m "d")) (mul (g m "x") (g m "y"))));
        (* move const multiply after REDUCE *)
        P.rule (P.reduce ~name:"r" ~allow_any_len:true ~arg:(Reduce_arg (Ops.Add, 0)) (v "x" * cv "c") [])
          (fun m ->
             let r = g m "r" in
             Some (mul (replace r ~src:(Array.of_list (g m "x" :: srcs_from r 1))) (const (const_val (g m "c")))));
        (* reduce mul chain, move muls after the reduce *)
        P.rule (P.reduce ~name:"r" ~allow_any_len:true (P.pat Ops.Mul) []) (fun m -> reduce_mul_chain (g m "r"));
        (* ** combine terms (opinionated) ** *)
        P.rule (i (-1) * (v "x" + v "y")) (fun m -> Some (add (neg (g m "x")) (neg (g m "y"))));
        (* (x+y)*c -> x*c+y*c. only for int, float has inf*0=nan issue *)
        P.rule ((v ~dtype:[ Dtype.Weakint ] "x" + v "y") * cv "c")
          (fun m -> let c = g m "c" in Some (add (mul (g m "x") c) (mul (g m "y") c))) ] in
  P.( @@@ ) (P.( @@@ ) (P.( @@@ ) symbolic pm_simplify_valid) extra) pm_clean_up_group_sink

(* not in tinygrad: the results of UOp.simplify known in a scope (a kernel's lowering). [symbolic] is a pure
   top-down rewrite, so a node's simplified form found by one call serves every later call that meets the node:
   the gated index of each lane of a kernel simplifies the same range ends and shared terms again *)
let simplify_cache : Uop.t Id_tbl.t option ref = ref None

let with_simplify_cache f =
  match !simplify_cache with
  | Some _ -> f ()
  | None ->
    simplify_cache := Some (Id_tbl.create 4096);
    Fun.protect ~finally:(fun () -> simplify_cache := None) f

(* tinygrad's UOp.simplify rewrites with [symbolic] *)
let () = Uop.simplify_hook := (fun u -> P.graph_rewrite ?known:!simplify_cache symbolic () u)
