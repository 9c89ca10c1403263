"""Tensor and Variable surface: dtypes, promotion, NumPy interop, repr, operators."""
import numpy as np
import pytest

import tapegrad as tf


def test_python_values_take_tf_default_dtypes():
    assert tf.constant(1.0).dtype == tf.float32
    assert tf.constant(1).dtype == tf.int32
    assert tf.constant(True).dtype == tf.bool
    assert tf.constant([1.0, 2.0]).dtype == tf.float32
    assert tf.constant(np.array([1.0])).dtype == tf.float64
    assert tf.constant(2 ** 40).dtype == tf.int64


def test_mixed_float_dtypes_raise():
    a = tf.constant(1.0)
    b = tf.constant(1.0, dtype=tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Add.*float32.*float64"):
        a + b
    with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError
        a * b


def test_python_scalars_follow_the_tensor_dtype():
    x = tf.constant(2.0, dtype=tf.float64)
    assert (x + 1).dtype == tf.float64
    assert (1.5 * x).dtype == tf.float64
    i = tf.constant(2)
    assert (i + 1).dtype == tf.int32
    with pytest.raises(tf.errors.InvalidArgumentError):
        i + 1.5


def test_numpy_is_zero_copy_and_read_only():
    t = tf.constant([1.0, 2.0, 3.0])
    a = t.numpy()
    assert not a.flags.writeable
    assert np.shares_memory(a, np.asarray(t))
    with pytest.raises(ValueError):
        a[0] = 5.0


def test_numpy_outlives_the_tensor():
    a = (tf.constant([1.0, 2.0]) * 2.0).numpy()
    import gc
    gc.collect()
    np.testing.assert_array_equal(a, [2.0, 4.0])


def test_variable_numpy_is_a_copy():
    v = tf.Variable([1.0, 2.0])
    a = v.numpy()
    v.assign([5.0, 6.0])
    np.testing.assert_array_equal(a, [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [5.0, 6.0])


def test_variable_assign_ops_and_errors():
    v = tf.Variable([1.0, 2.0], name="w")
    v.assign_add([1.0, 1.0])
    v.assign_sub(tf.constant([0.5, 0.5]))
    np.testing.assert_array_equal(v.numpy(), [1.5, 2.5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
        v.assign([1.0, 2.0, 3.0])
    assert v.name == "w:0" and v.trainable and v.constraint is None


def test_assigning_a_python_float_to_an_integer_variable_is_a_type_error():
    # TF: "Cannot convert 1.5 to EagerTensor of dtype int32" (the ops' cases are in opinfo/*_errors.py)
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.Variable(tf.constant([1, 2])).assign([1.5, 2.5])


def test_a_dtype_hint_is_only_a_preference():
    assert tf.convert_to_tensor(1.5, dtype_hint=tf.int32).dtype == tf.float32


def test_variable_usable_as_tensor():
    v = tf.Variable([[1.0, 2.0]])
    assert isinstance(v, tf.Tensor)
    np.testing.assert_array_equal((v @ tf.constant([[1.0], [1.0]])).numpy(), [[3.0]])
    np.testing.assert_array_equal(np.asarray(v), [[1.0, 2.0]])


def test_repr_and_format():
    t = tf.constant(8.0)
    assert repr(t) == "<tf.Tensor: shape=(), dtype=float32, numpy=8.0>"
    assert format(t, ".4f") == "8.0000"
    assert "shape=(2,)" in repr(tf.constant([1, 2]))
    assert repr(tf.Variable(1.0, name="v")).startswith("<tf.Variable 'v:0' shape=() dtype=float32")


def test_shape_and_scalars():
    t = tf.zeros([2, 3])
    assert t.shape == (2, 3) and t.shape.as_list() == [2, 3] and t.ndim == 2 and len(t) == 2
    assert float(tf.constant(2.5)) == 2.5 and int(tf.constant(3)) == 3 and bool(tf.constant(True))
    with pytest.raises(TypeError):
        float(tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError):
        bool(tf.constant([True, False]))


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", ">=", "==", "!="])
def test_operators_match_numpy(op):
    a = np.array([[1.5, 2.0, 3.0]], np.float32)
    b = np.array([[2.0], [0.5]], np.float32)
    got = eval(f"tf.constant(a) {op} tf.constant(b)").numpy()
    want = eval(f"a {op} b")
    np.testing.assert_allclose(got, want, rtol=1e-6)
    got_r = eval(f"a {op} tf.constant(b)")  # NumPy on the left defers to the tensor
    assert isinstance(got_r, tf.Tensor)


def test_integer_true_division_gives_float64():
    r = tf.constant([3, 4]) / tf.constant([2, 2])
    assert r.dtype == tf.float64
    np.testing.assert_array_equal(r.numpy(), [1.5, 2.0])


def test_integer_division_by_zero_raises_and_int_min_by_minus_one_wraps():
    with pytest.raises(tf.errors.InvalidArgumentError, match="FloorDiv: Integer division by zero"):
        tf.constant([3, -4]) // tf.constant([0, 0])
    m = tf.constant(-2 ** 31) // tf.constant(-1)
    assert m.dtype == tf.int32 and int(m) == -2 ** 31


def test_unary_operators():
    t = tf.constant([-1.0, 2.0])
    np.testing.assert_array_equal((-t).numpy(), [1.0, -2.0])
    np.testing.assert_array_equal(abs(t).numpy(), [1.0, 2.0])


def test_matmul_operator():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose((a @ a).numpy(), np.array([[7, 10], [15, 22]]))


def test_constructors():
    np.testing.assert_array_equal(tf.ones([2], tf.int32).numpy(), [1, 1])
    np.testing.assert_array_equal(tf.fill([2, 2], 7.0).numpy(), np.full((2, 2), 7.0))
    np.testing.assert_array_equal(tf.eye(2).numpy(), np.eye(2))
    np.testing.assert_array_equal(tf.range(5).numpy(), np.arange(5))
    assert tf.range(0.0, 1.0, 0.25).dtype == tf.float32
    np.testing.assert_allclose(tf.linspace(0.0, 1.0, 5).numpy(), np.linspace(0, 1, 5))
    assert tf.zeros_like(tf.constant([1, 2])).dtype == tf.int32
    assert tf.constant(1.0, shape=[2, 2]).shape == (2, 2)
    assert tf.cast(tf.constant([1.7, -1.7]), tf.int32).numpy().tolist() == [1, -1]


def test_cast_of_nan_and_huge_values_is_defined():
    r = tf.cast(tf.constant([np.nan, 1e30, -1e30]), tf.int32).numpy()
    assert r.tolist() == [-2 ** 31, -2 ** 31, -2 ** 31]  # as TF on x86


def test_dtype_objects():
    assert tf.float32 == np.float32 and tf.as_dtype("float64") is tf.float64
    assert tf.float32.is_floating and tf.int32.is_integer and repr(tf.float32) == "tf.float32"


def test_random_seeded():
    tf.random.set_seed(1)
    a = tf.random.normal([3])
    tf.random.set_seed(1)
    b = tf.random.normal([3])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    u = tf.random.uniform([1000], 2.0, 3.0)
    assert u.dtype == tf.float32 and 2.0 <= float(tf.reduce_min(u)) and float(tf.reduce_max(u)) < 3.0


def test_integer_pow():
    assert (tf.constant(10) ** 3).numpy() == 1000
    np.testing.assert_array_equal(tf.pow(tf.constant([2, -3]), tf.constant([10, 3])).numpy(), [1024, -27])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Pow.*negative"):
        tf.constant(2) ** -1


def test_float32_scalar_prints_at_float32_precision():
    assert str(tf.exp(tf.constant(1.0))) == "tf.Tensor(2.7182817, shape=(), dtype=float32)"


def test_op_wrappers_accept_tf_name_argument():
    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(tf.add(x, x, name="sum").numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(tf.exp(x, name="e").numpy(), np.exp([1.0, 2.0]).astype(np.float32))
    assert tf.add.__name__ == "add" and "Add" in tf.add.__doc__


def test_numpy_scalars_keep_their_dtype_as_in_tf():
    # np.float64 is a Python float subclass: it must not be read as a Python float (float32).
    assert tf.constant(np.float64(1.0)).dtype == tf.float64
    assert tf.convert_to_tensor(np.int64(3)).dtype == tf.int64
    assert tf.constant(np.float32(1.0)).dtype == tf.float32
    assert (tf.ones([2]) * np.float64(2.0)).dtype == tf.float32  # beside a tensor the tensor's dtype wins


def test_set_shape_checks_compatibility_as_tf():
    x = tf.constant([[1.0, 2.0]])
    for ok in ([1, 2], [None, 2], None, tf.TensorShape([1, None])):
        x.set_shape(ok)
    assert x.shape == (1, 2)
    for bad in ([2, 1], [1], [1, 2, 3]):
        with pytest.raises(ValueError, match=r"Tensor's shape \(1, 2\) is not compatible with supplied shape"):
            x.set_shape(bad)
    f = tf.function(lambda t: (t.set_shape([None, 2]), t * 2.0)[1])
    assert f(tf.ones([3, 2])).shape == (3, 2)
