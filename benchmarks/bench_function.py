"""Traced functions: the 4M softplus*tanh loss with its gradient, and a cached scalar call.

The loss is sum(softplus(x) * tanh(x)) over 4M float32 elements; every case returns the loss
and its gradient (NumPy by hand: softplus' = sigmoid, tanh' = 1 - tanh^2). "traced" compares
tapegrad.function (the fusion pass makes the whole loss and gradient one kernel pass reading x
and writing the gradient) with tf.function and jax.jit(value_and_grad); "eager" compares the
frameworks op by op. GB/s counts 8 B per element (read x, write the gradient), the least any
implementation moves. The cached call is the book's `cube` on a scalar tensor.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_function.py
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_function.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "function"
N = 1 << 22
X = np.random.default_rng(0).standard_normal(N).astype(np.float32)


def np_loss_and_grad(x):
    """sum(softplus(x) tanh(x)) and its gradient softplus(x) (1 - t^2) + t sigmoid(x), by hand."""
    e = np.exp(-np.abs(x))
    sp = np.maximum(x, 0) + np.log1p(e)
    t = np.tanh(x)
    sig = np.where(x >= 0, 1, e) / (1 + e)
    return [np.float32(np.sum(sp * t)), sp * (1 - t * t) + t * sig]


def tf_loss_and_grad(tf):
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.softplus(x) * tf.tanh(x))
        return y, tape.gradient(y, x)
    return f


def make_workloads():
    note = "GB/s counts 8 B/element (read x, write dx)"
    traced = h.Workload(GROUP, "softplus*tanh loss + gradient, %dM float32, traced" % (N >> 20), nbytes=8 * N,
                        note=note + "; numpy: by hand; torch: eager autograd", rtol=1e-4)
    eager = h.Workload(GROUP, "softplus*tanh loss + gradient, %dM float32, eager" % (N >> 20), nbytes=8 * N,
                       note=note, rtol=1e-4)
    cube = h.Workload(GROUP, "cube(x) = x ** 3, scalar float32, cached traced call",
                      note="numpy: x ** 3 on a 0-d array", rtol=1e-6)

    @traced.case("tensorflow", "tapegrad")
    def _(tf):
        f = tf.function(tf_loss_and_grad(tf))
        x = tf.constant(X)
        return lambda: f(x)

    @eager.case("tensorflow", "tapegrad")
    def _(tf):
        f = tf_loss_and_grad(tf)
        x = tf.constant(X)
        return lambda: f(x)

    @traced.case("numpy")
    @eager.case("numpy")
    def _(np):
        return lambda: np_loss_and_grad(X)

    @traced.case("torch")
    @eager.case("torch")
    def _(torch):
        x = torch.from_numpy(X.copy()).requires_grad_(True)

        def step():
            y = (torch.nn.functional.softplus(x) * torch.tanh(x)).sum()
            (g,) = torch.autograd.grad(y, x)
            return [y.detach(), g]
        return step

    @traced.case("jax")
    def _(jax):
        jnp = jax.numpy
        vdf = jax.jit(jax.value_and_grad(lambda x: jnp.sum(jax.nn.softplus(x) * jnp.tanh(x))))
        x = jnp.asarray(X)
        return lambda: list(jax.block_until_ready(vdf(x)))

    @cube.case("tensorflow", "tapegrad")
    def _(tf):
        @tf.function
        def tf_cube(x):
            return x ** 3
        x = tf.constant(1.5)
        tf_cube(x)
        return lambda: tf_cube(x)

    @cube.case("jax")
    def _(jax):
        f = jax.jit(lambda x: x ** 3)
        x = jax.numpy.asarray(np.float32(1.5))
        return lambda: f(x).block_until_ready()

    @cube.case("numpy")
    def _(np):
        x = np.asarray(np.float32(1.5))
        return lambda: x ** 3

    return [traced, eager, cube]


WORKLOADS = make_workloads()


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
