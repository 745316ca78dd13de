(* tinygrad: runtime/ops_python.py — the UOp emulator: the linearized program interpreted with a GPU's
   semantics. The workgroup's lanes run together (tinygrad's warp: every local thread, in lockstep), so a
   BARRIER holds by construction; DEFINE_LOCAL memory is shared by the workgroup, DEFINE_REG memory is per
   lane; every LOAD and STORE is bounds-checked; WMMA follows the tensor-core models of CUDA (sm_75, sm_80,
   sm_89) and Metal; ALUs are tinygrad's exec_alu on the dtype. Not ported: the AMD tensor-core models, images
   and CALL. *)

open Bigarray

(* ---------- the program: instructions with their sources as positions ---------- *)

(* one UOp of the linearized program; [numel] is its max_numel (the lanes a vector LOAD or SHRINK spans) *)
type inst = {
  op : Ops.t;
  dtype : Dtype.t;
  src : int array;
  arg : Uop.arg;
  numel : int;
  space : Dtype.addrspace option;
}

type program = {
  pname : string;
  insts : inst array;
  loop_end : int array;  (* for a RANGE, the position of its END *)
  param_rank : int array;  (* for a PARAM, its position among the buffers (or the vars) of the launch *)
}

(* the arg of an instruction: only what the interpreter reads (a SINK's KernelInfo holds UOps) *)
let inst_arg (u : Uop.t) : Uop.arg =
  match u.arg with
  | Uop.Kernel_info _ | Program_info _ -> No_arg
  | a -> a

(* the instructions of a linearized program, sources as positions *)
let to_insts (uops : Uop.t list) : inst array =
  let index = Uop.Tbl.create 256 in
  List.iteri (fun i u -> Uop.Tbl.replace index u i) uops;
  let pos (s : Uop.t) =
    match Uop.Tbl.find_opt index s with
    | Some i -> i
    | None -> invalid_arg ("EMU render: a source is not in the program: " ^ Ops.to_string s.op) in
  Array.of_list (List.map (fun (u : Uop.t) ->
      { op = u.op; dtype = u.dtype; src = Array.map pos u.src; arg = inst_arg u;
        numel = (match u.op with
            | Ops.Load | Shrink | Index | Stack | Wmma | Buffer | Param -> Uop.max_numel u
            | _ -> 1);
        space = Uop.addrspace u }) uops)

let param_slot (i : inst) = match i.arg with Uop.Param p -> p.slot | _ -> -1

(* tinygrad: PythonProgram.__init__ (loop_ends) and the order in which buffers and vars are popped: here each
   PARAM's rank by slot, as ProgramInfo sorts globals and vars *)
let program_of_insts pname insts =
  let n = Array.length insts in
  let loop_end = Array.make n (-1) in
  Array.iteri (fun i (u : inst) ->
      if u.op = Ops.End && Array.length u.src >= 2 then loop_end.(u.src.(1)) <- i) insts;
  let is_var (u : inst) = u.space = Some Dtype.Alu in
  let slots pred = List.sort_uniq compare
      (List.filter_map (fun (u : inst) -> if u.op = Ops.Param && pred u then Some (param_slot u) else None)
         (Array.to_list insts)) in
  let bufs = slots (fun u -> not (is_var u)) and vars = slots is_var in
  let rank l s = let rec go k = function [] -> -1 | x :: r -> if x = s then k else go (k + 1) r in go 0 l in
  let param_rank = Array.map (fun (u : inst) ->
      if u.op <> Ops.Param then -1 else rank (if is_var u then vars else bufs) (param_slot u)) insts in
  { pname; insts; loop_end; param_rank }

(* ---------- the rendered source: a listing, then the instructions ---------- *)

let payload_marker = "// emu program "

let hex_of_string s =
  let b = Buffer.create (2 * String.length s) in
  String.iter (fun c -> Buffer.add_string b (Printf.sprintf "%02x" (Char.code c))) s;
  Buffer.contents b

let string_of_hex h =
  let n = String.length h / 2 in
  String.init n (fun i -> Char.chr (int_of_string ("0x" ^ String.sub h (2 * i) 2)))

(* tinygrad: PythonRenderer.render (a pickle of the UOps): the listing DEBUG prints, and the instructions *)
let render (uops : Uop.t list) : string =
  let insts = to_insts uops in
  Render.uops_str uops ^ payload_marker ^ hex_of_string (Marshal.to_string insts [])

(* tinygrad: PythonCompiler.compile: the instructions back from the source *)
let insts_of_source (src : string) : inst array =
  let m = String.length payload_marker in
  let rec find i =
    if i + m > String.length src then invalid_arg "EMU compile: no program in the source"
    else if String.sub src i m = payload_marker then i + m
    else find (i + 1) in
  let start = find 0 in
  let line_end = match String.index_from_opt src start '\n' with Some e -> e | None -> String.length src in
  (Marshal.from_string (string_of_hex (String.sub src start (line_end - start))) 0 : inst array)

(* ---------- memory ---------- *)

(* a buffer as the kernel sees it: its bytes from [base], [nbytes] long, [name] for the bounds errors *)
type mem = { name : string; data : Device.bytes_ba; base : int; nbytes : int; mdtype : Dtype.t }

exception Out_of_bounds of { kernel : string; access : string; buffer : string; index : int; size : int }

let () =
  Printexc.register_printer (function
    | Out_of_bounds { kernel; access; buffer; index; size } ->
      Some (Printf.sprintf "EMU kernel %s: %s out of bounds: buffer %s has %d elements, index %d" kernel
              access
              buffer size index)
    | _ -> None)

external get16 : Device.bytes_ba -> int -> int = "%caml_bigstring_get16"
external get32 : Device.bytes_ba -> int -> int32 = "%caml_bigstring_get32"
external get64 : Device.bytes_ba -> int -> int64 = "%caml_bigstring_get64"
external set16 : Device.bytes_ba -> int -> int -> unit = "%caml_bigstring_set16"
external set32 : Device.bytes_ba -> int -> int32 -> unit = "%caml_bigstring_set32"
external set64 : Device.bytes_ba -> int -> int64 -> unit = "%caml_bigstring_set64"

let zi = Uop.zi
let sext bits v = if v land (1 lsl (bits - 1)) <> 0 then v - (1 lsl bits) else v

(* tinygrad: from_storage_scalar over the raw bytes *)
let read_const (dt : Dtype.t) (ba : Device.bytes_ba) off : Dtype.const =
  match dt with
  | Float32 -> F (Int32.float_of_bits (get32 ba off))
  | Float64 -> F (Int64.float_of_bits (get64 ba off))
  | Bool -> B (Char.code ba.{off} <> 0)
  | Int8 -> I (Z.of_int (sext 8 (Char.code ba.{off})))
  | Uint8 -> I (Z.of_int (Char.code ba.{off}))
  | Int16 -> I (Z.of_int (sext 16 (get16 ba off)))
  | Uint16 -> I (Z.of_int (get16 ba off))
  | Int32 -> I (Z.of_int32 (get32 ba off))
  | Uint32 -> I (Z.of_int (Int32.to_int (get32 ba off) land 0xFFFFFFFF))
  | Int64 -> I (Z.of_int64 (get64 ba off))
  | Uint64 -> I (Z.extract (Z.of_int64 (get64 ba off)) 0 64)
  | Float16 | Bfloat16 -> Dtype.bitcast (I (Z.of_int (get16 ba off))) Uint16 dt
  | Fp8e4m3 | Fp8e5m2 | Fp8e4m3fnuz | Fp8e5m2fnuz -> F (Dtype.fp8_to_float (Char.code ba.{off}) dt)
  | Void | Weakint | Weakfloat | Uint128 | Uint256 ->
    invalid_arg ("EMU: no storage for dtype " ^ Dtype.to_string dt)

(* tinygrad: to_storage_scalar over the raw bytes *)
let write_const (dt : Dtype.t) (ba : Device.bytes_ba) off (v : Dtype.const) =
  let bits ut = zi (Dtype.bitcast (Dtype.truncate dt v) dt ut) in
  match dt with
  | Float32 -> set32 ba off (Int32.bits_of_float (Dtype.const_to_float v))
  | Float64 -> set64 ba off (Int64.bits_of_float (Dtype.const_to_float v))
  | Bool | Int8 | Uint8 | Fp8e4m3 | Fp8e5m2 | Fp8e4m3fnuz | Fp8e5m2fnuz ->
    ba.{off} <- Char.chr (Z.to_int (bits Uint8))
  | Int16 | Uint16 | Float16 | Bfloat16 -> set16 ba off (Z.to_int (bits Uint16))
  | Int32 | Uint32 -> set32 ba off (Int32.of_int (Z.to_int (bits Uint32)))
  | Int64 | Uint64 -> set64 ba off (Z.to_int64 (Z.signed_extract (bits Uint64) 0 64))
  | Void | Weakint | Weakfloat | Uint128 | Uint256 ->
    invalid_arg ("EMU: no storage for dtype " ^ Dtype.to_string dt)

let fresh_mem name dtype n =
  let nbytes = n * Dtype.itemsize dtype in
  let data = Array1.create char c_layout (max 1 nbytes) in
  Array1.fill data '\000';
  { name; data; base = 0; nbytes; mdtype = dtype }

(* ---------- values: one per lane ---------- *)

type value =
  | Unset
  | Lanes of Dtype.const array  (* a scalar per lane *)
  | Vec of Dtype.const array array  (* elements, each a scalar per lane *)
  | Ptr of mem array * int array  (* per lane, a memory and a byte offset in it *)

let kind_of = function Unset -> "unset" | Lanes _ -> "scalar" | Vec _ -> "vector" | Ptr _ -> "pointer"

let elements = function
  | Lanes l -> [| l |]
  | Vec v -> v
  | v -> invalid_arg ("EMU: expected a value, got a " ^ kind_of v)

let of_elements (e : Dtype.const array array) = if Array.length e = 1 then Lanes e.(0) else Vec e

let to_int (c : Dtype.const) = match c with
  | I z -> Z.to_int z
  | B b -> if b then 1 else 0
  | F f -> int_of_float f
  | Invalid -> invalid_arg "EMU: an Invalid index reached memory"

(* ---------- ALUs ---------- *)

(* exec_alu on the common int32 and float32 cases without Zarith and lists; every other case is Uop.exec_alu.
   Each branch computes what python_alu and the dtype's truncation give *)
let wrap32 v = ((v + 0x80000000) land 0xFFFFFFFF) - 0x80000000
let round32 x = Int32.float_of_bits (Int32.bits_of_float x)

let alu2 (op : Ops.t) (dt : Dtype.t) (x : Dtype.const) (y : Dtype.const) : Dtype.const =
  let slow () = Uop.exec_alu op dt [ x; y ] in
  match x, y with
  | I za, I zb when Z.fits_int za && Z.fits_int zb ->
    let a = Z.to_int za and b = Z.to_int zb in
    let int32 v = Dtype.I (Z.of_int (wrap32 v)) in
    (match op, dt with
     | Cmplt, _ -> B (a < b)
     | Cmpne, _ -> B (a <> b)
     | Cmpeq, _ -> B (a = b)
     | Add, Int32 when abs a < 0x80000000 && abs b < 0x80000000 -> int32 (a + b)
     | Sub, Int32 when abs a < 0x80000000 && abs b < 0x80000000 -> int32 (a - b)
     | Mul, Int32 when abs a < 0x80000000 && abs b < 0x80000000 -> int32 (a * b)
     | And, Int32 -> int32 (a land b)
     | Or, Int32 -> int32 (a lor b)
     | Xor, Int32 -> int32 (a lxor b)
     | Max, Int32 -> int32 (if b > a then b else a)
     | Shl, Int32 when b >= 0 && b < 32 && abs a < 0x80000000 -> int32 (a lsl b)
     | Shr, Int32 when b >= 0 && b < 63 -> int32 (a asr b)
     | Cdiv, Int32 when b <> 0 -> int32 (a / b)
     | Cmod, Int32 when b <> 0 -> int32 (a mod b)
     | _ -> slow ())
  | F a, F b ->
    (match op, dt with
     | Cmplt, _ -> B (a < b)
     | Cmpne, _ -> B (a <> b)
     | Cmpeq, _ -> B (a = b)
     | Add, Float32 -> F (round32 (a +. b))
     | Sub, Float32 -> F (round32 (a -. b))
     | Mul, Float32 -> F (round32 (a *. b))
     | Max, Float32 -> F (round32 (if b > a then b else a))
     | _ -> slow ())
  | _ -> slow ()

let alu_lanes (op : Ops.t) (dt : Dtype.t) (args : Dtype.const array array) n : Dtype.const array =
  match args with
  | [| a; b |] -> Array.init n (fun t -> alu2 op dt a.(t) b.(t))
  | [| c; a; b |] when op == Ops.Where ->
    Array.init n (fun t ->
        match c.(t) with
        | B true -> Dtype.truncate dt a.(t)
        | B false -> Dtype.truncate dt b.(t)
        | _ -> Uop.exec_alu op dt [ c.(t); a.(t); b.(t) ])
  | _ -> Array.init n (fun t -> Uop.exec_alu op dt (Array.to_list (Array.map (fun a -> a.(t)) args)))

(* ---------- the WMMA models ---------- *)

(* tinygrad: ops_python.generic_wmma_helper. [a_elem x k row goff] and [b_elem x col k goff] read A and B
   (elements by lane), [c_map lane elem] is the (col, row) of an element of C *)
type elems = Dtype.const array array

let generic_wmma_helper (a : elems) (b : elems) (c : elems)
    ~warp_size ~warp_threads ~k ~num_a ~num_b ~num_c ~a_elem ~b_elem ~c_map =
  List.iter (fun (name, x, num) ->
      if Array.length x <> num then
        invalid_arg (Printf.sprintf "EMU WMMA: %s must have %d elements per thread, it has %d" name num
                       (Array.length x)))
    [ ("A", a, num_a); ("B", b, num_b); ("C", c, num_c) ];
  if warp_size <= 0 || warp_size mod warp_threads <> 0 then
    invalid_arg (Printf.sprintf "EMU WMMA: must have multiples of %d warp threads, got %d" warp_threads
                   warp_size);
  let fl = Dtype.const_to_float in
  let out = Array.map (fun e -> Array.map fl e) c in
  for goff = 0 to (warp_size / warp_threads) - 1 do
    let goff = goff * warp_threads in
    for lane = 0 to warp_threads - 1 do
      for elem = 0 to num_c - 1 do
        let ci, cj = c_map lane elem in
        let acc = ref 0.0 in
        for kk = 0 to k - 1 do
          acc := !acc +. (fl (a_elem a kk cj goff) *. fl (b_elem b ci kk goff))
        done;
        out.(elem).(goff + lane) <- out.(elem).(goff + lane) +. !acc
      done
    done
  done;
  out

(* the WMMA of one device and shape; tinygrad: the WMMA branch of PythonProgram.__call__ *)
let wmma ~warp_size (w : Uop.wmma_arg) a b c : float array array =
  let h = generic_wmma_helper a b c ~warp_size in
  let x_ (x : Dtype.const array array) e l = x.(e).(l) in
  match w.wdevice, w.wdims, w.wdtype_in with
  | "METAL", _, _ ->
    (* A, B (2 elements on 32 threads): row major; C the same *)
    let ab x i j goff =
      x_ x (i mod 2) (goff + ((i / 2) mod 2) + ((j mod 4) * 2) + ((i / 4) * 8) + ((j / 4) * 16)) in
    let c_map lane elem =
      (elem + ((lane mod 2) * 2) + (((lane / 8) mod 2) * 4), ((lane / 2) mod 4) + ((lane / 16) * 4)) in
    h ~warp_threads:32 ~k:8 ~num_a:2 ~num_b:2 ~num_c:2 ~a_elem:ab ~b_elem:ab ~c_map
  | "CUDA", dims, din ->
    (* (col, row) of an element of C and D (4 elements on 32 threads), shared by every shape with M=16, N=8 *)
    let c_map lane elem = ((elem mod 2) + ((lane mod 4) * 2), (lane / 4) + ((elem / 2) * 8)) in
    (match dims, din with
     | (8, 16, 16), _ ->
       let a_elem x k row goff =
         x_ x ((k mod 2) + ((row / 8) * 2) + ((k / 8) * 4)) (goff + ((k / 2) mod 4) + ((row mod 8) * 4)) in
       let b_elem x col k goff = x_ x ((k mod 2) + ((k / 8) * 2)) (goff + ((k / 2) mod 4) + (col * 4)) in
       h ~warp_threads:32 ~k:16 ~num_a:8 ~num_b:4 ~num_c:4 ~a_elem ~b_elem ~c_map
     | (8, 16, 32), _ ->
       let a_elem x k row goff =
         x_ x ((k mod 4) + ((row / 8) * 4) + ((k / 16) * 8)) (goff + ((k / 4) mod 4) + ((row mod 8) * 4)) in
       let b_elem x col k goff = x_ x ((k mod 4) + ((k / 16) * 4)) (goff + ((k / 4) mod 4) + (col * 4)) in
       h ~warp_threads:32 ~k:32 ~num_a:16 ~num_b:8 ~num_c:4 ~a_elem ~b_elem ~c_map
     | (8, 16, 8), Dtype.Float16 ->
       let a_elem x k row goff = x_ x ((k mod 2) + ((row / 8) * 2)) (goff + (k / 2) + ((row mod 8) * 4)) in
       let b_elem x col k goff = x_ x (k mod 2) (goff + (k / 2) + (col * 4)) in
       h ~warp_threads:32 ~k:8 ~num_a:4 ~num_b:2 ~num_c:4 ~a_elem ~b_elem ~c_map
     | (8, 16, 8), Dtype.Float32 ->
       let a_elem x k row goff = x_ x (((k / 4) * 2) + (row / 8)) (goff + (k mod 4) + ((row mod 8) * 4)) in
       let b_elem x col k goff = x_ x (k / 4) (goff + (k mod 4) + (col * 4)) in
       h ~warp_threads:32 ~k:8 ~num_a:4 ~num_b:2 ~num_c:4 ~a_elem ~b_elem ~c_map
     | _ -> invalid_arg "EMU WMMA: unimplemented CUDA tensor core")
  | dev, (n, m, k), din ->
    invalid_arg (Printf.sprintf "EMU WMMA: unimplemented tensor core %s (%d, %d, %d) %s" dev n m k
                   (Dtype.to_string din))

(* ---------- the interpreter ---------- *)

(* a launch as the emulator sees it: for each buffer its bytes, the byte offset of the view and the bytes from
   it *)
type launch_args = { bufs : (Device.bytes_ba * int * int) array; vars : int array }

(* the lane index of a SPECIAL ("gidx0", "lidx1"): its dimension *)
let special_dim (u : inst) =
  match u.arg with
  | Uop.Str s when String.length s > 0 -> (s.[0], Char.code s.[String.length s - 1] - Char.code '0')
  | _ -> invalid_arg "EMU: SPECIAL without a name"

let check_bounds (p : program) access (m : mem) off size =
  if off < 0 || off + size > m.nbytes then
    raise (Out_of_bounds { kernel = p.pname; access; buffer = m.name;
                           index = (if off < 0 then off - size + 1 else off) / size;
                           size = m.nbytes / Dtype.itemsize m.mdtype })

(* what a launch keeps across its workgroups: the value of each instruction (a RANGE is unset after its loop,
   and every other value is written before it is read, so the array serves every workgroup), the local and
   register memory of each BUFFER (zeroed when the BUFFER runs: fresh in each workgroup), the CONSTs' lanes,
   and which instructions compute the same value in every workgroup (constants, PARAMs, local indices and the
   pure ops over them): those run in the first workgroup only *)
type launch_state = {
  values : value array;
  memory : value array;
  consts : value array;
  invariant : bool array;
}

let is_invariant (p : program) (inv : bool array) i =
  let u = p.insts.(i) in
  let srcs_inv () = Array.for_all (fun s -> inv.(s)) u.src in
  match u.op with
  | Ops.Const | Param -> true
  | Special -> (match u.arg with Uop.Str s -> String.length s > 0 && s.[0] = 'l' | _ -> false)
  | Cast | Bitcast | Index | Shrink | Stack -> srcs_inv ()
  | op -> Ops.Group.is_alu op && srcs_inv ()

let launch_state (p : program) warp_size =
  let n = Array.length p.insts in
  let invariant = Array.make n false in
  Array.iteri (fun i _ -> invariant.(i) <- is_invariant p invariant i) p.insts;
  { values = Array.make n Unset; memory = Array.make n Unset; invariant;
    consts = Array.map (fun (u : inst) -> match u.op, u.arg with
        | Ops.Const, Uop.Const c -> Lanes (Array.make warp_size c)
        | _ -> Unset) p.insts }

(* local memory is one buffer for the workgroup, register memory one per lane *)
let zeroed_memory (st : launch_state) i (u : inst) ~warp_size ~name =
  match st.memory.(i) with
  | Ptr (ms, _) as v ->
    let distinct = if u.space = Some Dtype.Reg then warp_size else 1 in
    Array.iter (fun m -> Array1.fill m.data '\000') (Array.sub ms 0 distinct);
    v
  | _ ->
    let v = match u.space with
      | Some Dtype.Reg ->
        Ptr (Array.init warp_size (fun _ -> fresh_mem name u.dtype u.numel), Array.make warp_size 0)
      | _ -> Ptr (Array.make warp_size (fresh_mem name u.dtype u.numel), Array.make warp_size 0) in
    st.memory.(i) <- v;
    v

(* tinygrad: PythonProgram.__call__ for one workgroup: [gidx] its global index, [warp] the local index of each
   lane *)
let run_workgroup (p : program) (st : launch_state) (args : launch_args) ~(gidx : int array)
    ~(warp : int array array) =
  let warp_size = Array.length warp in
  let insts = p.insts in
  let n = Array.length insts in
  let values = st.values in
  let lanes_of i = match values.(i) with
    | Lanes l -> l
    | v -> invalid_arg ("EMU: expected a scalar, got a " ^ kind_of v) in
  let masks = ref [ Array.make warp_size true ] in
  let n_local = ref 0 and n_reg = ref 0 in
  let pc = ref 0 in
  while !pc < n do
    let i = !pc in
    let u = insts.(i) in
    let next = ref (i + 1) in
    if st.invariant.(i) && values.(i) != Unset then () else
    (match u.op with
     | Ops.End ->
       if Array.length u.src = 3 then begin
         if Dtype.const_truthy (lanes_of u.src.(2)).(0) then next := u.src.(1)
       end else next := u.src.(1)
     | If ->
       let g = lanes_of u.src.(0) and top = List.hd !masks in
       masks := Array.init warp_size (fun t -> top.(t) && Dtype.const_truthy g.(t)) :: !masks
     | Endif -> masks := List.tl !masks
     | Barrier | Sink | Noop | Group -> ()
     | Store ->
       let gate = List.hd !masks in
       (match values.(u.src.(0)) with
        | Ptr (ms, offs) ->
          let vdt = insts.(u.src.(1)).dtype in
          let sz = Dtype.itemsize vdt in
          Array.iteri (fun j e ->
              for t = 0 to warp_size - 1 do
                if gate.(t) then begin
                  let off = offs.(t) + (j * sz) in
                  check_bounds p "store" ms.(t) off sz;
                  write_const vdt ms.(t).data (ms.(t).base + off) e.(t)
                end
              done) (elements values.(u.src.(1)))
        | v -> invalid_arg ("EMU: STORE to a " ^ kind_of v))
     | After -> values.(i) <- values.(u.src.(0))
     | Bitcast when u.space = Some Dtype.Global || u.space = Some Dtype.Local ->
       values.(i) <- values.(u.src.(0))
     | Param when u.space = Some Dtype.Alu ->
       values.(i) <- Lanes (Array.make warp_size (Dtype.I (Z.of_int args.vars.(p.param_rank.(i)))))
     | Param ->
       (* bounded by the buffer and by the PARAM's size *)
       let data, base, avail = args.bufs.(p.param_rank.(i)) in
       let m = { name = Printf.sprintf "data%d" (param_slot u); data; base; mdtype = u.dtype;
                 nbytes = min avail (u.numel * Dtype.itemsize u.dtype) } in
       values.(i) <- Ptr (Array.make warp_size m, Array.make warp_size 0)
     | Buffer ->
       let counter, kind = if u.space = Some Dtype.Reg then (n_reg, "reg") else (n_local, "local") in
       let name = Printf.sprintf "%s%d" kind !counter in
       incr counter;
       values.(i) <- zeroed_memory st i u ~warp_size ~name
     | Special ->
       let kind, d = special_dim u in
       values.(i) <- Lanes (Array.init warp_size (fun t ->
           Dtype.I (Z.of_int (if kind = 'g' then gidx.(d) else if kind = 'l' then warp.(t).(d)
                              else invalid_arg "EMU: SPECIAL must be a global or a local index"))))
     | Const -> values.(i) <- st.consts.(i)
     | Index | Shrink ->
       let idx = lanes_of u.src.(1) in
       (match values.(u.src.(0)) with
        | Ptr (ms, offs) ->
          (* an INDEX of a BITCAST pointer counts in the BITCAST's elements *)
          let sz = Dtype.itemsize insts.(u.src.(0)).dtype in
          values.(i) <- Ptr (ms, Array.init warp_size (fun t ->
              match idx.(t) with Dtype.Invalid -> offs.(t) | c -> offs.(t) + (to_int c * sz)))
        | (Lanes _ | Vec _) as v ->
          (* lanes of a register value *)
          let e = elements v in
          let pick j t = let k = to_int idx.(t) + j in
            if k < 0 || k >= Array.length e then
              invalid_arg (Printf.sprintf "EMU kernel %s: lane %d of a %d-lane value" p.pname k
                             (Array.length e))
            else e.(k).(t) in
          values.(i) <- of_elements (Array.init u.numel (fun j -> Array.init warp_size (pick j)))
        | v -> invalid_arg ("EMU: INDEX of a " ^ kind_of v))
     | Range ->
       (match values.(i) with
        | Lanes c -> values.(i) <- Lanes (Array.map (fun x -> Dtype.I (Z.succ (zi x))) c)
        | _ -> values.(i) <- Lanes (Array.make warp_size (Dtype.I Z.zero)));
       if to_int (lanes_of i).(0) = to_int (lanes_of u.src.(0)).(0) then begin
         values.(i) <- Unset;
         next := p.loop_end.(i) + 1
       end
     | Stack ->
       values.(i) <- Vec (Array.concat (List.map (fun s -> elements values.(s)) (Array.to_list u.src)))
     | Bitcast ->
       let sdt = insts.(u.src.(0)).dtype in
       let cast x = Dtype.bitcast x sdt u.dtype in
       values.(i) <- of_elements (Array.map (Array.map cast) (elements values.(u.src.(0))))
     | Cast ->
       let cast x = Dtype.truncate u.dtype (Dtype.const u.dtype x) in
       values.(i) <- of_elements (Array.map (Array.map cast) (elements values.(u.src.(0))))
     | Load ->
       let gate = List.hd !masks in
       let alt, lgate =
         if Array.length u.src >= 3 then (Some (elements values.(u.src.(1))), Some (lanes_of u.src.(2)))
         else (None, None) in
       (match values.(u.src.(0)) with
        | Ptr (ms, offs) ->
          let sz = Dtype.itemsize u.dtype and zero = Dtype.const u.dtype (Dtype.I Z.zero) in
          values.(i) <- of_elements (Array.init u.numel (fun j -> Array.init warp_size (fun t ->
              let on = match lgate with Some g -> Dtype.const_truthy g.(t) | None -> true in
              if on && gate.(t) then begin
                let off = offs.(t) + (j * sz) in
                check_bounds p "load" ms.(t) off sz;
                read_const u.dtype ms.(t).data (ms.(t).base + off)
              end else match alt with
                | Some a -> if Array.length a = 1 then a.(0).(t) else a.(j).(t)
                | None -> zero)))
        | v -> invalid_arg ("EMU: LOAD from a " ^ kind_of v))
     | Wmma ->
       (match u.arg with
        | Uop.Wmma_arg w ->
          let e s = elements values.(u.src.(s)) in
          let out = wmma ~warp_size w (e 0) (e 1) (e 2) in
          values.(i) <- of_elements (Array.map (Array.map (fun f -> Dtype.truncate u.dtype (Dtype.F f))) out)
        | _ -> invalid_arg "EMU: WMMA without its arg")
     | op when Ops.Group.is_alu op ->
       let srcs = Array.map (fun s -> elements values.(s)) u.src in
       let ne = Array.fold_left (fun acc e -> max acc (Array.length e)) 1 srcs in
       let elem s j = if Array.length s = 1 then s.(0) else s.(j) in
       values.(i) <- of_elements (Array.init ne (fun j ->
           alu_lanes op u.dtype (Array.map (fun s -> elem s j) srcs) warp_size))
     | op -> invalid_arg (Printf.sprintf "EMU kernel %s: cannot run %s" p.pname (Ops.to_string op)));
    pc := !next
  done

(* tinygrad: PythonProgram.__call__: every workgroup, the global index with x fastest; each workgroup's lanes
   with the local x fastest *)
let run_args (p : program) args ~global_size ~local_size =
  let dim a d = if d < Array.length a then a.(d) else 1 in
  let lx = dim local_size 0 and ly = dim local_size 1 and lz = dim local_size 2 in
  let warp = Array.init (lx * ly * lz) (fun t -> [| t mod lx; (t / lx) mod ly; t / (lx * ly) |]) in
  let gx = dim global_size 0 and gy = dim global_size 1 and gz = dim global_size 2 in
  let st = launch_state p (Array.length warp) in
  for z = 0 to gz - 1 do
    for y = 0 to gy - 1 do
      for x = 0 to gx - 1 do
        run_workgroup p st args ~gidx:[| x; y; z |] ~warp
      done
    done
  done

let run p ~bufs ~vars ~global_size ~local_size = run_args p { bufs; vars } ~global_size ~local_size

let program_of_source ~name src = program_of_insts name (insts_of_source src)
let length p = Array.length p.insts

(* ---------- the device ---------- *)

(* tinygrad: PythonProgram: the launch's buffers found from the memory it keeps alive *)
let load (alloc : Device.allocator) ~name ~lib : Device.program =
  let p = program_of_source ~name lib in
  let call (l : Device.launch) ~global_size ~local_size =
    let bufs = Array.mapi (fun k o ->
        match o with
        | Some (Device.Host ba as h) ->
          let base = Nativeint.to_int (Nativeint.sub l.bufs.{k} (alloc.addr h)) in
          (ba, base, Array1.dim ba - base)
        | _ -> (Array1.create char c_layout 0, 0, 0)) l.keep in
    let vars = Array.init (Array1.dim l.vars) (fun k -> Int64.to_int l.vars.{k}) in
    run_args p { bufs; vars } ~global_size ~local_size in
  { Device.name; call; timed_call = None }

(* tinygrad: PythonDevice: host memory, the identity compiler (the source holds the program), interpreted
   kernels *)
let create device : Device.compiled =
  let alloc = Ops_cpu.allocator ~exact:true () in
  { Device.device; allocator = alloc;
    compiler = { cachekey = None; compile = Fun.id; compile_cached = Fun.id; compile_many = ignore; prefetch = ignore };
    runtime = (fun ~name ~lib ~runtimevars:_ -> load alloc ~name ~lib);
    synchronize = (fun () -> ()) }

(* the ALU ops tinygrad's python_alu implements: the generic target's code_for_op *)
let python_alu_ops =
  Ops.[ Log2; Exp2; Sqrt; Reciprocal; Sin; Pow; Trunc; Neg; Add; Sub; Mul; Cmpne; Cmplt; Cmpeq; Xor; Or; And;
        Shr; Shl; Max; Cmod; Cdiv; Floordiv; Floormod; Mulacc; Where ]

let is_cuda_arch a = String.length a > 3 && String.sub a 0 3 = "sm_"

(* tinygrad: PythonRenderer.__init__, with the target's whole renderer: its launch limits, local memory,
   tensor cores, ops and rewrites, so the kernel is the one the CUDA or Metal renderer would render *)
let target_renderer_for_arch arch : Renderer.t =
  if arch = "METAL" then Cstyle.metal_renderer ()
  else if is_cuda_arch arch then Cstyle.cuda_renderer ~arch
  else if arch = "" then { Renderer.default with device = "EMU"; code_for_op = python_alu_ops }
  else invalid_arg (Printf.sprintf "DEV=EMU::%s: the emulator's targets are sm_75, sm_80, sm_89 and METAL"
                      arch)

let renderer_for_arch arch : Renderer.t =
  { (target_renderer_for_arch arch) with suffix = "EMU:" ^ arch; render = (fun _ uops -> render uops) }

let dev_arch () = (Helpers.dev_target "EMU").arch
let renderer () = renderer_for_arch (dev_arch ())
let target_renderer () = target_renderer_for_arch (dev_arch ())

let () =
  Device.register "EMU" create;
  Device.register_renderer "EMU" (fun _ -> renderer ())
