"""Run every benchmark of this folder in one process, one environment header first.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/run_all.py [options]

Options are those of every bench_*.py (see --help): --frameworks, --filter, --budget,
--json FILE, --quick, --threads N, --under-load, and --results benchmarks/RESULTS.md, which writes
this run's tables there (write_results.py writes them from a --json file instead).
"""

import sys

try:
    from . import _harness as h
    from . import (bench_autodiff, bench_cnn, bench_data, bench_dispatch, bench_elementwise, bench_function,
                   bench_loops, bench_lstm, bench_matmul, bench_mixed_precision, bench_parse, bench_pinn,
                   bench_recurrence, bench_text, bench_training, bench_transformer)
except ImportError:          # run as a script
    import _harness as h
    import bench_autodiff
    import bench_cnn
    import bench_data
    import bench_dispatch
    import bench_elementwise
    import bench_function
    import bench_loops
    import bench_lstm
    import bench_matmul
    import bench_mixed_precision
    import bench_parse
    import bench_pinn
    import bench_recurrence
    import bench_text
    import bench_training
    import bench_transformer

SUITES = (bench_dispatch, bench_elementwise, bench_matmul, bench_function, bench_autodiff, bench_training, bench_data,
          bench_cnn, bench_lstm, bench_text, bench_transformer, bench_pinn, bench_recurrence, bench_loops, bench_parse,
          bench_mixed_precision)


def main(argv=None):
    workloads = [w for suite in SUITES for w in suite.WORKLOADS]
    return h.main(workloads, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    main(sys.argv[1:])
