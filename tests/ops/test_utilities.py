"""tf.double, get_logger, control_dependencies, group, no_op, init_scope and the tf.*_initializer
classes (values and errors as TF 2.21's)."""
import logging

import numpy as np
import pytest

import tapegrad as tf


def test_double_aliases_float64_and_unknown_dtypes_are_named():
    assert tf.double is tf.float64 and tf.dtypes.double is tf.float64
    assert tf.half is tf.float16 and tf.as_dtype("half") is tf.float16
    with pytest.raises(TypeError, match="complex64"):
        tf.as_dtype("complex64")


def test_get_logger():
    assert tf.get_logger() is logging.getLogger("tensorflow")


def test_control_dependencies_checks_and_calls():
    calls = []
    with tf.control_dependencies([tf.constant(1), lambda: calls.append(1), None]):
        pass
    with tf.control_dependencies(None):
        pass
    assert calls == [1]
    for bad in (1, tf.constant(1)):
        with pytest.raises(TypeError, match="control_dependencies"):
            tf.control_dependencies(bad)


def test_group_and_no_op():
    assert tf.group(tf.constant(1), [tf.constant(2)], name="g") is None and tf.no_op() is None

    @tf.function
    def f(x):
        with tf.control_dependencies([x]):
            y = x + 1
        assert tf.group(x, y) is None
        with pytest.raises(TypeError, match="group"):
            tf.group(object())
        return y

    assert float(f(tf.constant(1.0))) == 2.0


def test_init_scope_lifts_out_of_a_trace():
    seen = []

    @tf.function
    def f(x):
        with tf.init_scope():
            seen.append(tf.executing_eagerly())
            if not hasattr(f, "v"):
                f.v = tf.Variable(3.0)
            seen.append(f.v.numpy())  # a traced variable's value would be an error
        assert not tf.executing_eagerly()
        return f.v * x

    assert float(f(tf.constant(2.0))) == 6.0
    f.v.assign(4.0)
    assert float(f(tf.constant(2.0))) == 8.0  # the graph reads the variable at every call
    assert seen == [True, 3.0]
    with tf.init_scope():  # eagerly: nothing to lift
        assert tf.executing_eagerly()


def test_init_scope_in_a_branch_is_unimplemented():
    @tf.function
    def f(x):
        def branch():
            with tf.init_scope():
                pass
            return x
        return tf.cond(x > 0, branch, lambda: -x)

    with pytest.raises(tf.errors.UnimplementedError, match="init_scope"):
        f(tf.constant(1.0))


def test_constant_initializer():
    assert tf.constant_initializer(2)((2,)).dtype == tf.int32
    np.testing.assert_array_equal(tf.constant_initializer([1, 2, 3, 4])((2, 2), tf.float64), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(tf.constant_initializer(2.5)(tf.TensorShape([3])), [2.5] * 3)
    with pytest.raises(TypeError):
        tf.constant_initializer([1, 2, 3])((2, 2))
    with pytest.raises(TypeError):
        tf.constant_initializer(1.5)([2], tf.int32)
    with pytest.raises(TypeError, match="Invalid type"):
        tf.constant_initializer(tf.constant([1.0]))
    assert tf.constant_initializer.from_config(tf.constant_initializer(3).get_config())([1]).numpy().tolist() == [3]


def test_zeros_and_ones_initializers():
    z = tf.zeros_initializer()([2, 3])
    assert z.dtype == tf.float32 and z.shape == (2, 3) and not z.numpy().any()
    np.testing.assert_array_equal(tf.ones_initializer()([2], tf.bool), [True, True])
    np.testing.assert_array_equal(tf.ones_initializer()(2, "int64"), [1, 1])
    with pytest.raises(ValueError, match="numeric or boolean"):
        tf.ones_initializer()([2], tf.string)
    with pytest.raises(TypeError, match="partition"):
        tf.zeros_initializer()([2], foo=1)
    assert tf.zeros_initializer().get_config() == {}


def test_random_initializers():
    init = tf.random_normal_initializer(1.0, 2.0, seed=3)
    a, b = init([1000]), init([1000])
    np.testing.assert_array_equal(a, b)  # seeded: the same values at every call, as TF's
    assert abs(float(tf.reduce_mean(a)) - 1.0) < 0.3 and a.dtype == tf.float32
    assert init.get_config() == {"mean": 1.0, "stddev": 2.0, "seed": 3}
    assert tf.random_normal_initializer()([2], tf.float64).dtype == tf.float64
    with pytest.raises(ValueError, match="floating"):
        tf.random_normal_initializer()([2], tf.int32)
    u = tf.random_uniform_initializer(5.0, 6.0)([2000]).numpy()
    assert u.min() >= 5.0 and u.max() < 6.0
    i = tf.random_uniform_initializer(0, 10, seed=1)([500], tf.int32)
    assert i.dtype == tf.int32 and i.numpy().min() >= 0 and i.numpy().max() <= 9
    with pytest.raises(TypeError):
        tf.random_uniform_initializer()([2], tf.int32)  # -0.05 is not an int32
    with pytest.raises(ValueError):
        tf.random_uniform_initializer()([2], tf.bool)


def test_traced_bincount_and_confusion_matrix():
    @tf.function
    def counts(x):
        return tf.math.bincount(x, minlength=5, maxlength=5)

    np.testing.assert_array_equal(counts(tf.constant([1, 1, 3, 9])), [0, 2, 0, 1, 0])
    bins = tf.function(lambda x: tf.math.bincount(x))  # the length is read at every call
    assert bins(tf.constant([1, 2])).numpy().tolist() == [0, 1, 1]
    assert bins(tf.constant([4, 0])).numpy().tolist() == [1, 0, 0, 0, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
        bins(tf.constant([-1, 0]))
    cm = tf.function(lambda a, b: tf.math.confusion_matrix(a, b))
    assert cm(tf.constant([1]), tf.constant([1])).numpy().tolist() == [[0, 0], [0, 1]]
    assert cm(tf.constant([0]), tf.constant([2])).numpy().tolist() == [[0, 0, 1], [0, 0, 0], [0, 0, 0]]
    m = tf.function(lambda a, b: tf.math.confusion_matrix(a, b, num_classes=3))(tf.constant([0, 2]), tf.constant([1, 2]))
    np.testing.assert_array_equal(m, [[0, 1, 0], [0, 0, 0], [0, 0, 1]])


def test_ndtri_and_erfc_gradients():
    x = tf.constant([1e-12, 0.3, 0.999], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.ndtri(x)
    pdf = np.exp(-y.numpy() ** 2 / 2) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(tape.gradient(y, x), 1 / pdf, rtol=1e-9)
    z = tf.constant([-3.0, 0.5, 4.0, 20.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(z)
        e = tf.math.erfc(z)
    np.testing.assert_allclose(tape.gradient(e, z), -2 / np.sqrt(np.pi) * np.exp(-z.numpy() ** 2), rtol=1e-9)
