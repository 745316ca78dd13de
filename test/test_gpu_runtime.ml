(* The GPU runtime logic that needs no GPU: the device registry for the optional CUDA/METAL backends, kernel
   signatures (against sources tinygrad 0.14.0 rendered: CUDARenderer sm_89 / MetalRenderer Apple9 on
   (a[:n] + b[:n]*2).contiguous() with n = Variable("n", 1, 64), whose ProgramInfo has globals (0, 1, 2) and one int
   var), argument packing, launch dims and limits, the LRU allocator over a fake allocator, the compiler's disk
   cache. *)

open Tinygrad.Compiler
open Test_util
module G = Gpu_launch

(* whether a backend is linked into this executable (tinygrad.backends selects it when its package is installed) *)
let linked d = List.mem d (Tinygrad_backends.linked ())

let contains s sub =
  let n = String.length s and m = String.length sub in
  let rec go i = i + m <= n && (String.sub s i m = sub || go (i + 1)) in
  go 0

(* the Invalid_argument message of [f ()] *)
let invalid_arg_msg ~what f =
  match f () with
  | _ -> fail "%s: expected Invalid_argument" what
  | exception Invalid_argument m -> m

let check_contains ~what s sub = check (contains s sub) "%s: %S does not contain %S" what s sub

(* tinygrad 0.14.0's CUDARenderer("sm_89") output for the E_n kernel (see the header) *)
let cuda_src =
  "typedef unsigned int uint;\n\
   #define INFINITY (__int_as_float(0x7f800000))\n\
   #define NAN (__int_as_float(0x7fffffff))\n\
   template <class T, class F> __device__ __forceinline__ T tg_bitcast(F v) { union U { F f; T t; }; U u; u.f = v; return u.t; }\n\
   extern \"C\" __global__ void __launch_bounds__(1) E_n(float* data0_64, float* data1_64, float* data2_64, const int data3_) {\n\
  \  int gidx0 = blockIdx.x; /* n */\n\
  \  float val0 = (*(data1_64+gidx0));\n\
  \  float val1 = (*(data2_64+gidx0));\n\
  \  *(data0_64+gidx0) = (val0+(val1*2.0f));\n\
   }"

(* tinygrad 0.14.0's MetalRenderer (Apple9) output for the same kernel *)
let metal_src =
  "#include <metal_stdlib>\n\
   using namespace metal;\n\
   kernel void E_n(device float* data0_64, device float* data1_64, device float* data2_64, constant int& data3_, uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {\n\
  \  int gidx0 = gid.x; /* n */\n\
  \  float val0 = (*(data1_64+gidx0));\n\
  \  float val1 = (*(data2_64+gidx0));\n\
  \  *(data0_64+gidx0) = (val0+(val1*2.0f));\n\
   }"

let params_str ps = String.concat " " (List.map G.param_to_string ps)

(* ---------- a fake allocator: opaque ids, a log of the raw calls ---------- *)

type Device.opaque += Fake of int

let fake_allocator ?(fail_on = []) () =
  let next = ref 0 and log = ref [] and calls = ref 0 in
  let alloc size (_ : Device.buffer_spec) =
    incr calls;
    if List.mem !calls fail_on then (log := Printf.sprintf "fail %d" size :: !log; failwith "fake OOM");
    incr next; log := Printf.sprintf "alloc %d -> %d" size !next :: !log; Fake !next in
  let free o size _ = match o with
    | Fake i -> log := Printf.sprintf "free %d (%d)" i size :: !log
    | _ -> fail "fake free: not fake memory" in
  let copyin : 'a 'b. Device.opaque -> int -> ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> unit = fun _ _ _ -> () in
  let copyout : 'a 'b. ('a, 'b, Bigarray.c_layout) Bigarray.Array1.t -> Device.opaque -> int -> unit = fun _ _ _ -> () in
  let a : Device.allocator =
    { alloc; free; copyin; copyout; addr = (function Fake i -> Nativeint.of_int (i * 0x1000) | _ -> 0n);
      free_cache = (fun () -> ()); as_host = None; transfer = None } in
  (a, fun () -> List.rev !log)

let fake_id = function Fake i -> i | _ -> -1

let spec = Device.default_spec

let tests : case list = [
  (* ---------- registry ---------- *)
  ("registry: CUDA and METAL unavailable with the reason", fun () ->
      let un = Device.unavailable () in
      List.iter (fun (d, r) -> Printf.printf "  %s unavailable: %s\n" d r) un;
      if not (linked "CUDA") then begin
        check (not (List.mem "CUDA" (Device.registered ()))) "CUDA registered without its backend";
        (* without cudajit no plugin was built; with it, the plugin's missing libraries are the reason *)
        match List.assoc_opt "CUDA" un with
        | Some r ->
          check (r = "backend not built (opam package cudajit >= 0.7.2 not installed)"
                 || (contains r ".so" && contains r " not found: ")) "CUDA reason: %S" r
        | None -> fail "CUDA not listed unavailable"
      end;
      if not (linked "METAL") then begin
        check (not (List.mem "METAL" (Device.registered ()))) "METAL registered without its backend";
        match List.assoc_opt "METAL" un with
        | Some r -> check_contains ~what:"METAL reason" r "opam package metal >= 0.1.1 not installed"
        | None -> fail "METAL not listed unavailable"
      end;
      check (List.mem "CPU" (Device.registered ())) "CPU not registered";
      check (not (List.mem_assoc "CPU" un)) "CPU listed unavailable";
      (* ALL_DEVICES order: METAL before CUDA *)
      if not (linked "CUDA" || linked "METAL") then
        check_str ~what:"order" "METAL CUDA" (String.concat " " (List.map fst (List.filter (fun (d, _) -> d = "CUDA" || d = "METAL") un))));

  ("registry: Device.get CUDA/METAL raise Invalid_argument naming the device", fun () ->
      if not (linked "CUDA") then begin
        let reason = Option.get (Device.unavailable_reason "CUDA") in
        let m = invalid_arg_msg ~what:"get CUDA" (fun () -> Device.get "CUDA") in
        check_str ~what:"message" ("Device.get: CUDA: " ^ reason) m;
        let m = invalid_arg_msg ~what:"get cuda:1" (fun () -> Device.get "cuda:1") in
        check_contains ~what:"cuda:1" m ("CUDA: " ^ reason);
        check_contains ~what:"renderer" (invalid_arg_msg ~what:"renderer" (fun () -> Device.renderer "CUDA")) ("CUDA: " ^ reason)
      end;
      if not (linked "METAL") then
        check_contains ~what:"METAL" (invalid_arg_msg ~what:"get METAL" (fun () -> Device.get "METAL")) "Device.get: METAL: backend not built";
      check_contains ~what:"unknown" (invalid_arg_msg ~what:"get FOO" (fun () -> Device.get "FOO")) "no device FOO");

  ("registry: DEV=CUDA raises Invalid_argument with the reason", fun () ->
      if not (linked "CUDA") then begin
        let m = Helpers.context [ Bind (Helpers.dev, Helpers.dev_of_string "CUDA") ] (fun () ->
            invalid_arg_msg ~what:"default" (fun () -> Device.default ())) in
        check_str ~what:"message" ("DEV=CUDA: CUDA: " ^ Option.get (Device.unavailable_reason "CUDA")) m;
        (* a tensor on the default device fails the same way *)
        ignore (Helpers.context [ Bind (Helpers.dev, Helpers.dev_of_string "CUDA") ] (fun () ->
            invalid_arg_msg ~what:"tensor" (fun () -> Tensor.realize (Tensor.of_float_array [| 2 |] [| 1.; 2. |]))))
      end;
      Helpers.context [ Bind (Helpers.dev, Helpers.dev_of_string "CPU") ] (fun () ->
          check_str ~what:"DEV=CPU" "CPU" (Device.default ())));

  ("registry: a registered class opens, times through timed_call, and can be marked unavailable", fun () ->
      let alloc, _ = fake_allocator () in
      let calls = ref 0 in
      let prog = { Device.name = "k"; call = (fun _ ~global_size:_ ~local_size:_ -> incr calls);
                   timed_call = Some (fun _ ~global_size:_ ~local_size:_ -> incr calls; 0.125) } in
      let make name = { Device.device = name; allocator = alloc;
                        compiler = { cachekey = None; compile = Fun.id; compile_cached = Fun.id; compile_many = ignore; prefetch = ignore };
                        runtime = (fun ~name:_ ~lib:_ ~runtimevars:_ -> prog); synchronize = (fun () -> ()) } in
      Device.register "DSP" make;
      check (List.mem "DSP" (Device.registered ())) "DSP not registered";
      check (Device.unavailable_reason "DSP" = None) "DSP unavailable after register";
      let d = Device.get "dsp" in
      check_str ~what:"device" "DSP" d.device;
      let l = Device.Launch.create ~nbufs:0 ~nvars:0 in
      let t = Device.run_program ~wait:true prog l in
      check (t = 0.125) "timed_call time: %g" t;
      check (Device.run_program prog l = 0.0) "no wait: 0";
      check_int ~what:"calls" 2 !calls;
      Device.set_unavailable "DSP" "fake device removed";
      check (not (List.mem "DSP" (Device.registered ()))) "DSP still registered";
      check_contains ~what:"reason" (invalid_arg_msg ~what:"get DSP:1" (fun () -> Device.get "DSP:1")) "DSP: fake device removed");

  (* ---------- signatures ---------- *)
  ("signature: CUDA source (3 buffers, 1 int var)", fun () ->
      let name, ps = G.parse_signature ~marker:"__global__" cuda_src in
      check_str ~what:"name" "E_n" name;
      check_str ~what:"params" "ptr ptr ptr i32" (params_str ps));

  ("signature: Metal source ([[...]] builtins are not params)", fun () ->
      let name, ps = G.parse_signature ~marker:"kernel void" metal_src in
      check_str ~what:"name" "E_n" name;
      check_str ~what:"params" "ptr ptr ptr i32" (params_str ps));

  ("signature: launch bounds, long vars, the last kernel", fun () ->
      let src = "extern \"C\" __global__ void helper(float* x) {}\n\
                 extern \"C\" __global__ void __launch_bounds__(256) r_4_2(float* data0, const long long n, const int m, const half* __restrict__ data1) { }" in
      let name, ps = G.parse_signature ~marker:"__global__" src in
      check_str ~what:"name" "r_4_2" name;
      check_str ~what:"params" "ptr i64 i32 ptr" (params_str ps);
      let name, ps = G.parse_signature ~marker:"kernel void" "kernel void k(constant long& v, uint3 gid [[threadgroup_position_in_grid]]) {}" in
      check_str ~what:"metal name" "k" name;
      check_str ~what:"metal long" "i64" (params_str ps);
      check_invalid_arg ~what:"no kernel" (fun () -> G.parse_signature ~marker:"__global__" "void f(int x) {}"));

  ("signature: header round trip", fun () ->
      let lib = G.with_signature ~marker:"__global__" cuda_src ".version 8.0\n.target sm_89\n" in
      check_str ~what:"header" "// tinygrad-signature: E_n ptr ptr ptr i32\n.version 8.0\n.target sm_89\n" lib;
      let name, ps, body = G.split_signature lib in
      check_str ~what:"name" "E_n" name;
      check_str ~what:"params" "ptr ptr ptr i32" (params_str ps);
      check_str ~what:"body" ".version 8.0\n.target sm_89\n" body;
      let _, ps, body = G.split_signature (G.signature_header "k" []) in
      check_str ~what:"no params" "" (params_str ps);
      check_str ~what:"empty body" "" body;
      check_invalid_arg ~what:"no header" (fun () -> G.split_signature ".version 8.0"));

  (* ---------- argument packing ---------- *)
  ("args: buffers then vars, in parameter order, view offsets recovered", fun () ->
      let a = Device.Buffer.create "CPU" 16 Dtype.Float32 and b = Device.Buffer.create "CPU" 8 Dtype.Int32 in
      let v = Device.Buffer.view a 4 Dtype.Float32 12 in
      let l = Device.Launch.of_buffers [ a; v; b ] [ 7; (1 lsl 33) + 5 ] in
      let addr o = (Device.get "CPU").allocator.addr o in
      let args = G.pack_args ~addr ~name:"k" [ G.Ptr; Ptr; Ptr; Int32; Int64 ] l in
      (match args with
       | [ Buf a0; Buf a1; Buf a2; Var32 x; Var64 y ] ->
         check ((a0.slot, a1.slot, a2.slot) = (0, 1, 2)) "slots";
         check_int ~what:"offset a" 0 a0.offset;
         check_int ~what:"offset view" 12 a1.offset;
         check (a1.mem == a0.mem) "the view's memory is its base's";
         check (a1.address = Nativeint.add a0.address 12n) "view address";
         check_int ~what:"offset b" 0 a2.offset;
         check (x = 7l) "var32 %ld" x;
         check (y = Int64.add (Int64.shift_left 1L 33) 5L) "var64 %Ld" y
       | _ -> fail "packed %d args of the wrong kinds" (List.length args));
      (* an int32 var is truncated as a C int *)
      (match G.pack_args ~addr ~name:"k" [ G.Ptr; Int32 ] (Device.Launch.of_buffers [ a ] [ (1 lsl 32) + 3 ]) with
       | [ Buf _; Var32 x ] -> check (x = 3l) "truncated %ld" x
       | _ -> fail "kinds");
      (* interleaved parameters still take buffers and vars in their own order *)
      (match G.pack_args ~addr ~name:"k" [ G.Int32; Ptr; Int32; Ptr ] (Device.Launch.of_buffers [ a; b ] [ 1; 2 ]) with
       | [ Var32 1l; Buf p0; Var32 2l; Buf p1 ] -> check_int ~what:"slots" 1 (p0.slot * 10 + p1.slot)
       | _ -> fail "interleaved");
      let m = invalid_arg_msg ~what:"missing buffer" (fun () -> G.pack_args ~addr ~name:"E_n" [ G.Ptr; Ptr ] (Device.Launch.of_buffers [ a ] [])) in
      check_contains ~what:"missing buffer" m "E_n: buffer argument 1";
      check_invalid_arg ~what:"unset slot" (fun () -> G.pack_args ~addr ~name:"k" [ G.Ptr ] (Device.Launch.create ~nbufs:1 ~nvars:0));
      check_invalid_arg ~what:"missing var" (fun () -> G.pack_args ~addr ~name:"k" [ G.Int32; Int32 ] (Device.Launch.of_buffers [] [ 1 ])));

  (* ---------- launch dims ---------- *)
  ("dims: padded to 3, empty launches, limits", fun () ->
      let (g, l) = G.launch_dims ~global_size:[| 4; 2 |] ~local_size:[| 32 |] in
      check (g = (4, 2, 1) && l = (32, 1, 1)) "padded";
      check (G.launch_dims ~global_size:[||] ~local_size:[||] = ((1, 1, 1), (1, 1, 1))) "empty arrays are 1,1,1";
      check (G.is_empty ((4, 0, 1), (1, 1, 1))) "a 0 dim is empty";
      check (not (G.is_empty ((4, 1, 1), (2, 2, 2)))) "not empty";
      check_invalid_arg ~what:"4 dims" (fun () -> G.dims3 ~what:"global_size" [| 1; 1; 1; 1 |]);
      check_invalid_arg ~what:"negative" (fun () -> G.dims3 ~what:"local_size" [| -1 |]);
      let lim = G.check_limits ~device:"CUDA" ~max_block:(1024, 1024, 64) ~max_threads:1024 ~max_grid:(2147483647, 65535, 65535) in
      lim ((65536, 1, 1), (1024, 1, 1));
      check_contains ~what:"threads" (invalid_arg_msg ~what:"threads" (fun () -> lim ((1, 1, 1), (64, 32, 1)))) "CUDA: local size (64,32,1) has 2048 threads, at most 1024";
      check_contains ~what:"block z" (invalid_arg_msg ~what:"block" (fun () -> lim ((1, 1, 1), (1, 1, 128)))) "exceeds the block dims";
      check_contains ~what:"grid" (invalid_arg_msg ~what:"grid" (fun () -> lim ((1, 65536, 1), (1, 1, 1)))) "exceeds the grid dims");

  ("dims: program_dims substitutes the vars", fun () ->
      let n = Uop.variable_int ~dtype:Dtype.Int32 "n" 1 64 in
      let info = { Uop.pname = "E_n"; global_size = [ Uop.Suop (Uop.mul n (Uop.const_int ~dtype:Dtype.Int32 4)); Sint 1; Sint 1 ];
                   local_size = Some [ Sint 32; Sint 1; Sint 1 ]; vars = [ n ]; globals = [ 0; 1 ]; outs = [ 0 ]; ins = [ 1 ] } in
      let g, l = G.program_dims info [ ("n", 8) ] in
      check (g = [| 32; 1; 1 |]) "global";
      check (l = Some [| 32; 1; 1 |]) "local";
      let _, l = G.program_dims { info with local_size = None } [ ("n", 3) ] in
      check (l = None) "local None");

  ("arch: compute capability to tinygrad's arch and NVRTC's option", fun () ->
      check_str ~what:"arch" "sm_89" (G.cuda_arch ~major:8 ~minor:9);
      check_str ~what:"arch" "sm_90" (G.cuda_arch ~major:9 ~minor:0);
      check_str ~what:"nvrtc" "--gpu-architecture=compute_90" (String.concat " " (G.nvrtc_options ~major:9 ~minor:0)));

  (* ---------- the LRU allocator (tinygrad LRUAllocator) over a fake allocator ---------- *)
  ("lru: a freed buffer is reused for the same size and spec", fun () ->
      let base, log = fake_allocator () in
      let a = Device.lru_allocator base in
      let x = a.alloc 64 spec in
      a.free x 64 spec;
      let y = a.alloc 64 spec in
      check_int ~what:"reused" (fake_id x) (fake_id y);
      let z = a.alloc 32 spec in
      check (fake_id z <> fake_id x) "other size, new memory";
      let w = a.alloc 64 { spec with uncached = true } in
      check (fake_id w <> fake_id x) "other spec, new memory";
      check_str ~what:"log" "alloc 64 -> 1; alloc 32 -> 2; alloc 64 -> 3" (String.concat "; " (log ())));

  ("lru: nolru/zero buffers are freed at once; LRU=0 disables the cache", fun () ->
      let base, log = fake_allocator () in
      let a = Device.lru_allocator base in
      let x = a.alloc 16 { spec with nolru = true } in
      a.free x 16 { spec with nolru = true };
      let y = a.alloc 16 { spec with zero = true } in
      a.free y 16 { spec with zero = true };
      Helpers.context [ Bind (Helpers.lru, 0) ] (fun () -> let z = a.alloc 8 spec in a.free z 8 spec);
      check_str ~what:"log" "alloc 16 -> 1; free 1 (16); alloc 16 -> 2; free 2 (16); alloc 8 -> 3; free 3 (8)"
        (String.concat "; " (log ())));

  ("lru: free_cache frees every cached buffer; an allocation failure frees the cache and retries once", fun () ->
      let base, log = fake_allocator () in
      let a = Device.lru_allocator base in
      let x = a.alloc 16 spec and y = a.alloc 16 spec in
      a.free x 16 spec; a.free y 16 spec;
      a.free_cache ();
      let z = a.alloc 16 spec in
      check_int ~what:"fresh after free_cache" 3 (fake_id z);
      check_str ~what:"log" "alloc 16 -> 1; alloc 16 -> 2; free 2 (16); free 1 (16); alloc 16 -> 3" (String.concat "; " (log ()));
      (* tinygrad: a failed raw allocation frees the cache and is retried once (a backend's OOM is a Failure) *)
      let base, log = fake_allocator ~fail_on:[ 2 ] () in
      let a = Device.lru_allocator base in
      let x = a.alloc 8 spec in
      a.free x 8 spec;
      let y = a.alloc 4 spec in
      check_int ~what:"retried" 2 (fake_id y);
      check_str ~what:"log" "alloc 8 -> 1; fail 4; free 1 (8); alloc 4 -> 2" (String.concat "; " (log ()));
      let base, _ = fake_allocator ~fail_on:[ 1; 2 ] () in
      let a = Device.lru_allocator base in
      (match a.alloc 4 spec with _ -> fail "two failures should raise" | exception Failure _ -> ()));

  (* ---------- the compiler's disk cache ---------- *)
  ("compile_cached: compiled once per source, CCACHE-style None compiles every time", fun () ->
      let count = ref 0 in
      let compile s = incr count; "LIB:" ^ s in
      let src = Printf.sprintf "kernel %d %f" (Compiler_cpu.getpid_for_tests ()) (Unix.gettimeofday ()) in
      let key = Some "test_gpu_runtime" in
      check_str ~what:"first" ("LIB:" ^ src) (G.compile_cached ~cachekey:key ~compile src);
      check_str ~what:"second" ("LIB:" ^ src) (G.compile_cached ~cachekey:key ~compile src);
      check_int ~what:"compiles" 1 !count;
      ignore (G.compile_cached ~cachekey:None ~compile src);
      ignore (G.compile_cached ~cachekey:None ~compile src);
      check_int ~what:"compiles without cache" 3 !count);

  (* ---------- the selected device (DEV): run.sh's first check on a GPU ---------- *)
  ("device: DEV's device opens and computes x*2+1 on a buffer", fun () ->
      let dev = Device.default () in
      let d = Device.get dev in
      Printf.printf "  DEV device %s opens\n" d.device;
      let x = Tensor.of_float_array ~device:dev [| 3 |] [| 1.; -2.; 0.5 |] in
      let y = Tensor.to_float_array Tensor.(add (mul x (full ~device:dev [| 3 |] 2.)) (full ~device:dev [| 3 |] 1.)) in
      check (y = [| 3.; -3.; 2. |]) "x*2+1: got %s" (String.concat " " (Array.to_list (Array.map string_of_float y))));

  ("device: Buffer.copy_from between two buffers of DEV's device, whole and between views", fun () ->
      (* on CUDA the whole copy is the allocator's transfer (cuMemcpyDtoD within a device, tinygrad's _transfer)
         and the views' copy goes through the host; on the CPU both are one blit through the shared memory *)
      let dev = Device.default () in
      let mk () = Device.Buffer.ensure_allocated (Device.Buffer.create dev 8 Dtype.Float32) in
      let src = mk () and dst = mk () in
      let xs = [| 1.5; -2.; 3.25; 0.; 7.; -8.5; 0.125; 42. |] in
      Device.Buffer.copyin_floats src xs;
      Device.Buffer.copyin_floats dst (Array.make 8 0.);
      Device.Buffer.copy_from dst src;
      check (Device.Buffer.to_floats dst = xs) "whole copy on %s" dev;
      Device.Buffer.copyin_floats dst (Array.make 8 0.);
      (* src's elements 2..5 into dst's elements 4..7 *)
      Device.Buffer.copy_from (Device.Buffer.view dst 4 Dtype.Float32 16) (Device.Buffer.view src 4 Dtype.Float32 8);
      check (Device.Buffer.to_floats dst = [| 0.; 0.; 0.; 0.; 3.25; 0.; 7.; -8.5 |]) "view copy on %s" dev);

  (* ---------- CUDA error messages (Gpu_errors), from statuses and texts written here, no GPU ---------- *)
  ("errors: a failing driver call names the C call, the CUresult and a hint", fun () ->
      check_str ~what:"call name" "cuDeviceGetCount" (Gpu_errors.c_call_name "cu_device_get_count");
      check_str ~what:"not a call" "something else" (Gpu_errors.c_call_name "something else");
      check_str ~what:"no device"
        "CUDA error: cuInit failed with CUDA_ERROR_NO_DEVICE (hint: no CUDA-capable GPU is visible to the driver: check nvidia-smi and CUDA_VISIBLE_DEVICES)"
        (Gpu_errors.driver_error ~call:"cu_init" ~status:"CUDA_ERROR_NO_DEVICE");
      let m = Gpu_errors.driver_error ~call:"cu_init" ~status:"CUDA_ERROR_STUB_LIBRARY" in
      check_contains ~what:"stub" m "cuInit failed with CUDA_ERROR_STUB_LIBRARY (hint: libcuda.so.1 is the CUDA toolkit's stub";
      check_contains ~what:"old driver" (Gpu_errors.driver_error ~call:"cu_ctx_create" ~status:"CUDA_ERROR_INSUFFICIENT_DRIVER")
        "cuCtxCreate failed with CUDA_ERROR_INSUFFICIENT_DRIVER (hint: the NVIDIA driver is older";
      check_contains ~what:"ptx" (Gpu_errors.driver_error ~call:"cu_module_load_data_ex" ~status:"CUDA_ERROR_UNSUPPORTED_PTX_VERSION")
        "cuModuleLoadDataEx failed with CUDA_ERROR_UNSUPPORTED_PTX_VERSION (hint: NVRTC produced PTX";
      (* a status without advice: no hint *)
      check_str ~what:"no hint" "CUDA error: cuMemFree failed with CUDA_ERROR_INVALID_VALUE"
        (Gpu_errors.driver_error ~call:"cu_mem_free" ~status:"CUDA_ERROR_INVALID_VALUE"));

  ("errors: an NVRTC failure keeps the compile log, after the call and status", fun () ->
      (* the message cudajit raises with: call, program name, log *)
      let m = Gpu_errors.nvrtc_error ~status:"NVRTC_ERROR_COMPILATION"
          ~call:"nvrtc_compile_program <null>: <null>(3): error: identifier \"x\" is undefined\n1 error detected" in
      check_str ~what:"compile"
        "NVRTC error: nvrtcCompileProgram <null> failed with NVRTC_ERROR_COMPILATION (hint: the kernel does not compile: NVRTC log below)\n<null>(3): error: identifier \"x\" is undefined\n1 error detected" m;
      let opt = Gpu_errors.nvrtc_error ~call:"nvrtc_compile_program k: " ~status:"NVRTC_ERROR_INVALID_OPTION" in
      check_contains ~what:"option" opt "failed with NVRTC_ERROR_INVALID_OPTION (hint: this NVRTC does not know an option";
      check_int ~what:"no empty log line" 0 (List.length (String.split_on_char '\n' opt) - 1));

  ("plugin: every unit the CUDA plugin imports is in the program that loads it", fun () ->
      (* Dynlink refuses a plugin that imports a unit the program did not link ("no implementation available"):
         the standard modules a program does not use itself, on a GPU machine only (without libcuda the load
         fails earlier) *)
      let exe_dir = Filename.dirname Sys.executable_name in
      let plugin = List.fold_left Filename.concat exe_dir [ Filename.parent_dir_name; "src"; "runtime"; "cuda";
                                                            "tinygrad_cuda_plugin.cmxs" ] in
      if not (Sys.file_exists plugin) then skip "the CUDA plugin is not built (cudajit not installed)"
      else if Sys.command "ocamlobjinfo -help >/dev/null 2>&1" <> 0 then skip "ocamlobjinfo not found"
      else begin
        (* ocamlobjinfo: "Name: U" per unit of the plugin, then its "Implementations imported:" lines *)
        let ic = Unix.open_process_args_in "ocamlobjinfo" [| "ocamlobjinfo"; plugin |] in
        let own = Hashtbl.create 256 and imported = Hashtbl.create 256 in
        let rec go in_impls = match input_line ic with
          | l when String.length l > 6 && String.sub l 0 6 = "Name: " ->
            Hashtbl.replace own (String.sub l 6 (String.length l - 6)) (); go false
          | l when String.trim l = "Implementations imported:" -> go true
          | l when in_impls && String.length l > 0 && l.[0] = '\t' ->
            (match List.rev (String.split_on_char '\t' (String.trim l)) with
             | u :: _ -> Hashtbl.replace imported (String.trim u) (); go true
             | [] -> go true)
          | _ -> go false
          | exception End_of_file -> ignore (Unix.close_process_in ic) in
        go false;
        check (Hashtbl.length own > 10) "ocamlobjinfo named %d units of the plugin" (Hashtbl.length own);
        let program = Dynlink.main_program_units () in
        let missing = Hashtbl.fold (fun u () acc ->
            if Hashtbl.mem own u || List.mem u program then acc else u :: acc) imported [] in
        check (missing = []) "units the plugin imports, not in the program: %s"
          (String.concat " " (List.sort compare missing))
      end);
  ("errors: a plugin whose libraries are missing names the library and what provides it", fun () ->
      (* the text of Dynlink.error_message for a failed dlopen (glibc's dlerror) *)
      let err lib = Printf.sprintf "error while loading shared libraries: Failure(\"%s: cannot open shared object file: No such file or directory\")" lib in
      check_str ~what:"libcuda"
        "libcuda.so.1 not found: no NVIDIA driver is installed (libcuda comes with the driver, not the toolkit)"
        (Gpu_errors.plugin_failure ~plugin:"p.cmxs" (err "libcuda.so.1"));
      check_contains ~what:"libnvrtc" (Gpu_errors.plugin_failure ~plugin:"p.cmxs" (err "libnvrtc.so.13"))
        "libnvrtc.so.13 not found: install NVRTC from the CUDA toolkit or pip's nvidia-cuda-nvrtc wheel";
      check_str ~what:"other lib" "libfoo.so.2 not found (needed by p.cmxs)"
        (Gpu_errors.plugin_failure ~plugin:"p.cmxs" (err "/opt/x/libfoo.so.2"));
      check_str ~what:"other error" "p.cmxs cannot be loaded: interface mismatch"
        (Gpu_errors.plugin_failure ~plugin:"p.cmxs" "interface mismatch"));

  ("errors: DEV naming a device that cannot start raises Invalid_argument when it is selected", fun () ->
      let make _ = failwith "CUDA error: cuInit failed with CUDA_ERROR_NO_DEVICE" in
      Device.register "QCOM" make;
      let m = Helpers.context [ Bind (Helpers.dev, Helpers.dev_of_string "QCOM") ] (fun () ->
          invalid_arg_msg ~what:"default" (fun () -> Device.default ())) in
      Device.set_unavailable "QCOM" "fake device removed";
      check_str ~what:"message" "DEV=QCOM: QCOM cannot start: Failure(\"CUDA error: cuInit failed with CUDA_ERROR_NO_DEVICE\")" m);
]
