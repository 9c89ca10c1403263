"""Shared benchmark harness: framework registry, interleaved timing, result tables.

Terminology:
  framework  one of FRAMEWORKS (tapegrad, numpy, torch, tensorflow, jax); a framework
             that does not import is skipped, never an error.
  workload   one thing to measure (say "exp forward, 4M float32"), with optional
             bytes or flops per call so the table can show GB/s or GFLOP/s.
  case       a workload's code for one framework: a builder gets the framework's
             module and returns a zero-argument step (one call of the workload).
             A builder decorated with @batched returns step(n) that runs n calls
             itself (used where per-sample state, such as an open tape, is needed).
  sample     one timed run of `inner` calls; `inner` is calibrated per case so that
             a sample lasts at least --sample-ms.

Algorithm, per workload: build every case, call each once and compare its result
with the reference (NumPy when present), warm up, calibrate `inner`, then take
`rounds` samples round-robin over the frameworks (order rotated every round, one
untimed call right before each sample), so that every framework of a workload is
measured in the same run under the same machine state. `rounds` adapts to
--budget. Reported: median time per call, interquartile range, throughput and the
ratio to tapegrad (to NumPy, or the first framework measured, while tapegrad is not
importable).
"""

import argparse
import gc
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time

# OpenBLAS's idle threads busy-wait for about 2^28 cycles (~0.1 s) after each call by
# default, stealing a core from whichever framework is timed next in an interleaved
# run. tapegrad's __init__ shortens this for its own OpenBLAS (see shared/notes/build.md);
# do the same for NumPy's, before NumPy loads it. An explicit setting wins.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
if "numpy" in sys.modules:
    print("WARNING: numpy was imported before benchmarks/_harness.py: OPENBLAS_THREAD_TIMEOUT "
          "does not apply to it; import _harness first", file=sys.stderr)

import numpy as np  # noqa: E402  (after the OpenBLAS setting above)

try:
    from . import _results  # noqa: E402
except ImportError:  # run as a script: this folder is on sys.path
    import _results  # noqa: E402

# Framework order: the first available one is the ratio reference.
FRAMEWORKS = ("tapegrad", "numpy", "torch", "tensorflow", "jax")

# Set by this machine for old OpenBLAS builds; they halve current BLAS speed.
SLOW_BLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's import banner


def warn_slow_blas_env(stream=sys.stderr):
    """Warn when the environment forces a slow OpenBLAS kernel; return the set names."""
    found = [v for v in SLOW_BLAS_VARS if v in os.environ]
    if found:
        print("WARNING: %s set in the environment: OpenBLAS (NumPy's, tapegrad's) runs "
              "at about half speed. Run as\n  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "
              "python benchmarks/run_all.py" % " and ".join(
                  "%s=%s" % (v, os.environ[v]) for v in found), file=stream)
    return found


warn_slow_blas_env()


# ---------------------------------------------------------------------------------
# Framework registry

# Threads per framework: None keeps each framework's default (2 for torch, which is
# this machine's core count); main() sets it from --threads before anything loads.
THREADS = None


def _load_torch():
    import torch
    torch.set_num_threads(THREADS or 2)
    return torch


def _load_tensorflow():
    import tensorflow as tf
    if THREADS:
        tf.config.threading.set_intra_op_parallelism_threads(THREADS)
        tf.config.threading.set_inter_op_parallelism_threads(THREADS)
    return tf


def _load_jax():
    import jax
    import jax.numpy  # noqa: F401  (builders use jax.numpy)
    return jax


_LOADERS = {
    "tapegrad": lambda: importlib.import_module("tapegrad"),
    "numpy": lambda: np,
    "torch": _load_torch,
    "tensorflow": _load_tensorflow,
    "jax": _load_jax,
}

_modules = {}   # name -> module, or the exception text that stopped its import


def load(name):
    """The framework's module, or None if it does not import (reason in skip_reason)."""
    if name not in _modules:
        try:
            _modules[name] = _LOADERS[name]()
        except Exception as e:  # ImportError, or a half-built extension failing to load
            _modules[name] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    mod = _modules[name]
    return None if isinstance(mod, str) else mod


def skip_reason(name):
    mod = _modules.get(name)
    return mod if isinstance(mod, str) else None


def framework_version(name):
    mod = load(name)
    if mod is None:
        return None
    return getattr(mod, "__version__", "?")


# ---------------------------------------------------------------------------------
# Workloads and cases

def batched(builder):
    """Mark a builder whose step takes n and runs n calls itself."""
    builder.batched = True
    return builder


class Workload:
    """One measured thing; cases are registered per framework with @w.case(...)."""

    def __init__(self, group, name, *, nbytes=None, flops=None, note="", rtol=2e-3):
        self.group = group
        self.name = name
        self.nbytes = nbytes      # bytes moved per call, for GB/s
        self.flops = flops        # floating-point operations per call, for GFLOP/s
        self.note = note          # what the throughput counts, how the peers differ
        self.rtol = rtol          # result check tolerance, relative to max |reference|
        self.cases = {}           # framework name -> builder(module)

    @property
    def title(self):
        return "%s: %s" % (self.group, self.name)

    def case(self, *frameworks):
        """Decorator: the builder serves every framework named (e.g. tensorflow and tapegrad)."""
        def register(builder):
            for fw in frameworks:
                if fw not in FRAMEWORKS:
                    raise ValueError("unknown framework %r" % fw)
                self.cases[fw] = builder
            return builder
        return register


def to_numpy(value):
    """Result of any framework as NumPy (tuples and lists become lists)."""
    if isinstance(value, (list, tuple)):
        return [to_numpy(v) for v in value]
    if hasattr(value, "detach"):          # torch
        return value.detach().numpy()
    if hasattr(value, "numpy"):           # tensorflow, tapegrad
        return np.asarray(value.numpy())
    return np.asarray(value)              # numpy, jax


def check_close(got, ref, rtol):
    """'' when got matches ref, else a short reason."""
    if isinstance(ref, list) or isinstance(got, list):
        if not (isinstance(ref, list) and isinstance(got, list)) or len(ref) != len(got):
            return "structure differs"
        for g, r in zip(got, ref):
            why = check_close(g, r, rtol)
            if why:
                return why
        return ""
    if got.shape != ref.shape:
        return "shape %s != %s" % (got.shape, ref.shape)
    if got.dtype != ref.dtype:
        return "dtype %s != %s" % (got.dtype, ref.dtype)
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    err = float(np.max(np.abs(got.astype(np.float64) - ref))) if ref.size else 0.0
    if not np.isfinite(err) or err > rtol * max(scale, 1e-30):
        return "max abs err %.3g vs scale %.3g" % (err, scale)
    return ""


class Result:
    def __init__(self, framework):
        self.framework = framework
        self.times = []           # ns per call, one per sample
        self.inner = 0
        self.status = ""          # '' when measured; else 'skipped: ...', 'n/a', 'error: ...'
        self.check = ""           # '' when the result matched the reference

    @property
    def ok(self):
        return not self.status and bool(self.times)

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def iqr(self):
        if len(self.times) < 4:
            return min(self.times), max(self.times)
        q = statistics.quantiles(self.times, n=4, method="inclusive")
        return q[0], q[2]

    def as_dict(self):
        d = {"framework": self.framework, "status": self.status or "ok", "check": self.check or "ok"}
        if self.ok:
            q1, q3 = self.iqr
            d.update(median_ns=self.median, q1_ns=q1, q3_ns=q3, samples=len(self.times),
                     inner=self.inner)
        return d


# ---------------------------------------------------------------------------------
# Timing

def _as_batch(step, is_batched):
    if is_batched:
        return step

    # Each result is dropped before the next call (a result kept alive across the next
    # call makes large allocations page-fault far more often on this VM, see README).
    def run(n):
        for _ in range(n - 1):
            step()
        return step()
    return run


def time_batch(run, n):
    """Nanoseconds for run(n), with the garbage collector off (as timeit does)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter_ns()
        run(n)
        t1 = time.perf_counter_ns()
    finally:
        if enabled:
            gc.enable()
    return t1 - t0


def calibrate(run, sample_ns, warmup_ns):
    """Warm up, then the smallest power of two n with run(n) >= sample_ns; (n, ns per call)."""
    spent = 0
    while spent < warmup_ns:
        spent += time_batch(run, 1)
    n = 1
    while True:
        t = time_batch(run, n)
        if t >= sample_ns or n >= 1 << 22:
            return n, t / n
        # Jump close to the target instead of doubling one step at a time.
        grow = max(2, min(64, int(sample_ns / max(t, 1))))
        n *= 1 << (grow.bit_length() - 1)


def measure(workload, frameworks, opts):
    """Results for one workload, every framework measured in the same interleaved run."""
    results = {}
    runs = {}
    firsts = {}
    for fw in frameworks:
        r = results[fw] = Result(fw)
        mod = load(fw)
        if mod is None:
            r.status = "skipped: " + (skip_reason(fw) or "not importable")
            continue
        builder = workload.cases.get(fw)
        if builder is None:
            r.status = "n/a"
            continue
        try:
            run = _as_batch(builder(mod), getattr(builder, "batched", False))
            firsts[fw] = to_numpy(run(1))   # also compiles (jax.jit) and allocates
        except Exception as e:
            r.status = "error: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:80] if str(e) else "")
            continue
        runs[fw] = run
    # NumPy computes each workload by hand: it is the reference when present.
    ref_fw = "numpy" if "numpy" in firsts else next(iter(firsts), None)
    for fw, got in firsts.items():
        if fw != ref_fw:
            results[fw].check = check_close(got, firsts[ref_fw], workload.rtol)

    per_call = {}
    for fw, run in list(runs.items()):
        try:
            results[fw].inner, per_call[fw] = calibrate(run, opts.sample_ms * 1e6, opts.warmup_ms * 1e6)
        except Exception as e:
            results[fw].status = "error: %s: %s" % (type(e).__name__, str(e)[:80])
            del runs[fw]
    if not runs:
        return list(results.values())

    # Each round costs one pause, one untimed call and one sample per framework.
    round_ns = sum(per_call[fw] * (results[fw].inner + 1) + opts.pause_ms * 1e6 for fw in runs)
    rounds = int(opts.budget * 1e9 / max(round_ns, 1))
    rounds = max(opts.min_rounds, min(opts.max_rounds, rounds))
    order = list(runs)
    for i in range(rounds):
        k = i % len(order)
        for fw in order[k:] + order[:k]:
            run, r = runs[fw], results[fw]
            try:
                if opts.pause_ms > 0:                    # let the previous framework's threads idle
                    time.sleep(opts.pause_ms / 1e3)
                run(1)                                   # this framework's threads and caches
                r.times.append(time_batch(run, r.inner) / r.inner)
            except Exception as e:
                r.status = "error: %s: %s" % (type(e).__name__, str(e)[:80])
                del runs[fw]
                order.remove(fw)
                break
    return list(results.values())


class OtherLoad:
    """Share of the machine's CPU time used by other processes between start() and stop().

    /proc/stat's busy time of all CPUs minus this process's own CPU time, over wall
    time times CPU count; None where /proc/stat is missing.
    """

    @staticmethod
    def _busy_s():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        busy = sum(v[:8]) - v[3] - v[4]              # all but idle and iowait
        return busy / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _own_s():
        t = os.times()
        return t.user + t.system

    def start(self):
        try:
            self.t0 = (time.perf_counter(), self._busy_s(), self._own_s())
        except (OSError, ValueError, IndexError):
            self.t0 = None
        return self

    def stop(self):
        if self.t0 is None:
            return None
        wall, busy, own = time.perf_counter(), self._busy_s(), self._own_s()
        other = (busy - self.t0[1]) - (own - self.t0[2])
        return max(0.0, other / max(wall - self.t0[0], 1e-9) / (os.cpu_count() or 1))


# ---------------------------------------------------------------------------------
# Reporting

def fmt_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return "%.3g %s" % (ns / scale, unit)
    return "%.3g ns" % ns


def throughput(workload, ns):
    if workload.flops:
        return "%.1f GFLOP/s" % (workload.flops / ns)
    if workload.nbytes:
        return "%.1f GB/s" % (workload.nbytes / ns)
    return ""


def print_table(workload, results, out=sys.stdout, other_load=None):
    measured = [r for r in results if r.ok]
    ref = next((r for r in measured if r.framework == "tapegrad"), measured[0] if measured else None)
    print("\n== %s" % workload.title, file=out)
    if workload.note:
        print("   %s" % workload.note, file=out)
    print("   %-11s %10s  %-21s %-15s %s" % ("framework", "median", "IQR", "throughput",
                                            "ratio (time / time of %s)" % (ref.framework if ref else "-")),
          file=out)
    for r in results:
        if not r.ok:
            print("   %-11s %10s  %s" % (r.framework, "-", r.status or "no samples"), file=out)
            continue
        q1, q3 = r.iqr
        ratio = "%s/%s = %.2fx" % (r.framework, ref.framework, r.median / ref.median)
        check = "  CHECK FAILED: " + r.check if r.check else ""
        print("   %-11s %10s  %-21s %-15s %s%s" % (
            r.framework, fmt_time(r.median), "%s .. %s" % (fmt_time(q1), fmt_time(q3)),
            throughput(workload, r.median), ratio, check), file=out)
    if measured:
        r0 = measured[0]
        print("   (%d samples per framework, %s per sample)" % (
            len(r0.times), ", ".join("%s %d" % (r.framework, r.inner) for r in measured) + " calls"),
            file=out)
    if other_load is not None and other_load > 0.05:
        print("   NOTE: other processes used %.0f%% of the CPUs meanwhile: times are inflated"
              % (100 * other_load), file=out)


def cpu_description():
    """("model name (family f model m, isa)", the widest x86 vector ISA the CPU flags show), or ("", "")."""
    try:
        with open("/proc/cpuinfo") as f:
            info = dict(l.split(":", 1) for l in f.read().split("\n\n")[0].splitlines() if ":" in l)
    except OSError:
        return "", ""
    info = {k.strip(): v.strip() for k, v in info.items()}
    flags = info.get("flags", "").split()
    isa = "avx512f" if "avx512f" in flags else "avx2" if "avx2" in flags else "no avx2"
    return "%s (family %s model %s, %s)" % (info.get("model name", "?"), info.get("cpu family", "?"),
                                            info.get("model", "?"), isa), isa


def blas_descriptions():
    """The OpenBLAS thread pools threadpoolctl sees (NumPy's, tapegrad's), or [] without it."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    return ["%s %s, kernel %s, %d threads (%s)" % (
        info.get("prefix"), info.get("version"), info.get("architecture"), info.get("num_threads"),
        os.path.basename(info.get("filepath", ""))) for info in threadpool_info() if info.get("internal_api") == "openblas"]


def print_environment(frameworks, out=sys.stdout):
    cpu, _ = cpu_description()
    print("machine: %s, %d CPUs, %s; Python %s" % (platform.machine(), os.cpu_count() or 0, cpu,
                                                    platform.python_version()), file=out)
    try:
        print("  load average at start: %.2f %.2f %.2f (other processes skew timings)"
              % os.getloadavg(), file=out)
    except OSError:
        pass
    for fw in frameworks:
        v = framework_version(fw)
        print("  %-11s %s" % (fw, v if v is not None else "skipped (%s)" % skip_reason(fw)), file=out)
    for blas in blas_descriptions():
        print("  BLAS: %s" % blas, file=out)
    for v in SLOW_BLAS_VARS:
        if v in os.environ:
            print("  WARNING: %s=%s is set (slow BLAS kernels)" % (v, os.environ[v]), file=out)


def threads_description(opts):
    if not opts.threads:
        return "defaults (torch 2, the others all cores)"
    return "%d (process pinned to %d CPU%s)" % (opts.threads, len(os.sched_getaffinity(0)),
                                               "" if opts.threads == 1 else "s")


def environment_record(opts, argv=None):
    """What RESULTS.md's header shows: the machine, the ISA tapegrad runs, threads, versions, the command."""
    cpu, cpu_isa = cpu_description()
    tg = load("tapegrad") if "tapegrad" in opts.framework_list else None
    isa = cpu_isa
    if tg is not None:
        try:
            isa = "%s (best the CPU supports: %s)" % (tg._core.active_isa(), tg._core.best_isa())
        except AttributeError:
            pass
    try:
        load_average = list(os.getloadavg())
    except OSError:
        load_average = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=os.path.dirname(os.path.abspath(__file__)), timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        commit = None
    versions = {}
    for fw in opts.framework_list:
        v = framework_version(fw)
        if fw == "tapegrad" and tg is not None:  # its __version__ is the TF API version it follows
            v = "%s (TF API %s)" % (getattr(getattr(tg, "version", None), "TAPEGRAD_VERSION", "?"), v)
        versions[fw] = v if v is not None else "skipped (%s)" % skip_reason(fw)
    args = list(sys.argv[1:] if argv is None else argv)
    return {"cpu": cpu, "cpus": os.cpu_count() or 0, "isa": isa, "threads": threads_description(opts),
            "python": platform.python_version(), "frameworks": versions, "quick": opts.quick, "budget": opts.budget,
            "blas": "; ".join(blas_descriptions()) or None, "load_average": load_average, "commit": commit,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "python benchmarks/%s %s" % (os.path.basename(sys.argv[0]) or "run_all.py", " ".join(args)),
            "warnings": ["%s=%s is set (slow BLAS kernels)" % (v, os.environ[v]) for v in SLOW_BLAS_VARS
                         if v in os.environ]}


# ---------------------------------------------------------------------------------
# Command line

def arg_parser(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                   help="comma-separated subset of %s" % ",".join(FRAMEWORKS))
    p.add_argument("--filter", default="", help="run only workloads whose title contains this")
    p.add_argument("--budget", type=float, default=3.0,
                   help="seconds of timed samples per workload, all frameworks together")
    p.add_argument("--sample-ms", type=float, default=20.0, help="minimum length of one sample")
    p.add_argument("--warmup-ms", type=float, default=100.0, help="warm-up per case")
    p.add_argument("--pause-ms", type=float, default=2.0,
                   help="sleep before each sample, so spinning threads of the framework timed "
                        "before go idle")
    p.add_argument("--min-rounds", type=int, default=7)
    p.add_argument("--max-rounds", type=int, default=51)
    p.add_argument("--threads", type=int, default=0,
                   help="limit every framework to this many threads (1: per-core figures, "
                        "steadier on a shared machine); default: each framework's own")
    p.add_argument("--json", default="", help="append results to this JSON-lines file (an environment "
                   "line first, then one line per workload)")
    p.add_argument("--results", default="", help="also write this Markdown file (benchmarks/RESULTS.md): "
                   "the environment and one table per suite of this run (see write_results.py)")
    p.add_argument("--quick", action="store_true", help="short budget, for a smoke run")
    p.add_argument("--under-load", action="store_true",
                   help="time each workload twice, alone and beside a process busy-looping on one CPU, "
                        "and print the slowdown per framework")
    return p


def parse_args(description, argv=None):
    opts = arg_parser(description).parse_args(argv)
    if opts.quick:
        opts.budget, opts.sample_ms, opts.warmup_ms, opts.min_rounds = 0.3, 5.0, 20.0, 3
    fws = [f.strip() for f in opts.frameworks.split(",") if f.strip()]
    unknown = set(fws) - set(FRAMEWORKS)
    if unknown:
        raise SystemExit("unknown frameworks: %s" % ", ".join(sorted(unknown)))
    opts.framework_list = [f for f in FRAMEWORKS if f in fws]
    return opts


class BusyNeighbour:
    """A separate process spinning on the last CPU this process may use: another user's job on a shared
    machine. The benchmark process itself stays free to use every CPU."""

    def __enter__(self):
        cpu = max(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0
        code = "import os\nif hasattr(os, 'sched_setaffinity'): os.sched_setaffinity(0, {%d})\nwhile True: pass" % cpu
        self.proc = subprocess.Popen([sys.executable, "-c", code])
        time.sleep(0.2)  # let it reach its loop
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def print_slowdown(workload, idle, loaded, out=sys.stdout):
    print("   under load (one CPU busy-looping in another process): loaded median / idle median", file=out)
    for a, b in zip(idle, loaded):
        if a.ok and b.ok:
            print("   %-11s %6.2fx  (%s -> %s)" % (a.framework, b.median / a.median, fmt_time(a.median),
                                                fmt_time(b.median)), file=out)


def run_workloads(workloads, opts, out=sys.stdout):
    """Measure and print every workload matching opts.filter; return the results."""
    all_results = []
    for w in workloads:
        if opts.filter and opts.filter not in w.title:
            continue
        meter = OtherLoad().start()
        results = measure(w, opts.framework_list, opts)
        other = meter.stop()
        print_table(w, results, out, other)
        if getattr(opts, "under_load", False):
            with BusyNeighbour():
                loaded = measure(w, opts.framework_list, opts)
            print_slowdown(w, results, loaded, out)
        out.flush()
        all_results.append((w, results))
        record = workload_record(w, results, opts, other)
        getattr(opts, "records", []).append(record)
        if opts.json:
            with open(opts.json, "a") as f:
                f.write(json.dumps(record) + "\n")
    return all_results


def workload_record(w, results, opts, other_load):
    """One JSON line of --json (and one row of --results)."""
    return {"workload": w.title, "group": w.group, "note": w.note, "nbytes": w.nbytes, "flops": w.flops,
            "threads": opts.threads or None, "other_load": other_load, "results": [r.as_dict() for r in results]}


def limit_threads(n):
    """Every framework to n threads; before load() for the environment variables to count."""
    global THREADS
    THREADS = n
    os.environ["OMP_NUM_THREADS"] = str(n)          # tapegrad's (and torch's) OpenMP
    os.environ["OPENBLAS_NUM_THREADS"] = str(n)     # tapegrad's OpenBLAS
    if n == 1:                                      # XLA's CPU thread pool, read at first use
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   " --xla_cpu_multi_thread_eigen=false"
                                   " intra_op_parallelism_threads=1").strip()
    # XLA's GEMMs (YNNPACK) keep their own pool whatever the flags: pinning the process
    # to n CPUs is what holds every framework to n cores.
    if hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        if n < len(cpus):
            os.sched_setaffinity(0, cpus[:n])


def limit_loaded_threads(n):
    """NumPy's OpenBLAS was loaded with the harness: limit it (and any other) at run time."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        print("WARNING: --threads needs threadpoolctl to limit NumPy's OpenBLAS; "
              "NumPy keeps its default", file=sys.stderr)
        return None
    return threadpool_limits(limits=n)


def main(workloads, description, argv=None, print_env=True):
    opts = parse_args(description, argv)
    if opts.threads:
        limit_threads(opts.threads)
    for fw in opts.framework_list:
        load(fw)
    if opts.threads:
        limit_loaded_threads(opts.threads)
    if print_env:
        print_environment(opts.framework_list)
        print("  threads: %s" % threads_description(opts))
    env = environment_record(opts, argv) if opts.json or opts.results else None
    if opts.json:
        with open(opts.json, "a") as f:
            f.write(json.dumps({"environment": env}) + "\n")
    opts.records = []
    results = run_workloads(workloads, opts)
    if opts.results:
        with open(opts.results, "w", encoding="utf-8") as f:
            f.write(_results.results_markdown(env, opts.records))
        print("\nwrote %s" % opts.results)
    return results
