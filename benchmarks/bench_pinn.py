"""A physics-informed training step with nested tapes: Burgers' residual u_t + u u_x - nu u_xx on 2,000 points.

The network is a tanh MLP (t, x) -> u with layers 2-32-32-32-1 and the same NumPy weights in every
framework; a step takes u_t and u_x (first tape), u_xx (a second tape around the first), the mean
squared residual, its gradient with respect to the eight weights (the outer tape) and a plain
gradient-descent update, and returns the step's loss (compared on the first step).
Workloads:
  pinn step   eager: three nested GradientTapes (tapegrad and TF, one code); PyTorch:
              torch.autograd.grad with create_graph; JAX: jax.jit of vmap(grad(grad(u))) and the
              parameter gradient (JAX has no eager tape: the same jit in every row).
  pinn step traced
              the same step in tf.function for tapegrad and TensorFlow.
  pinn step, batch_jacobian (eager and traced)
              u's derivatives as tape.batch_jacobian of u and of du/dz for the points z = [t, x]
              (N, 2); PyTorch and JAX as above (u_i depends on z_i alone, so the sum's gradient is the
              batch Jacobian).
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_pinn.py
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_pinn.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "pinn"
POINTS, WIDTHS = 2000, (2, 32, 32, 32, 1)
NU, LR = 0.01 / np.pi, 1e-3


def _data():
    """Points (t in [0, 1], x in [-1, 1]) and Glorot-uniform weights, zero biases."""
    rng = np.random.default_rng(11)
    t = rng.uniform(0, 1, (POINTS, 1)).astype(np.float32)
    x = rng.uniform(-1, 1, (POINTS, 1)).astype(np.float32)
    weights = []
    for fan_in, fan_out in zip(WIDTHS[:-1], WIDTHS[1:]):
        limit = np.sqrt(6 / (fan_in + fan_out))
        weights += [rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32), np.zeros(fan_out, np.float32)]
    return t, x, weights


T, X, WEIGHTS = _data()
NOTE = "returns the step's loss (compared on the first step); plain gradient descent on the 8 weights"

eager = h.Workload(GROUP, "PINN step, Burgers, 2000 points, tanh MLP 2-32-32-32-1, nested tapes",
                   note=NOTE, rtol=1e-3)
traced = h.Workload(GROUP, "PINN step traced (tf.function, jax.jit), nested tapes", note=NOTE, rtol=1e-3)
jac_eager = h.Workload(GROUP, "PINN step, derivatives by batch_jacobian", note=NOTE, rtol=1e-3)
jac_traced = h.Workload(GROUP, "PINN step traced, derivatives by batch_jacobian", note=NOTE, rtol=1e-3)


def _mlp(tf, params, z):
    for i in range(0, len(params) - 2, 2):
        z = tf.tanh(tf.matmul(z, params[i]) + params[i + 1])
    return tf.matmul(z, params[-2]) + params[-1]


def _descend(params, grads):
    for p, g in zip(params, grads):
        p.assign_sub(LR * g)


def _nested_step(tf, traced_step):
    params = [tf.Variable(w) for w in WEIGHTS]
    t, x = tf.constant(T), tf.constant(X)

    def step():
        with tf.GradientTape() as outer:
            with tf.GradientTape() as second:
                second.watch(x)
                with tf.GradientTape(persistent=True) as first:
                    first.watch([t, x])
                    u = _mlp(tf, params, tf.concat([t, x], 1))
                u_t, u_x = first.gradient(u, [t, x])
            u_xx = second.gradient(u_x, x)
            loss = tf.reduce_mean(tf.square(u_t + u * u_x - NU * u_xx))
        _descend(params, outer.gradient(loss, params))
        return loss
    return tf.function(step) if traced_step else step


def _jacobian_step(tf, traced_step):
    params = [tf.Variable(w) for w in WEIGHTS]
    z = tf.constant(np.concatenate([T, X], 1))

    def step():
        with tf.GradientTape() as outer:
            with tf.GradientTape() as second:
                second.watch(z)
                with tf.GradientTape() as first:
                    first.watch(z)
                    u = _mlp(tf, params, z)
                du = first.batch_jacobian(u, z)[:, 0, :]           # (N, 2): u_t, u_x
            u_xx = second.batch_jacobian(du, z)[:, 1, 1:]          # (N, 1)
            u_t, u_x = du[:, :1], du[:, 1:]
            loss = tf.reduce_mean(tf.square(u_t + u * u_x - NU * u_xx))
        _descend(params, outer.gradient(loss, params))
        return loss
    return tf.function(step) if traced_step else step


for workload, build, traced_step in ((eager, _nested_step, False), (traced, _nested_step, True),
                                     (jac_eager, _jacobian_step, False), (jac_traced, _jacobian_step, True)):
    workload.case("tensorflow", "tapegrad")(lambda tf, build=build, traced_step=traced_step: build(tf, traced_step))


@jac_traced.case("torch")
@jac_eager.case("torch")
@traced.case("torch")
@eager.case("torch")
def _(torch):
    params = [torch.tensor(w, requires_grad=True) for w in WEIGHTS]
    t = torch.from_numpy(T).requires_grad_()
    x = torch.from_numpy(X).requires_grad_()

    def step():
        z = torch.cat([t, x], 1)
        for i in range(0, len(params) - 2, 2):
            z = torch.tanh(z @ params[i] + params[i + 1])
        u = z @ params[-2] + params[-1]
        u_t, u_x = torch.autograd.grad(u.sum(), [t, x], create_graph=True)
        (u_xx,) = torch.autograd.grad(u_x.sum(), x, create_graph=True)
        loss = torch.mean((u_t + u * u_x - NU * u_xx) ** 2)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= LR * g
        return loss.detach().numpy()
    return step


@jac_traced.case("jax")
@jac_eager.case("jax")
@traced.case("jax")
@eager.case("jax")
def _(jax):
    jnp = jax.numpy

    def u_of(params, t, x):  # one point: scalars in, scalar out
        z = jnp.stack([t, x])
        for i in range(0, len(params) - 2, 2):
            z = jnp.tanh(z @ params[i] + params[i + 1])
        return (z @ params[-2] + params[-1])[0]

    u_t, u_x = jax.grad(u_of, 1), jax.grad(u_of, 2)
    u_xx = jax.grad(u_x, 2)

    def loss_fn(params, t, x):
        per_point = jax.vmap(lambda ti, xi: u_t(params, ti, xi) + u_of(params, ti, xi) * u_x(params, ti, xi)
                             - NU * u_xx(params, ti, xi))
        return jnp.mean(per_point(t, x) ** 2)

    @jax.jit
    def train(params, t, x):
        loss, grads = jax.value_and_grad(loss_fn)(params, t, x)
        return loss, [p - LR * g for p, g in zip(params, grads)]

    state = {"p": [jnp.asarray(w) for w in WEIGHTS]}
    t, x = jnp.asarray(T[:, 0]), jnp.asarray(X[:, 0])

    def step():
        loss, state["p"] = train(state["p"], t, x)
        return loss.block_until_ready()
    return step


WORKLOADS = [eager, traced, jac_eager, jac_traced]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
