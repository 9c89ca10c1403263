"""Recurrence: 200 steps of h = tanh(x_t W + h U + b), loss mean(h_T**2), gradient w.r.t. W, U, b.

Batch 16, 32 features, 64 units, float32. Every case returns [loss, dW, dU, db]. tapegrad and
TF run the same `tf.function`: a Python `for t in tf.range(T)` with the step count T passed as
a tensor, so AutoGraph makes it a graph while loop (one trace serves every T), and the
GradientTape inside the function. jax: jax.jit(value_and_grad) of a lax.scan; torch: eager
autograd; NumPy: forward and backpropagation through time by hand.

Gradients shrinking through the tanh steps reach subnormal floats (about 1e-38 and below) in
the early steps of the backward pass; x86 runs float arithmetic on subnormals far slower
unless the MXCSR flush-to-zero (FTZ) and denormals-are-zero (DAZ) bits are set, which TF
and JAX do on CPU. The "FTZ/DAZ on" workload runs every case with both bits set for the
calling thread during each call (a tiny C helper compiled at first use; the library's
floating-point mode is untouched): the difference between the two workloads is the cost of
subnormals for tapegrad, NumPy and torch.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_recurrence.py
"""

import ctypes
import os
import subprocess
import sys
import tempfile

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_recurrence.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "recurrence"
T, BATCH, FEATURES, UNITS = 200, 16, 32, 64

_rng = np.random.default_rng(0)
XS = _rng.standard_normal((T, BATCH, FEATURES)).astype(np.float32)
W0 = (_rng.standard_normal((FEATURES, UNITS)) / np.sqrt(FEATURES)).astype(np.float32)
U0 = (_rng.standard_normal((UNITS, UNITS)) / np.sqrt(UNITS)).astype(np.float32)
B0 = np.zeros(UNITS, np.float32)

# Matmul flops (2 m n k each) per step: forward x_t W and h U; backward x_t^T dz, h^T dz
# and dz U^T (no gradient for x).
FLOPS = T * (2 * (2 * BATCH * FEATURES * UNITS) + 3 * (2 * BATCH * UNITS * UNITS))


def np_loss_and_grads(xs, w, u, b):
    """Forward keeping every h, then backpropagation through time."""
    hs = np.empty((len(xs) + 1, xs.shape[1], u.shape[0]), np.float32)
    hs[0] = 0
    for t in range(len(xs)):
        hs[t + 1] = np.tanh(xs[t] @ w + hs[t] @ u + b)
    h_last = hs[-1]
    loss = np.float32(np.mean(h_last * h_last))
    dh = (np.float32(2 / h_last.size) * h_last).astype(np.float32)
    dw, du, db = np.zeros_like(w), np.zeros_like(u), np.zeros_like(b)
    for t in range(len(xs) - 1, -1, -1):
        dz = dh * (1 - hs[t + 1] * hs[t + 1])
        dw += xs[t].T @ dz
        du += hs[t].T @ dz
        db += dz.sum(axis=0)
        dh = dz @ u.T
    return [loss, dw, du, db]


def tf_loss_and_grads(tf):
    """The TF program: for t in tf.range(T) inside tf.function, the tape inside."""
    @tf.function
    def loss_and_grads(xs, w, u, b, steps):
        with tf.GradientTape() as tape:
            tape.watch([w, u, b])
            h = tf.zeros([tf.shape(xs)[1], tf.shape(u)[0]], xs.dtype)
            for t in tf.range(steps):
                h = tf.tanh(tf.matmul(xs[t], w) + tf.matmul(h, u) + b)
            loss = tf.reduce_mean(h * h)
        dw, du, db = tape.gradient(loss, [w, u, b])
        return loss, dw, du, db
    return loss_and_grads


# ---------------------------------------------------------------------------------
# Flush-to-zero for the calling thread (x86 MXCSR bit 15 FTZ, bit 6 DAZ)

_MXCSR_SRC = r"""
#include <xmmintrin.h>
unsigned int mxcsr_get(void) { return _mm_getcsr(); }
void mxcsr_set(unsigned int v) { _mm_setcsr(v); }
"""
_FTZ_DAZ = (1 << 15) | (1 << 6)
_mxcsr = None


def mxcsr_lib():
    """ctypes handle of mxcsr_get/mxcsr_set, compiled with the system C compiler once."""
    global _mxcsr
    if _mxcsr is None:
        d = tempfile.mkdtemp(prefix="tapegrad-bench-mxcsr-")
        src, lib = os.path.join(d, "mxcsr.c"), os.path.join(d, "mxcsr.so")
        with open(src, "w") as f:
            f.write(_MXCSR_SRC)
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", src, "-o", lib],
                       check=True, capture_output=True)
        _mxcsr = ctypes.CDLL(lib)
        _mxcsr.mxcsr_get.restype = ctypes.c_uint
        _mxcsr.mxcsr_set.argtypes = [ctypes.c_uint]
    return _mxcsr


def with_ftz(step):
    """step() run with FTZ and DAZ set on this thread, the previous mode restored after."""
    lib = mxcsr_lib()

    def run():
        old = lib.mxcsr_get()
        lib.mxcsr_set(old | _FTZ_DAZ)
        try:
            return step()
        finally:
            lib.mxcsr_set(old)
    return run


# ---------------------------------------------------------------------------------

def make_workloads():
    shape = "%d steps, batch %d, %d features, %d units, float32" % (T, BATCH, FEATURES, UNITS)
    note = ("GFLOP/s counts the matmuls; tapegrad, tensorflow: tf.function with for t in "
            "tf.range(T); jax: jit of scan; torch: eager; numpy: BPTT by hand")
    plain = h.Workload(GROUP, "tanh RNN loss + gradient, " + shape, flops=FLOPS, note=note, rtol=2e-3)
    ftz = h.Workload(GROUP, "tanh RNN loss + gradient, FTZ/DAZ on, " + shape, flops=FLOPS,
                     note="every case with the MXCSR flush-to-zero bits set on this thread during each call",
                     rtol=2e-3)

    def tf_case(tf):
        f = tf_loss_and_grads(tf)
        args = [tf.constant(a) for a in (XS, W0, U0, B0)] + [tf.constant(T)]
        return lambda: list(f(*args))

    def np_case(np):
        return lambda: np_loss_and_grads(XS, W0, U0, B0)

    def torch_case(torch):
        xs = torch.from_numpy(XS.copy())
        params = [torch.from_numpy(a.copy()).requires_grad_(True) for a in (W0, U0, B0)]

        def step():
            w, u, b = params
            hh = torch.zeros(BATCH, UNITS)
            for t in range(T):
                hh = torch.tanh(xs[t] @ w + hh @ u + b)
            loss = (hh * hh).mean()
            grads = torch.autograd.grad(loss, params)
            return [loss.detach()] + list(grads)
        return step

    def jax_case(jax):
        jnp = jax.numpy

        def loss_fn(params, xs):
            w, u, b = params

            def cell(hh, x):
                return jnp.tanh(x @ w + hh @ u + b), None
            h_last, _ = jax.lax.scan(cell, jnp.zeros((BATCH, UNITS), xs.dtype), xs)
            return jnp.mean(h_last * h_last)

        vg = jax.jit(jax.value_and_grad(loss_fn))
        params = tuple(jnp.asarray(a) for a in (W0, U0, B0))
        xs = jnp.asarray(XS)

        def step():
            loss, grads = jax.block_until_ready(vg(params, xs))
            return [loss] + list(grads)
        return step

    cases = {"tapegrad": tf_case, "tensorflow": tf_case, "numpy": np_case, "torch": torch_case,
             "jax": jax_case}
    for fw, builder in cases.items():
        plain.case(fw)(builder)
        ftz.case(fw)(lambda mod, builder=builder: with_ftz(builder(mod)))

    return [plain, ftz]


WORKLOADS = make_workloads()


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
