(* tinygrad: uop/divandmod.py — folding of FLOORDIV/FLOORMOD on index (weakint) expressions *)

open Uop
module P = Upat

let compare_const = Dtype.compare_const

(* the int value of a CONST *)
let zval (u : Uop.t) = zi (const_val u)

(* a Python int used as a UOp operand (UOp.ufix): a weakint CONST *)
let cz (z : Z.t) = const (Dtype.I z)

(* Python's sum() over UOps: 0 + u0 + u1 ... *)
let py_sum (l : Uop.t list) = List.fold_left add (const_int 0) l

(* Python's % and // on ints (floor semantics) *)
let pmod a b = zfloormod a b
let pdiv a b = zfloordiv a b

let backward_slice_len (u : Uop.t) = List.length (toposort u) - 1

(* CPython's iteration order of a small set of non-negative ints built by inserting [l] in order: slot order
   in the hash table (hash n = n), with CPython's probing and its resize from 8 to 32 slots at the 5th entry *)
let py_int_set_order (l : Z.t list) : Z.t list =
  let insert table mask v =
    let h = Z.to_int (Z.rem v (Z.of_int max_int)) in
    let rec probe i perturb =
      match table.(i) with
      | None -> table.(i) <- Some v
      | Some w when Z.equal w v -> ()
      | Some _ ->
        let rec linear j =
          if j > 9 || i + j > mask then false
          else match table.(i + j) with
            | None -> table.(i + j) <- Some v; true
            | Some w when Z.equal w v -> true
            | Some _ -> linear (j + 1) in
        if i + 9 <= mask && linear 1 then ()
        else
          let perturb = perturb lsr 5 in
          probe (((i * 5) + 1 + perturb) land mask) perturb in
    probe (h land mask) h in
  let dedup = List.fold_left (fun acc v -> if List.exists (Z.equal v) acc then acc else acc @ [ v ]) [] l in
  let size = if List.length dedup >= 5 then 32 else 8 in
  let table = Array.make size None in
  List.iter (insert table (size - 1)) dedup;
  Array.to_list table |> List.filter_map (fun x -> x)

(* tinygrad caches fold_divmod_general on the node (functools.cache); an ephemeron table lets nodes die *)
module Cache = Ephemeron.K1.Make (struct
    type t = Uop.t
    let equal = ( == )
    let hash (u : Uop.t) = u.id
  end)

let cache : Uop.t option Cache.t = Cache.create 1024

(* all index tuples of itertools.product over [choices], first position slowest; stops at the first [Some] *)
let rec product_find (choices : Z.t list list) (f : Z.t list -> 'a option) : 'a option =
  match choices with
  | [] -> f []
  | c :: rest ->
    let rec each = function
      | [] -> None
      | r :: more -> (match product_find rest (fun tl -> f (r :: tl)) with Some _ as x -> x | None -> each more) in
    each c

(* tinygrad: divandmod.py fold_divmod_general *)
let rec fold_divmod_general (d : Uop.t) : Uop.t option =
  match Cache.find_opt cache d with
  | Some r -> r
  | None -> let r = fold_divmod_general_uncached d in Cache.replace cache d r; r

and fold_divmod_general_uncached (d : Uop.t) : Uop.t option =
  let x = d.src.(0) and y = d.src.(1) in
  let is_mod = d.op == Ops.Floormod in
  let zero = Dtype.I Z.zero in
  if compare_const (vmin y) (vmax y) = 0 && compare_const (vmax y) zero = 0 then raise Division_by_zero;
  (* x//y is constant *)
  let xdiv = idiv x y in
  if compare_const (vmin xdiv) (vmax xdiv) = 0 then
    Some (if is_mod then sub x (mul (const (vmin xdiv)) y) else const_like xdiv (vmin xdiv))
  else
    (* PARAM // c is irreducible *)
    let param_irreducible =
      x.op == Ops.Param && y.op == Ops.Const
      && (match x.arg with
          | Param { multiple_of = Some m; _ } -> Z.equal (Z.rem (Z.of_int m) (zval y)) Z.zero
          | _ -> false) in
    if param_irreducible then (if is_mod then Some (const_like d zero) else None)
    else
      let x_peeled, const_c = pop_const x in
      let const_z = zi const_c in
      let uops_no_const = split_uop x_peeled Ops.Add in
      let const_denominator =
        if y.op == Ops.Const && Z.gt (zval y) Z.zero then const_denominator_rules x y is_mod x_peeled const_z uops_no_const
        else None in
      match const_denominator with
      | Some _ as r -> r
      | None -> variable_denominator_rules d x y is_mod

(* ** Constant Denominator Rules **: y is a CONST > 0 *)
and const_denominator_rules x y is_mod x_peeled const_z uops_no_const =
  let c = zval y in
  (* nested_div: (x%(k*c))//c -> (x//c)%k (requires k>0) *)
  let nested =
    if (not is_mod) && x.op == Ops.Floormod then
      match divides x.src.(1) c with
      | Some k when to_bool (gt k (const_int 0)) -> Some (mod_ (idiv x.src.(0) y) k)
      | _ -> None
    else None in
  if Option.is_some nested then nested
  else
    (* remove_nested_mod in sum: (a%4 + b)%2 -> (a+b)%2 *)
    let nested_mod =
      if is_mod then
        let changed = ref false in
        let new_xs = List.map (fun (u : Uop.t) ->
            if u.op == Ops.Floormod && Option.is_some (divides u.src.(1) c) then (changed := true; u.src.(0)) else u) uops_no_const in
        if !changed then
          Some (mod_ (add (usum ~start:(List.hd new_xs) (List.tl new_xs)) (cz const_z)) y)
        else None
      else None in
    if Option.is_some nested_mod then nested_mod
    else
      (* shared decomposition for folding rules *)
      let decomp = List.map (fun u -> let f = const_factor u in (Option.get (divides u f), f)) uops_no_const in
      let terms = List.map fst decomp and factors = List.map snd decomp in
      (* fold_divmod_congruence *)
      let nterms = List.length terms in
      let rem_choices =
        List.map (fun f ->
            let r = pmod f c in
            let rc = Z.sub r c in
            if Z.equal (Z.mul r (Z.of_int 2)) c || nterms = 1 then [ r; rc ]
            else [ (if Z.leq (Z.abs r) (Z.abs rc) then r else rc) ]) factors in
      let congruence =
        product_find rem_choices (fun rems ->
            let rem = add (py_sum (List.map2 (fun r v -> mul (cz r) v) rems terms)) (cz (pmod const_z c)) in
            let rmin = zi (vmin rem) and rmax = zi (vmax rem) in
            if Z.equal (pdiv rmin c) (pdiv rmax c) then
              if is_mod then Some (sub rem (cz (Z.mul (pdiv rmin c) c)))
              else
                let q = List.map2 (fun (f, r) v -> mul (cz (pdiv (Z.sub f r) c)) v) (List.combine factors rems) terms in
                Some (add (add (py_sum q) (cz (pdiv const_z c))) (cz (pdiv rmin c)))
            else None) in
      if Option.is_some congruence then congruence
      else
        (* gcd_with_remainder: factor out common gcd from numerator *)
        let g = List.fold_left Z.gcd c factors in
        let gcd_rem =
          if Z.gt g Z.one then
            let new_x = add (simplify (Option.get (divides x_peeled g))) (cz (pmod (pdiv const_z g) (pdiv c g))) in
            if compare_const (vmin new_x) (Dtype.I Z.zero) >= 0 then
              if is_mod then Some (add (mul (mod_ new_x (cz (pdiv c g))) (cz g)) (cz (pmod const_z g)))
              else Some (add (idiv new_x (cz (pdiv c g))) (cz (pdiv const_z c)))
            else None
          else None in
        if Option.is_some gcd_rem then gcd_rem
        else
          (* nest_by_factor: x//c -> (x//f)//(c//f), x%c -> (x//f%(c//f))*f + b where b=x%f *)
          let divs =
            py_int_set_order
              (List.filter_map (fun ((u : Uop.t), f) ->
                   if u.op != Ops.Const && Z.lt Z.one (Z.abs f) && Z.lt (Z.abs f) c && Z.equal (pmod c f) Z.zero
                   then Some (Z.abs f) else None) (List.combine uops_no_const factors)) in
          let results = List.concat_map (fun div ->
              match fold_divmod_general (idiv x (cz div)) with
              | None -> []
              | Some newxs ->
                if not is_mod then [ (backward_slice_len newxs, idiv newxs (cz (pdiv c div))) ]
                else if compare_const (vmin x) (Dtype.I Z.zero) >= 0 && compare_const (vmin newxs) (Dtype.I Z.zero) >= 0 then
                  let b_parts = List.filter_map (fun (f, t) ->
                      let fm = pmod f div in if Z.equal fm Z.zero then None else Some (mul (cz fm) t))
                      (List.combine factors terms) in
                  let b_parts =
                    if Z.equal (pmod const_z div) Z.zero then b_parts
                    else b_parts @ [ const_like x (Dtype.I (pmod const_z div)) ] in
                  let b = match b_parts with
                    | [] -> const_like x (Dtype.I Z.zero)
                    | h :: t -> usum ~start:h t in
                  if Z.leq Z.zero (zi (vmin b)) && Z.lt (zi (vmax b)) div then
                    let r = add (mul (mod_ newxs (cz (pdiv c div))) (cz div)) b in
                    [ (backward_slice_len r, r) ]
                  else []
                else []) divs in
          match results with
          | [] -> None
          | first :: rest ->
            Some (snd (List.fold_left (fun (bn, br) (n, r) -> if n < bn then (n, r) else (bn, br)) first rest))

(* ** Variable Denominator / Fallback Rules ** *)
and variable_denominator_rules d x y is_mod =
  let all_uops = split_uop x Ops.Add in
  (* divide_by_gcd: x//y -> (x//gcd)//(y//gcd) *)
  let g = simplify (gcd (all_uops @ [ y ])) in
  if not (g.op == Ops.Const && compare_const (const_val g) (Dtype.I Z.one) = 0) then
    let ret = alu d.op [ Option.get (divide_exact x g); Option.get (divide_exact y g) ] in
    Some (if is_mod then mul ret g else ret)
  else
    (* factor_remainder: (d*x+y)//d -> x+y//d *)
    let zero = Dtype.I Z.zero in
    if compare_const (vmin y) zero < 0 || compare_const (vmin x) zero < 0 then None
    else
      let quo = ref [] and rem = ref [] in
      List.iter (fun (u : Uop.t) ->
          match divide_exact u y with
          | Some q -> quo := q :: !quo
          | None ->
            let c = const_factor u in
            if y.op == Ops.Const && not (Z.equal (pmod c (zval y)) c) then begin
              let yv = zval y in
              let dv = Option.get (divides u c) in
              rem := mul dv (cz (pmod c yv)) :: !rem;
              quo := (if is_mod then const_like u zero else mul dv (cz (pdiv c yv))) :: !quo
            end else rem := u :: !rem) all_uops;
      let quo = List.rev !quo and rem = List.rev !rem in
      if (match quo with [] -> true | _ -> false) then None
      else
        let new_x = add (py_sum rem) (const_like x zero) in
        if compare_const (vmin new_x) zero < 0 then None
        else if is_mod then Some (mod_ new_x y)
        else Some (add (idiv new_x y) (py_sum quo))

let div_and_mod_symbolic : unit P.matcher =
  let open P.O in
  let v = P.var and cv = P.cvar in
  P.matcher
    [ (* ** 1. Fast Inline Rules ** *)
      (* (x//c+a)//d -> (x+a*c)//(c*d) for d>0 *)
      P.rule ((v "x" // cv "c" + cv "a") // cv "d")
        (fun m ->
           let x = P.get m "x" and c = P.get m "c" and a = P.get m "a" and d = P.get m "d" in
           if Z.gt (zi (vmin d)) Z.zero then Some (idiv (add x (mul a c)) (mul c d)) else None);
      (* (x+c)//d -> (x+c%d)//d + c//d ; (x+c)%d -> (x+c%d)%d *)
      P.rule
        (P.ops [ Ops.Floordiv; Ops.Floormod ] ~name:"n" ~src:(P.In_order [ v ~dtype:[ Dtype.Weakint ] "x" + cv "c"; cv "d" ]))
        (fun m ->
           let n = P.get m "n" and x = P.get m "x" and c = P.get m "c" and d = P.get m "d" in
           let cv = zval c and dv = zval d in
           if Z.equal dv Z.zero || Z.equal (pmod cv dv) cv then None
           else if n.op == Ops.Floordiv then Some (add (idiv (add x (cz (pmod cv dv))) d) (cz (pdiv cv dv)))
           else Some (mod_ (add x (cz (pmod cv dv))) d));
      (* ** 2. Slow Rules ** *)
      P.rule (P.ops [ Ops.Floordiv; Ops.Floormod ] ~dtype:[ Dtype.Weakint ] ~name:"d")
        (fun m -> fold_divmod_general (P.get m "d")) ]
