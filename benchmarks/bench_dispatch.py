"""Per-op overhead: add (eager, on a tape), a scalar gradient, ops composed in Python (where, concat, logsumexp).

The TensorFlow and tapegrad cases are one function of a module `tf`, called with
`tensorflow` and with `tapegrad`: the code a TF user writes, run unchanged by both.
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_dispatch.py
    import _harness as h

GROUP = "dispatch"

# ---------------------------------------------------------------------------------
add = h.Workload(GROUP, "add(x, y), float32 scalars, no tape",
                 note="one eager op call, result ready (jax: eager jnp.add + block_until_ready)")


@add.case("tensorflow", "tapegrad")
def _(tf):
    x = tf.constant(1.5)
    y = tf.constant(2.5)
    return lambda: tf.add(x, y)


@add.case("numpy")
def _(np):
    x, y = np.float32(1.5), np.float32(2.5)
    return lambda: np.add(x, y)


@add.case("torch")
def _(torch):
    x, y = torch.tensor(1.5), torch.tensor(2.5)
    return lambda: torch.add(x, y)


@add.case("jax")
def _(jax):
    jnp = jax.numpy
    x, y = jnp.float32(1.5), jnp.float32(2.5)
    return lambda: jnp.add(x, y).block_until_ready()


# ---------------------------------------------------------------------------------
add_op = h.Workload(GROUP, "x + y operator, float32 scalars, no tape",
                    note="the same through the Python operator (__add__)")


@add_op.case("tensorflow", "tapegrad")
def _(tf):
    x = tf.constant(1.5)
    y = tf.constant(2.5)
    return lambda: x + y


@add_op.case("numpy")
def _(np):
    x, y = np.float32(1.5), np.float32(2.5)
    return lambda: x + y


@add_op.case("torch")
def _(torch):
    x, y = torch.tensor(1.5), torch.tensor(2.5)
    return lambda: x + y


@add_op.case("jax")
def _(jax):
    jnp = jax.numpy
    x, y = jnp.float32(1.5), jnp.float32(2.5)
    return lambda: (x + y).block_until_ready()


# ---------------------------------------------------------------------------------
add_taped = h.Workload(GROUP, "add(x, y) recorded on a tape watching x",
                       note="one tape per sample, every add recorded on it (torch: x.requires_grad, "
                            "graph built); numpy and jax have no tape")


@add_taped.case("tensorflow", "tapegrad")
@h.batched
def _(tf):
    x = tf.constant(1.5)
    y = tf.constant(2.5)

    def run(n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            for _ in range(n):
                z = tf.add(x, y)
        return z
    return run


@add_taped.case("torch")
@h.batched
def _(torch):
    x = torch.tensor(1.5, requires_grad=True)
    y = torch.tensor(2.5)

    def run(n):
        for _ in range(n):
            z = torch.add(x, y)
        return z
    return run


# ---------------------------------------------------------------------------------
grad = h.Workload(GROUP, "y = x*x + 1 and dy/dx, float32 scalar",
                  note="record + reverse sweep (numpy: value and 2*x by hand; "
                       "jax: jax.jit(jax.grad(f)), gradient only)")


@grad.case("tensorflow", "tapegrad")
def _(tf):
    x = tf.constant(3.0)

    def step():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x + 1.0
        return tape.gradient(y, x)
    return step


@grad.case("numpy")
def _(np):
    x = np.float32(3.0)

    def step():
        y = x * x + 1                # noqa: F841  (the forward value, as the others compute it)
        return 2 * x
    return step


@grad.case("torch")
def _(torch):
    x = torch.tensor(3.0, requires_grad=True)

    def step():
        y = x * x + 1.0
        (g,) = torch.autograd.grad(y, x)
        return g
    return step


@grad.case("jax")
def _(jax):
    dfdx = jax.jit(jax.grad(lambda x: x * x + 1.0))
    x = jax.numpy.float32(3.0)
    return lambda: dfdx(x).block_until_ready()


# ---------------------------------------------------------------------------------
# Ops composed in Python: their argument binding and calls into the registry ops, on 4-element vectors.
# name: (title, then the call on (module, x, y, c) for tf/tapegrad, numpy, torch and jax)
COMPOSED = {
    "where": ("where(c, x, y), float32 4-vectors, no tape",
              lambda tf, x, y, c: tf.where(c, x, y), lambda np, x, y, c: np.where(c, x, y),
              lambda torch, x, y, c: torch.where(c, x, y), lambda jax, x, y, c: jax.numpy.where(c, x, y)),
    "concat": ("concat([x, y], 0), float32 4-vectors, no tape",
               lambda tf, x, y, c: tf.concat([x, y], 0), lambda np, x, y, c: np.concatenate([x, y], 0),
               lambda torch, x, y, c: torch.cat([x, y], 0), lambda jax, x, y, c: jax.numpy.concatenate([x, y], 0)),
    "logsumexp": ("reduce_logsumexp(x), float32 4-vector, no tape",
                  lambda tf, x, y, c: tf.reduce_logsumexp(x),
                  lambda np, x, y, c: np.log(np.sum(np.exp(x - x.max()))) + x.max(),
                  lambda torch, x, y, c: torch.logsumexp(x, 0),
                  lambda jax, x, y, c: jax.nn.logsumexp(x)),
}
_X, _Y, _C = [0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -2.0, 3.0], [True, False, True, False]


def _composed(title, tf_call, np_call, torch_call, jax_call):
    w = h.Workload(GROUP, title, note="a public op written in Python over registry ops (jax: eager jnp, "
                                      "block_until_ready)")

    @w.case("tensorflow", "tapegrad")
    def _(tf):
        x, y, c = tf.constant(_X), tf.constant(_Y), tf.constant(_C)
        return lambda: tf_call(tf, x, y, c)

    @w.case("numpy")
    def _(np):
        x, y, c = np.array(_X, np.float32), np.array(_Y, np.float32), np.array(_C)
        return lambda: np_call(np, x, y, c)

    @w.case("torch")
    def _(torch):
        x, y, c = torch.tensor(_X), torch.tensor(_Y), torch.tensor(_C)
        return lambda: torch_call(torch, x, y, c)

    @w.case("jax")
    def _(jax):
        jnp = jax.numpy
        x, y, c = jnp.array(_X, jnp.float32), jnp.array(_Y, jnp.float32), jnp.array(_C)
        return lambda: jax_call(jax, x, y, c).block_until_ready()
    return w


WORKLOADS = [add, add_op, add_taped, grad] + [_composed(*row) for row in COMPOSED.values()]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
