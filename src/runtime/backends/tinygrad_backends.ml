(* the optional backends loaded (CUDA) or linked (METAL) into this executable (see dune) *)
let linked () =
  List.filter_map (fun (n, b) -> if b then Some n else None)
    [ ("CUDA", Backend_cuda.linked ()); ("METAL", Backend_metal.linked <> None) ]
