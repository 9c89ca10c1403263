"""The JAX side of the training benchmarks: a step that is one jax.jit of a loss's value and gradient and an
Adam update, with Keras's formula (bias correction in the step size, eps outside the square root), and
Keras's LSTM as a lax.scan."""


def lstm_last_state(jax, x, kernel, recurrent, bias):
    """The last h of Keras's LSTM (gates i, f, c~, o) over x [batch, steps, features], zero initial states."""
    jnp = jax.numpy
    xp = jnp.einsum("btf,fg->tbg", x, kernel) + bias   # every step's input projection

    def cell(carry, p):
        h, c = carry
        i, f, g, o = jnp.split(p + h @ recurrent, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        return (jax.nn.sigmoid(o) * jnp.tanh(c), c), None
    zeros = jnp.zeros((x.shape[0], recurrent.shape[0]), x.dtype)
    (h, _), _ = jax.lax.scan(cell, (zeros, zeros), xp)
    return h


def adam_step(jax, loss_fn, weights, *data, lr=0.001, b1=0.9, b2=0.999, eps=1e-7):
    """step() -> loss: one Adam step of loss_fn(params, *data) from the NumPy weights, state kept across calls."""
    jnp = jax.numpy

    @jax.jit
    def train(params, m, v, t, *data):
        loss, grads = jax.value_and_grad(loss_fn)(params, *data)
        m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
        v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
        scale = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        return loss, [p - scale * mi / (jnp.sqrt(vi) + eps) for p, mi, vi in zip(params, m, v)], m, v

    params = [jnp.asarray(w) for w in weights]
    state = {"p": params, "m": [jnp.zeros_like(p) for p in params], "v": [jnp.zeros_like(p) for p in params], "t": 0}
    data = [jnp.asarray(d) for d in data]

    def step():
        state["t"] += 1
        loss, state["p"], state["m"], state["v"] = train(state["p"], state["m"], state["v"],
                                                         jnp.float32(state["t"]), *data)
        return loss.block_until_ready()
    return step
