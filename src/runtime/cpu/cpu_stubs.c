/* C side of the CPU runtime: raw addresses of Bigarrays, dlopen/dlsym, the uniform kernel launch
   (entry(void **bufs, long long *vars)), a monotonic clock and a few machine queries.
   Builds against OCaml 4.13 and 5.x (only the stable caml/*.h API is used). */
#define _GNU_SOURCE
#include <string.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <dlfcn.h>
#include <caml/mlvalues.h>
#include <caml/alloc.h>
#include <caml/memory.h>
#include <caml/fail.h>
#include <caml/bigarray.h>
#include <caml/signals.h>

typedef void (*tg_entry_fn)(void **bufs, long long *vars);

/* the address of a Bigarray's data: stable, Bigarray data is never moved by the GC */
value tg_ba_addr(value ba) { return caml_copy_nativeint((intnat)Caml_ba_data_val(ba)); }

/* byte size of any Bigarray */
value tg_ba_nbytes(value ba) { return Val_long(caml_ba_byte_size(Caml_ba_array_val(ba))); }

/* memmove between two Bigarrays of any kinds, byte offsets; bounds are checked by the OCaml caller */
value tg_ba_blit(value src, value src_off, value dst, value dst_off, value n) {
  memmove((char *)Caml_ba_data_val(dst) + Long_val(dst_off), (char *)Caml_ba_data_val(src) + Long_val(src_off),
          Long_val(n));
  return Val_unit;
}

/* memmove from a raw address into a Bigarray and back (for buffers whose memory is only known by address) */
value tg_addr_to_ba(value addr, value dst, value dst_off, value n) {
  memmove((char *)Caml_ba_data_val(dst) + Long_val(dst_off), (void *)Nativeint_val(addr), Long_val(n));
  return Val_unit;
}
value tg_ba_to_addr(value src, value src_off, value addr, value n) {
  memmove((void *)Nativeint_val(addr), (char *)Caml_ba_data_val(src) + Long_val(src_off), Long_val(n));
  return Val_unit;
}

value tg_dlopen(value path) {
  CAMLparam1(path);
  void *h = dlopen(String_val(path), RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) { const char *e = dlerror(); caml_failwith(e ? e : "dlopen failed"); }
  CAMLreturn(caml_copy_nativeint((intnat)h));
}

value tg_dlsym(value handle, value name) {
  CAMLparam2(handle, name);
  dlerror();
  void *p = dlsym((void *)Nativeint_val(handle), String_val(name));
  if (p == NULL) { const char *e = dlerror(); caml_failwith(e ? e : "dlsym: symbol is NULL"); }
  CAMLreturn(caml_copy_nativeint((intnat)p));
}

/* Launch: [bufs] is a nativeint Bigarray of raw pointers, [vars] an int64 Bigarray of int vars. If [slot] >= 0,
   vars[slot] is the core_id and the kernel runs for core_id = 0 .. n-1 (tinygrad runs the shards in order). */
static inline void tg_launch(intnat fn, value bufs, value vars, intnat slot, intnat n) {
  tg_entry_fn f = (tg_entry_fn)fn;
  void **b = (void **)Caml_ba_data_val(bufs);
  long long *v = (long long *)Caml_ba_data_val(vars);
  if (slot < 0) { f(b, v); return; }
  for (intnat i = 0; i < n; i++) { v[slot] = i; f(b, v); }
}

/* noalloc fast path: the runtime lock is kept */
value tg_cpu_call(intnat fn, value bufs, value vars, intnat slot, intnat n) {
  tg_launch(fn, bufs, vars, slot, n);
  return Val_unit;
}
value tg_cpu_call_byte(value fn, value bufs, value vars, value slot, value n) {
  return tg_cpu_call(Nativeint_val(fn), bufs, vars, Long_val(slot), Long_val(n));
}

/* the same, releasing the runtime lock around the kernel (other OCaml threads/domains run meanwhile);
   the Bigarray data pointers stay valid as the caller keeps the Bigarrays alive */
value tg_cpu_call_blocking(intnat fn, value bufs, value vars, intnat slot, intnat n) {
  CAMLparam2(bufs, vars);
  tg_entry_fn f = (tg_entry_fn)fn;
  void **b = (void **)Caml_ba_data_val(bufs);
  long long *v = (long long *)Caml_ba_data_val(vars);
  caml_enter_blocking_section();
  if (slot < 0) f(b, v);
  else for (intnat i = 0; i < n; i++) { v[slot] = i; f(b, v); }
  caml_leave_blocking_section();
  CAMLreturn(Val_unit);
}
value tg_cpu_call_blocking_byte(value fn, value bufs, value vars, value slot, value n) {
  return tg_cpu_call_blocking(Nativeint_val(fn), bufs, vars, Long_val(slot), Long_val(n));
}

/* monotonic clock in nanoseconds */
intnat tg_time_ns(value unit) {
  (void)unit;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (intnat)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
value tg_time_ns_byte(value unit) { return Val_long(tg_time_ns(unit)); }

/* CPUs this process may run on (sched affinity), as os.sched_getaffinity in tinygrad's _get_cpu_count */
value tg_cpu_count(value unit) {
  (void)unit;
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) { int c = CPU_COUNT(&set); if (c > 0) return Val_int(c); }
#endif
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return Val_int(c > 0 ? c : 1);
}

/* the machine, as tinygrad's platform.machine() normalised: x86_64, arm64, riscv64 */
value tg_machine(value unit) {
  (void)unit;
#if defined(__x86_64__)
  return caml_copy_string("x86_64");
#elif defined(__aarch64__)
  return caml_copy_string("arm64");
#elif defined(__riscv) && __riscv_xlen == 64
  return caml_copy_string("riscv64");
#else
  return caml_copy_string("unknown");
#endif
}

/* a zero-filled (when asked) 64-byte aligned char Bigarray, freed by the GC (CAML_BA_MANAGED frees with free()) */
value tg_alloc_aligned(value vsize, value vzero) {
  intnat size = Long_val(vsize);
  void *p = NULL;
  if (posix_memalign(&p, 64, size > 0 ? (size_t)size : 1) != 0 || p == NULL) caml_raise_out_of_memory();
  if (Bool_val(vzero)) memset(p, 0, size);
  return caml_ba_alloc_dims(CAML_BA_CHAR | CAML_BA_C_LAYOUT | CAML_BA_MANAGED, 1, p, size);
}

value tg_getpid(value unit) { (void)unit; return Val_long(getpid()); }
