"""Graph loops that collect one row per step: a TensorArray in a tf.function loop, and scan's gradient.

rows     h = tanh(0.5 h + x[i]) for the T rows of x [T, 64] float32 in a tf.function loop over
         tf.range, each h written to a TensorArray, stacked after the loop (jax: lax.scan under
         jit; torch and NumPy: a Python loop and a stack).
scan     the gradient of sum(scan(lambda a, r: tanh(a * w + r), x)) with respect to w [64], x
         [T, 64] float32, traced (jax: jit(grad) of lax.scan; torch: eager autograd over a Python
         loop).
Both write row i of a [T, 64] buffer at step i: a loop that copies the buffer at each write costs
O(T^2) (Note [Donated loop variables] in cpp/graph/executor.cpp).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_loops.py
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_loops.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "loops"
T, D = 1000, 64
X = np.random.default_rng(0).standard_normal((T, D)).astype(np.float32)
W = np.full(D, 0.5, np.float32)


def np_rows(x):
    h, out = np.zeros(D, np.float32), []
    for r in x:
        h = np.tanh(np.float32(0.5) * h + r)
        out.append(h)
    return np.stack(out)


def make_workloads():
    rows = h.Workload(GROUP, f"TensorArray rows in a tf.function loop, {T} steps x {D}",
                      note="jax: lax.scan under jit; torch, numpy: a Python loop", rtol=1e-4)
    scan = h.Workload(GROUP, f"gradient of sum(scan(tanh(a * w + r))), {T} x {D}, traced",
                      note="jax: jit(grad) of lax.scan; torch: eager autograd over a Python loop", rtol=1e-3)

    @rows.case("tensorflow", "tapegrad")
    def _(tf):
        @tf.function
        def f(x):
            ta = tf.TensorArray(tf.float32, size=tf.shape(x)[0])
            h = tf.zeros([D])
            for i in tf.range(tf.shape(x)[0]):
                h = tf.tanh(0.5 * h + x[i])
                ta = ta.write(i, h)
            return ta.stack()
        x = tf.constant(X)
        return lambda: f(x)

    @rows.case("numpy")
    def _(np):
        return lambda: np_rows(X)

    @rows.case("torch")
    def _(torch):
        x = torch.from_numpy(X.copy())

        def run():
            h, out = torch.zeros(D), []
            for i in range(T):
                h = torch.tanh(0.5 * h + x[i])
                out.append(h)
            return torch.stack(out)
        return run

    @rows.case("jax")
    def _(jax):
        jnp = jax.numpy

        def step(h, r):
            h = jnp.tanh(0.5 * h + r)
            return h, h
        f = jax.jit(lambda x: jax.lax.scan(step, jnp.zeros(D, jnp.float32), x)[1])
        x = jnp.asarray(X)
        return lambda: f(x).block_until_ready()

    @scan.case("tensorflow", "tapegrad")
    def _(tf):
        w = tf.Variable(W)

        @tf.function
        def g(x):
            with tf.GradientTape() as tape:
                y = tf.reduce_sum(tf.scan(lambda a, r: tf.tanh(a * w + r), x))
            return tape.gradient(y, w)
        x = tf.constant(X)
        return lambda: g(x)

    @scan.case("torch")
    def _(torch):
        x = torch.from_numpy(X.copy())
        w = torch.from_numpy(W.copy()).requires_grad_(True)

        def run():
            a, total = x[0], x[0].sum()
            for i in range(1, T):
                a = torch.tanh(a * w + x[i])
                total = total + a.sum()
            (g,) = torch.autograd.grad(total, w)
            return g
        return run

    @scan.case("jax")
    def _(jax):
        jnp = jax.numpy

        def loss(w, x):
            def step(a, r):
                a = jnp.tanh(a * w + r)
                return a, a
            _, ys = jax.lax.scan(step, x[0], x[1:])
            return jnp.sum(ys) + jnp.sum(x[0])
        g = jax.jit(jax.grad(loss))
        w, x = jnp.asarray(W), jnp.asarray(X)
        return lambda: g(w, x).block_until_ready()

    return [rows, scan]


WORKLOADS = make_workloads()


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
