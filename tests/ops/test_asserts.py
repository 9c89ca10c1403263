"""tf.debugging's assertions: eager checks, traced checks at every call of a graph, TF's messages."""
import numpy as np
import pytest

import tapegrad as tf

IAE = tf.errors.InvalidArgumentError
x = tf.constant([1.0, 2.0, 3.0])
y = tf.constant([1.0, 5.0, 3.0])


def test_binary_asserts_eager_pass_return_none_and_fail_with_tf_text():
    assert tf.debugging.assert_equal(x, x) is None
    assert tf.debugging.assert_less(x, x + 1) is None
    with pytest.raises(IAE) as e:
        tf.debugging.assert_equal(x, y, message="hello", summarize=2)
    assert str(e.value) == ("hello\nCondition x == y did not hold.\nIndices of first 1 different values:\n[[1]]\n"
                            "Corresponding x values:\n[2.]\nCorresponding y values:\n[5.]\n"
                            "First 2 elements of x:\n[1. 2.]\nFirst 2 elements of y:\n[1. 5.]")
    with pytest.raises(IAE, match=r"^Condition x != y did not hold.\nIndices of first 2 different values:\n\[\[0\]\n \[2\]\]"):
        tf.debugging.assert_none_equal(x, y)
    with pytest.raises(IAE, match=r"^Condition x >= y did not hold.\nFirst 2 elements of x:\n\[1. 2.\]\n"
                                  r"First 2 elements of y:\n\[1. 3.\]$"):  # broadcast: no indices
        tf.debugging.assert_greater_equal(tf.constant([[1.0, 2.0]]), tf.constant([[1.0], [3.0]]))
    for fn in (tf.debugging.assert_less, tf.debugging.assert_greater):
        with pytest.raises(IAE):
            fn(x, y)
    with pytest.raises(IAE):
        tf.debugging.assert_less_equal(y, x)
    assert tf.assert_equal is tf.debugging.assert_equal and tf.Assert is tf.debugging.Assert


def test_sign_asserts_eager():
    with pytest.raises(IAE) as e:
        tf.debugging.assert_positive(x - 2, message="m")
    assert str(e.value) == "m.  \nCondition x > 0 did not hold element-wise:\nx (shape=(3,) dtype=float32) = \n['-1.0', '0.0', '1.0']"
    with pytest.raises(IAE, match=r"\['0', '1', '2', '3', '...'\]"):
        tf.debugging.assert_positive(tf.range(20), summarize=4)
    with pytest.raises(IAE, match="x <= 0 did not hold element-wise:x"):  # TF's text has no line break here
        tf.debugging.assert_non_positive(x)
    tf.debugging.assert_negative(-x)
    tf.debugging.assert_non_negative(x - 1)
    tf.debugging.assert_positive(tf.zeros([0]))


def test_assert_near_and_all_finite_eager():
    tf.debugging.assert_near(x, x + 1e-7)
    with pytest.raises(IAE, match=r"^Expected 'tf.Tensor\(False, shape=\(\), dtype=bool\)' to be true. Summarized data: "
                                  r"b'mm.  '\nb'x and y not equal to tolerance rtol = tf.Tensor\(1.1920929e-06"):
        tf.debugging.assert_near(x, y, message="mm")
    with pytest.raises(ValueError, match="not inexact"):
        tf.debugging.assert_near(tf.constant([1]), tf.constant([2]))
    ok = tf.debugging.assert_all_finite(x, "bad")
    assert ok is x
    with pytest.raises(IAE, match="^bad : Tensor had NaN values$"):
        tf.debugging.assert_all_finite(tf.constant([1.0, np.nan]), "bad")
    with pytest.raises(IAE, match="^bad : Tensor had Inf values$"):
        tf.debugging.assert_all_finite(tf.constant([np.inf]), "bad")


def test_Assert_eager():
    assert tf.debugging.Assert(True, [x]) is None
    with pytest.raises(IAE) as e:
        tf.debugging.Assert(tf.constant(False), [x, "text", 3])
    assert str(e.value) == "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: 1.0, 2.0, 3.0\nb'text'\n3"
    with pytest.raises(IAE, match=r"^Expected 'False' to be true. Summarized data: 0, 1, 2, ...$"):
        tf.debugging.Assert(False, [tf.range(10)])
    with pytest.raises(IAE, match=r"Summarized data: ...$"):
        tf.debugging.Assert(False, [tf.range(10)], summarize=0)
    with pytest.raises(ValueError, match="truth value"):
        tf.debugging.Assert(tf.constant([True, False]), [x])


def test_traced_checks_run_at_every_call():
    @tf.function
    def f(a, b):
        tf.debugging.assert_equal(a, b, message="mm")
        tf.debugging.assert_positive(a)
        return a + 1.0

    assert f(x, x).numpy().tolist() == [2.0, 3.0, 4.0]
    with pytest.raises(IAE) as e:  # the same graph, failing values
        f(x, y)
    assert str(e.value) == ("assertion failed: [mm] [Condition x == y did not hold element-wise:] [x (a:0) = ] "
                            "[1 2 3] [y (b:0) = ] [1 5 3]")
    with pytest.raises(IAE, match=r"^assertion failed: \[Condition x > 0 did not hold element-wise:\] "
                                  r"\[x \(a:0\) = \] \[-1 -2 -3\]$"):
        f(-x, -x)
    assert float(f(x * 2, x * 2)[0]) == 3.0
    assert f.experimental_get_tracing_count() == 1


def test_traced_check_failing_on_the_first_call_then_passing():
    @tf.function
    def f(a):
        tf.debugging.Assert(tf.reduce_all(a > 0), [a, "text", 3, a * 2], summarize=2)
        return a

    with pytest.raises(IAE, match=r"^assertion failed: \[-1 0...\] \[text\] \[3\] \[-2 0...\]$"):
        f(x - 2)
    assert f(x).numpy().tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(IAE):
        f(x - 2)


def test_traced_checks_in_get_concrete_function_and_all_finite():
    @tf.function
    def f(a):
        return tf.debugging.assert_all_finite(a, "bad") * 2.0

    cf = f.get_concrete_function(tf.TensorSpec([3], tf.float32))
    assert cf(x).numpy().tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(IAE, match="^bad : Tensor had Inf values$"):
        f(x / 0.0)
    with pytest.raises(IAE, match="^bad : Tensor had NaN values$"):
        cf(x * np.nan)


def test_static_checks_raise_while_tracing():
    @tf.function
    def const():
        tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message="mm")
        return 1

    with pytest.raises(IAE) as e:
        const()
    assert str(e.value) == "mm\nCondition x == y did not hold element-wise:\nx (Const:0) = \n[1 2]\ny (Const_1:0) = \n[1 3]"

    @tf.function
    def rank(a):
        tf.debugging.assert_rank(a, 2)
        return a

    with pytest.raises(ValueError, match=r"^Tensor a:0 must have rank 2.  Received rank 1, shape \(3,\)$"):
        rank(x)


def test_graph_text_summarizes_like_tfs_assert_op():
    from tapegrad._ops.debugging.checks import graph_summary as _graph_summary
    assert _graph_summary(np.array([[1, 2], [3, 4]]), None) == "[1 2][3...]..."
    assert _graph_summary(np.arange(12).reshape(2, 2, 3), None) == "[[0 1 2]]..."
    assert _graph_summary(np.arange(12).reshape(3, 4), 5) == "[0 1 2 3][4...]..."
    assert _graph_summary(np.array([0.1, 1e10, np.nan], np.float32), -1) == "0.1 1e+10 nan"
    assert _graph_summary(np.array([True, False]), None) == "1 0"
    assert _graph_summary(np.arange(10), 0) == "..."


def test_rank_scalar_type_integer_asserts():
    tf.debugging.assert_rank(x, 1)
    tf.assert_rank(x, tf.constant(1))
    with pytest.raises(ValueError, match=r"^mm.  Tensor  must have rank 2.  Received rank 1, shape \(3,\)$"):
        tf.debugging.assert_rank(x, 2, message="mm")
    with pytest.raises(ValueError, match="Rank must be a scalar."):
        tf.debugging.assert_rank(x, [2])
    with pytest.raises(TypeError, match="must be of type tf.int32; got tf.float32"):
        tf.debugging.assert_rank(x, 1.0)
    with pytest.raises(ValueError, match=r"must have rank at least 2.  Received rank 1"):
        tf.debugging.assert_rank_at_least(x, 2)
    with pytest.raises(ValueError, match=r"must have rank in \(0, 2\).  Received rank 1"):
        tf.debugging.assert_rank_in(x, [0, 2])
    tf.debugging.assert_rank_in(x, (0, 1))
    with pytest.raises(ValueError, match=r"^Expected scalar shape, saw shape: \(3,\).$"):
        tf.debugging.assert_scalar(x)
    assert tf.debugging.assert_scalar(1.0) is None
    with pytest.raises(TypeError, match="^mm.  tensor must be of type tf.int32; got tf.float32$"):
        tf.debugging.assert_type(x, tf.int32, message="mm")
    tf.debugging.assert_type(x, np.float32)
    with pytest.raises(TypeError, match=r"""^Expected "x" to be integer type.  Found: tensor of dtype <dtype: 'float32'>$"""):
        tf.debugging.assert_integer(x)
    tf.debugging.assert_integer(tf.constant([1]))


def test_same_float_dtype_proper_iterable_is_numeric():
    assert tf.debugging.assert_same_float_dtype([x, y]) == tf.float32
    assert tf.debugging.assert_same_float_dtype() == tf.float32
    with pytest.raises(ValueError, match="must be of the same type"):
        tf.debugging.assert_same_float_dtype([x, tf.constant([1.0], tf.float64)])
    with pytest.raises(ValueError, match=r"^Expected floating point type, got <dtype: 'int32'>.$"):
        tf.debugging.assert_same_float_dtype([tf.constant(1)])
    tf.debugging.assert_proper_iterable([x])
    for bad in (x, "abc", np.ones(2)):
        with pytest.raises(TypeError, match='"proper" iterable'):
            tf.debugging.assert_proper_iterable(bad)
    with pytest.raises(TypeError, match='to be iterable.  Found: <class \'int\'>'):
        tf.debugging.assert_proper_iterable(3)
    assert tf.debugging.is_numeric_tensor(x)
    assert not tf.debugging.is_numeric_tensor(1.0) and not tf.debugging.is_numeric_tensor(tf.constant(True))


def test_assert_shapes():
    a, b = tf.zeros([2, 3]), tf.zeros([3])
    tf.debugging.assert_shapes([(a, ("N", "D")), (b, ("D",)), (tf.constant(1.0), [])])
    tf.debugging.assert_shapes([(tf.zeros([5, 6, 3]), ("*", "D")), (a, ("N", "D"))])
    with pytest.raises(ValueError) as e:
        tf.debugging.assert_shapes([(a, ("N", "D")), (tf.zeros([4]), ("D",))], message="mm")
    assert str(e.value) == ("mm.  Specified by tensor shape=(2, 3) dtype=float32 dimension 1.  Tensor shape=(4,) "
                            "dtype=float32 dimension 0 must have size 3.  Received size 4, shape (4,)")
    with pytest.raises(ValueError, match=r"Specified explicitly.  Tensor shape=\(2, 3\) dtype=float32 dimension 1 must have size 4"):
        tf.debugging.assert_shapes([(a, (2, 4))])
    with pytest.raises(ValueError, match=r"Specified by tensor shape=\(5, 6, 4\) dtype=float32 dimension -1\."):
        tf.debugging.assert_shapes([(tf.zeros([5, 6, 4]), ("*", "D")), (a, ("N", "D"))])
    with pytest.raises(ValueError, match=r"must have rank in \(0, 1\)"):
        tf.debugging.assert_shapes([(a, ("N",))])


def test_assert_shapes_in_a_relaxed_graph_checks_at_every_call():
    @tf.function(input_signature=[tf.TensorSpec([None, 3]), tf.TensorSpec([None])])
    def g(a, b):
        tf.debugging.assert_shapes([(a, ("N", "D")), (b, ("N",))])
        return b

    g(tf.zeros([2, 3]), tf.zeros([2]))
    g(tf.zeros([4, 3]), tf.zeros([4]))
    with pytest.raises(IAE, match="Tensor b:0 dimension 0 must have size 5.  Received size 4"):
        g(tf.zeros([5, 3]), tf.zeros([4]))
