(* tinygrad: codegen/decomp/op.py (integer division by magic numbers, threefry, op decompositions) *)

open Uop

let zi = Uop.zi
let zconst z = const (Dtype.I z)

(* *** integer division *** *)

(* tinygrad: magicgu: m, s such that x//d == (x*m) >> s for all 0 <= x <= vmax, d > 0 (Hacker's Delight 10) *)
let magicgu_cache : (Z.t * Z.t, Z.t * int) Hashtbl.t = Hashtbl.create 16

let magicgu (vmax : Z.t) (d : Z.t) : Z.t * int =
  match Hashtbl.find_opt magicgu_cache (vmax, d) with
  | Some r -> r
  | None ->
    let nc = Z.sub (Z.mul (Z.fdiv (Z.succ vmax) d) d) Z.one in
    let nbits = Z.numbits vmax in
    let rec go s =
      if s > 2 * nbits then failwith "magicgu: no magic number"
      else
        let p = Z.shift_left Z.one s in
        let r = Z.erem (Z.pred p) d in
        if Z.gt p (Z.mul nc (Z.sub (Z.pred d) r)) then (Z.fdiv (Z.sub (Z.add p (Z.pred d)) r) d, s) else go (s + 1) in
    let res = go 0 in
    Hashtbl.replace magicgu_cache (vmax, d) res;
    res

let dmin dt = zi (Dtype.min dt)
let dmax dt = zi (Dtype.max dt)

(* tinygrad: fast_idiv: x // d (d > 0, trunc semantics) as a multiply and shift, or None *)
let rec fast_idiv ?(dont_cast = false) (ren : Renderer.t) (x : Uop.t) (d : Z.t) : Uop.t option =
  (* NOTE: disable for METAL due to compiler bug. keccak with -O0 works but not with optimization *)
  if ren.device = "METAL" then None
  else begin
    (* if d is a power of two this is not valid for signed ints! *)
    let is_unsigned = Z.geq (zi (vmin x)) Z.zero || List.memq x.dtype Dtype.uints in
    if Z.leq d Z.zero then invalid_arg "fast_idiv: sign should have been taken out of divisor";
    let vmin = Z.max (zi (vmin x)) (dmin x.dtype) and vmax = Z.min (zi (vmax x)) (dmax x.dtype) in
    if Z.gt vmin (Z.neg d) && Z.lt vmax d then Some (const_like_int x 0)
    else begin
      let m, s = magicgu (Z.max vmax (Z.abs vmin)) d in
      let signed_fix r = if is_unsigned then r else add r (where (lt x (const_int 0)) (const_int 1) (const_int 0)) in
      if Z.geq (Z.mul m vmin) (dmin x.dtype) && Z.leq (Z.mul m vmax) (dmax x.dtype) then
        Some (signed_fix (shr (mul x (zconst m)) (const_int s)))
      else begin
        (* before we try casting to a larger dtype (slow), we see if there are powers of two in d we can shift
           to make x smaller; use explicit CDIV (trunc) since the recursion assumes trunc semantics throughout *)
        let lf = Z.logand d (Z.neg d) in
        let ret =
          if Z.gt lf Z.one then fast_idiv ~dont_cast:true ren (alu Ops.Cdiv [ x; const_like x (Dtype.I lf) ]) (Z.div d lf)
          else None in
        match ret with
        | Some _ -> ret
        | None when dont_cast -> None
        | None ->
          (* the next integer width that holds x*m *)
          let widen = function
            | Dtype.Int8 -> Some Dtype.Int16 | Dtype.Int16 -> Some Dtype.Int32 | Dtype.Int32 -> Some Dtype.Int64
            | Dtype.Int64 -> Some Dtype.Uint64 | Dtype.Uint8 -> Some Dtype.Uint16 | Dtype.Uint16 -> Some Dtype.Uint32
            | Dtype.Uint32 -> Some Dtype.Uint64 | _ -> None in
          match widen x.dtype with
          | Some nd when List.memq nd ren.supported_dtypes
                         && Z.geq (Z.mul m vmin) (dmin nd) && Z.leq (Z.mul m vmax) (dmax nd) ->
            Some (signed_fix (cast x.dtype (shr (mul (cast nd x) (zconst m)) (const_int s))))
          | _ -> None
      end
    end
  end

(* ***** threefry ***** *)

(* tinygrad: threefry2x32 *)
let threefry2x32 (x : Uop.t) (key : Uop.t) =
  (* split x and key from uint64 to two uint32 *)
  let u32 = cast Dtype.Uint32 in
  let x0 = u32 x and x1 = u32 (shr x (const_int 32)) in
  let key0 = u32 key and key1 = u32 (shr key (const_int 32)) in
  let rotations = [| [ 13; 15; 26; 6 ]; [ 17; 29; 16; 24 ] |] in
  let ks = [| key1; xor (xor key0 key1) (const_int 0x1BD11BDA); key0 |] in
  let xr = ref (add x0 ks.(2), add x1 ks.(0)) in
  for i = 0 to 4 do
    List.iter (fun r ->
        let a, b = !xr in
        let x0 = add a b in
        xr := (x0, xor x0 (add (shl b (const_int r)) (shr b (const_int (32 - r)))))) rotations.(i mod 2);
    let a, b = !xr in
    (* [xr[1] + ks[(i+1)%3] + i + 1]: two separate adds (left-associative in the Python); the late decompositions run
       with symbolic_simple only, so [(x+i)+1] is not folded and renders as [+1u+1u] *)
    xr := (add a ks.(i mod 3), add (add (add b ks.((i + 1) mod 3)) (const_int i)) (const_int 1))
  done;
  let a, b = !xr in
  or_ (shl (cast Dtype.Uint64 b) (const_int 32)) (cast Dtype.Uint64 a)

(* ***** decomposition patterns ***** *)

(* tinygrad: floordiv_to_idiv *)
let floordiv_to_idiv (a : Uop.t) (b : Uop.t) =
  let nonneg u = Z.geq (zi (vmin u)) Z.zero and pos u = Z.gt (zi (vmin u)) Z.zero in
  let nonpos u = Z.leq (zi (vmax u)) Z.zero and neg_ u = Z.lt (zi (vmax u)) Z.zero in
  if (nonneg a && pos b) || (nonpos a && neg_ b) then alu Ops.Cdiv [ a; b ]
  else sub (alu Ops.Cdiv [ a; b ]) (and_ (ne (alu Ops.Cmod [ a; b ]) (const_int 0)) (ne (lt a (const_int 0)) (lt b (const_int 0))))

(* tinygrad: floormod_to_mod *)
let floormod_to_mod (a : Uop.t) (b : Uop.t) =
  let nonneg u = Z.geq (zi (vmin u)) Z.zero and pos u = Z.gt (zi (vmin u)) Z.zero in
  let nonpos u = Z.leq (zi (vmax u)) Z.zero and neg_ u = Z.lt (zi (vmax u)) Z.zero in
  if (nonneg a && pos b) || (nonpos a && neg_ b) then alu Ops.Cmod [ a; b ]
  else
    let r = alu Ops.Cmod [ a; b ] in
    (* use where instead of mul to avoid being fused into MULACC (which int64 long-decomp doesn't handle) *)
    add r (where (and_ (ne r (const_int 0)) (ne (lt a (const_int 0)) (lt b (const_int 0)))) b (const_like_int b 0))

(* tinygrad: powers_of_two.get(c.val, 0): the exponent of a power of two in [2, 2**63], 0 otherwise *)
let power_of_two (c : Uop.t) =
  match Uop.const_val c with
  | Dtype.I z when Z.gt z Z.zero && Z.equal (Z.logand z (Z.pred z)) Z.zero && Z.numbits z <= 64 -> Z.numbits z - 1
  | _ -> 0
let is_power_of_two (c : Uop.t) =
  match Uop.const_val c with
  | Dtype.I z -> Z.gt z Z.zero && Z.equal (Z.logand z (Z.pred z)) Z.zero && Z.numbits z <= 64
  | _ -> false

module P = Upat
let g = P.get

let simplifying_cache : (Ops.t list, unit P.matcher) Hashtbl.t = Hashtbl.create 4

(* tinygrad: get_simplifying_rewrite_patterns (functools.cache'd) *)
let get_simplifying_rewrite_patterns (ops : Ops.t list) : unit P.matcher =
  match Hashtbl.find_opt simplifying_cache ops with
  | Some m -> m
  | None ->
    let has op = List.memq op ops in
    let pat = ref [] in
    let push r = pat := !pat @ [ r ] in
    (* FLOORDIV by 2**y -> x >> y (an arithmetic shift is exactly floor division for any sign) *)
    if has Ops.Shr then
      push (P.rule P.O.(P.var ~dtype:Dtype.ints "x" // P.cvar "c") (fun c ->
          let v = power_of_two (g c "c") in if v <> 0 then Some (shr (g c "x") (const_int v)) else None));
    push (P.rule P.O.(P.var "a" // P.var "b") (fun c -> Some (floordiv_to_idiv (g c "a") (g c "b"))));
    (* FLOORMOD by 2**y -> x & (2**y-1) (correct floor mod for any sign in two's complement) *)
    if has Ops.And then
      push (P.rule P.O.(P.var ~dtype:Dtype.ints "x" mod P.cvar "c") (fun c ->
          if is_power_of_two (g c "c") then Some (and_ (g c "x") (zconst (Z.pred (zi (Uop.const_val (g c "c")))))) else None));
    push (P.rule P.O.(P.var "a" mod P.var "b") (fun c -> Some (floormod_to_mod (g c "a") (g c "b"))));
    (* no real hardware supports THREEFRY, but NullRenderer does *)
    if not (has Ops.Threefry) then
      push (P.rule (P.pat Ops.Threefry ~dtype:[ Dtype.Uint64 ] ~src:(P.In_order [ P.var "x"; P.var "key" ])) (fun c ->
          Some (threefry2x32 (g c "x") (g c "key"))));
    (* MAX can be rewritten as CMPLT + WHERE (max function is annoying on many cstyle backends) *)
    if (not (has Ops.Max)) && has Ops.Cmplt then
      push (P.rule (P.pat Ops.Max ~name:"m") (fun c ->
          let m = g c "m" in Some (where (lt m.src.(0) m.src.(1)) m.src.(1) m.src.(0))));
    let m = P.matcher !pat in
    Hashtbl.replace simplifying_cache ops m;
    m

let late_cache : (Ops.t list * bool * bool, Renderer.t P.matcher) Hashtbl.t = Hashtbl.create 4

(* tinygrad: get_late_rewrite_patterns (functools.cache'd); the context is the renderer. Not in tinygrad:
   [fuse_reciprocal a b], whether a*(1/b) becomes a/b (always in tinygrad; a CPU mode's Codegen_cpu passes can
   keep a product); the cache keeps one such function *)
let get_late_rewrite_patterns ?fuse_reciprocal (ops : Ops.t list) (disable_fast_idiv : bool)
    : Renderer.t P.matcher =
  let key = (ops, disable_fast_idiv, Option.is_some fuse_reciprocal) in
  let fuse = Option.value fuse_reciprocal ~default:(fun _ _ -> true) in
  match Hashtbl.find_opt late_cache key with
  | Some m -> m
  | None ->
    let has op = List.memq op ops in
    let pat = ref [] in
    let push r = pat := !pat @ [ r ] in
    if has Ops.Or then
      push (P.rule P.O.(P.logical_not (P.var ~dtype:[ Dtype.Bool ] "x") land P.logical_not (P.var ~dtype:[ Dtype.Bool ] "y"))
              (fun c -> Some (logical_not (or_ (g c "x") (g c "y")))));
    (* rewrite MUL/CDIV to SHL+SHR: x*(2**y) -> shl(x,y) and x//(2**y) -> shr(x,y) *)
    if has Ops.Shl then
      push (P.rule P.O.(P.var ~dtype:Dtype.ints "x" * P.cvar "c") (fun c ->
          let v = power_of_two (g c "c") in if v <> 0 then Some (shl (g c "x") (const_int v)) else None));
    if has Ops.Shr then begin
      (* uint CDIV by 2**v -> x >> v (FLOORDIV is lowered to CDIV by the rule above before reaching here) *)
      push (P.rule (P.pat Ops.Cdiv ~src:(P.In_order [ P.var ~dtype:Dtype.uints "x"; P.cvar "c" ])) (fun c ->
          let v = power_of_two (g c "c") in if v <> 0 then Some (shr (g c "x") (const_int v)) else None));
      (* signed CDIV (trunc) by 2**v -> (x + (x<0 ? c-1 : 0)) >> v *)
      push (P.rule (P.pat Ops.Cdiv ~src:(P.In_order [ P.var ~dtype:Dtype.ints "x"; P.cvar "c" ])) (fun c ->
          let v = power_of_two (g c "c") in
          if v <> 0 then begin
            let x = g c "x" in
            let l = lt x (const_int 0) in
            let l = if Dtype.equal_const (vmin l) (vmax l) then const_like l (vmin l) else l in
            Some (shr (add x (where l (sub (g c "c") (const_int 1)) (const_int 0))) (const_int v))
          end else None));
      if not disable_fast_idiv then begin
        (* fast_idiv handles non-pow2: only fire on non-negative inputs (signed magic-mul is unreliable for x<0) *)
        push (P.rule_ctx (P.pat Ops.Cdiv ~src:(P.In_order [ P.var ~dtype:Dtype.ints "x"; P.cvar "d" ])) (fun ctx c ->
            let x = g c "x" in
            if Z.geq (zi (vmin x)) Z.zero || List.memq x.dtype Dtype.uints then
              fast_idiv ctx x (zi (Uop.const_val (g c "d")))
            else None));
        (* rewrite raw CMOD -> x - d*CDIV(x,d) so fast_idiv can pick up the CDIV; only on non-negative inputs *)
        push (P.rule (P.pat Ops.Cmod ~src:(P.In_order [ P.var ~dtype:Dtype.ints "x"; P.var "d" ])) (fun c ->
            let x = g c "x" and d = g c "d" in
            if Z.geq (zi (vmin x)) Z.zero || List.memq x.dtype Dtype.uints then Some (sub x (mul d (alu Ops.Cdiv [ x; d ])))
            else None))
      end
    end;
    if has Ops.Neg then begin
      push (P.rule P.O.(P.var "x" * i (-1)) (fun c -> Some (alu Ops.Neg [ g c "x" ])));
      if has Ops.Sub then
        push (P.rule P.O.(P.var "x" + P.f Ops.Neg (P.var "y")) (fun c -> Some (alu Ops.Sub [ g c "x"; g c "y" ])))
    end;
    if has Ops.Cmplt then begin
      (* these are late rewrites because simplex expects equalities to be a certain format *)
      let sx = P.var ~dtype:Dtype.sints "x" and sy = P.var ~dtype:Dtype.sints "y" in
      push (P.rule (P.logical_not P.O.(sx < P.cvar "c")) (fun c -> Some (lt (sub (g c "c") (const_int 1)) (g c "x"))));
      push (P.rule (P.logical_not P.O.(P.cvar "c" < sx)) (fun c -> Some (lt (g c "x") (add (g c "c") (const_int 1)))));
      push (P.rule P.O.((sx * i (-1)) < (sy * P.cvar "c")) (fun c -> Some (lt (mul (g c "y") (neg (g c "c"))) (g c "x"))));
      push (P.rule P.O.((sx * i (-1)) < P.cvar "c") (fun c -> Some (lt (neg (g c "c")) (g c "x"))));
      push (P.rule P.O.((P.cvar "c1" < sx) land (sx < P.cvar "c2")) (fun c ->
          (* (c-1)<x & x<(c+1) -> x==c *)
          let c1 = zi (Uop.const_val (g c "c1")) and c2 = zi (Uop.const_val (g c "c2")) in
          if Z.equal (Z.succ c1) (Z.pred c2) then Some (eq (g c "x") (add (g c "c1") (const_int 1))) else None))
    end;
    if has Ops.Cmpeq then
      push (P.rule (P.logical_not (P.ne (P.var "x") (P.var "y"))) (fun c -> Some (alu Ops.Cmpeq [ g c "x"; g c "y" ])));
    if has Ops.Mulacc then begin
      push (P.rule P.O.((P.var "a" * P.var "b") + P.var "c") (fun c -> Some (alu Ops.Mulacc [ g c "a"; g c "b"; g c "c" ])));
      (* also fuse (x << n) + c -> MULACC(x, 2^n, c) since MUL->SHL may run first *)
      if has Ops.Shl then
        push (P.rule P.O.(P.alu Ops.Shl [ P.var "x"; P.cvar "n" ] + P.var "c") (fun c ->
            let x = g c "x" in
            let n = Z.to_int (zi (Uop.const_val (g c "n"))) in
            Some (alu Ops.Mulacc [ x; const_like x (Dtype.I (Z.shift_left Z.one n)); g c "c" ])))
    end;
    (* some backends emit FDIV for RECIP, in that case: a*(1/b) -> a/b *)
    if has Ops.Fdiv then begin
      push (P.rule (P.reciprocal (P.var "x")) (fun c -> Some (alu Ops.Fdiv [ const_float 1.0; g c "x" ])));
      let one_over_b = P.pat Ops.Fdiv ~dtype:Dtype.floats
          ~src:(P.In_order [ P.const (Dtype.I Z.one); P.var "b" ]) in
      push (P.rule P.O.(P.var "a" * one_over_b)
              (fun c -> if fuse (g c "a") (g c "b") then Some (alu Ops.Fdiv [ g c "a"; g c "b" ]) else None))
    end;
    let m = P.matcher !pat in
    Hashtbl.replace late_cache key m;
    m
