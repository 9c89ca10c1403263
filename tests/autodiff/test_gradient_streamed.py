"""GradientTape._gradient_streamed: each source's gradient is reported as soon as it is final
(Note [Final gradients] in cpp/engine/tape.h), in an order fixed by the tape alone."""
import numpy as np

import tapegrad as tf


def _mlp():
    rng = np.random.default_rng(0)
    ws = [tf.Variable(rng.normal(size=s).astype(np.float32)) for s in [(5, 4), (4,), (4, 3), (3,), (3, 1)]]
    x = tf.constant(rng.normal(size=(6, 5)).astype(np.float32))
    return ws, x


def _loss(ws, x, log=None):
    w1, b1, w2, b2, w3 = ws

    @tf.custom_gradient
    def mark(h):  # records when the sweep reaches the first layer's output
        def grad(dy):
            if log is not None:
                log.append("first layer")
            return dy
        return tf.identity(h), grad
    h = mark(tf.nn.relu(x @ w1 + b1))
    h = tf.tanh(h @ w2 + b2)
    return tf.reduce_sum(h @ w3)


def test_order_values_and_timing():
    ws, x = _mlp()
    events = []
    with tf.GradientTape() as tape:
        loss = _loss(ws, x, events)
    grads = tape._gradient_streamed(loss, ws, lambda order: events.append(("order", list(order))),
                                    lambda i, g: events.append((i, g)))
    with tf.GradientTape() as tape:
        expected = tape.gradient(_loss(ws, x), ws)
    assert events[0] == ("order", [4, 3, 2, 1, 0])
    finals = [e for e in events[1:] if e != "first layer"]
    assert [i for i, _ in finals] == [4, 3, 2, 1, 0]
    for (i, g), e, r in zip(sorted(finals, key=lambda t: t[0]), expected, grads):
        np.testing.assert_array_equal(g.numpy(), e.numpy())
        np.testing.assert_array_equal(r.numpy(), e.numpy())
    # The last layer's weights and the second layer's are final before the sweep reaches the first layer.
    position = events.index("first layer")
    assert [i for i, _ in events[1:position]] == [4, 3, 2]


def test_unconnected_integer_and_target_sources():
    a, b, unused = tf.Variable(2.0), tf.Variable(3.0), tf.Variable(1.0)
    n = tf.constant(4)
    with tf.GradientTape() as tape:
        tape.watch(n)
        y = a * b
    seen = []
    grads = tape._gradient_streamed(y, [b, unused, a, n, y], seen.append, lambda i, g: seen.append((i, float(g))))
    assert seen[0] == [4, 0, 2]  # y is its own target: final before the sweep; unused and n never are
    assert seen[1:] == [(4, 1.0), (0, 2.0), (2, 3.0)]
    assert grads[1] is None and grads[3] is None and float(grads[4]) == 1.0


def test_an_error_in_the_callback_reaches_the_caller():
    a = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = a * a

    def boom(i, g):
        raise KeyError("from on_final")
    try:
        tape._gradient_streamed(y, [a], lambda order: None, boom)
    except KeyError as e:
        assert "from on_final" in str(e)
    else:
        raise AssertionError("no error")
