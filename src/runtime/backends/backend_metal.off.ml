(* tinygrad.metal was not built (metal missing): Device lists METAL as unavailable *)
let linked : (string -> Tinygrad.Device.compiled) option = None
