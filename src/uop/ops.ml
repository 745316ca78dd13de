(* tinygrad: uop/__init__.py. The declaration order is the toposort/linearize tie-break order. *)
type t =
  | Special
  | Buffer
  | Noop
  | Rewrite_error
  | Param
  | Function
  | Call
  | Program
  | Linear
  | Source
  | Binary
  | Sink
  | After
  | Group
  | Stack
  | Tuple
  | Gettuple
  | Getaddr
  | Index
  | Shrink
  | Load
  | Store
  | Wmma
  | Cast
  | Bitcast
  | Exp2
  | Log2
  | Sin
  | Sqrt
  | Reciprocal
  | Neg
  | Trunc
  | Add
  | Mul
  | Shl
  | Shr
  | Cdiv
  | Max
  | Cmod
  | Cmplt
  | Cmpne
  | Cmpeq
  | Xor
  | Or
  | And
  | Threefry
  | Sub
  | Fdiv
  | Pow
  | Floordiv
  | Floormod
  | Where
  | Mulacc
  | Barrier
  | Range
  | If
  | End
  | Endif
  | Const
  | Custom
  | Customi
  | Ins
  | Contiguous
  | Contiguous_backward
  | Detach
  | Stage
  | Copy
  | Mselect
  | Mstack
  | Custom_function
  | Reshape
  | Permute
  | Expand
  | Pad
  | Flip
  | Unshard
  | Reduce
  | Allreduce
  | Pyliteral
let all = [| Special; Buffer; Noop; Rewrite_error; Param; Function; Call; Program; Linear; Source; Binary; Sink; After; Group; Stack; Tuple; Gettuple; Getaddr; Index; Shrink; Load; Store; Wmma; Cast; Bitcast; Exp2; Log2; Sin; Sqrt; Reciprocal; Neg; Trunc; Add; Mul; Shl; Shr; Cdiv; Max; Cmod; Cmplt; Cmpne; Cmpeq; Xor; Or; And; Threefry; Sub; Fdiv; Pow; Floordiv; Floormod; Where; Mulacc; Barrier; Range; If; End; Endif; Const; Custom; Customi; Ins; Contiguous; Contiguous_backward; Detach; Stage; Copy; Mselect; Mstack; Custom_function; Reshape; Permute; Expand; Pad; Flip; Unshard; Reduce; Allreduce; Pyliteral |]
let count = Array.length all
let to_string = function
  | Special -> "Ops.SPECIAL"
  | Buffer -> "Ops.BUFFER"
  | Noop -> "Ops.NOOP"
  | Rewrite_error -> "Ops.REWRITE_ERROR"
  | Param -> "Ops.PARAM"
  | Function -> "Ops.FUNCTION"
  | Call -> "Ops.CALL"
  | Program -> "Ops.PROGRAM"
  | Linear -> "Ops.LINEAR"
  | Source -> "Ops.SOURCE"
  | Binary -> "Ops.BINARY"
  | Sink -> "Ops.SINK"
  | After -> "Ops.AFTER"
  | Group -> "Ops.GROUP"
  | Stack -> "Ops.STACK"
  | Tuple -> "Ops.TUPLE"
  | Gettuple -> "Ops.GETTUPLE"
  | Getaddr -> "Ops.GETADDR"
  | Index -> "Ops.INDEX"
  | Shrink -> "Ops.SHRINK"
  | Load -> "Ops.LOAD"
  | Store -> "Ops.STORE"
  | Wmma -> "Ops.WMMA"
  | Cast -> "Ops.CAST"
  | Bitcast -> "Ops.BITCAST"
  | Exp2 -> "Ops.EXP2"
  | Log2 -> "Ops.LOG2"
  | Sin -> "Ops.SIN"
  | Sqrt -> "Ops.SQRT"
  | Reciprocal -> "Ops.RECIPROCAL"
  | Neg -> "Ops.NEG"
  | Trunc -> "Ops.TRUNC"
  | Add -> "Ops.ADD"
  | Mul -> "Ops.MUL"
  | Shl -> "Ops.SHL"
  | Shr -> "Ops.SHR"
  | Cdiv -> "Ops.CDIV"
  | Max -> "Ops.MAX"
  | Cmod -> "Ops.CMOD"
  | Cmplt -> "Ops.CMPLT"
  | Cmpne -> "Ops.CMPNE"
  | Cmpeq -> "Ops.CMPEQ"
  | Xor -> "Ops.XOR"
  | Or -> "Ops.OR"
  | And -> "Ops.AND"
  | Threefry -> "Ops.THREEFRY"
  | Sub -> "Ops.SUB"
  | Fdiv -> "Ops.FDIV"
  | Pow -> "Ops.POW"
  | Floordiv -> "Ops.FLOORDIV"
  | Floormod -> "Ops.FLOORMOD"
  | Where -> "Ops.WHERE"
  | Mulacc -> "Ops.MULACC"
  | Barrier -> "Ops.BARRIER"
  | Range -> "Ops.RANGE"
  | If -> "Ops.IF"
  | End -> "Ops.END"
  | Endif -> "Ops.ENDIF"
  | Const -> "Ops.CONST"
  | Custom -> "Ops.CUSTOM"
  | Customi -> "Ops.CUSTOMI"
  | Ins -> "Ops.INS"
  | Contiguous -> "Ops.CONTIGUOUS"
  | Contiguous_backward -> "Ops.CONTIGUOUS_BACKWARD"
  | Detach -> "Ops.DETACH"
  | Stage -> "Ops.STAGE"
  | Copy -> "Ops.COPY"
  | Mselect -> "Ops.MSELECT"
  | Mstack -> "Ops.MSTACK"
  | Custom_function -> "Ops.CUSTOM_FUNCTION"
  | Reshape -> "Ops.RESHAPE"
  | Permute -> "Ops.PERMUTE"
  | Expand -> "Ops.EXPAND"
  | Pad -> "Ops.PAD"
  | Flip -> "Ops.FLIP"
  | Unshard -> "Ops.UNSHARD"
  | Reduce -> "Ops.REDUCE"
  | Allreduce -> "Ops.ALLREDUCE"
  | Pyliteral -> "Ops.PYLITERAL"
let name = function
  | Special -> "SPECIAL"
  | Buffer -> "BUFFER"
  | Noop -> "NOOP"
  | Rewrite_error -> "REWRITE_ERROR"
  | Param -> "PARAM"
  | Function -> "FUNCTION"
  | Call -> "CALL"
  | Program -> "PROGRAM"
  | Linear -> "LINEAR"
  | Source -> "SOURCE"
  | Binary -> "BINARY"
  | Sink -> "SINK"
  | After -> "AFTER"
  | Group -> "GROUP"
  | Stack -> "STACK"
  | Tuple -> "TUPLE"
  | Gettuple -> "GETTUPLE"
  | Getaddr -> "GETADDR"
  | Index -> "INDEX"
  | Shrink -> "SHRINK"
  | Load -> "LOAD"
  | Store -> "STORE"
  | Wmma -> "WMMA"
  | Cast -> "CAST"
  | Bitcast -> "BITCAST"
  | Exp2 -> "EXP2"
  | Log2 -> "LOG2"
  | Sin -> "SIN"
  | Sqrt -> "SQRT"
  | Reciprocal -> "RECIPROCAL"
  | Neg -> "NEG"
  | Trunc -> "TRUNC"
  | Add -> "ADD"
  | Mul -> "MUL"
  | Shl -> "SHL"
  | Shr -> "SHR"
  | Cdiv -> "CDIV"
  | Max -> "MAX"
  | Cmod -> "CMOD"
  | Cmplt -> "CMPLT"
  | Cmpne -> "CMPNE"
  | Cmpeq -> "CMPEQ"
  | Xor -> "XOR"
  | Or -> "OR"
  | And -> "AND"
  | Threefry -> "THREEFRY"
  | Sub -> "SUB"
  | Fdiv -> "FDIV"
  | Pow -> "POW"
  | Floordiv -> "FLOORDIV"
  | Floormod -> "FLOORMOD"
  | Where -> "WHERE"
  | Mulacc -> "MULACC"
  | Barrier -> "BARRIER"
  | Range -> "RANGE"
  | If -> "IF"
  | End -> "END"
  | Endif -> "ENDIF"
  | Const -> "CONST"
  | Custom -> "CUSTOM"
  | Customi -> "CUSTOMI"
  | Ins -> "INS"
  | Contiguous -> "CONTIGUOUS"
  | Contiguous_backward -> "CONTIGUOUS_BACKWARD"
  | Detach -> "DETACH"
  | Stage -> "STAGE"
  | Copy -> "COPY"
  | Mselect -> "MSELECT"
  | Mstack -> "MSTACK"
  | Custom_function -> "CUSTOM_FUNCTION"
  | Reshape -> "RESHAPE"
  | Permute -> "PERMUTE"
  | Expand -> "EXPAND"
  | Pad -> "PAD"
  | Flip -> "FLIP"
  | Unshard -> "UNSHARD"
  | Reduce -> "REDUCE"
  | Allreduce -> "ALLREDUCE"
  | Pyliteral -> "PYLITERAL"
let value = function
  | Special -> 1
  | Buffer -> 2
  | Noop -> 3
  | Rewrite_error -> 4
  | Param -> 5
  | Function -> 6
  | Call -> 7
  | Program -> 8
  | Linear -> 9
  | Source -> 10
  | Binary -> 11
  | Sink -> 12
  | After -> 13
  | Group -> 14
  | Stack -> 15
  | Tuple -> 16
  | Gettuple -> 17
  | Getaddr -> 18
  | Index -> 19
  | Shrink -> 20
  | Load -> 21
  | Store -> 22
  | Wmma -> 23
  | Cast -> 24
  | Bitcast -> 25
  | Exp2 -> 26
  | Log2 -> 27
  | Sin -> 28
  | Sqrt -> 29
  | Reciprocal -> 30
  | Neg -> 31
  | Trunc -> 32
  | Add -> 33
  | Mul -> 34
  | Shl -> 35
  | Shr -> 36
  | Cdiv -> 37
  | Max -> 38
  | Cmod -> 39
  | Cmplt -> 40
  | Cmpne -> 41
  | Cmpeq -> 42
  | Xor -> 43
  | Or -> 44
  | And -> 45
  | Threefry -> 46
  | Sub -> 47
  | Fdiv -> 48
  | Pow -> 49
  | Floordiv -> 50
  | Floormod -> 51
  | Where -> 52
  | Mulacc -> 53
  | Barrier -> 54
  | Range -> 55
  | If -> 56
  | End -> 57
  | Endif -> 58
  | Const -> 59
  | Custom -> 60
  | Customi -> 61
  | Ins -> 62
  | Contiguous -> 63
  | Contiguous_backward -> 64
  | Detach -> 65
  | Stage -> 66
  | Copy -> 67
  | Mselect -> 68
  | Mstack -> 69
  | Custom_function -> 70
  | Reshape -> 71
  | Permute -> 72
  | Expand -> 73
  | Pad -> 74
  | Flip -> 75
  | Unshard -> 76
  | Reduce -> 77
  | Allreduce -> 78
  | Pyliteral -> 79

let compare a b = Int.compare (value a) (value b)
let equal (a : t) b = a == b

(** GroupOp sets, as predicates and lists. tinygrad: [GroupOp]. *)
module Group = struct
  let unary = [ Exp2; Log2; Sin; Sqrt; Reciprocal; Neg; Trunc ]
  let binary = [ Add; Mul; Cdiv; Max; Cmod; Cmplt; Cmpne; Cmpeq; Xor; Shl; Shr; Or; And; Threefry; Sub; Fdiv; Pow;
                 Floordiv; Floormod ]
  let ternary = [ Where; Mulacc ]
  let alu = unary @ binary @ ternary
  let broadcastable = binary @ ternary
  let elementwise = alu @ [ Cast; Bitcast ]
  let defines = [ Param; Buffer ]
  let irreducible = [ Const; Special; Range; Param; Getaddr ]
  let movement = [ Reshape; Expand; Permute; Pad; Shrink; Flip ]
  let commutative = [ Add; Mul; Max; Cmpne; Cmpeq; Xor; And; Or ]
  let associative = [ Add; Mul; And; Or; Max ]
  let idempotent = [ Or; And; Max ]
  let reduce = [ Add; Mul; Max ]
  let comparison = [ Cmplt; Cmpne; Cmpeq ]
  let all = Array.to_list all

  let table l = let a = Array.make (count + 1) false in List.iter (fun o -> a.(value o) <- true) l; a
  let t_unary = table unary and t_binary = table binary and t_ternary = table ternary and t_alu = table alu
  let t_elementwise = table elementwise and t_movement = table movement and t_commutative = table commutative
  let t_associative = table associative and t_idempotent = table idempotent and t_comparison = table comparison
  let t_broadcastable = table broadcastable and t_irreducible = table irreducible

  let is_unary o = t_unary.(value o)
  let is_binary o = t_binary.(value o)
  let is_ternary o = t_ternary.(value o)
  let is_alu o = t_alu.(value o)
  let is_broadcastable o = t_broadcastable.(value o)
  let is_elementwise o = t_elementwise.(value o)
  let is_defines o = match o with Param | Buffer -> true | _ -> false
  let is_irreducible o = t_irreducible.(value o)
  let is_movement o = t_movement.(value o)
  let is_commutative o = t_commutative.(value o)
  let is_associative o = t_associative.(value o)
  let is_idempotent o = t_idempotent.(value o)
  let is_reduce o = match o with Add | Mul | Max -> true | _ -> false
  let is_comparison o = t_comparison.(value o)
end
