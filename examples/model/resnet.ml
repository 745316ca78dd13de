(* tinygrad: extra/models/resnet.py — ResNet with BasicBlock and Bottleneck (torchvision's v1.5 layout),
   shared by the multi-device tests. The pretrained torchvision checkpoints (load_from_pretrained) are not
   ported: they are fetched from the network. *)

open Tinygrad
module T = Tensor
module S = Nn.State

type block_kind = Basic_block | Bottleneck

(* a BasicBlock's conv1/bn1, conv2/bn2, or a Bottleneck's conv1/bn1 .. conv3/bn3, applied in order with a
   relu between them; the downsample, when the block changes the stride or the width, is a 1x1 conv and a
   BatchNorm *)
type block = {
  convs : (Nn.Conv2d.t * Nn.BatchNorm.t) list;
  downsample : (Nn.Conv2d.t * Nn.BatchNorm.t) option;
}

type t = {
  num : int;
  conv1 : Nn.Conv2d.t;
  bn1 : Nn.BatchNorm.t;
  layers : block list list;
  fc : Nn.Linear.t option;
}

(* tinygrad: BasicBlock.expansion, Bottleneck.expansion *)
let expansion = function Basic_block -> 1 | Bottleneck -> 4

(* a conv without bias followed by its BatchNorm, drawn in that order *)
let conv_bn ?(stride = 1) ?(padding = 0) ?(groups = 1) cin cout k =
  let conv = Nn.Conv2d.create ~stride ~padding ~groups ~bias:false cin cout k in
  (conv, Nn.BatchNorm.create cout)

let downsample kind ~stride in_planes planes =
  if stride <> 1 || in_planes <> expansion kind * planes then
    Some (conv_bn ~stride in_planes (expansion kind * planes) 1)
  else None

(* tinygrad: BasicBlock.__init__ *)
let basic_block ~stride in_planes planes =
  let c1 = conv_bn ~stride ~padding:1 in_planes planes 3 in
  let c2 = conv_bn ~padding:1 planes planes 3 in
  { convs = [ c1; c2 ]; downsample = downsample Basic_block ~stride in_planes planes }

(* tinygrad: Bottleneck.__init__ (stride_in_1x1=False is the v1.5 variant: the stride on the 3x3 conv) *)
let bottleneck ~stride ~stride_in_1x1 ~groups ~base_width in_planes planes =
  let width = int_of_float (float_of_int planes *. (float_of_int base_width /. 64.)) * groups in
  let c1 = conv_bn ~stride:(if stride_in_1x1 then stride else 1) in_planes width 1 in
  let c2 = conv_bn ~padding:1 ~stride:(if stride_in_1x1 then 1 else stride) ~groups width width 3 in
  let c3 = conv_bn width (expansion Bottleneck * planes) 1 in
  { convs = [ c1; c2; c3 ]; downsample = downsample Bottleneck ~stride in_planes planes }

let apply_conv_bn (conv, bn) x = Nn.BatchNorm.forward bn (Nn.Conv2d.forward conv x)

(* tinygrad: BasicBlock.__call__, Bottleneck.__call__ *)
let block_forward b x =
  let rec go out = function
    | [] -> out
    | [ last ] -> apply_conv_bn last out
    | cb :: rest -> go (T.relu (apply_conv_bn cb out)) rest in
  let out = go x b.convs in
  let shortcut = match b.downsample with None -> x | Some cb -> apply_conv_bn cb x in
  T.relu (T.add out shortcut)

(* tinygrad: ResNet.__init__'s block and num_blocks tables *)
let architecture = function
  | 18 -> (Basic_block, [ 2; 2; 2; 2 ])
  | 34 -> (Basic_block, [ 3; 4; 6; 3 ])
  | 50 -> (Bottleneck, [ 3; 4; 6; 3 ])
  | 101 -> (Bottleneck, [ 3; 4; 23; 3 ])
  | 152 -> (Bottleneck, [ 3; 8; 36; 3 ])
  | n -> invalid_arg (Printf.sprintf "ResNet: no ResNet-%d (18, 34, 50, 101 or 152)" n)

(* tinygrad: ResNet.__init__ and ResNet._make_layer; the parameters are drawn in tinygrad's order *)
let create ?num_classes ?(groups = 1) ?(width_per_group = 64) ?(stride_in_1x1 = false) num =
  let kind, num_blocks = architecture num in
  if kind = Basic_block && (groups <> 1 || width_per_group <> 64) then
    invalid_arg "ResNet: BasicBlock only supports groups=1 and base_width=64";
  let in_planes = ref 64 in
  let make_layer planes n ~stride =
    List.init n (fun i ->
        let stride = if i = 0 then stride else 1 in
        let b = match kind with
          | Basic_block -> basic_block ~stride !in_planes planes
          | Bottleneck ->
            bottleneck ~stride ~stride_in_1x1 ~groups ~base_width:width_per_group !in_planes planes in
        in_planes := planes * expansion kind;
        b) in
  let conv1 = Nn.Conv2d.create ~stride:2 ~padding:3 ~bias:false 3 64 7 in
  let bn1 = Nn.BatchNorm.create 64 in
  let layers = List.map2 (fun (planes, stride) n -> make_layer planes n ~stride)
      [ (64, 1); (128, 2); (256, 2); (512, 2) ] num_blocks in
  let fc = Option.map (fun c -> Nn.Linear.create (512 * expansion kind) c) num_classes in
  { num; conv1; bn1; layers; fc }

(* tinygrad: ResNet18, ResNet34, ResNet50 (num_classes=1000) *)
let resnet18 ?(num_classes = 1000) () = create ~num_classes 18
let resnet34 ?(num_classes = 1000) () = create ~num_classes 34
let resnet50 ?(num_classes = 1000) () = create ~num_classes 50

(* the stem and the four stages; [features] keeps each stage's output *)
let stages m x =
  let out = T.relu (Nn.BatchNorm.forward m.bn1 (Nn.Conv2d.forward m.conv1 x)) in
  let out = T.max_pool2d ~kernel_size:3 ~stride:2 (T.pad out [| (0, 0); (0, 0); (1, 1); (1, 1) |]) in
  List.fold_left (fun (out, feats) layer ->
      let out = Nn.sequential (List.map block_forward layer) out in
      (out, out :: feats)) (out, []) m.layers

(* tinygrad: ResNet.forward with a classifier *)
let forward m x =
  match m.fc with
  | None ->
    invalid_arg
      (Printf.sprintf "ResNet-%d forward: no classifier (created without num_classes); use features" m.num)
  | Some fc ->
    let out, _ = stages m x in
    Nn.Linear.forward fc (T.cast (T.mean ~axis:[ 2; 3 ] out) Dtype.Float32)

(* tinygrad: ResNet.forward without a classifier (is_feature_only) *)
let features m x = List.rev (snd (stages m x))

let conv_bn_state (conv, bn) =
  [ S.of_named (Nn.Conv2d.state_dict conv); S.of_named (Nn.BatchNorm.state_dict bn) ]

let block_state b =
  let names = List.concat (List.mapi (fun i _ ->
      [ Printf.sprintf "conv%d" (i + 1); Printf.sprintf "bn%d" (i + 1) ]) b.convs) in
  let convs = List.combine names (List.concat_map conv_bn_state b.convs) in
  let downsample =
    Option.fold ~none:[] ~some:(fun cb -> [ ("downsample", S.List (conv_bn_state cb)) ]) b.downsample in
  S.Dict (convs @ downsample)

(* tinygrad: get_state_dict(model): the attributes in the order __init__ sets them *)
let state m =
  let layer i blocks = (Printf.sprintf "layer%d" (i + 1), S.List (List.map block_state blocks)) in
  S.Dict ([ ("conv1", S.of_named (Nn.Conv2d.state_dict m.conv1));
            ("bn1", S.of_named (Nn.BatchNorm.state_dict m.bn1)) ]
          @ List.mapi layer m.layers
          @ (match m.fc with None -> [] | Some fc -> [ ("fc", S.of_named (Nn.Linear.state_dict fc)) ]))

(* tinygrad: nn.state.get_parameters(model) *)
let parameters m = S.get_parameters (state m)
