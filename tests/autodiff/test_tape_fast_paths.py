"""The tape's fast paths give what the general paths give.

tape.gradient(tensor, tensor) skips nested-structure handling (Note [Tape objects]) and
small sweeps keep the GIL (Note [Small sweeps keep the GIL]); op results are wrapped without
type lookups (Note [Tensor objects]); GradientTape(...) has a C-level __init__. Each case
here is computed both ways, or checked against a value known by hand.
"""
import numpy as np
import pytest

import tapegrad as tf

ForwardAccumulator = tf.autodiff.ForwardAccumulator


def both_ways(f, x, **tape_args):
    """(fast, general): the gradient of f(x) as tape.gradient(y, x) and as tape.gradient([y], [x])[0]."""
    with tf.GradientTape(persistent=True, **tape_args) as tape:
        if not isinstance(x, tf.Variable):
            tape.watch(x)
        y = f(x)
    return tape.gradient(y, x), tape.gradient([y], [x])[0]


def same(a, b):
    assert (a is None) == (b is None)
    if a is not None:
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.numpy(), b.numpy())


CASES = {
    "scalar x*x+1": (lambda x: x * x + 1.0, lambda: tf.constant(3.0)),
    "vector, summed by broadcasting": (lambda x: tf.reduce_sum(x * tf.constant([[1.0], [2.0]])),
                                       lambda: tf.constant([1.0, 2.0, 3.0])),
    "float64": (lambda x: tf.exp(x) * x, lambda: tf.constant(0.5, tf.float64)),
    "several uses": (lambda x: x * x * x - 2.0 * x, lambda: tf.constant([2.0, -1.0])),
    "unconnected": (lambda x: tf.constant(2.0) * 3.0, lambda: tf.constant(1.0)),
    "target is the source": (lambda x: x, lambda: tf.constant([1.0, 4.0])),
    "stop_gradient": (lambda x: tf.stop_gradient(x) * x, lambda: tf.constant(3.0)),
    "NaN": (lambda x: tf.sqrt(x) * 0.0, lambda: tf.constant(-1.0)),
    "NaN factor": (lambda x: x * float("nan"), lambda: tf.constant(1.0)),
    "variable": (lambda v: v * v + 1.0, lambda: tf.Variable([1.0, 2.0])),
}


@pytest.mark.parametrize("name", CASES)
def test_one_tensor_gradient_matches_general_path(name):
    f, make = CASES[name]
    fast, general = both_ways(f, make())
    same(fast, general)


def test_values_by_hand():
    fast, _ = both_ways(lambda x: x * x + 1.0, tf.constant(3.0))
    assert fast.dtype == tf.float32 and float(fast) == 6.0
    fast, _ = both_ways(lambda x: x, tf.constant([1.0, 4.0]))
    np.testing.assert_array_equal(fast.numpy(), [1.0, 1.0])
    fast, _ = both_ways(lambda x: x * float("nan"), tf.constant(1.0))
    assert np.isnan(float(fast))


def test_unconnected_and_untracked_sources_give_none():
    x, c = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c
    assert tape.gradient(y, c) is None  # recorded, but c is not watched (Note [Untracked sources])
    assert tape.gradient(tf.constant(5.0), x) is None
    assert float(tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)) == 2.0
    z = tape.gradient(y, c, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert float(z) == 0.0


def test_variable_watch_rules():
    v = tf.Variable(3.0)
    fast, general = both_ways(lambda v: v * v, v, watch_accessed_variables=False)
    assert fast is None and general is None
    fast, general = both_ways(lambda v: v * v, v)
    assert float(fast) == 6.0
    same(fast, general)
    frozen = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as tape:
        y = frozen * frozen
    assert tape.gradient(y, frozen) is None


def test_results_are_new_tensors():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 1.0
    g1, g2 = tape.gradient(y, x), tape.gradient(y, x)
    assert g1 is not g2 and g1 is not x and g1 is not y
    seed = tape.gradient(x, x)
    assert seed is not x and float(seed) == 1.0


def test_non_persistent_tape_allows_one_gradient():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 4.0
    with pytest.raises(RuntimeError):
        tape.gradient(y, x)


def test_nested_tapes_differentiate_the_fast_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)  # the sweep's ops are recorded on the outer tape
    assert float(dy) == 27.0
    assert float(outer.gradient(dy, x)) == 18.0


def test_gradient_inside_the_recording_block():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)  # recorded on the tape itself, as TF (Note [Gradients inside the context])
        n = tape._num_entries
    assert float(g) == 4.0 and n > 1 and float(tape.gradient(g, x)) == 2.0


def test_forward_accumulator_around_the_fast_gradient():
    x, t = tf.constant(2.0), tf.constant(1.0)
    with ForwardAccumulator(x, t) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        g = tape.gradient(y, x)  # 3x^2, its tangent 6x
    assert float(g) == 12.0 and float(acc.jvp(g)) == 12.0


def test_large_tape_takes_the_gil_releasing_path():
    x = tf.constant(np.linspace(0.0, 1.0, 1 << 16, dtype=np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2.0 * x.numpy(), rtol=1e-6)
    a = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = a
        for _ in range(40):  # more entries than a small sweep has
            y = y * 1.0 + 0.5
    assert float(tape.gradient(y, a)) == 1.0


def test_python_rule_in_a_small_sweep():
    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda g: g * 10.0

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(tape.gradient(y, x)) == 10.0


@pytest.fixture
def restore_exp():
    yield
    tf.RegisterGradient.restore("Exp")


def test_replaced_rule_drives_gradients_and_jvps(restore_exp):
    x = tf.constant(0.5)
    tf.RegisterGradient("Exp")(lambda op, grad: grad * 3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.exp(x)
    assert float(tape.gradient(y, x)) == pytest.approx(3.0)
    with ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = tf.exp(x)
    assert float(acc.jvp(y)) == pytest.approx(3.0)  # the JVP follows the replaced rule
    tf.RegisterGradient.restore("Exp")
    with ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = tf.exp(x)
    assert float(acc.jvp(y)) == pytest.approx(np.exp(0.5))


@pytest.mark.parametrize("args,kwargs,persistent", [
    ((), {}, False), ((True,), {}, True), ((), {"persistent": True}, True), ((False, False), {}, False),
    ((), {"watch_accessed_variables": False, "persistent": True}, True),
    ((1,), {}, True),  # not a bool: pybind11's conversion, as before
])
def test_constructor_arguments(args, kwargs, persistent):
    tape = tf.GradientTape(*args, **kwargs)
    assert tape.persistent is persistent and tape._num_entries == 0


def test_constructor_watch_accessed_variables():
    v = tf.Variable(2.0)
    for args, kwargs in [((False, False), {}), ((), {"watch_accessed_variables": False})]:
        with tf.GradientTape(*args, **kwargs) as tape:
            y = v * v
        assert tape.gradient(y, v) is None


@pytest.mark.parametrize("args,kwargs", [((), {"foo": 1}), ((True,), {"persistent": True}), ((True, True, True), {})])
def test_constructor_bad_arguments_raise(args, kwargs):
    with pytest.raises(TypeError):
        tf.GradientTape(*args, **kwargs)


def test_constructor_called_twice_keeps_the_first():
    tape = tf.GradientTape()
    tape.__init__(persistent=True)
    assert tape.persistent is False


def test_subclass_constructor():
    class Tape(tf.GradientTape):
        def __init__(self):
            super().__init__(persistent=True)

    x = tf.constant(2.0)
    with Tape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.persistent and float(tape.gradient(y, x)) == 4.0 and float(tape.gradient(y, x)) == 4.0


def test_op_result_wrappers():
    x = tf.constant([1.0, 2.0])
    assert tf.convert_to_tensor(x) is x and tf.cast(x, tf.float32) is x  # an existing wrapper comes back
    v = tf.Variable([1.0, 2.0])
    y = v + 1.0
    assert type(y) is type(x) and y.numpy().tolist() == [2.0, 3.0]
