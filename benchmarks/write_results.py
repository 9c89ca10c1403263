"""Writes benchmarks/RESULTS.md from the JSON lines of a benchmark run: one table per suite.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/run_all.py --json /tmp/bench.json
    python benchmarks/write_results.py /tmp/bench.json            # -> benchmarks/RESULTS.md

`run_all.py --results benchmarks/RESULTS.md` does both in one run. A JSON file that several runs
appended to gives, per workload, the figure of the latest run, under the latest run's environment.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _results  # noqa: E402  (the folder is not a package when run as a script)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("json", help="JSON-lines file written by --json")
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md"),
                   help="the Markdown file to write (default: benchmarks/RESULTS.md)")
    opts = p.parse_args(argv)
    print("wrote", _results.write_results(opts.json, opts.out))


if __name__ == "__main__":
    main(sys.argv[1:])
