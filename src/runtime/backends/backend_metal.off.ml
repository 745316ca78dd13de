(* tinygrad.metal was not built (metal missing): Device lists METAL as unavailable *)
let linked : (string -> Tinygrad.Device.compiled) option = None

let () =
  Tinygrad.Device.set_unavailable "METAL" "backend not built (opam package metal >= 0.1.1 not installed; macOS only)"
