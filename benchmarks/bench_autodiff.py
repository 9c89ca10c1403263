"""Jacobians and Hessians: the full 256x256 jacobian of tanh(W @ x), and the Hessian of
sum(tanh(W @ x)**2) for a 64-dim x, eager and compiled.

Eager workloads compare tapegrad's tape.jacobian (one batched sweep) with TensorFlow's eager
tape.jacobian and PyTorch's autograd.functional (vectorize=True); compiled workloads compare
tf.function, jax.jit(jax.jacrev / jax.hessian) and torch.func with tapegrad's eager code;
NumPy is the closed form by hand.
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script
    import _harness as h

import numpy as np  # noqa: E402

GROUP = "autodiff"
N_JAC, N_HESS = 256, 64
rng = np.random.default_rng(3)
W = (rng.standard_normal((N_JAC, N_JAC)) / np.sqrt(N_JAC)).astype(np.float32)
X = rng.standard_normal(N_JAC).astype(np.float32)
W2 = (rng.standard_normal((N_HESS, N_HESS)) / np.sqrt(N_HESS)).astype(np.float32)
X2 = rng.standard_normal(N_HESS).astype(np.float32)

jac_eager = h.Workload(GROUP, "jacobian of tanh(W @ x), 256x256, eager",
                       note="tapegrad/tensorflow: tape.jacobian; torch: autograd.functional.jacobian(vectorize=True)",
                       rtol=1e-4)
jac_compiled = h.Workload(GROUP, "jacobian of tanh(W @ x), 256x256, compiled",
                          note="tensorflow: tf.function + tape.jacobian; jax: jit(jacrev); torch: func.jacrev",
                          rtol=1e-4)
hess_eager = h.Workload(GROUP, "Hessian of sum(tanh(W @ x)**2), 64-dim x, eager",
                        note="tapegrad/tensorflow: nested tapes + jacobian; torch: autograd.functional.hessian",
                        rtol=1e-3)
hess_compiled = h.Workload(GROUP, "Hessian of sum(tanh(W @ x)**2), 64-dim x, compiled",
                           note="tensorflow: tf.function; jax: jit(hessian); torch: func.hessian", rtol=1e-3)


def _tf_jacobian(tf):
    w, x = tf.constant(W), tf.constant(X)

    def jac():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tanh(tf.linalg.matvec(w, x))
        return tape.jacobian(y, x)
    return jac


def _tf_hessian(tf):
    w, x = tf.constant(W2), tf.constant(X2)

    def hess():
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(tf.tanh(tf.linalg.matvec(w, x)) ** 2)
            g = inner.gradient(y, x)
        return outer.jacobian(g, x)
    return hess


jac_eager.case("tensorflow", "tapegrad")(_tf_jacobian)
hess_eager.case("tensorflow", "tapegrad")(_tf_hessian)
# The issue's bar: tapegrad's eager jacobian/Hessian against the peers' compiled ones.
jac_compiled.case("tapegrad")(_tf_jacobian)
hess_compiled.case("tapegrad")(_tf_hessian)


@jac_compiled.case("tensorflow")
def _(tf):
    return tf.function(_tf_jacobian(tf))


@hess_compiled.case("tensorflow")
def _(tf):
    return tf.function(_tf_hessian(tf))


@jac_eager.case("numpy")
def _(np):
    def jac():
        t = np.tanh(W @ X)
        return (1 - t * t)[:, None] * W
    return jac


@hess_eager.case("numpy")
def _(np):
    def hess():
        t = np.tanh(W2 @ X2)
        d = 2 * (1 - t * t) * (1 - 3 * t * t)
        return (W2.T * d) @ W2
    return hess


jac_compiled.case("numpy")(jac_eager.cases["numpy"])
hess_compiled.case("numpy")(hess_eager.cases["numpy"])


@jac_eager.case("torch")
def _(torch):
    w, x = torch.from_numpy(W.copy()), torch.from_numpy(X.copy())
    f = lambda v: torch.tanh(w @ v)  # noqa: E731
    return lambda: torch.autograd.functional.jacobian(f, x, vectorize=True)


@hess_eager.case("torch")
def _(torch):
    w, x = torch.from_numpy(W2.copy()), torch.from_numpy(X2.copy())
    f = lambda v: (torch.tanh(w @ v) ** 2).sum()  # noqa: E731
    return lambda: torch.autograd.functional.hessian(f, x, vectorize=True)


@jac_compiled.case("torch")
def _(torch):
    w, x = torch.from_numpy(W.copy()), torch.from_numpy(X.copy())
    jac = torch.func.jacrev(lambda v: torch.tanh(w @ v))
    return lambda: jac(x)


@hess_compiled.case("torch")
def _(torch):
    w, x = torch.from_numpy(W2.copy()), torch.from_numpy(X2.copy())
    hess = torch.func.hessian(lambda v: (torch.tanh(w @ v) ** 2).sum())
    return lambda: hess(x)


@jac_compiled.case("jax")
def _(jax):
    w, x = jax.numpy.asarray(W), jax.numpy.asarray(X)
    jac = jax.jit(jax.jacrev(lambda v: jax.numpy.tanh(w @ v)))
    return lambda: jac(x).block_until_ready()


@hess_compiled.case("jax")
def _(jax):
    w, x = jax.numpy.asarray(W2), jax.numpy.asarray(X2)
    hess = jax.jit(jax.hessian(lambda v: jax.numpy.sum(jax.numpy.tanh(w @ v) ** 2)))
    return lambda: hess(x).block_until_ready()


WORKLOADS = [jac_eager, jac_compiled, hess_eager, hess_compiled]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
