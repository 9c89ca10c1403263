"""tf.gradients' stop_gradients against TensorFlow inside tf.function, None for None: a source stopping
itself, stops that are xs, stops that are ys (alone, with free ys, weighted), every y stopped, stops the
ys do not depend on, unconnected sources and a path whose derivative is 0, each with
unconnected_gradients "none" and "zero". Where every path from an x to the free ys passes a stop between
them TF gives None and tapegrad zeros (Note [Cutting at stop tensors] in _autodiff/gradients.py): the
last test pins that. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()


def _chain(tf, x):
    a = tf.sin(x) * 2.0
    b = a * a + tf.exp(x)
    return {"x": x, "a": a, "b": b, "c": b * 3.0 + tf.tanh(a), "z": tf.constant([1.0, 2.0]) * 3.0,
            "zero_path": b * 2.0 + 0.0 * x}


# (ys, xs, stops, grad_ys weights or None)
CASES = {
    "source_stops_itself": (["c"], ["x"], ["x"], None),
    "stop_is_source_beside": (["b"], ["x", "a"], ["x"], None),
    "stop_a": (["b"], ["x"], ["a"], None),
    "stops_are_xs": (["c"], ["a", "b"], ["a", "b"], None),
    "stop_shadows_nothing": (["c"], ["x", "a"], ["b"], None),
    "stop_y": (["b"], ["x", "b"], ["b"], None),
    "stop_y_and_free_y": (["b", "c"], ["x", "a", "b"], ["b"], None),
    "weighted_stop_y": (["b", "c"], ["x", "b"], ["b"], [[2.0, -1.0], [0.5, 3.0]]),
    "every_y_stopped": (["a", "b"], ["x", "a", "b"], ["a", "b"], None),
    "unrelated_stop": (["a"], ["x"], ["z"], None),
    "unconnected": (["z"], ["x", "a"], ["a"], None),
    "zero_derivative_path": (["zero_path"], ["x"], ["b"], None),
}


def _run(tf, case, mode, x):
    ys, xs, stops, weights = CASES[case]

    def body(x):
        named = _chain(tf, x)
        grad_ys = None if weights is None else [tf.constant(w) for w in weights]
        return tf.gradients([named[n] for n in ys], [named[n] for n in xs], grad_ys=grad_ys,
                            stop_gradients=[named[n] for n in stops], unconnected_gradients=mode)
    return tf.function(body)(tf.constant(x))


@pytest.mark.parametrize("mode", ["none", "zero"])
@pytest.mark.parametrize("case", list(CASES))
def test_stop_gradients_as_tf(case, mode):
    for x in ([0.3, -1.2], [1.5, 0.25]):
        ours, theirs = _run(tg, case, mode, x), _run(ref, case, mode, x)
        assert [g is None for g in ours] == [g is None for g in theirs]
        for a, b in zip(ours, theirs):
            if b is not None:
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_every_path_through_a_stop_between_is_zeros_where_tf_gives_none():
    def body(tf):
        def f(x):
            named = _chain(tf, x)
            return tf.gradients(named["c"], [named["x"]], stop_gradients=[named["a"], named["b"]])
        return f
    theirs = ref.function(body(ref))(ref.constant([0.3, -1.2]))
    ours = tg.function(body(tg))(tg.constant([0.3, -1.2]))
    assert theirs[0] is None
    np.testing.assert_array_equal(ours[0].numpy(), 0.0)
