(* placeholder: cases are added by the port of tinygrad's test_simplify_valid_idx *)
let tests : Test_util.case list = []
