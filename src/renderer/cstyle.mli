(** C-style source renderers. tinygrad: [renderer/cstyle.py] ([CStyleLanguage], [base_rewrite],
    [ClangRenderer], [MetalRenderer], [CUDARenderer]).

    A language is a {!type-lang} record (tinygrad's class attributes); a subclass is
    [{ cstyle_language with ... }].
    Rendering names every value of the linearized program, renders each with the language's string rules and
    inlines the single-use ones. *)

(** {1 Languages} *)

(** tinygrad [CStyleLanguage]: one field per class attribute or overridable method. *)
type lang = {
  abi : string;  (** calling-convention prefix for external calls *)
  kernel_typedef : string;  (** return type and qualifiers of the kernel; may contain ["{launch_bounds}"] *)
  buffer_prefix : string;  (** prefix of a global pointer type *)
  buffer_suffix : string;  (** suffix of a global pointer parameter, e.g. [" restrict"] *)
  smem_align : string;  (** alignment attribute of local buffers *)
  smem_prefix : string;  (** address-space qualifier of local memory *)
  smem_prefix_for_cast : bool;  (** whether casts to local pointers carry [smem_prefix] *)
  var_prefix : string;  (** prefix of scalar (Variable) parameters *)
  var_suffix : string;  (** suffix of scalar (Variable) parameters *)
  barrier : string;  (** the statement of a BARRIER *)
  code_for_workitem : (char * (string -> string)) list;  (** SPECIAL letter to index expression *)
  extra_args : string list;  (** extra kernel parameters *)
  float4 : string option;  (** vector constructor, ["float4"] replaced by the type *)
  float4_style : string * string;  (** brackets around vector constructor arguments *)
  gep_arr_threshold : int;  (** vectors larger than this are indexed with [[i]] instead of [.x] *)
  type_map : (Dtype.t * string) list;  (** C names of dtypes that differ from [Dtype.name] *)
  infinity : string;  (** the C expression of +inf *)
  nan : string;  (** the C expression of nan *)
  code_for_op : (Ops.t * (string list -> Dtype.t -> string)) list;  (** ALU op to C expression *)
  string_rewrite : rule list;  (** the rules rendering one UOp to a string *)
  render_kernel :
    lang -> ?prefix:string list -> string -> string list -> (string * (Uop.t * bool)) list -> Uop.t list ->
    string;  (** [render_kernel lang ?prefix name lines bufs uops]: the whole kernel source *)
  render_vector_prefix : lang -> Dtype.t -> int -> string;  (** the typedef of a vector type *)
}

(** The state of one render (tinygrad [self.r]: the name or inlined expression of each UOp). *)
and ctx = { lang : lang; r : string Uop.Tbl.t }

(** A string rule: tinygrad's [(UPat, lambda ctx, ...: str|None)]. *)
and rule = Upat.t * (ctx -> Upat.captures -> string option)

(** [ctx.%[u]]: the rendered name of [u]. tinygrad [self[u]]. *)
val ( .%[] ) : ctx -> Uop.t -> string

(** The C name of a dtype in the language. *)
val type_name : lang -> Dtype.t -> string

(** The C type of [sz] lanes of a dtype in an address space. tinygrad [CStyleLanguage._render_dtype]. *)
val render_dtype_full :
  ?sz:int -> ?addrspace:Dtype.addrspace option -> ?mutable_:bool -> ?override_ptr:bool ->
  ?shape:Uop.sint list -> lang -> Dtype.t -> string

(** The C type of a UOp. tinygrad [CStyleLanguage.render_type]. *)
val render_type : lang -> Uop.t -> string

(** The C type of a register scalar. tinygrad [CStyleLanguage.render_dtype]. *)
val render_dtype : lang -> Dtype.t -> string

(** The lvalue of a pointer UOp. tinygrad [CStyleLanguage.render_access]. *)
val render_access : ctx -> Uop.t -> string

(** [render_cast lang u v]: [v] cast to [u]'s type. tinygrad [CStyleLanguage.render_cast]. *)
val render_cast : lang -> Uop.t -> string -> string

(** [render_index ctx buf idx]: pointer arithmetic, or lane access for a register vector.
    tinygrad [CStyleLanguage.render_index]. *)
val render_index : ctx -> Uop.t -> Uop.t -> string

(** The declaration of a local / register buffer. tinygrad [CStyleLanguage.render_buffer]. *)
val render_buffer : ctx -> Uop.t -> string

(** The C name of a WMMA's helper function, ["WMMA_N_M_K_<in>_<out>"] with spaces as ["_"].
    tinygrad [_wmma_name]. *)
val wmma_name : Uop.t -> string

(** The string rules shared by every C-style language. tinygrad [base_rewrite]. *)
val base_rewrite : rule list

(** The first rule result for the UOp, [None] when no rule applies.
    tinygrad [PatternMatcher.rewrite] on strings. *)
val string_rewrite : ctx -> rule list -> Uop.t -> string option

(** The distinct (dtype, lanes) of the register values. tinygrad [uops_to_dtypes]. *)
val uops_to_dtypes : Uop.t list -> (Dtype.t * int) list

(** The kernel signature and body. tinygrad [CStyleLanguage.render_kernel]. *)
val base_render_kernel :
  lang -> ?prefix:string list -> string -> string list -> (string * (Uop.t * bool)) list -> Uop.t list ->
  string

(** The function name, the body lines and the buffers [(name, (param, written))].
    tinygrad [CStyleLanguage._render]. *)
val render_lines : lang -> Uop.t list -> string * string list * (string * (Uop.t * bool)) list

(** The source of a linearized program. tinygrad [CStyleLanguage.render]. *)
val render : lang -> Uop.t list -> string

(** The C expressions of the ALU ops. tinygrad [CStyleLanguage.code_for_op]. *)
val base_code_for_op : (Ops.t * (string list -> Dtype.t -> string)) list

(** The base language. tinygrad [CStyleLanguage]. *)
val cstyle_language : lang

(** {1 Matchers shared by renderers} *)

(** Rules computing ALU ops on the dtypes in float32 (and casts through float32 with [casting]).
    tinygrad [create_non_native_float_pats]. *)
val create_non_native_float_pats : ?casting:bool -> Dtype.t list -> unit Upat.matcher

(** A float32 to bfloat16 cast with round-to-nearest-even, in integer ops. tinygrad [cast_float_to_bf16]. *)
val cast_float_to_bf16 : Uop.t -> Uop.t

(** bfloat16 to / from float32 casts written out in integer ops. tinygrad [pm_manual_bf16_cast]. *)
val pm_manual_bf16_cast : unit Upat.matcher

(** {1 Clang} *)

(** The [ext_vector_type] typedef of a vector type. tinygrad [ClangRenderer.render_vector_prefix]. *)
val clang_render_vector_prefix : lang -> Dtype.t -> int -> string

(** Vector typedefs followed by the kernel. tinygrad [ClangRenderer.render_kernel]. *)
val clang_render_kernel :
  lang -> ?prefix:string list -> string -> string list -> (string * (Uop.t * bool)) list -> Uop.t list ->
  string

(** The C language of the CPU backend. tinygrad [ClangRenderer] attributes. *)
val clang_language : lang

(** Casts through float32 and software bfloat16. tinygrad [ClangRenderer.extra_matcher]. *)
val clang_extra_matcher : unit Upat.matcher

(** The CPU renderer. tinygrad [ClangRenderer()]; [global_max] is ([Helpers.num_cpu_threads], 0, 0), read at the call.
    Not in tinygrad, under [CPU_OPT=fast]: vector types are element-aligned, and the reduce loops of a kernel left
    rolled by its opts carry [#pragma clang loop vectorize(enable)]. [vector_width] (default 4): the host's float32
    lanes, which the CPU device passes. *)
val clang_renderer : ?vector_width:int -> unit -> Renderer.t

(** {1 Tensor core helpers} *)

(** One WMMA helper function to emit: tinygrad's [wmma_args] tuple. *)
type wmma_fn = {
  fname : string;  (** [_wmma_name] of the WMMA *)
  fdims : int * int * int;  (** (N, M, K) *)
  fdtype_in : Dtype.t;  (** dtype of A and B *)
  fdtype_out : Dtype.t;  (** dtype of C and D (the WMMA's dtype) *)
  fdevice : string;  (** the device of the WMMA arg *)
  fthreads : int;  (** threads of the warp *)
  fupcast_sizes : int * int * int;  (** the last dim of the shapes of A, B and C *)
}

(** The distinct WMMA helpers of a linearized program, in order. tinygrad [wmma_args]. *)
val wmma_args : Uop.t list -> wmma_fn list

(** {1 Metal} *)

(** The metal_stdlib prefix and one simdgroup 8x8x8 helper per WMMA, then the kernel.
    tinygrad [MetalRenderer.render_kernel]. *)
val metal_render_kernel :
  lang -> ?prefix:string list -> string -> string list -> (string * (Uop.t * bool)) list -> Uop.t list ->
  string

(** [as_type<>] bitcasts, then {!base_rewrite}. tinygrad [MetalRenderer.string_rewrite]. *)
val metal_string_rewrite : rule list

(** The Metal Shading Language. tinygrad [MetalRenderer] attributes. *)
val metal_language : lang

(** SQRT/EXP2/LOG2/SIN of bfloat16 computed in float32, and software bfloat16 casts.
    tinygrad [MetalRenderer.extra_matcher]. *)
val metal_extra_matcher : unit Upat.matcher

(** The Metal renderer. tinygrad [MetalRenderer(Target)] for [arch] (default ["Apple9"], the corpus target):
    tensor cores {!Tc.metal} on Apple7+, bfloat16 on Apple6+, no fp8 or double. *)
val metal_renderer : ?arch:string -> unit -> Renderer.t

(** {1 CUDA} *)

(** A [struct __align__(n) half4 {...}] and its [make_half4] constructor.
    tinygrad [CUDARenderer.render_vector_prefix]. *)
val cuda_render_vector_prefix : lang -> Dtype.t -> int -> string

(** The CUDA prefix lines (uint, INFINITY/NAN, tg_bitcast, fp8/fp16/bf16 headers, vector structs, one
    [mma.sync] helper per WMMA), then the kernel. tinygrad [CUDARenderer.render_kernel]. *)
val cuda_render_kernel :
  lang -> ?prefix:string list -> string -> string list -> (string * (Uop.t * bool)) list -> Uop.t list ->
  string

(** [tg_bitcast<>] bitcasts, then {!base_rewrite}. tinygrad [CUDARenderer.string_rewrite]. *)
val cuda_string_rewrite : rule list

(** CUDA C++. tinygrad [CUDARenderer] attributes. *)
val cuda_language : lang

(** fp8 ALU ops in float32 and fp8 to fp8 casts through float32. tinygrad [CUDARenderer.extra_matcher]. *)
val cuda_extra_matcher : unit Upat.matcher

(** The CUDA renderer for [arch] (["sm_89"], ...). tinygrad [CUDARenderer(Target)]: tensor cores
    [Tc.get_cuda arch], the CUDA launch limits and the dtypes the arch supports. *)
val cuda_renderer : arch:string -> Renderer.t
