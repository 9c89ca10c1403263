"""recompute_grad: the same gradients as the plain function, with far fewer saved bytes."""
import numpy as np

import tapegrad as tf


def _mlp(rng, layers=3, width=8, dtype=np.float64):
    ws = [tf.Variable((rng.standard_normal((width, width)) / np.sqrt(width)).astype(dtype)) for _ in range(layers)]
    bs = [tf.Variable(rng.standard_normal(width).astype(dtype)) for _ in range(layers)]
    return ws, bs


def _layers(ws, bs, recompute):
    out = []
    for w, b in zip(ws, bs):
        def layer(x, w=w, b=b):
            return tf.tanh(x @ w + b)
        out.append(tf.recompute_grad(layer) if recompute else layer)
    return out


def _run(layers, x):
    h = x
    for layer in layers:
        h = layer(h)
    return tf.reduce_mean(h * h)


def test_same_gradients_with_variables(rng):
    ws, bs = _mlp(rng)
    x = tf.constant(rng.standard_normal((4, 8)))
    results = []
    for recompute in (False, True):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = _run(_layers(ws, bs, recompute), x)
        results.append((float(loss), tape.gradient(loss, [x] + ws + bs)))
    assert results[0][0] == results[1][0]
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-12, atol=1e-14)


def test_several_inputs_outputs_and_kwargs():
    def f(a, b, scale=1.0):
        return a * b * scale, tf.sin(a) + b

    g = tf.recompute_grad(f)
    a, b = tf.constant([0.5, 1.5], tf.float64), tf.constant([2.0, -1.0], tf.float64)
    grads = []
    for fn in (f, g):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y1, y2 = fn(a, b, scale=3.0)
            loss = tf.reduce_sum(y1 * y2)
        grads.append(tape.gradient(loss, [a, b]))
    for p, q in zip(*grads):
        np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-12)


def test_second_order_and_forward_mode(rng):
    W = tf.Variable(rng.standard_normal((3, 3)))
    plain = lambda x: tf.tanh(tf.linalg.matvec(W, x)) ** 2  # noqa: E731
    wrapped = tf.recompute_grad(plain)
    x, v = tf.constant(rng.standard_normal(3)), tf.constant(rng.standard_normal(3))
    hessians, jvps = [], []
    for fn in (plain, wrapped):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(fn(x))
            g = inner.gradient(y, x)
        hessians.append(outer.jacobian(g, x).numpy())
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = fn(x)
        jvps.append(acc.jvp(y).numpy())
    np.testing.assert_allclose(hessians[1], hessians[0], rtol=1e-10)
    np.testing.assert_allclose(jvps[1], jvps[0], rtol=1e-10)


def test_jacobian_through_recompute(rng):
    f = tf.recompute_grad(lambda x: tf.exp(x) * x)
    x = tf.constant(rng.standard_normal(4))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    J = tape.jacobian(y, x).numpy()
    np.testing.assert_allclose(J, np.diag(np.exp(x.numpy()) * (1 + x.numpy())), rtol=1e-12)


def test_saved_bytes_much_smaller_for_a_deep_mlp(rng):
    """20 layers tanh(x @ W + b), width 256, batch 64: the tape keeps one activation per layer
    instead of three (the weights, held either way, are subtracted)."""
    ws, bs = _mlp(rng, layers=20, width=256, dtype=np.float32)
    x = tf.constant(rng.standard_normal((64, 256)).astype(np.float32))
    weights = sum(int(np.prod(v.shape)) * 4 for v in ws + bs)
    held, grads = [], []
    for recompute in (False, True):
        with tf.GradientTape() as tape:
            loss = _run(_layers(ws, bs, recompute), x)
        held.append(tape.nbytes)
        grads.append(tape.gradient(loss, ws + bs))
    plain, recomputed = held[0] - weights, held[1] - weights
    assert plain > 2.5 * recomputed, (held, weights)
    assert held[1] < held[0]
    for a, b in zip(*grads):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-4, atol=1e-6)
