"""Matrix multiply, float32 1024x1024: C = A @ B with both gradients for a random upstream G; reduce_sum(A @ B).

Flops counted (for GFLOP/s): 2 n^3 per GEMM; forward is one GEMM, forward +
backward three (A @ B, G @ B^T, A^T @ G); the reduce_sum is not counted. The
TensorFlow and tapegrad cases are one function of a module `tf`, with A and B as
tf.Variable (watched by the tape without tape.watch).
The headline rows take a fixed random upstream gradient G (tape.gradient's output_gradients, torch's
grad_outputs, jax.vjp), as training meets. In the reduce_sum rows the upstream is all ones: tapegrad's
MatMul rule sees that it is one value (Note [Uniform gradients] in cpp/engine/backprop.cpp) and
computes dA and dB as row and column sums, one GEMM in all: their GFLOP/s is the rate of the same
result, not of the flops it ran.
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_matmul.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "matmul"
N = 1024


def input_data():
    """Entries in [0, 1): no cancellation in the sums, so float32 results compare tightly."""
    rng = np.random.default_rng(1)
    return rng.random((N, N), dtype=np.float32), rng.random((N, N), dtype=np.float32)


A, B = input_data()
G = np.random.default_rng(2).standard_normal((N, N)).astype(np.float32)  # the upstream gradient of C

upstream = h.Workload(GROUP, "C = A @ B forward+backward, random upstream G, %dx%d float32" % (N, N),
                      flops=3 * 2 * N ** 3, note="returns C, dA = G B^T, dB = A^T G; GFLOP/s counts three GEMMs",
                      rtol=1e-3)
upstream_traced = h.Workload(GROUP, "C = A @ B forward+backward traced, random upstream G, %dx%d float32" % (N, N),
                             flops=3 * 2 * N ** 3, note="tapegrad and TF: tf.function; jax: jit(vjp); numpy: by "
                                                        "hand; torch: eager", rtol=1e-3)

fwd = h.Workload(GROUP, "reduce_sum(A @ B) forward, %dx%d float32" % (N, N), flops=2 * N ** 3,
                 note="GFLOP/s counts one GEMM, 2 n^3", rtol=1e-4)
bwd = h.Workload(GROUP, "reduce_sum(A @ B) forward+backward, dA and dB, %dx%d float32" % (N, N),
                 flops=3 * 2 * N ** 3,
                 note="GFLOP/s counts three GEMMs, 3 * 2 n^3 (numpy: the three GEMMs by hand; tapegrad runs "
                      "one and two row/column sums)",
                 rtol=1e-4)
bwd_traced = h.Workload(GROUP, "reduce_sum(A @ B) forward+backward traced (tf.function, jax.jit), %dx%d float32"
                        % (N, N), flops=3 * 2 * N ** 3,
                        note="tapegrad and TF: the step in tf.function, returning the sum too; jax: "
                             "jit(value_and_grad); numpy: by hand; torch: eager", rtol=1e-4)


def _tf_upstream(tf):
    a, b, g = tf.Variable(A), tf.Variable(B), tf.constant(G)

    def step():
        with tf.GradientTape() as tape:
            c = tf.matmul(a, b)
        return [c] + tape.gradient(c, [a, b], output_gradients=g)
    return step


upstream.case("tensorflow", "tapegrad")(_tf_upstream)
upstream_traced.case("tensorflow", "tapegrad")(lambda tf: tf.function(_tf_upstream(tf)))


@upstream_traced.case("numpy")
@upstream.case("numpy")
def _(np):
    return lambda: [A @ B, G @ B.T, A.T @ G]


@upstream_traced.case("torch")
@upstream.case("torch")
def _(torch):
    a = torch.from_numpy(A.copy()).requires_grad_(True)
    b = torch.from_numpy(B.copy()).requires_grad_(True)
    g = torch.from_numpy(G)

    def step():
        c = a @ b
        return [c.detach()] + list(torch.autograd.grad(c, [a, b], grad_outputs=g))
    return step


@upstream_traced.case("jax")
@upstream.case("jax")
def _(jax):
    @jax.jit
    def step(a, b, g):
        c, vjp = jax.vjp(lambda a, b: a @ b, a, b)
        return [c, *vjp(g)]
    a, b, g = (jax.numpy.asarray(m) for m in (A, B, G))
    return lambda: jax.block_until_ready(step(a, b, g))


@fwd.case("tensorflow", "tapegrad")
def _(tf):
    a, b = tf.Variable(A), tf.Variable(B)
    return lambda: tf.reduce_sum(tf.matmul(a, b))


@bwd.case("tensorflow", "tapegrad")
def _(tf):
    return _tf_step(tf)


@bwd_traced.case("tensorflow", "tapegrad")
def _(tf):
    return tf.function(_tf_step(tf, with_value=True))


def _tf_step(tf, with_value=False):
    a, b = tf.Variable(A), tf.Variable(B)

    def step():
        with tf.GradientTape() as tape:
            s = tf.reduce_sum(tf.matmul(a, b))
        grads = tape.gradient(s, [a, b])
        # traced, a value nobody returns is pruned with its GEMM (as TF does): return it, as jax does
        return [s] + grads if with_value else grads
    return step


@fwd.case("numpy")
def _(np):
    return lambda: (A @ B).sum()


def _numpy_step(np, with_value=False):
    def step():
        c = A @ B
        s = np.float32(c.sum())          # computed either way, as the other frameworks do
        g = np.ones_like(c)              # d sum / dc
        grads = [g @ B.T, A.T @ g]
        return [s] + grads if with_value else grads
    return step


bwd.case("numpy")(_numpy_step)
bwd_traced.case("numpy")(lambda np: _numpy_step(np, with_value=True))


@fwd.case("torch")
def _(torch):
    a, b = torch.from_numpy(A.copy()), torch.from_numpy(B.copy())
    return lambda: (a @ b).sum()


def _torch_step(torch, with_value=False):
    a = torch.from_numpy(A.copy()).requires_grad_(True)
    b = torch.from_numpy(B.copy()).requires_grad_(True)

    def step():
        s = (a @ b).sum()
        grads = list(torch.autograd.grad(s, [a, b]))
        return [s.detach()] + grads if with_value else grads
    return step


bwd.case("torch")(_torch_step)
bwd_traced.case("torch")(lambda torch: _torch_step(torch, with_value=True))


@fwd.case("jax")
def _(jax):
    f = jax.jit(lambda a, b: jax.numpy.sum(a @ b))
    a, b = jax.numpy.asarray(A), jax.numpy.asarray(B)
    return lambda: f(a, b).block_until_ready()


def _jax_step(jax, with_value=False):
    # value_and_grad, not grad: with grad alone XLA prunes the unused forward GEMM.
    vdf = jax.jit(jax.value_and_grad(lambda a, b: jax.numpy.sum(a @ b), argnums=(0, 1)))
    a, b = jax.numpy.asarray(A), jax.numpy.asarray(B)

    def step():
        s, (ga, gb) = jax.block_until_ready(vdf(a, b))
        return [s, ga, gb] if with_value else [ga, gb]
    return step


bwd.case("jax")(_jax_step)
bwd_traced.case("jax")(lambda jax: _jax_step(jax, with_value=True))


WORKLOADS = [upstream, upstream_traced, fwd, bwd, bwd_traced]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
