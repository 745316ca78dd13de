(* tinygrad: examples/beautiful_mnist.py Model — shared by examples/beautiful_mnist.ml, test/test_training.ml and
   bench/bench_ops.ml *)

open Tinygrad
module T = Tensor
module S = Nn.State

type t = { layers : (T.t -> T.t) list; state : S.obj }

(* tinygrad: Model.__init__ (parameters drawn in tinygrad's order: sequenced with let) *)
let create () =
  let c1 = Nn.Conv2d.create 1 32 5 in
  let c2 = Nn.Conv2d.create 32 32 5 in
  let bn1 = Nn.BatchNorm.create 32 in
  let c3 = Nn.Conv2d.create 32 64 3 in
  let c4 = Nn.Conv2d.create 64 64 3 in
  let bn2 = Nn.BatchNorm.create 64 in
  let l = Nn.Linear.create 576 10 in
  let mp x = T.max_pool2d x in
  let sd entries = S.Dict (List.map (fun (k, t) -> (k, S.Tensor t)) entries) in
  { layers = [ Nn.Conv2d.forward c1; T.relu; Nn.Conv2d.forward c2; T.relu; Nn.BatchNorm.forward bn1; mp;
               Nn.Conv2d.forward c3; T.relu; Nn.Conv2d.forward c4; T.relu; Nn.BatchNorm.forward bn2; mp;
               (fun x -> T.flatten ~start_dim:1 x); Nn.Linear.forward l ];
    (* what get_parameters(model) walks: model.layers, the lambdas and Tensor methods holding no tensors *)
    state = S.Dict [ ("layers", S.List [
        sd (Nn.Conv2d.state_dict c1); S.Nothing; sd (Nn.Conv2d.state_dict c2); S.Nothing;
        sd (Nn.BatchNorm.state_dict bn1); S.Nothing; sd (Nn.Conv2d.state_dict c3); S.Nothing;
        sd (Nn.Conv2d.state_dict c4); S.Nothing; sd (Nn.BatchNorm.state_dict bn2); S.Nothing;
        S.Nothing; sd (Nn.Linear.state_dict l) ]) ] }

(* tinygrad: Model.__call__ (x.sequential(self.layers)) *)
let forward m x = Nn.sequential m.layers x

(* tinygrad: nn.state.get_parameters(model) *)
let parameters m = S.get_parameters m.state
