(* tinygrad.cuda was not built (cudajit missing): Device lists CUDA as unavailable *)
let linked : (string -> Tinygrad.Device.compiled) option = None
