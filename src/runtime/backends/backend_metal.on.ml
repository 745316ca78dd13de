(* tinygrad.metal is linked: referencing it links its registration of "METAL" *)
let linked = Some (Tinygrad_metal.Ops_metal.create : string -> Tinygrad.Device.compiled)
