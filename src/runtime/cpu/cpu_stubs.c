/* C side of the CPU runtime: raw addresses of Bigarrays, dlopen/dlsym, the uniform kernel launch
   (entry(void **bufs, long long *vars)), a monotonic clock and a few machine queries.
   Builds against OCaml 4.13 and 5.x (only the stable caml/*.h API is used). */
#define _GNU_SOURCE
#include <sys/mman.h>
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

/* a char Bigarray over the first n bytes of another Bigarray's data, not owning them (the OCaml side keeps the
   owner alive as long as the alias) */
value tg_ba_bytes_alias(value ba, value vn) {
  CAMLparam1(ba);
  CAMLreturn(caml_ba_alloc_dims(CAML_BA_CHAR | CAML_BA_C_LAYOUT | CAML_BA_EXTERNAL, 1, Caml_ba_data_val(ba),
                                Long_val(vn)));
}

/* tells the OS the whole pages inside a Bigarray's data will not be needed soon (MADV_DONTNEED): for a private
   file mapping nobody wrote to, they leave the resident set and are read again from the file if touched */
value tg_ba_release_pages(value ba) {
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t start = (uintptr_t)Caml_ba_data_val(ba);
  uintptr_t end = start + caml_ba_byte_size(Caml_ba_array_val(ba));
  uintptr_t lo = (start + page - 1) / page * page, hi = end / page * page;
  if (page > 0 && hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
  return Val_unit;
}

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

value tg_dlclose(value handle) {
  dlclose((void *)Nativeint_val(handle));
  return Val_unit;
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

/* ---------- the thread pool for core_id shards (tinygrad runs them one after another) ----------
   A persistent pool of pthreads, created lazily and grown to the most threads a call has needed (at most the
   [maxp] the OCaml side allows: the CPU count by default). One call ("job") of n shards may use P = min(n, maxp)
   threads: the calling thread and workers 1 .. P-1. Each thread has its own copy of the vars, where it sets the
   core_id slot to the shard it runs, so the launch's vars are not written.
   The job is published in one 64-bit word, [ticket] = gen:24 | P:8 | n:16 | next:16. Threads claim shards by a
   compare-and-swap of next -> next+1 that fails once the generation has moved on, so a worker that wakes late
   cannot take a shard of another job; the caller claims shards too (usually shard 0: it publishes, then claims at once), and
   waits until [done] reaches n. The job's other fields are read only by a thread holding a claimed shard, and
   the caller does not change them before all shards are done. So the caller never waits for a worker that has not
   woken up: with the machine oversubscribed the caller runs the shards itself, as tinygrad would.
   Workers spin briefly on [ticket], then sleep on [start_cv]; the caller spins briefly on [done], then sleeps on
   [done_cv]. Nothing is allocated per call: the per-thread var arrays grow only when a kernel has more vars than
   any before. One job runs at a time: a caller that finds the pool busy (another OCaml thread or domain) runs its
   shards in order itself. */

#include <pthread.h>
#include <signal.h>

#define TG_POOL_MAX 255
#define TG_SPIN 4000

#define TK_GEN(t) ((t) >> 40)
#define TK_P(t) ((int)(((t) >> 32) & 0xff))
#define TK_N(t) ((intnat)(((t) >> 16) & 0xffff))
#define TK_NEXT(t) ((intnat)((t) & 0xffff))

typedef struct {
  pthread_mutex_t mu;          /* guards sleeping on start_cv / done_cv */
  pthread_mutex_t busy;        /* held by the caller for the whole job */
  pthread_cond_t start_cv, done_cv;
  unsigned long long ticket;   /* gen:24 | P:8 | n:16 | next:16 (atomic) */
  intnat done;                 /* shards of the current job finished (atomic) */
  int nworkers;                /* worker threads started (workers 1 .. nworkers) */
  unsigned long long seen0[TG_POOL_MAX + 1];  /* the ticket when each worker was started */
  /* the job, stable while one of its shards is claimed and not done */
  tg_entry_fn fn;
  void **bufs;
  int slot;
  /* per-thread var arrays (0: the caller), vcap long longs each */
  long long *vars[TG_POOL_MAX + 1];
  int vcap;
} tg_pool_t;

static tg_pool_t tg_pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                             PTHREAD_COND_INITIALIZER, 0, 0, 0, { 0 }, NULL, NULL, 0, { NULL }, 0 };
static int tg_pool_atfork_done = 0;

static inline void tg_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* thread [id] claims and runs shards of the job of generation [gen] until none is left */
static void tg_pool_work(tg_pool_t *pl, int id, unsigned long long gen) {
  unsigned long long t = __atomic_load_n(&pl->ticket, __ATOMIC_ACQUIRE);
  for (;;) {
    /* (id < P also for this job: after a 2^24-job wrap of gen the vars[id] copy is still this job's) */
    if (TK_GEN(t) != gen || TK_NEXT(t) >= TK_N(t) || id >= TK_P(t)) return;
    if (!__atomic_compare_exchange_n(&pl->ticket, &t, t + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) continue;
    intnat i = TK_NEXT(t), n = TK_N(t);
    long long *v = pl->vars[id];
    v[pl->slot] = i;
    pl->fn(pl->bufs, v);
    if (__atomic_add_fetch(&pl->done, 1, __ATOMIC_ACQ_REL) == n) {
      pthread_mutex_lock(&pl->mu);
      pthread_cond_signal(&pl->done_cv);
      pthread_mutex_unlock(&pl->mu);
      return;
    }
    t = __atomic_load_n(&pl->ticket, __ATOMIC_ACQUIRE);
  }
}

static void *tg_pool_worker(void *arg) {
  tg_pool_t *pl = &tg_pool;
  int id = (int)(intptr_t)arg;
  unsigned long long seen = TK_GEN(pl->seen0[id]);
  for (;;) {
    unsigned long long t;
    int spins = 0;
    while (TK_GEN(t = __atomic_load_n(&pl->ticket, __ATOMIC_ACQUIRE)) == seen && spins < TG_SPIN) { tg_cpu_relax(); spins++; }
    if (TK_GEN(t) == seen) {
      pthread_mutex_lock(&pl->mu);
      while (TK_GEN(t = __atomic_load_n(&pl->ticket, __ATOMIC_ACQUIRE)) == seen) pthread_cond_wait(&pl->start_cv, &pl->mu);
      pthread_mutex_unlock(&pl->mu);
    }
    seen = TK_GEN(t);
    if (id < TK_P(t)) tg_pool_work(pl, id, seen);
  }
  return NULL;
}

/* after fork() only the forking thread exists in the child: forget the workers and reset the locks */
static void tg_pool_atfork_child(void) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  tg_pool.mu = m; tg_pool.busy = m; tg_pool.start_cv = c; tg_pool.done_cv = c;
  tg_pool.nworkers = 0;
}

/* makes room for [P] threads with [nvars] vars each; called with [busy] held, no job running.
   Returns the number of threads available (fewer when memory or threads cannot be had). */
static int tg_pool_reserve(int P, int nvars) {
  tg_pool_t *pl = &tg_pool;
  if (nvars > pl->vcap) {
    int cap = nvars < 8 ? 8 : nvars;
    for (int i = 0; i <= TG_POOL_MAX; i++)
      if (pl->vars[i] != NULL) {
        long long *nv = realloc(pl->vars[i], (size_t)cap * sizeof(long long));
        if (nv == NULL) return 0;
        pl->vars[i] = nv;
      }
    pl->vcap = cap;
  }
  for (int i = 0; i < P; i++)
    if (pl->vars[i] == NULL && (pl->vars[i] = malloc((size_t)pl->vcap * sizeof(long long))) == NULL) return i;
  if (P - 1 > pl->nworkers) {
    if (!tg_pool_atfork_done) { pthread_atfork(NULL, NULL, tg_pool_atfork_child); tg_pool_atfork_done = 1; }
    /* workers take no signals: OCaml handles them on its own threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    while (pl->nworkers < P - 1) {
      pthread_t th;
      pl->seen0[pl->nworkers + 1] = __atomic_load_n(&pl->ticket, __ATOMIC_ACQUIRE);
      if (pthread_create(&th, &attr, tg_pool_worker, (void *)(intptr_t)(pl->nworkers + 1)) != 0) break;
      pl->nworkers++;
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (P - 1 > pl->nworkers) P = pl->nworkers + 1;
  }
  return P;
}

static inline void tg_run_in_order(tg_entry_fn f, void **b, long long *v, int slot, intnat n) {
  for (intnat i = 0; i < n; i++) { v[slot] = i; f(b, v); }
}

/* runs shards 0 .. n-1 of [f] on up to [maxp] threads; [v] (nvars long longs) is copied, not written, unless the
   shards run in order on this thread */
static void tg_pool_call(tg_entry_fn f, void **b, long long *v, int nvars, int slot, intnat n, intnat maxp) {
  tg_pool_t *pl = &tg_pool;
  intnat P = n < maxp ? n : maxp;
  if (P > TG_POOL_MAX) P = TG_POOL_MAX;
  if (P <= 1 || n > 0xffff || pthread_mutex_trylock(&pl->busy) != 0) { tg_run_in_order(f, b, v, slot, n); return; }
  P = tg_pool_reserve((int)P, nvars);
  if (P <= 1) { pthread_mutex_unlock(&pl->busy); tg_run_in_order(f, b, v, slot, n); return; }
  for (int p = 0; p < P; p++) memcpy(pl->vars[p], v, (size_t)nvars * sizeof(long long));
  pl->fn = f; pl->bufs = b; pl->slot = slot;
  __atomic_store_n(&pl->done, 0, __ATOMIC_RELAXED);
  unsigned long long gen = (TK_GEN(__atomic_load_n(&pl->ticket, __ATOMIC_RELAXED)) + 1) & 0xffffff;
  pthread_mutex_lock(&pl->mu);
  __atomic_store_n(&pl->ticket, (gen << 40) | ((unsigned long long)P << 32) | ((unsigned long long)n << 16),
                   __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pl->start_cv);
  pthread_mutex_unlock(&pl->mu);
  tg_pool_work(pl, 0, gen);
  int spins = 0;
  while (__atomic_load_n(&pl->done, __ATOMIC_ACQUIRE) != n && spins < TG_SPIN) { tg_cpu_relax(); spins++; }
  if (__atomic_load_n(&pl->done, __ATOMIC_ACQUIRE) != n) {
    pthread_mutex_lock(&pl->mu);
    while (__atomic_load_n(&pl->done, __ATOMIC_ACQUIRE) != n) pthread_cond_wait(&pl->done_cv, &pl->mu);
    pthread_mutex_unlock(&pl->mu);
  }
  pthread_mutex_unlock(&pl->busy);
}

/* the pooled launch: [n] core_id shards in [slot] on up to [maxp] threads (the caller included), the runtime
   lock released meanwhile (the Bigarrays are registered roots, and Bigarray data never moves) */
value tg_cpu_call_pool(intnat fn, value bufs, value vars, intnat slot, intnat n, intnat maxp) {
  CAMLparam2(bufs, vars);
  tg_entry_fn f = (tg_entry_fn)fn;
  void **b = (void **)Caml_ba_data_val(bufs);
  long long *v = (long long *)Caml_ba_data_val(vars);
  int nvars = (int)Caml_ba_array_val(vars)->dim[0];
  caml_enter_blocking_section();
  tg_pool_call(f, b, v, nvars, (int)slot, n, maxp);
  caml_leave_blocking_section();
  CAMLreturn(Val_unit);
}
value tg_cpu_call_pool_byte(value *argv, int argn) {
  (void)argn;
  return tg_cpu_call_pool(Nativeint_val(argv[0]), argv[1], argv[2], Long_val(argv[3]), Long_val(argv[4]),
                          Long_val(argv[5]));
}

/* worker threads the pool has started (for tests) */
value tg_cpu_pool_workers(value unit) { (void)unit; return Val_int(tg_pool.nworkers); }

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

/* not in tinygrad: the float32 lanes of the widest vector register that -march=native targets on this CPU,
   from the CPU's feature bits (which include the OS's saving of the wider registers, as the compiler's host
   detection checks them): 16 with AVX-512F, 8 with AVX, else 4 (NEON, SSE, RISC-V's scalar target) */
value tg_host_vector_width(value unit) {
  (void)unit;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Val_int(16);
  if (__builtin_cpu_supports("avx")) return Val_int(8);
#endif
  return Val_int(4);
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

/* ---------- host memory for CPU buffers ----------
   The OCaml side owns raw host memory by address and hands out Bigarrays over it that do not own it
   (CAML_BA_EXTERNAL): when such a Bigarray is collected, a finaliser gives the address back to the allocator's
   pool, which reuses it for the next buffer of that size (ops_cpu.ml). Memory taken from the system is reported
   to the major GC as dependent memory (caml_alloc_dependent_memory), so the major GC speeds up in proportion to
   how fast the pool grows, and does not when buffers are reused. */

/* [size] bytes (at least 1), 64-byte aligned, zero-filled when asked; raises Out_of_memory */
value tg_host_malloc(value vsize, value vzero) {
  intnat size = Long_val(vsize);
  size_t n = size > 0 ? (size_t)size : 1;
  void *p = NULL;
  /* big buffers: 2 MiB aligned and marked for transparent huge pages, so first touch costs a fault per 2 MiB
     instead of per 4 KiB (where THP is off or madvise fails this is plain aligned memory). Measured here (a VM, THP
     "madvise"): the first touch of 16 MiB takes 1.5 ms with huge pages, 9 ms without; a second touch 0.4 ms */
  size_t align = n >= ((size_t)4 << 20) ? ((size_t)2 << 20) : 64;
  if (posix_memalign(&p, align, n) != 0 || p == NULL) caml_raise_out_of_memory();
#ifdef MADV_HUGEPAGE
  if (align > 64) madvise(p, n, MADV_HUGEPAGE);
#endif
  if (Bool_val(vzero)) memset(p, 0, n);
  caml_alloc_dependent_memory(n);
  return caml_copy_nativeint((intnat)p);
}

/* gives memory from tg_host_malloc back to the system */
value tg_host_free(value vp, value vsize) {
  intnat size = Long_val(vsize);
  free((void *)Nativeint_val(vp));
  caml_free_dependent_memory(size > 0 ? (size_t)size : 1);
  return Val_unit;
}

/* zero-fills [size] bytes at [p] */
value tg_host_zero(value vp, value vsize) {
  memset((void *)Nativeint_val(vp), 0, (size_t)Long_val(vsize));
  return Val_unit;
}

/* a char Bigarray over [size] bytes at [p] that does not own them (the allocator frees them) */
value tg_host_view(value vp, value vsize) {
  return caml_ba_alloc_dims(CAML_BA_CHAR | CAML_BA_C_LAYOUT | CAML_BA_EXTERNAL, 1, (void *)Nativeint_val(vp),
                            Long_val(vsize));
}

value tg_getpid(value unit) { (void)unit; return Val_long(getpid()); }

/* ---------- SANITIZE=1: kernels built with AddressSanitizer and UndefinedBehaviorSanitizer ---------- */

/* the kernel called last, named on stderr when a sanitizer finding stops the process (the report itself names
   only addresses and a source file that no longer exists) */
static char tg_sanitize_current[256] = "(none)";

static void tg_sanitize_death(void) {
  static const char pre[] = "SANITIZE: the finding above is in kernel ";
  ssize_t r = write(2, pre, sizeof pre - 1);
  r = write(2, tg_sanitize_current, strlen(tg_sanitize_current));
  r = write(2, "\n", 1);
  (void)r;
}

/* whether the ASan runtime is in this process (preloaded: instrumented objects need it before they load);
   when it is, installs the callback that names the kernel of a finding */
value tg_sanitize_install(value unit) {
  (void)unit;
  typedef void (*set_death_callback_fn)(void (*)(void));
  set_death_callback_fn set_cb = (set_death_callback_fn)dlsym(RTLD_DEFAULT, "__sanitizer_set_death_callback");
  if (dlsym(RTLD_DEFAULT, "__asan_init") == NULL || set_cb == NULL) return Val_false;
  set_cb(tg_sanitize_death);
  return Val_true;
}

/* records the name of the kernel about to run */
value tg_sanitize_kernel(value name) {
  size_t n = caml_string_length(name);
  if (n >= sizeof tg_sanitize_current) n = sizeof tg_sanitize_current - 1;
  memcpy(tg_sanitize_current, String_val(name), n);
  tg_sanitize_current[n] = 0;
  return Val_unit;
}
