// fused_kernels.cpp -- the interpreter of fused elementwise programs, compiled once per ISA level.
//
// Only the kernel passes compile this file's body (TG_KERNEL_PASS; see Note [ISA dispatch] in
// cpu_dispatch.cpp); each defines fused_run_<isa>. Every instruction is a plain loop over one
// block of registers; computing instructions call their op row's block kernel of the same ISA
// level (op_macros.h), so a fused node gives the values of its member ops. Everything but the
// entry point has internal linkage.
#ifdef TG_KERNEL_PASS
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <atomic>
#include "kernels/fused_program.h"
#include "kernels/work_pool.h"

#define TG_FCAT2(a, b) a##b
#define TG_FCAT(a, b) TG_FCAT2(a, b)

namespace tg {
namespace {

// Below this many elements one thread runs the whole program.
constexpr int64_t kFusedParallelMin = int64_t(1) << 15;

// The registers of this thread, grown as needed and kept between calls.
thread_local void* t_scratch = nullptr;
thread_local size_t t_scratch_bytes = 0;

void* scratch(size_t bytes) {
  if (bytes > t_scratch_bytes) {
    std::free(t_scratch);
    t_scratch = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    t_scratch_bytes = t_scratch ? bytes : 0;
  }
  return t_scratch;
}

// Runs instructions [code, code + ncode) on one block of len elements; ptr holds each ref's
// block (see fused_program.h). The pass never gives an instruction a destination that is one of
// its operands, except an output written over a donated input at the same positions.
template <class T>
void run_block(const FusedCall& c, const FusedInstr* code, int ncode, T* const* ptr, int64_t start, int len,
               double* acc) {
  for (int p = 0; p < ncode; ++p) {
    const FusedInstr& I = code[p];
    T* __restrict d = ptr[I.dst];
    const T* __restrict a = ptr[I.a];
    const T* __restrict b = ptr[I.b];
    const T* __restrict e = ptr[I.c];
    switch (I.code) {
      case kFLoadBool: {
        const bool* __restrict s = static_cast<const bool*>(c.in[I.raw]) + start;
        for (int i = 0; i < len; ++i) d[i] = s[i] ? T(1) : T(0);
        break;
      }
      case kFSplat: {
        const T v = *static_cast<const T*>(c.in[I.raw]);
        for (int i = 0; i < kFusedBlock; ++i) d[i] = v;
        break;
      }
      case kFSplatBool: {
        const T v = *static_cast<const bool*>(c.in[I.raw]) ? T(1) : T(0);
        for (int i = 0; i < kFusedBlock; ++i) d[i] = v;
        break;
      }
      case kFStoreBool: {
        bool* __restrict o = static_cast<bool*>(c.out[I.raw]) + start;
        for (int i = 0; i < len; ++i) o[i] = a[i] != T(0);
        break;
      }
      case kFSum: {
        // 16 partial sums (vectorizable), combined in double per block
        T part[16] = {};
        int i = 0;
        for (; i + 16 <= len; i += 16)
          for (int j = 0; j < 16; ++j) part[j] += a[i + j];
        double s = 0;
        for (int j = 0; j < 16; ++j) s += part[j];
        for (; i < len; ++i) s += a[i];
        acc[I.raw] += s;
        break;
      }
      case kFCopy:
        for (int i = 0; i < len; ++i) d[i] = a[i];
        break;
      case kFCompute:
        I.fn[TG_ISA_INDEX][std::is_same_v<T, double>](a, b, e, d, len, I.alpha);
        break;
      default: break;
    }
  }
}

template <class T>
bool run_program(const FusedCall& c) {
  const int64_t nblocks = (c.n + kFusedBlock - 1) / kFusedBlock;
  // Chunks of blocks claimed dynamically (Note [Dynamic chunks] in work_pool.cpp); a reduction keeps one
  // partial sum per chunk, added in chunk order, so its value does not depend on who ran which chunk.
  const int64_t size = c.n >= kFusedParallelMin ? chunk_size(nblocks, kFusedParallelMin / kFusedBlock / 4) : nblocks;
  const int64_t nchunks = (nblocks + size - 1) / size;
  const int nsums = c.nsums;
  double* partial = nsums ? static_cast<double*>(std::calloc((size_t)nchunks * nsums, sizeof(double))) : nullptr;
  if (nsums && !partial) return false;
  std::atomic<bool> failed{false};
  auto chunk = [&](int64_t index, int64_t lo, int64_t hi) {
    const int nrefs = c.nregs + c.nin + c.nout;
    const size_t reg_bytes = (size_t)c.nregs * kFusedBlock * sizeof(T);
    char* mem = static_cast<char*>(scratch(reg_bytes + (size_t)nrefs * sizeof(T*)));
    if (!mem) {
      failed.store(true);
      return;
    }
    T* regs = reinterpret_cast<T*>(mem);
    T** ptr = reinterpret_cast<T**>(mem + reg_bytes);
    for (int r = 0; r < c.nregs; ++r) ptr[r] = regs + (int64_t)r * kFusedBlock;
    T** in = ptr + c.nregs;
    T** out = in + c.nin;
    double* acc = partial ? partial + (size_t)index * nsums : nullptr;
    run_block<T>(c, c.prologue, c.nprologue, ptr, 0, kFusedBlock, acc);
    for (int64_t blk = lo; blk < hi; ++blk) {
      const int64_t start = blk * kFusedBlock;
      const int64_t rest = c.n - start;
      for (int k = 0; k < c.nin; ++k) in[k] = const_cast<T*>(static_cast<const T*>(c.in[k])) + start;
      for (int k = 0; k < c.nout; ++k) out[k] = static_cast<T*>(c.out[k]) + start;
      run_block<T>(c, c.body, c.nbody, ptr, start, rest < kFusedBlock ? (int)rest : kFusedBlock, acc);
    }
  };
  run_chunks(nblocks, size, [](void* ctx, int64_t index, int64_t lo, int64_t hi) {
    (*static_cast<decltype(chunk)*>(ctx))(index, lo, hi);
  }, &chunk);
  for (int k = 0; k < nsums; ++k) {
    double s = 0;
    for (int64_t t = 0; t < nchunks; ++t) s += partial[(size_t)t * nsums + k];
    c.sums[k] = s;
  }
  std::free(partial);
  return !failed.load();
}

}  // namespace

// Runs a fused program; returns false when the register scratch could not be allocated.
bool TG_FCAT(fused_run_, TG_ISA)(const FusedCall& c) {
  if (c.n == 0) {
    for (int k = 0; k < c.nsums; ++k) c.sums[k] = 0;
    return true;
  }
  return c.dtype == 0 ? run_program<float>(c) : run_program<double>(c);
}

}  // namespace tg
#endif  // TG_KERNEL_PASS
