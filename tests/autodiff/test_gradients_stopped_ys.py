"""tf.gradients with a y that is itself a stop tensor: it passes nothing on (TF stops its op), so an x
only stop ys reach gets None (zeros with unconnected_gradients="zero"), while the stop y's own gradient
is its weight plus what the other ys give it (Note [Cutting at stop tensors] in _autodiff/gradients.py).
Values worked out by hand; compared with TF in tests/oracle/test_tf_oracle_stop_gradients_ys.py."""
import numpy as np

import tapegrad as tf


def _values(grads):
    return [None if g is None else np.asarray(g.numpy()).tolist() for g in grads]


# a = 2x, b = a^2 + x, c = 3b + a
@tf.function
def chain(x):
    a = x * 2.0
    b = a * a + x
    c = b * 3.0 + a
    return {
        "only_a_stop_y": tf.gradients(b, [x, b], stop_gradients=[b]),
        "zero_mode": tf.gradients(b, [x, b], stop_gradients=[b], unconnected_gradients="zero"),
        "stop_y_and_free_y": tf.gradients([b, c], [x, a, b], stop_gradients=[b]),
        "weighted_stop_y": tf.gradients([b, c], [b], grad_ys=[tf.constant(2.0), tf.constant(5.0)],
                                        stop_gradients=[b]),
        "every_y_stopped": tf.gradients([a, b], [x, a], stop_gradients=[a, b]),
    }


def test_stop_ys_as_tf():
    for x in (1.5, -0.5):  # the first call traces, the second runs the graph
        got = {k: _values(v) for k, v in chain(tf.constant(x)).items()}
        assert got["only_a_stop_y"] == [None, 1.0]
        assert got["zero_mode"] == [0.0, 1.0]
        # c reaches x through a (1 * 2) only, a directly (1), b: its weight 1 and c's 3
        np.testing.assert_allclose(got["stop_y_and_free_y"], [2.0, 1.0, 4.0])
        assert got["weighted_stop_y"] == [2.0 + 5.0 * 3.0]
        assert got["every_y_stopped"] == [None, 1.0]
