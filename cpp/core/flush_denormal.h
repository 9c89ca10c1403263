// flush_denormal.h -- kernels run with subnormal floats flushed to zero, as TF's CPU kernels do.
//
// Note [Flush denormals]: TF sets the MXCSR flush-to-zero (FTZ) and denormals-are-zero (DAZ) bits while
// its kernels run, so a subnormal input reads as 0 and a subnormal result is written as 0, in float32 and
// float64 alike. tapegrad does the same: every op (engine/eager.cpp apply), every graph run
// (graph/executor.cpp run_graph) and constant folding (graph/optimize.cpp) hold a ScopedFlushDenormal,
// which restores the caller's MXCSR afterwards, so Python and NumPy between ops keep IEEE subnormals.
// MXCSR is per thread: the OpenMP workers get the bits from flush_denormals_in_workers() (kernels/
// threads.cpp, at load and after a thread-count change) and, being created inside a guarded op, inherit
// them too. Besides matching TF, this keeps recurrences whose values decay into the subnormal range from
// running 5-10x slower (subnormal arithmetic takes microcode assists).
#pragma once

namespace tg {

#if defined(__x86_64__) || defined(__i386__)
constexpr unsigned kMxcsrFlushBits = 0x8040;  // FTZ (bit 15) | DAZ (bit 6)

struct ScopedFlushDenormal {
  unsigned saved;
  ScopedFlushDenormal() : saved(__builtin_ia32_stmxcsr()) {
    if ((saved & kMxcsrFlushBits) != kMxcsrFlushBits) __builtin_ia32_ldmxcsr(saved | kMxcsrFlushBits);
  }
  ~ScopedFlushDenormal() {
    if ((saved & kMxcsrFlushBits) != kMxcsrFlushBits) __builtin_ia32_ldmxcsr(saved);
  }
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;
};

// Sets the bits for good on the calling thread (used on kernel worker threads only).
inline void flush_denormals_on_this_thread() { __builtin_ia32_ldmxcsr(__builtin_ia32_stmxcsr() | kMxcsrFlushBits); }
#else
struct ScopedFlushDenormal {};  // other CPUs: IEEE subnormals (their flush control is not wired up)
inline void flush_denormals_on_this_thread() {}
#endif

}  // namespace tg
