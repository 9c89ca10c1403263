// cpu_dispatch.cpp -- which ISA level the elementwise kernels run at.
//
// Note [ISA dispatch]: the elementwise families (cpp/ops/unary.cpp, binary.cpp, activation.cpp)
// are compiled three times, for baseline x86-64, x86-64-v3 (AVX2+FMA) and x86-64-v4 (AVX-512),
// with TG_KERNEL_PASS defined; each pass hands its loops, by op name, to the kernel table
// (kernel_table.h; the op definition holds no kernel pointers).
// At import the best level the CPU supports is chosen; TAPEGRAD_ISA=baseline|avx2|avx512
// forces a lower one so tests cover every path. Kernel-pass code must not share inline
// functions with external linkage across levels (the linker would keep one copy, possibly the
// AVX-512 one), so the loop templates and vmath live in anonymous namespaces.
#include <cstdlib>
#include <cstring>
#include "kernels/elementwise.h"
#include "kernels/kernel_table.h"

namespace tg {

int best_supported_isa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return 2;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
  return 0;
}

static int initial_isa() {
  int best = best_supported_isa();
  const char* env = std::getenv("TAPEGRAD_ISA");
  if (!env) return best;
  int want = best;
  if (!std::strcmp(env, "baseline")) want = 0;
  else if (!std::strcmp(env, "avx2")) want = 1;
  else if (!std::strcmp(env, "avx512")) want = 2;
  return want < best ? want : best;
}

std::vector<OpKernels> g_op_kernels;

static OpKernels& kernels_for(const char* op) {
  const int id = def_op(op).id;
  if ((size_t)id >= g_op_kernels.size()) g_op_kernels.resize((size_t)id + 1);
  return g_op_kernels[(size_t)id];
}

void set_ew_kernel(const char* op, int isa, int dtype_index, EwKernel k) { kernels_for(op).ew[isa][dtype_index] = k; }

void set_block_kernel(const char* op, int isa, int dtype_index, FusedBlockFn k) {
  kernels_for(op).block[isa][dtype_index] = k;
}

static int g_isa = initial_isa();
int active_isa() { return g_isa; }
void set_active_isa(int level) {
  int best = best_supported_isa();
  g_isa = level < 0 ? 0 : (level > best ? best : level);
}
const char* isa_name(int level) {
  static const char* names[] = {"baseline", "avx2", "avx512"};
  return names[level < 0 ? 0 : (level > 2 ? 2 : level)];
}

}  // namespace tg
