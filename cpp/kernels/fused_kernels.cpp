// fused_kernels.cpp -- the interpreter of fused elementwise programs, compiled once per ISA level.
//
// Only the kernel passes compile this file's body (TG_KERNEL_PASS; see Note [ISA dispatch] in
// cpu_dispatch.cpp); each defines fused_run_<isa>. Every instruction is a plain loop over one
// block of registers, with the same scalar expressions as the op rows in cpp/ops, so a fused
// node gives the values of its member ops. Everything but the entry point has internal linkage.
#ifdef TG_KERNEL_PASS
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include "kernels/fused_program.h"
#include "kernels/vmath.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#define TG_FCAT2(a, b) a##b
#define TG_FCAT(a, b) TG_FCAT2(a, b)

namespace tg {
namespace {

namespace vm = tg::vmath;

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

// Python/TF floor modulo for floats (as floor_mod in op_macros.h).
template <class T> inline T fmod_floor(T x, T y) {
  T r = std::fmod(x, y);
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
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
#define TG_F1(CODE, EXPR) \
  case CODE: for (int i = 0; i < len; ++i) { const T x = a[i]; d[i] = (EXPR); } break;
#define TG_F2(CODE, EXPR) \
  case CODE: for (int i = 0; i < len; ++i) { const T x = a[i], y = b[i]; d[i] = (EXPR); } break;
#define TG_FB(CODE, COND) TG_F2(CODE, (COND) ? T(1) : T(0))
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
      TG_F1(kFCopy, x)
      TG_F1(kFExp, vm::exp(x))
      TG_F1(kFExpm1, vm::expm1(x))
      TG_F1(kFSqrt, std::sqrt(x))
      TG_F1(kFRsqrt, T(1) / std::sqrt(x))
      TG_F1(kFTanh, vm::tanh(x))
      TG_F1(kFSigmoid, vm::sigmoid(x))
      TG_F1(kFReciprocal, T(1) / x)
      TG_F1(kFLog, vm::log(x))
      TG_F1(kFLog1p, vm::log1p(x))
      TG_F1(kFSoftplus, vm::softplus(x))
      TG_F1(kFSin, vm::sin(x))
      TG_F1(kFCos, vm::cos(x))
      TG_F1(kFTan, std::tan(x))
      TG_F1(kFErf, vm::erf(x))
      TG_F1(kFNeg, -x)
      TG_F1(kFSquare, x * x)
      TG_F1(kFAbs, x < T(0) ? -x : x)
      TG_F1(kFSign, T((x > T(0)) - (x < T(0))))
      TG_F1(kFFloor, std::floor(x))
      TG_F1(kFCeil, std::ceil(x))
      TG_F1(kFRound, std::nearbyint(x))
      TG_F1(kFLogicalNot, x != T(0) ? T(0) : T(1))
      TG_F1(kFRelu, x > T(0) ? x : T(0))
      TG_F1(kFRelu6, x > T(0) ? (x < T(6) ? x : T(6)) : T(0))
      case kFLeakyRelu: {
        const T alpha = (T)I.alpha;
        for (int i = 0; i < len; ++i) { const T x = a[i]; d[i] = x > T(0) ? x : alpha * x; }
        break;
      }
      TG_F1(kFElu, x > T(0) ? x : vm::expm1(x))
      TG_F1(kFSelu, x > T(0) ? T(1.0507009873554805) * x : T(1.7580993408473766) * vm::expm1(x))
      TG_F1(kFGelu, T(0.5) * x * (T(1) + vm::erf(x * T(0.7071067811865476))))
      TG_F1(kFGeluTanh, T(0.5) * x * (T(1) + vm::tanh(T(0.7978845608028654) * (x + T(0.044715) * x * x * x))))
      TG_F1(kFSilu, x * vm::sigmoid(x))
      TG_F2(kFAdd, x + y)
      TG_F2(kFSub, x - y)
      TG_F2(kFMul, x * y)
      TG_F2(kFRealDiv, x / y)
      TG_F2(kFMaximum, x < y ? y : x)
      TG_F2(kFMinimum, y < x ? y : x)
      TG_F2(kFSquaredDifference, (x - y) * (x - y))
      TG_F2(kFPow, std::pow(x, y))
      TG_F2(kFMulNoNan, y == T(0) ? T(0) : x * y)
      TG_F2(kFFloorDiv, std::floor(x / y))
      TG_F2(kFFloorMod, fmod_floor(x, y))
      TG_F2(kFTanhGrad, y * (T(1) - x * x))
      TG_F2(kFSigmoidGrad, y * x * (T(1) - x))
      TG_F2(kFSigmoidXent, (x > T(0) ? x : T(0)) - x * y + vm::softplus(x < T(0) ? x : -x))
      TG_FB(kFLess, x < y)
      TG_FB(kFLessEqual, x <= y)
      TG_FB(kFGreater, x > y)
      TG_FB(kFGreaterEqual, x >= y)
      TG_FB(kFEqual, x == y)
      TG_FB(kFNotEqual, x != y)
      TG_FB(kFLogicalAnd, x != T(0) && y != T(0))
      TG_FB(kFLogicalOr, x != T(0) || y != T(0))
      case kFSelect:
        for (int i = 0; i < len; ++i) d[i] = a[i] != T(0) ? b[i] : e[i];
        break;
      default: break;
    }
#undef TG_F1
#undef TG_F2
#undef TG_FB
  }
}

template <class T>
bool run_program(const FusedCall& c) {
  const int64_t nblocks = (c.n + kFusedBlock - 1) / kFusedBlock;
  int nt = 1;
#ifdef _OPENMP
  if (c.n >= kFusedParallelMin) nt = omp_get_max_threads();
  if (nt > nblocks) nt = (int)nblocks;
  if (nt < 1) nt = 1;
#endif
  const int nsums = c.nsums;
  double* partial = nsums ? static_cast<double*>(std::calloc((size_t)nt * nsums, sizeof(double))) : nullptr;
  if (nsums && !partial) return false;
  bool failed = false;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    int t = 0, team = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    team = omp_get_num_threads();
#endif
    const int nrefs = c.nregs + c.nin + c.nout;
    const size_t reg_bytes = (size_t)c.nregs * kFusedBlock * sizeof(T);
    char* mem = static_cast<char*>(scratch(reg_bytes + (size_t)nrefs * sizeof(T*)));
    if (!mem) {
#pragma omp atomic write
      failed = true;
    } else {
      T* regs = reinterpret_cast<T*>(mem);
      T** ptr = reinterpret_cast<T**>(mem + reg_bytes);
      for (int r = 0; r < c.nregs; ++r) ptr[r] = regs + (int64_t)r * kFusedBlock;
      T** in = ptr + c.nregs;
      T** out = in + c.nin;
      double* acc = partial ? partial + (size_t)t * nsums : nullptr;
      run_block<T>(c, c.prologue, c.nprologue, ptr, 0, kFusedBlock, acc);
      const int64_t lo = nblocks * t / team, hi = nblocks * (t + 1) / team;
      for (int64_t blk = lo; blk < hi; ++blk) {
        const int64_t start = blk * kFusedBlock;
        const int64_t rest = c.n - start;
        for (int k = 0; k < c.nin; ++k) in[k] = const_cast<T*>(static_cast<const T*>(c.in[k])) + start;
        for (int k = 0; k < c.nout; ++k) out[k] = static_cast<T*>(c.out[k]) + start;
        run_block<T>(c, c.body, c.nbody, ptr, start, rest < kFusedBlock ? (int)rest : kFusedBlock, acc);
      }
    }
  }
  for (int k = 0; k < nsums; ++k) {
    double s = 0;
    for (int t = 0; t < nt; ++t) s += partial[(size_t)t * nsums + k];
    c.sums[k] = s;
  }
  std::free(partial);
  return !failed;
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
