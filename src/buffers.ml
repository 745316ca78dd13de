(* tinygrad: uop/ops.py — the [buffers] side table (BUFFER uop -> device Buffer) and the UOp buffer helpers the
   scheduler needs (new_buffer, device, buf_uop, has_buffer_identity, is_bound_var, param_like, call, ...). *)

open Uop

module Key = struct
  type nonrec t = Uop.t
  let equal = ( == )
  let hash (u : Uop.t) = u.id
end

(* tinygrad's WeakKeyDictionary: an entry lives as long as its BUFFER uop *)
module ET = Ephemeron.K1.Make (Key)

let table : Device.Buffer.t ET.t = ET.create 256

let find u = ET.find_opt table u
let set u b = ET.replace table u b
let remove u = ET.remove table u

(* not in tinygrad: the BUFFERs a realize made for its tensors that nothing but tensors holds, which the
   tensor layer releases once no tensor reaches them (tinygrad's refcount frees them then). Weak like
   [table]: one that stays reachable from a UOp outside the tensors is left to the GC *)
let owned : unit ET.t = ET.create 64

let own u = ET.replace owned u ()
let is_owned u = ET.mem owned u
let disown u = ET.remove owned u


(* tinygrad: UOp.unique_num *)
let unique_num = ref 0

(* tinygrad: UOp.new_buffer, on one device or a tuple of devices *)
let new_mbuffer ?num (device : Uop.device) size dtype =
  if Dtype.is_weak dtype then invalid_arg ("new_buffer: cannot create storage for weak dtype " ^ Dtype.to_string dtype);
  let slot = match num with Some n -> n | None -> let n = !unique_num in incr unique_num; n in
  create Ops.Buffer ~dtype ~src:[| shape_to_shape_arg [ Sint size ] |]
    ~arg:(Param { default_param with slot; pdtype = dtype; device = Some device })

let new_buffer ?num device size dtype = new_mbuffer ?num (One device) size dtype

(* tinygrad: UOp.device, is_virtual, has_buffer_identity — one port, in Uop (device is cached on the node) *)
let device = Uop.device
let mdevice = Uop.mdevice
let is_multi = Uop.is_multi
let is_virtual = Uop.is_virtual
let has_buffer_identity = Uop.has_buffer_identity

(* tinygrad: UOp.buf_uop *)
let rec buf_uop (u : Uop.t) : Uop.t =
  match u.op with
  | Ops.Buffer | Ops.Param -> u
  | Ops.Mselect -> create Ops.Mselect ~src:[| buf_uop u.src.(0) |] ~arg:u.arg
  | Ops.Mstack -> create Ops.Mstack ~src:(Array.map buf_uop u.src)
  | _ when (base u).op == Ops.After -> base (buf_uop (base u).src.(0))
  | _ ->
    let s = ref u in
    while Array.length !s.src > 0 && not (List.memq !s.op [ Ops.Buffer; Ops.Param; Ops.Stage; Ops.Mstack ]) do s := !s.src.(0) done;
    !s

(* tinygrad: UOp.is_bound_var *)
let is_bound_var (u : Uop.t) =
  u.op == Ops.After && Array.length u.src = 2 && is_variable u.src.(0) && u.src.(1).op == Ops.Store
  && u.src.(1).src.(0) == u.src.(0) && u.src.(1).src.(1).op == Ops.Const

(* tinygrad: UOp.unbind *)
let unbind (u : Uop.t) : Uop.t * int =
  if not (is_bound_var u) then invalid_arg "unbind: not a bound Variable";
  (u.src.(0), Z.to_int (zi (const_val u.src.(1).src.(1))))

(* tinygrad: UOp.param_like *)
let param_like slot (u : Uop.t) : Uop.t =
  if is_bound_var u || is_variable u then begin
    let b = if u.op == Ops.After then u.src.(0) else u in
    create Ops.Param ~src:b.src ~arg:(Param { (param_arg b) with slot; name = Some (Printf.sprintf "p%d" slot) })
  end else begin
    let addrspace = match addrspace u with Some a -> a | None -> Dtype.Global in
    let axis = axis u in
    let shape = if axis <> None then Some (shard_shape u) else shape_opt u in
    param ?shape ?device:(mdevice u) ?axis ~addrspace slot u.dtype
  end

(* tinygrad: UOp.call — an opaque body (SINK, PROGRAM, LINEAR, COPY, CUSTOM_FUNCTION) stays a CALL; a body
   that produces values becomes a FUNCTION of a TUPLE, so that a FUNCTION is always void and GETTUPLE picks
   its outputs. The CallInfo arg is not modelled (always the default CallInfo(): no grad_fxn, never
   precompiled): [No_arg]. *)
let call ?ret_dtype (body : Uop.t) (srcs : Uop.t list) : Uop.t =
  match ret_dtype with
  | Some dtype -> create Ops.Call ~dtype ~src:(Array.of_list (body :: srcs))
  | None ->
    (* calls are launched per device, so an open DEVICE range may cross the call boundary *)
    List.iter (fun (r : Uop.t) -> match r.arg with
        | Range (_, Device) -> ()
        | _ -> invalid_arg (Printf.sprintf "call: range %s leaks out of the call" (Uop.render r)))
      (ranges body);
    if Upat.opaque_body body then create Ops.Call ~src:(Array.of_list (body :: srcs))
    else
      let body = if body.op == Ops.Tuple then body else create Ops.Tuple ~src:[| body |] in
      create Ops.Function ~src:(Array.of_list (body :: srcs))

(* tinygrad: UOp.gettuple *)
let gettuple (u : Uop.t) i =
  let in_tuple = if u.op == Ops.Function then u.src.(0) else u in
  if in_tuple.op <> Ops.Tuple then
    invalid_arg ("gettuple: requires a FUNCTION or TUPLE source, got " ^ Ops.to_string u.op);
  create Ops.Gettuple ~src:[| u |] ~arg:(Int i)

(* tinygrad: MovementMixin.reshape (no -1 handling), a no-op for the same shape *)
let reshape (u : Uop.t) (sh : sint list) = if equal_sints (shape u) sh then u else mop Ops.Reshape u (`Shape sh)

(* tinygrad: MovementMixin.shrink_to: SHRINK to (0, size) on every axis, a no-op for the same shape *)
let shrink_to (u : Uop.t) (sh : sint list) =
  if equal_sints (shape u) sh then u else mop Ops.Shrink u (`Pairs (List.map (fun s -> (Sint 0, s)) sh))

(* tinygrad: CreationMixin.empty (int shapes), on one device or a tuple of devices *)
let empty_on (device : Uop.device) (sh : sint list) dtype =
  let max_sh = List.map (function Sint i -> Sint i | Suop x -> Sint (Z.to_int (zi (vmax x)))) sh in
  let n = List.fold_left (fun a s -> match s with Sint i -> a * i | Suop _ -> a) 1 max_sh in
  shrink_to (reshape (new_mbuffer device n dtype) max_sh) sh

let empty ?(device = "CPU") sh dtype = empty_on (One device) sh dtype

(* tinygrad: UOp.empty_like — a sharded value gets a buffer of its shard's shape on each device *)
let empty_like ?dtype (u : Uop.t) =
  let d = match mdevice u with Some d -> d | None -> invalid_arg "empty_like: no device" in
  let dtype = match dtype with Some dt -> dt | None -> Dtype.strong_dtype u.dtype in
  let axis = match d with Multi _ -> axis u | One _ -> None in
  match axis with
  | None -> empty_on d (shape u) dtype
  | Some a -> unshard_devices (empty_on d (shard_shape u) dtype) a

(* tinygrad: UOp.contiguous (ElementwiseMixin.contiguous) *)
let contiguous ?tag (u : Uop.t) =
  if Dtype.is_weak u.dtype then u
  else if u.op == Ops.Contiguous || mdevice u = None || has_buffer_identity u then u
  else create Ops.Contiguous ~src:[| u |] ?tag

(* tinygrad: UOp.from_buffer *)
let from_buffer (b : Device.Buffer.t) : Uop.t =
  let u = new_buffer b.device b.size b.dtype in
  set u b;
  u

(* tinygrad: UOp.buffer for a BUFFER (created on first use) and its reshapes / AFTERs; views of a buffer are
   Callify.buffer's, which finds their offset with the rewrite rules *)
let rec buffer (u : Uop.t) : Device.Buffer.t =
  match u.op with
  | Ops.Contiguous | Ops.Contiguous_backward | Ops.Reshape | Ops.Unshard | Ops.Detach | Ops.After -> buffer u.src.(0)
  | Ops.Buffer ->
    (match find u with
     | Some b -> b
     | None ->
       let d = match device u with Some d -> d | None -> invalid_arg "buffer: BUFFER without device" in
       let b = Device.Buffer.create d (max_numel u) u.dtype in
       set u b;
       b)
  | _ when base u != u || u.op == Ops.Bitcast ->
    (match find u with
     | Some b -> b
     | None -> invalid_arg ("buffer: " ^ Ops.to_string u.op ^ " is a view of a buffer (Callify.buffer resolves views)"))
  | _ -> invalid_arg ("buffer: must be BUFFER, got " ^ Ops.to_string u.op)

(* tinygrad: MultiBuffer — a BUFFER on a tuple of devices is one Buffer per device, made on first use *)
let multi_table : Device.Buffer.t list ET.t = ET.create 16

(* tinygrad: UOp.buffer for a BUFFER on a tuple of devices (MultiBuffer.bufs) *)
let multi_buffers (u : Uop.t) : Device.Buffer.t list =
  match ET.find_opt multi_table u with
  | Some l -> l
  | None ->
    match u.op, mdevice u with
    | Ops.Buffer, Some (Multi ds) ->
      let l = List.map (fun d -> Device.Buffer.create d (max_numel u) u.dtype) ds in
      ET.replace multi_table u l;
      l
    | _ -> invalid_arg ("multi_buffers: must be a BUFFER on a tuple of devices, got " ^ Ops.to_string u.op)

(* the device Buffers made for a BUFFER so far: its one Buffer, or one per device of its tuple *)
let device_buffers (u : Uop.t) =
  match find u with
  | Some b -> [ b ]
  | None -> Option.value ~default:[] (ET.find_opt multi_table u)

(* an owned BUFFER's memory back to the allocator: its Buffer, or its Buffer on every device of its tuple *)
let release u =
  if ET.mem owned u then begin
    ET.remove owned u;
    List.iter (fun (b : Device.Buffer.t) -> if b.base_buf = None then Device.Buffer.release b)
      (device_buffers u)
  end

(* tinygrad: UOp.realized *)
let realized (u : Uop.t) : Device.Buffer.t option =
  let u = if u.op == Ops.Unshard then u.src.(0) else u in
  if u.op <> Ops.Buffer then None
  else match addrspace u with
    | Some (Dtype.Local | Dtype.Reg | Dtype.Alu) -> None
    | _ ->
      if is_multi u then
        (match ET.find_opt multi_table u with
         | Some (b :: _ as l) when List.for_all Device.Buffer.is_allocated l -> Some b
         | _ -> None)
      else (match find u with Some b when Device.Buffer.is_allocated b -> Some b | _ -> None)

(* tinygrad: UOp.is_realized *)
let is_realized u = realized (base u) <> None
