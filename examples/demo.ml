let () = print_endline "demo"
