// vmath_check.cpp: accuracy, special-value and throughput check of cpp/kernels/vmath.h.
//
// Build and run at the three ISA levels (from the repository root):
//   g++ -std=c++17 -O3 -fno-math-errno -fno-trapping-math benchmarks/vmath_check.cpp -o /tmp/vmath_check_base
//   g++ -std=c++17 -O3 -fno-math-errno -fno-trapping-math -march=x86-64-v3 benchmarks/vmath_check.cpp -o /tmp/vmath_check_v3
//   g++ -std=c++17 -O3 -fno-math-errno -fno-trapping-math -march=x86-64-v4 -mprefer-vector-width=512 benchmarks/vmath_check.cpp -o /tmp/vmath_check_v4
//   for b in base v3 v4; do /tmp/vmath_check_$b; done
// Options: `--quick` (fewer sweep points), `--no-bench`, `--no-accuracy`.
// Add -fopt-info-vec-optimized to see that every `run_*` loop is vectorized.
//
// Per function and dtype it prints: max relative error over a dense sweep (bit-pattern sweep
// of both signs, so tiny and huge magnitudes are covered, plus a uniform sweep) against a
// long double libm reference, computed through the same vectorized loops that are timed;
// relative error of a subnormal reference value is taken against the smallest normal
// number. Then PASS/FAIL of exact special values, and GB/s (read + write) on 4M elements.
// Accuracy limits checked: float <= 2e-6, double <= 1e-13. Exit status 1 on any FAIL.

#include "../cpp/kernels/vmath.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace vm = tg::vmath;
using ld = long double;

// ------------------------------------------------------------------ kernels (timed + swept)
#define TG_KERNEL(fn)                                                                       \
    template <class T>                                                                      \
    __attribute__((noinline)) void run_##fn(const T *__restrict in, T *__restrict out,      \
                                            std::size_t n) {                                \
        for (std::size_t i = 0; i < n; ++i) out[i] = vm::fn(in[i]);                         \
    }
TG_KERNEL(exp)
TG_KERNEL(expm1)
TG_KERNEL(log)
TG_KERNEL(log1p)
TG_KERNEL(tanh)
TG_KERNEL(sigmoid)
TG_KERNEL(softplus)
TG_KERNEL(log_sigmoid)
TG_KERNEL(erf)
TG_KERNEL(sin)
TG_KERNEL(cos)
#undef TG_KERNEL
// the loops the Sin and Cos kernels call: every argument (Note [Trig range])
#define TG_RUN_KERNEL(fn)                                                                   \
    template <class T>                                                                      \
    __attribute__((noinline)) void run_##fn(const T *__restrict in, T *__restrict out,      \
                                            std::size_t n) {                                \
        vm::fn(in, out, static_cast<std::int64_t>(n));                                      \
    }
TG_RUN_KERNEL(sin_run)
TG_RUN_KERNEL(cos_run)
#undef TG_RUN_KERNEL
// explicit instantiations so -fopt-info shows every loop
#define TG_INST(fn)                                                                         \
    template void run_##fn<float>(const float *__restrict, float *__restrict, std::size_t); \
    template void run_##fn<double>(const double *__restrict, double *__restrict, std::size_t);
TG_INST(exp) TG_INST(expm1) TG_INST(log) TG_INST(log1p) TG_INST(tanh) TG_INST(sigmoid)
TG_INST(softplus) TG_INST(log_sigmoid) TG_INST(erf) TG_INST(sin) TG_INST(cos) TG_INST(sin_run) TG_INST(cos_run)
#undef TG_INST

// ------------------------------------------------------------------ references
static ld ref_sigmoid(ld x) { return x >= 0 ? 1.0L / (1.0L + expl(-x)) : expl(x) / (1.0L + expl(x)); }
static ld ref_softplus(ld x) { return x > 0 ? x + log1pl(expl(-x)) : log1pl(expl(x)); }
static ld ref_log_sigmoid(ld x) { return -ref_softplus(-x); }

template <class T>
using Kernel = void (*)(const T *__restrict, T *__restrict, std::size_t);

template <class T>
struct Func {
    const char *name;
    Kernel<T> kernel;
    ld (*ref)(ld);
    T lo, hi;          // sweep domain
    T bench_lo, bench_hi;  // uniform inputs for timing
};

struct Special {
    double x;
    ld expect;
    // 0: exact (NaN == NaN, zero sign checked); > 0: relative tolerance vs expect;
    // kRounded: must equal the reference rounded to T (expect unused);
    // < 0 otherwise: relative error vs the reference at T(x) <= -tol (expect unused).
    double tol;
};
constexpr double kRounded = -1e300;

template <class T>
static std::vector<T> sweep_points(T lo, T hi, std::size_t n) {
    using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
    std::vector<T> v;
    v.reserve(n + 64);
    auto bits = [](T x) { U u; std::memcpy(&u, &x, sizeof u); return u; };
    auto from = [](U u) { T x; std::memcpy(&x, &u, sizeof u); return x; };
    // bit-pattern sweeps over (0, hi] and [lo, 0): log-uniform, includes subnormals
    const std::size_t nb = n / 3;
    for (int sgn = 0; sgn < 2; ++sgn) {
        const T lim = sgn ? -lo : hi;
        if (!(lim > 0)) continue;
        const U ub = bits(lim);
        const U step = std::max<U>(1, ub / nb);
        for (U u = 1; u <= ub && u >= 1; u += step) v.push_back(sgn ? -from(u) : from(u));
        v.push_back(sgn ? -lim : lim);
    }
    // uniform sweep
    const std::size_t nu = n - v.size();
    for (std::size_t i = 0; i <= nu; ++i) v.push_back(lo + (hi - lo) * (T(i) / T(nu)));
    for (T x : {T(0), T(-0.0), T(1e-10), T(-1e-10), T(1e-30), T(0.5), T(-0.5), T(1), T(-1)})
        if (x >= lo && x <= hi) v.push_back(x);
    return v;
}

template <class T>
struct AccResult {
    double max_err = 0;
    T at = 0;
    std::size_t n = 0;
};

template <class T>
static AccResult<T> accuracy(const Func<T> &f, std::size_t npts) {
    std::vector<T> in = sweep_points<T>(f.lo, f.hi, npts), out(in.size());
    f.kernel(in.data(), out.data(), in.size());
    const ld tiny = std::numeric_limits<T>::min();
    AccResult<T> r;
    r.n = in.size();
    for (std::size_t i = 0; i < in.size(); ++i) {
        const ld ref = f.ref(static_cast<ld>(in[i]));
        const ld y = out[i];
        double e;
        if (std::isnan(ref)) e = std::isnan(y) ? 0.0 : INFINITY;
        else if (std::isinf(ref) || std::fabs(ref) > std::numeric_limits<T>::max()) {
            // reference overflows T: the result must be the same infinity
            e = (std::isinf(y) && std::signbit(y) == std::signbit(ref)) ? 0.0 : INFINITY;
        } else if (std::isnan(y)) e = INFINITY;
        else e = static_cast<double>(fabsl(y - ref) / std::max(fabsl(ref), tiny));
        if (e > r.max_err || (std::isinf(e) && !std::isinf(r.max_err))) { r.max_err = e; r.at = in[i]; }
    }
    return r;
}

template <class T>
static std::string specials(const Func<T> &f, const std::vector<Special> &sp) {
    std::vector<T> in, out(sp.size());
    for (const auto &s : sp) in.push_back(static_cast<T>(s.x));
    f.kernel(in.data(), out.data(), in.size());
    std::string fails;
    for (std::size_t i = 0; i < sp.size(); ++i) {
        const ld y = out[i];
        const ld e = sp[i].tol < 0 ? f.ref(static_cast<ld>(in[i])) : sp[i].expect;
        bool ok;
        if (sp[i].tol == kRounded) ok = y == static_cast<ld>(static_cast<T>(e));
        else if (sp[i].tol < 0) ok = std::isfinite(y) && fabsl(y - e) <= -sp[i].tol * fabsl(e);
        else if (std::isnan(e)) ok = std::isnan(y);
        else if (sp[i].tol == 0) ok = (y == e) && (e != 0 || std::signbit(y) == std::signbit(e));
        else ok = std::isfinite(y) && fabsl(y - e) <= sp[i].tol * fabsl(e);
        if (!ok) {
            char buf[128];
            std::snprintf(buf, sizeof buf, " f(%g)=%Lg want %Lg;", static_cast<double>(in[i]), y, e);
            fails += buf;
        }
    }
    return fails;
}

template <class T>
static double throughput(const Func<T> &f, std::size_t n, int reps) {
    std::vector<T> in(n), out(n);
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> dist(f.bench_lo, f.bench_hi);
    for (auto &x : in) x = static_cast<T>(dist(rng));
    f.kernel(in.data(), out.data(), n);  // warm up, fault pages in
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        f.kernel(in.data(), out.data(), n);
        auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    volatile T sink = out[n / 2];
    (void)sink;
    return 2.0 * n * sizeof(T) / best / 1e9;
}

static std::vector<Special> specials_for(const std::string &name, bool is_float) {
    const double inf = INFINITY, nan = NAN;
    if (name == "exp")
        return {{-inf, 0, 0}, {inf, inf, 0}, {nan, nan, 0}, {1000, inf, 0}, {-1000, 0, 0}, {0, 1, 0},
                {is_float ? 88.72 : 709.78, 0, -1e-6}, {is_float ? -88.0 : -708.0, 0, -1e-6},
                {is_float ? -103.0 : -745.0, 0, kRounded}, {is_float ? -100.0 : -740.0, 0, kRounded},
                {is_float ? 89.0 : 710.0, inf, 0}};
    if (name == "expm1")
        return {{-inf, -1, 0}, {inf, inf, 0}, {nan, nan, 0}, {0, 0, 0}, {-0.0, -0.0, 0}, {1000, inf, 0},
                {-1000, -1, 0}, {1e-10, 0, is_float ? -2e-7 : -3e-16}, {-1e-30, 0, kRounded}, {1e-300, 0, kRounded},
                {5e-324, 0, kRounded}};
    if (name == "log")
        return {{0, -inf, 0}, {-0.0, -inf, 0}, {-1, nan, 0}, {-inf, nan, 0}, {inf, inf, 0}, {nan, nan, 0}, {1, 0, 0},
                {is_float ? 1e-45 : 5e-324, 0, is_float ? -2e-7 : -3e-16}, {is_float ? 3e-39 : 3e-310, 0, is_float ? -2e-7 : -3e-16},
                {is_float ? 3e38 : 1e308, 0, is_float ? -2e-7 : -3e-16}};
    if (name == "log1p")
        return {{-1, -inf, 0}, {-2, nan, 0}, {-inf, nan, 0}, {inf, inf, 0}, {nan, nan, 0}, {0, 0, 0}, {-0.0, -0.0, 0},
                {1e-30, 0, kRounded}, {-1e-30, 0, kRounded}, {is_float ? 3e38 : 1e308, 0, is_float ? -2e-7 : -3e-16},
                {is_float ? -0.99999994 : -0.9999999999999999, 0, is_float ? -2e-7 : -3e-16}};
    if (name == "tanh")
        return {{inf, 1, 0}, {-inf, -1, 0}, {100, 1, 0}, {-100, -1, 0}, {nan, nan, 0}, {0, 0, 0}, {-0.0, -0.0, 0}};
    if (name == "sigmoid")
        return {{inf, 1, 0}, {-inf, 0, 0}, {1000, 1, 0}, {-1000, 0, 0}, {nan, nan, 0}, {0, 0.5, 0}};
    if (name == "softplus")
        return {{inf, inf, 0}, {-inf, 0, 0}, {100, 100, 0}, {nan, nan, 0}, {1e30, 1e30, 1e-7},
                {-100, 0, is_float ? -0.05 : -1e-15}, {-30, 0, is_float ? -2e-7 : -1e-15}};
    if (name == "log_sigmoid")
        return {{-inf, -inf, 0}, {inf, -0.0, 0}, {-100, -100, 0}, {nan, nan, 0},
                {100, 0, is_float ? -0.05 : -1e-15}};
    if (name == "erf")
        return {{inf, 1, 0}, {-inf, -1, 0}, {10, 1, 0}, {-10, -1, 0}, {nan, nan, 0}, {0, 0, 0}, {-0.0, -0.0, 0}};
    if (name == "sin") return {{inf, nan, 0}, {-inf, nan, 0}, {nan, nan, 0}, {0, 0, 0}, {-0.0, -0.0, 0}};
    if (name == "cos") return {{inf, nan, 0}, {-inf, nan, 0}, {nan, nan, 0}, {0, 1, 0}};
    if (name == "sin_run")
        return {{inf, nan, 0}, {-inf, nan, 0}, {nan, nan, 0}, {0, 0, 0}, {-0.0, -0.0, 0},
                {1e30, 0, is_float ? -2e-7 : -3e-16}, {-1e10, 0, is_float ? -2e-7 : -3e-16}};
    if (name == "cos_run")
        return {{inf, nan, 0}, {-inf, nan, 0}, {nan, nan, 0}, {0, 1, 0},
                {1e30, 0, is_float ? -2e-7 : -3e-16}, {-1e10, 0, is_float ? -2e-7 : -3e-16}};
    return {};
}

template <class T>
static std::vector<Func<T>> funcs() {
    const bool f = sizeof(T) == 4;
    const T big = std::numeric_limits<T>::max();
    return {
        {"exp", run_exp<T>, [](ld x) { return expl(x); }, T(f ? -105 : -746), T(f ? 89 : 710), -10, 10},
        {"expm1", run_expm1<T>, [](ld x) { return expm1l(x); }, T(f ? -20 : -50), T(f ? 89 : 710), -10, 10},
        {"log", run_log<T>, [](ld x) { return logl(x); }, T(0), big, T(1e-3), 100},
        {"log1p", run_log1p<T>, [](ld x) { return log1pl(x); }, T(-1), big, T(-0.99), 100},
        {"tanh", run_tanh<T>, [](ld x) { return tanhl(x); }, T(f ? -12 : -25), T(f ? 12 : 25), -10, 10},
        {"sigmoid", run_sigmoid<T>, ref_sigmoid, T(f ? -110 : -750), T(f ? 110 : 750), -10, 10},
        {"softplus", run_softplus<T>, ref_softplus, T(f ? -110 : -750), T(1e6), -10, 10},
        {"log_sigmoid", run_log_sigmoid<T>, ref_log_sigmoid, T(-1e6), T(f ? 110 : 750), -10, 10},
        {"erf", run_erf<T>, [](ld x) { return erfl(x); }, T(f ? -5 : -7), T(f ? 5 : 7), -3, 3},
        {"sin", run_sin<T>, [](ld x) { return sinl(x); }, T(f ? -6000 : -1e6), T(f ? 6000 : 1e6), -10, 10},
        {"cos", run_cos<T>, [](ld x) { return cosl(x); }, T(f ? -6000 : -1e6), T(f ? 6000 : 1e6), -10, 10},
        {"sin_run", run_sin_run<T>, [](ld x) { return sinl(x); }, -big / 2, big / 2, -10, 10},  // hi - lo finite
        {"cos_run", run_cos_run<T>, [](ld x) { return cosl(x); }, -big / 2, big / 2, -10, 10},
    };
}

int main(int argc, char **argv) {
    bool quick = false, bench = true, acc = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) quick = true;
        if (!std::strcmp(argv[i], "--no-bench")) bench = false;
        if (!std::strcmp(argv[i], "--no-accuracy")) acc = false;
    }
#if defined(__AVX512F__)
    const char *isa = "x86-64-v4 (AVX-512)";
#elif defined(__AVX2__)
    const char *isa = "x86-64-v3 (AVX2+FMA)";
#else
    const char *isa = "x86-64 baseline (SSE2)";
#endif
    std::printf("vmath_check  ISA: %s\n", isa);
    std::printf("%-12s %-4s %11s %14s %9s %-8s %-8s %9s %9s\n", "function", "type", "max_rel_err", "at_x",
                "points", "accuracy", "specials", "GB/s_f32", "GB/s_f64");
    const std::size_t npts = quick ? 300000 : 3000000;
    const std::size_t nbench = std::size_t(1) << 22;  // 4M elements
    int failures = 0;
    auto ff = funcs<float>();
    auto fd = funcs<double>();
    for (std::size_t k = 0; k < ff.size(); ++k) {
        const double gbf = bench ? throughput(ff[k], nbench, 15) : 0;
        const double gbd = bench ? throughput(fd[k], nbench, 10) : 0;
        for (int isf = 1; isf >= 0; --isf) {
            std::string sp_fail;
            AccResult<double> r;
            const double lim = isf ? 2e-6 : 1e-13;
            if (isf) {
                sp_fail = specials(ff[k], specials_for(ff[k].name, true));
                if (acc) { auto a = accuracy(ff[k], npts); r.max_err = a.max_err; r.at = a.at; r.n = a.n; }
            } else {
                sp_fail = specials(fd[k], specials_for(fd[k].name, false));
                if (acc) r = accuracy(fd[k], npts);
            }
            const bool acc_ok = !acc || r.max_err <= lim;
            failures += !acc_ok + !sp_fail.empty();
            char gb[16] = "", gbs[16] = "";
            if (bench) { std::snprintf(gb, sizeof gb, "%.1f", gbf); std::snprintf(gbs, sizeof gbs, "%.1f", gbd); }
            std::printf("%-12s %-4s %11.3g %14.7g %9zu %-8s %-8s %9s %9s%s%s\n", ff[k].name, isf ? "f32" : "f64",
                        r.max_err, r.at, r.n, acc ? (acc_ok ? "PASS" : "FAIL") : "-", sp_fail.empty() ? "PASS" : "FAIL",
                        isf ? gb : "", isf ? "" : gbs, sp_fail.empty() ? "" : "  specials failed:", sp_fail.c_str());
            std::fflush(stdout);
        }
    }
    std::printf("%s: %d failure(s)\n", failures ? "FAIL" : "OK", failures);
    return failures ? 1 : 0;
}
