(** tinygrad's runtime/ops_python.py: the UOp emulator, a device ("EMU") that interprets the linearized
    program with a GPU's semantics. [DEV=EMU::sm_75], [EMU::sm_80], [EMU::sm_89] or [EMU::METAL] render with
    that target's whole renderer (launch limits, local memory, tensor cores, ops and rewrites), so the program
    run is the one the CUDA or Metal renderer renders; [DEV=EMU] alone has tinygrad's generic renderer
    options.  A workgroup's lanes run in lockstep (so a BARRIER holds by construction), DEFINE_LOCAL memory is
    shared by the workgroup and DEFINE_REG memory is per lane, every LOAD and STORE is bounds-checked, WMMA
    follows the tensor-core models of CUDA and Metal, and ALUs are {!Uop.exec_alu} on the dtype. *)

(** A LOAD or STORE outside its buffer: the kernel, ["load"] or ["store"], the buffer (["data1"] for the
    kernel's PARAM of slot 1, ["local0"], ["reg0"]), the element index and the buffer's size in elements. *)
exception Out_of_bounds of { kernel : string; access : string; buffer : string; index : int; size : int }

(** One UOp of the program, its sources as positions in the program. *)
type inst

(** A program ready to run. *)
type program

(** The source of a linearized program: the listing [DEBUG] prints, then the instructions, encoded.
    tinygrad [PythonRenderer.render]. *)
val render : Uop.t list -> string

(** The program of a rendered source; [Invalid_argument] when the source holds none. *)
val program_of_source : name:string -> string -> program

(** The instruction count of a program. *)
val length : program -> int

(** [run p ~bufs ~vars ~global_size ~local_size] runs every workgroup; each buffer is (bytes, byte offset of
    the view, bytes from it), in the launch's order. tinygrad [PythonProgram.__call__]. *)
val run :
  program -> bufs:(Device.bytes_ba * int * int) array -> vars:int array -> global_size:int array ->
  local_size:int array -> unit

(** The emulator device (host memory, interpreted programs). tinygrad [PythonDevice]. *)
val create : string -> Device.compiled

(** The renderer of a target: ["sm_75"], ["sm_80"], ["sm_89"] (CUDA), ["METAL"], or [""] (generic options);
    [Invalid_argument] for another. Its [suffix] is ["EMU:" ^ arch], its [render] is {!render}. *)
val renderer_for_arch : string -> Renderer.t

(** The renderer of DEV's EMU target. *)
val renderer : unit -> Renderer.t

(** The target's own renderer (CUDA or Metal, rendering source), whose options {!renderer} shares: what a GPU
    of DEV's EMU target would compile. The generic renderer for [DEV=EMU]. *)
val target_renderer : unit -> Renderer.t
