(** Not in tinygrad: the CPU mode's rewrites of the tensor graph before rangeify (CPU_OPT=fast on the CPU).
    *)

(** Whether the CPU mode's rewrites apply to CPU buffers ({!Renderer.cpu_fast_device}): CPU_OPT=fast, not
    NOOPT. *)
val enabled : unit -> bool

(** [row_buffer x ~realized ~consumers]: under the CPU mode, whether run_rangeify realizes only the
    [realized] axes of [x] (tinygrad's PCONTIG=2), where its consumers read it along its other axes alike:
    [x] is a float tensor of at least 256K elements on the CPU, [realized] its trailing axes, a row of 32 to
    4096 elements, and a consumer reduces that row; the row is held in a stack buffer of the consumers'
    kernel. *)
val row_buffer : Uop.t -> realized:int list -> consumers:(Uop.t -> Uop.t list) -> bool

(** [row_reduce x ~consumers]: under the CPU mode, whether [x], a REDUCE over the trailing axes of a float
    tensor on the CPU (at least 256K elements, rows of 32 to 4096), or an elementwise op of one, keeps its
    output loops open in run_rangeify (tinygrad's PCONTIG=2), where a consumer broadcasts it back over the
    rows. *)
val row_reduce : Uop.t -> consumers:(Uop.t -> Uop.t list) -> bool

(** [rules ~mops]: rules for the earliest rewrites, given Rangeify's [pm_mops]: a matmul whose B operand (the
    one its outputs run along, at least 4 MiB) has rows a multiple of 4 KiB long, and at least 64 outputs that
    do not index it (rows of A), reads it through a copy with a cache line of padding per row, so that its
    column panels do not fall in a few cache sets; a convolution whose weight (cout, cin, kh, kw) is read
    with its output channels (a multiple of 16) as a strided axis, over a reduce of 256 to 4096 points and
    at least 64 outputs that do not index it, reads it through a channels-last copy (cin x kh x kw, cout), so
    that its tile loads vectors of output channels; a convolution's weight gradient whose reduce the
    scheduler split into groups of the batch, on rows that fill no vector (20 points), reads its output
    gradient (a computed tensor or a buffer, its channels a multiple of 16) through a channels-last copy
    (batch, rows, columns, channels), so that its tile loads vectors of output channels too. *)
val rules : mops:unit Upat.matcher -> unit Upat.matcher

(** [stored_assign_targets roots]: under the CPU mode, for each root that assigns a target still an expression
    on the CPU (no buffer yet: a parameter's init, an optimizer's zeros), the pair of that expression and its
    CONTIGUOUS. Substituted in the roots' graph before their realize, the expression is stored once into the
    buffer the assign then overwrites, and the realize's kernels read it there, as every later realize reads
    the assigned buffer: the first step's kernels are the later steps' kernels. tinygrad computes the
    expression inline in each kernel that reads it. *)
val stored_assign_targets : Uop.t list -> (Uop.t * Uop.t) list
