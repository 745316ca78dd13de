(** Links the optional GPU backends that were built (tinygrad.cuda, tinygrad.metal); they register their devices in
    {!Tinygrad.Device} when linked. Depend on this library to run on a GPU. *)

(** The optional backends linked in: a sublist of ["CUDA"; "METAL"]. *)
val linked : unit -> string list
