"""Elementwise exp, tanh, softplus on 4M float32: forward, and forward + backward.

Bytes counted (for GB/s): forward reads x and writes f(x), 8 B per element;
forward + backward counts two such passes, f(x) and f'(x) * upstream, 16 B per
element; the reduce_sum and the broadcast of its gradient are not counted. The
TensorFlow and tapegrad cases are one function of a module `tf`.
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_elementwise.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "elementwise"
N = 1 << 22                  # 4M elements, 16 MB per float32 array
FUNCS = ("exp", "tanh", "softplus")


def input_data():
    """Same data for every framework: N(0, 2^2), so exp stays finite and tanh is not saturated."""
    rng = np.random.default_rng(0)
    return (2.0 * rng.standard_normal(N)).astype(np.float32)


X = input_data()


def tf_func(tf, name):
    return {"exp": tf.exp, "tanh": tf.tanh, "softplus": tf.nn.softplus}[name]


def np_forward(name, x):
    if name == "exp":
        return np.exp(x)
    if name == "tanh":
        return np.tanh(x)
    # softplus, in the stable form a NumPy user writes (np.logaddexp is ~6x slower on float32)
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def np_forward_backward(name, x):
    """Gradient of sum(f(x)) by hand: exp -> e^x, tanh -> 1 - t^2, softplus -> sigmoid."""
    y = np_forward(name, x)
    y.sum()
    if name == "exp":
        return y
    if name == "tanh":
        return 1 - y * y
    return 1 / (1 + np.exp(-x))


def torch_func(torch, name):
    return {"exp": torch.exp, "tanh": torch.tanh,
            "softplus": torch.nn.functional.softplus}[name]


def jax_func(jax, name):
    return {"exp": jax.numpy.exp, "tanh": jax.numpy.tanh, "softplus": jax.nn.softplus}[name]


def make_workloads(name):
    fwd = h.Workload(GROUP, "%s forward, %dM float32" % (name, N >> 20), nbytes=8 * N,
                     note="GB/s counts 8 B/element (read x, write y)", rtol=1e-5)
    bwd = h.Workload(GROUP, "%s forward+backward, d sum(%s(x))/dx, %dM float32" % (name, name, N >> 20),
                     nbytes=16 * N,
                     note="GB/s counts 16 B/element (f: read x, write y; f': read x, write dx); "
                          "jax: jit(value_and_grad), fused by XLA", rtol=1e-5)

    @fwd.case("tensorflow", "tapegrad")
    def _(tf):
        f = tf_func(tf, name)
        x = tf.constant(X)
        return lambda: f(x)

    @bwd.case("tensorflow", "tapegrad")
    def _(tf):
        f = tf_func(tf, name)
        x = tf.constant(X)

        def step():
            with tf.GradientTape() as tape:
                tape.watch(x)
                s = tf.reduce_sum(f(x))
            return tape.gradient(s, x)
        return step

    @fwd.case("numpy")
    def _(np):
        return lambda: np_forward(name, X)

    @bwd.case("numpy")
    def _(np):
        return lambda: np_forward_backward(name, X)

    @fwd.case("torch")
    def _(torch):
        f = torch_func(torch, name)
        x = torch.from_numpy(X.copy())
        return lambda: f(x)

    @bwd.case("torch")
    def _(torch):
        f = torch_func(torch, name)
        x = torch.from_numpy(X.copy()).requires_grad_(True)

        def step():
            s = f(x).sum()
            (g,) = torch.autograd.grad(s, x)
            return g
        return step

    @fwd.case("jax")
    def _(jax):
        f = jax.jit(jax_func(jax, name))
        x = jax.numpy.asarray(X)
        return lambda: f(x).block_until_ready()

    @bwd.case("jax")
    def _(jax):
        f = jax_func(jax, name)
        # value_and_grad, not grad: with grad alone XLA prunes the unused forward.
        vdf = jax.jit(jax.value_and_grad(lambda x: jax.numpy.sum(f(x))))
        x = jax.numpy.asarray(X)
        return lambda: jax.block_until_ready(vdf(x))[1]

    return [fwd, bwd]


WORKLOADS = [w for name in FUNCS for w in make_workloads(name)]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
