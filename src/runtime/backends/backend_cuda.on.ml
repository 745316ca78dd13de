(* tinygrad.cuda is linked: referencing it links its registration of "CUDA" *)
let linked = Some (Tinygrad_cuda.Ops_cuda.create : string -> Tinygrad.Device.compiled)
