"""py_function / numpy_function (eager, and at every call of a graph), identity_n, get_static_value,
no_gradient, executing_eagerly."""
import numpy as np
import pytest

import tapegrad as tf

x = tf.constant([1.0, 2.0])


def test_eager_calls_and_tout_list():
    assert tf.py_function(lambda a: a * 2, [x], tf.float32).numpy().tolist() == [2.0, 4.0]
    out = tf.py_function(lambda a: (a * 2, a), [x], (tf.float32, tf.float32))
    assert isinstance(out, list) and [o.numpy().tolist() for o in out] == [[2.0, 4.0], [1.0, 2.0]]
    assert tf.py_function(lambda a: 3, [x], tf.float32).dtype == tf.float32
    assert tf.py_function(Tout=tf.float32)(lambda a: a * 3)(x).numpy().tolist() == [3.0, 6.0]
    seen = []
    r = tf.numpy_function(lambda a: seen.append(type(a)) or np.sort(a)[::-1], [x], tf.float32)
    assert seen == [np.ndarray] and r.numpy().tolist() == [2.0, 1.0]
    with pytest.raises(TypeError, match="Missing required argument: 'Tout'"):
        tf.py_function(lambda a: a, [x], None)
    with pytest.raises(tf.errors.InvalidArgumentError, match="requested dtype float32 for Tensor with dtype float64"):
        tf.py_function(lambda a: tf.cast(a, tf.float64), [x], tf.float32)


def test_gradients_flow_through_py_function_eagerly_not_numpy_function():
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.py_function(lambda a: a * a, [x], tf.float32)
        z = tf.numpy_function(lambda a: a * a, [x], tf.float32)
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]
    assert tape.gradient(z, x) is None


def test_traced_py_function_runs_at_every_call():
    calls = []

    def body(a):
        calls.append(tf.executing_eagerly())
        return a * 10.0

    @tf.function
    def f(a):
        assert not tf.executing_eagerly()
        return tf.py_function(body, [a + 1.0], tf.float32) + 1.0

    assert f(x).numpy().tolist() == [21.0, 31.0]
    assert f(x * 2).numpy().tolist() == [31.0, 51.0]
    assert f.experimental_get_tracing_count() == 1 and calls == [True, True]


def test_traced_numpy_function_and_list_outputs():
    @tf.function
    def f(a):
        s, m = tf.numpy_function(lambda v: (np.sort(v), np.max(v)), [a], [tf.float32, tf.float32])
        return s * m

    assert f(tf.constant([3.0, 1.0])).numpy().tolist() == [3.0, 9.0]
    assert f(tf.constant([2.0, 5.0])).numpy().tolist() == [10.0, 25.0]
    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    assert cf(tf.constant([1.0, 4.0])).numpy().tolist() == [4.0, 16.0]


def test_identity_n_and_executing_eagerly():
    out = tf.identity_n([x, 1.0])
    assert isinstance(out, list) and out[1].numpy() == 1.0 and out[0].numpy().tolist() == [1.0, 2.0]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.identity_n([x * 3.0])[0]
    assert tape.gradient(y, x).numpy().tolist() == [3.0, 3.0]
    assert tf.executing_eagerly()


def test_get_static_value():
    assert tf.get_static_value(x).tolist() == [1.0, 2.0]
    assert tf.get_static_value(3) == 3 and tf.get_static_value(tf.Variable(1.0)) is None
    seen = []

    @tf.function
    def f(a):
        seen.append((tf.get_static_value(a), tf.get_static_value(tf.constant(2.0))))
        return a

    f(x)
    assert seen[0][0] is None and seen[0][1] == 2.0


def test_no_gradient():
    assert tf.no_gradient("TapegradTestOpWithNoGradient") is None
    with pytest.raises(KeyError, match="Registering two gradient with name 'TapegradTestOpWithNoGradient'"):
        tf.no_gradient("TapegradTestOpWithNoGradient")
    with pytest.raises(KeyError, match="'Exp'"):
        tf.no_gradient("Exp")
    with pytest.raises(TypeError, match="argument 'op_type' must be a string"):
        tf.no_gradient(3)


def test_a_gradient_through_py_function_inside_a_function_raises_instead_of_none():
    @tf.function
    def g(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.py_function(lambda a: a * a, [x], tf.float32)
        return tape.gradient(y, x)
    with pytest.raises(tf.errors.UnimplementedError, match="py_function inside tf.function"):
        g(tf.constant(3.0))


def test_an_exception_in_func_is_tf_s_invalid_argument_error():
    # TF 2.21: InvalidArgumentError "ValueError: bad element", eagerly and in graphs (ValueError here before).
    def bad(x):
        raise ValueError("bad element")

    for call in (lambda: tf.py_function(bad, [tf.constant(1)], tf.int32),
                 lambda: tf.function(lambda x: tf.py_function(bad, [x], tf.int32))(tf.constant(1)),
                 lambda: tf.function(lambda x: tf.numpy_function(bad, [x], tf.int32))(tf.constant(1))):
        with pytest.raises(tf.errors.InvalidArgumentError, match="ValueError: bad element") as info:
            call()
        assert isinstance(info.value.__cause__, ValueError)

    def stop(x):
        raise StopIteration

    with pytest.raises(tf.errors.OutOfRangeError):
        tf.py_function(stop, [tf.constant(1)], tf.int32)


def test_the_gradient_of_a_traced_loop_using_a_host_call_s_results_is_refused_clearly():
    # The actor-critic pattern (a numpy_function environment step in a tf.range loop, the tape inside
    # tf.function) failed with "PyFunc:0: the host call returned 0 tensors"; it is refused by name
    # until host-call results are kept per iteration (no made-up values, no second run of the step).
    w = tf.Variable(2.0)

    def step(t):
        return np.float32(t) + np.float32(1.0)

    def episode(n):
        total = tf.constant(0.0)
        for t in tf.range(n):
            state = tf.numpy_function(step, [t], tf.float32)
            total += w * state
        return total

    with tf.GradientTape() as tape:
        value = episode(tf.constant(3))  # eagerly: 2 * (1 + 2 + 3)
    assert float(value) == 12.0 and float(tape.gradient(value, w)) == 6.0

    @tf.function
    def traced(n):
        with tf.GradientTape() as tape:
            v = episode(n)
        return tape.gradient(v, w)

    with pytest.raises(tf.errors.UnimplementedError, match="PyFunc"):
        traced(tf.constant(3))


def test_sampled_losses_draw_new_classes_at_every_call_of_a_function():
    # The sampler is a host call: a traced training step must not reuse the trace's negatives.
    rng = np.random.default_rng(0)
    w, b = tf.Variable(rng.normal(size=(50, 4)).astype(np.float32)), tf.Variable(np.zeros(50, np.float32))
    x, labels = tf.constant(rng.normal(size=(8, 4)).astype(np.float32)), tf.constant(rng.integers(0, 50, (8, 1)))
    for loss in (tf.nn.nce_loss, tf.nn.sampled_softmax_loss):
        f = tf.function(lambda: loss(w, b, labels, x, num_sampled=5, num_classes=50))
        values = {round(float(tf.reduce_sum(f())), 5) for _ in range(4)}
        assert len(values) > 1
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(loss(w, b, labels, x, num_sampled=5, num_classes=50))
        gw, gb = tape.gradient(y, [w, b])
        assert isinstance(gw, tf.IndexedSlices) and isinstance(gb, tf.IndexedSlices)  # gathers' gradients, as in TF
        gw, gb = tf.convert_to_tensor(gw), tf.convert_to_tensor(gb)
        assert gw.shape == (50, 4) and np.isfinite(gw.numpy()).all() and np.isfinite(gb.numpy()).all()
