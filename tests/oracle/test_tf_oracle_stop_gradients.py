"""tf.gradients' stop_gradients against TensorFlow inside tf.function: the same values on several calls
of the graph, for stops between the ys and the xs, stops that are xs or ys, several ys, variables and
unconnected_gradients="zero". Where every path from an x to the ys passes a stop tensor, TF returns
None and tapegrad zeros (Note [Cutting at stop tensors] in _autodiff/gradients.py): those cases check
that. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()


def _cases(tf):
    w = tf.Variable([1.0, -2.0, 0.5])

    def chain(x):
        a = tf.sin(x) * 2.0
        b = a * a + tf.exp(x)
        return x, a, b, b * 3.0 + tf.tanh(a)

    def call(ys_xs_stops, **kwargs):
        def body(x):
            x, a, b, c = chain(x)
            named = {"x": x, "a": a, "b": b, "c": c}
            ys, xs, stops = ([named[n] for n in part] for part in ys_xs_stops)
            return tf.gradients(ys, xs, stop_gradients=stops, **kwargs)
        return body

    return {
        "stop_a": call((["c"], ["x"], ["a"])),
        "stop_b": call((["c"], ["x"], ["b"])),
        "stop_both": call((["c"], ["x", "a", "b"], ["b", "a"])),
        "own": call((["c"], ["a"], ["a"])),
        "source_stops_itself": call((["b"], ["x"], ["x"])),
        "several_ys": call((["b", "c"], ["x", "a"], ["a"])),
        "y_is_a_stop": call((["c", "a"], ["x", "a"], ["a"])),
        "zero_mode": call((["c"], ["x", "a"], ["a", "b"]), unconnected_gradients="zero"),
        "grad_ys": call((["c"], ["x"], ["a"]), grad_ys=[tf.constant([2.0, -1.0])]),
        "variable": lambda x: (lambda h: tf.gradients(tf.reduce_sum(h * h * x[1]) + tf.reduce_sum(w), [w, h],
                                                      stop_gradients=[h]))(tf.tanh(w * x[0])),
        "no_stop_in_between": call((["c"], ["x"], ["x"])),
    }


CASE_NAMES = list(_cases(tg))


@pytest.mark.parametrize("label", CASE_NAMES)
def test_stop_gradients_as_tf(label):
    mine, theirs = tg.function(_cases(tg)[label]), ref.function(_cases(ref)[label])
    for x in ([0.3, -1.2], [1.5, 0.25]):
        a, b = mine(tg.constant(x)), theirs(ref.constant(x))
        assert len(a) == len(b)
        for ga, gb in zip(a, b):
            if gb is None:  # every path passes a stop: zeros here
                assert ga is None or np.allclose(ga.numpy(), 0.0, atol=1e-6)
                continue
            np.testing.assert_allclose(np.asarray(ga.numpy()), np.asarray(gb.numpy()), rtol=1e-5, atol=1e-6)


def test_only_through_stops_is_zeros_where_tf_gives_none():
    def body(tf):
        def f(x):
            a = x * 2.0
            return tf.gradients(a * a, [x], stop_gradients=[a])
        return f

    assert ref.function(body(ref))(ref.constant(1.5))[0] is None
    np.testing.assert_array_equal(tg.function(body(tg))(tg.constant(1.5))[0].numpy(), 0.0)
