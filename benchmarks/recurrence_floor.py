"""The arithmetic floor under bench_recurrence.py: its matrix products alone, in C, by the same
OpenBLAS tapegrad uses (recurrence_floor.c, compiled with the system C compiler at each run).

Prints the median and best time of the 602 products per call with 1 and 2 OpenBLAS threads. A
framework computing the full step (the products plus tanh, the bias, the loss and the framework's
own work) cannot be faster than this on the same machine; compare it with the tf.function row
of bench_recurrence.py run on the same machine.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/recurrence_floor.py
"""
import os
import subprocess
import sys
import tempfile

import scipy_openblas32 as blas


def main():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recurrence_floor.c")
    with tempfile.TemporaryDirectory(prefix="tapegrad-floor-") as d:
        exe = os.path.join(d, "floor")
        subprocess.run([os.environ.get("CC", "cc"), "-O2", src, "-I", blas.get_include_dir(), "-L", blas.get_lib_dir(),
                        "-l" + blas.get_library(), "-Wl,-rpath," + blas.get_lib_dir(), "-o", exe], check=True)
        print("recurrence floor: the 602 matrix products of one loss-and-gradient call (200 steps, batch 16, "
              "32 features, 64 units, float32) alone, OpenBLAS from C")
        for threads in (1, 2):
            out = subprocess.run([exe, str(threads)], capture_output=True, text=True, check=True).stdout.split()
            print(f"  {threads} thread{'s' if threads > 1 else ' '}: median {float(out[0]):.3f} ms, best {float(out[1]):.3f} ms")


if __name__ == "__main__":
    sys.exit(main())
