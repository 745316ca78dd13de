(** Op decompositions chosen by what the renderer supports. tinygrad: [codegen/decomp/op.py]. *)

(** [magicgu vmax d]: [(m, s)] with [x // d = (x * m) >> s] for [0 <= x <= vmax], [d > 0]. *)
val magicgu : Z.t -> Z.t -> Z.t * int

(** [fast_idiv ?dont_cast ren x d]: [x] divided by the constant [d > 0] (trunc) as multiply-and-shift, if it fits. *)
val fast_idiv : ?dont_cast:bool -> Renderer.t -> Uop.t -> Z.t -> Uop.t option

(** The threefry2x32 random function on uint64 [x] and [key]. *)
val threefry2x32 : Uop.t -> Uop.t -> Uop.t

(** FLOORDIV as CDIV with a sign fix-up. *)
val floordiv_to_idiv : Uop.t -> Uop.t -> Uop.t

(** FLOORMOD as CMOD with a sign fix-up. *)
val floormod_to_mod : Uop.t -> Uop.t -> Uop.t

(** The simplifying decompositions for a renderer's op set (cached per [ops]). *)
val get_simplifying_rewrite_patterns : Ops.t list -> unit Upat.matcher

(** The late decompositions ([ops], [disable_fast_idiv]); the pass context is the renderer (cached). Not in
    tinygrad: [fuse_reciprocal a b] says whether a*(1/b) becomes a/b (always without it); one such function is
    cached, the CPU mode's ([Codegen_cpu.fuse_reciprocal]). *)
val get_late_rewrite_patterns :
  ?fuse_reciprocal:(Uop.t -> Uop.t -> bool) -> Ops.t list -> bool -> Renderer.t Upat.matcher
