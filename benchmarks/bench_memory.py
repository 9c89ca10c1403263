"""Peak memory and the first call: training steps of other suites, each framework in a fresh process.

For each step below and each framework, a new Python process imports the framework, builds the
case (the same builder as the suite's, so the same weights and data), times its first call (the
trace and first run of a tf.function or jax.jit; the first eager step otherwise), runs the rest of
STEPS calls and reports the peak resident set size (ru_maxrss) and its growth since the import.
Three processes per framework; the table shows medians and each peer's ratio to tapegrad's.
Not in run_all.py (it starts its own processes).
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_memory.py [--steps 200]
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# (suite module, workload variable): the steps measured
STEPS_MEASURED = [("bench_training", "wide"), ("bench_training", "wide_traced"),
                  ("bench_transformer", "eager"), ("bench_transformer", "traced"),
                  ("bench_text", "traced"), ("bench_pinn", "traced"),
                  ("bench_mixed_precision", "wide_float32_traced"), ("bench_mixed_precision", "wide_mixed_float16_traced"),
                  ("bench_mixed_precision", "wide_mixed_bfloat16_traced")]
FRAMEWORKS = ("tapegrad", "torch", "tensorflow", "jax")


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def child(suite, workload, framework, steps):
    """Runs in the fresh process: prints one JSON line."""
    import _harness as h
    module = h.load(framework)
    if module is None:
        print(json.dumps({"skipped": h.skip_reason(framework)}))
        return
    case = getattr(__import__(suite), workload).cases.get(framework)
    if case is None:
        print(json.dumps({"skipped": "no case"}))
        return
    after_import = _rss_mib()
    step = case(module)
    one = (lambda: step(1)) if getattr(case, "batched", False) else step
    start = time.perf_counter()
    h.to_numpy(one())
    first = time.perf_counter() - start
    for _ in range(steps - 1):
        one()
    peak = _rss_mib()
    print(json.dumps({"first_s": first, "peak_mib": peak, "growth_mib": peak - after_import}))


def _measure(suite, workload, framework, steps, repeats):
    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", suite, workload, framework,
                              "--steps", str(steps)], capture_output=True, text=True)
        lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
        if out.returncode or not lines:
            return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1]}
        record = json.loads(lines[-1])
        if "skipped" in record:
            return record
        runs.append(record)
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    parser.add_argument("--filter", default="", help="only steps whose suite.workload contains this")
    parser.add_argument("--child", nargs=3, metavar=("SUITE", "WORKLOAD", "FRAMEWORK"), help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.child:
        return child(*opts.child, opts.steps)
    import _harness as h
    for suite, workload in STEPS_MEASURED:
        if opts.filter not in f"{suite}.{workload}":
            continue
        print(f"\n== {getattr(__import__(suite), workload).title}: {opts.steps} steps, fresh process per run")
        print(f"   {'framework':12} {'first call':>11} {'peak RSS':>10} {'growth':>9}   ratios to tapegrad "
              "(first, peak, growth)")
        base, base_name = None, None
        for fw in opts.frameworks.split(","):
            r = _measure(suite, workload, fw, opts.steps, opts.repeats)
            if "first_s" not in r:
                print(f"   {fw:12} {r.get('skipped') or r.get('error')}")
                continue
            if base is None:
                base, base_name = r, fw
            ratios = ", ".join(f"{r[k] / base[k]:.2f}x" if base[k] > 0 else "n/a"
                               for k in ("first_s", "peak_mib", "growth_mib"))
            print(f"   {fw:12} {r['first_s'] * 1e3:9.0f} ms {r['peak_mib']:6.0f} MiB {r['growth_mib']:5.0f} MiB   "
                  f"{fw}/{base_name} = {ratios}")
    h.warn_slow_blas_env()


if __name__ == "__main__":
    main(sys.argv[1:])
