"""tf.TensorArray: TF's eager results and errors, gradients through write/stack/read, and loops in functions."""
import numpy as np
import pytest

import tapegrad as tf
from gradcheck import check_grads


def f32(**kwargs):
    return tf.TensorArray(tf.float32, **kwargs)


# Values as TF 2's eager TensorArray gives them.
VALUE_CASES = [
    ("write past the end grows a dynamic array", lambda: f32(size=0, dynamic_size=True).write(3, 1.0).stack(),
     [0.0, 0.0, 0.0, 1.0]),
    ("unwritten elements stack as zeros", lambda: f32(size=3, element_shape=(2,)).write(1, [1.0, 2.0]).stack(),
     [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]),
    ("an empty array with an element shape", lambda: f32(size=0, element_shape=(2,)).stack(), np.zeros((0, 2))),
    ("a second write replaces the first", lambda: f32(size=2).write(0, 1.0).write(0, 2.0).stack(), [2.0, 0.0]),
    ("Python numbers take the array's dtype", lambda: f32(size=2).write(0, 1).stack(), [1.0, 0.0]),
    ("unstack then read", lambda: f32(size=0, dynamic_size=True).unstack([[1.0, 2.0], [3.0, 4.0]]).read(1),
     [3.0, 4.0]),
    ("unstack sets the size", lambda: f32(size=0, dynamic_size=True).unstack([[1.0, 2.0], [3.0, 4.0]]).size(), 2),
    ("gather", lambda: f32(size=3).unstack([1.0, 2.0, 3.0]).gather([2, 0]), [3.0, 1.0]),
    ("scatter", lambda: f32(size=4).scatter([3, 0], [5.0, 6.0]).stack(), [6.0, 0.0, 0.0, 5.0]),
    ("concat without shape inference", lambda: f32(size=2, infer_shape=False).write(0, [1.0, 2.0]).write(1, [3.0])
     .concat(), [1.0, 2.0, 3.0]),
    ("split", lambda: f32(size=2, infer_shape=False).split([1.0, 2.0, 3.0], [2, 1]).read(1), [3.0]),
    ("size", lambda: f32(size=3).size(), 3),
]


@pytest.mark.parametrize("make,want", [c[1:] for c in VALUE_CASES], ids=[c[0] for c in VALUE_CASES])
def test_values_match_tf(make, want):
    np.testing.assert_array_equal(make().numpy(), want)


def test_a_read_clears_the_element_unless_asked_not_to():
    ta = f32(size=1).write(0, 1.0)
    assert float(ta.read(0)) == 1.0
    np.testing.assert_array_equal(ta.stack().numpy(), [0.0])  # cleared elements stack as zeros, as in TF
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not read index 0 twice"):
        ta.read(0)
    kept = f32(size=1, clear_after_read=False).write(0, 1.0)
    assert float(kept.read(0)) == float(kept.read(0)) == 1.0


ERROR_CASES = [
    (lambda: f32(), ValueError, "Size must be declared"),
    (lambda: f32(size=2).write(2, 1.0), tf.errors.OutOfRangeError, "Tried to write to index 2 but array is not "
                                                                   "resizeable and size is: 2"),
    (lambda: f32(size=2).write(-1, 1.0), tf.errors.OutOfRangeError, "negative indices"),
    (lambda: f32(size=2).read(5), tf.errors.OutOfRangeError, "Tried to read from index 5 but array size is: 2"),
    (lambda: f32(size=2).read(1), ValueError, "unknown shape"),
    (lambda: f32(size=2).write(0, tf.constant(1, tf.int32)), tf.errors.InvalidArgumentError,
     "TensorArray dtype is float32 but Op is trying to write dtype int32"),
    (lambda: f32(size=2).write(0, [1.0]).write(1, [1.0, 2.0]), ValueError, r"Incompatible shape for value \(\(2,\)\)"),
    (lambda: f32(size=2, element_shape=(3,)).write(0, [1.0]), ValueError, "Incompatible shape"),
    (lambda: f32(size=1).unstack([1.0, 2.0]), ValueError, "Cannot unstack 2 tensors into a TensorArray of static "
                                                          "size 1"),
]


@pytest.mark.parametrize("make,error,message", ERROR_CASES)
def test_errors_match_tf(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_properties():
    ta = tf.TensorArray(tf.float64, size=2, dynamic_size=True, element_shape=[None, 3])
    assert ta.dtype == tf.float64 and ta.dynamic_size and ta.element_shape == (None, 3)
    assert f32(size=1).element_shape.rank is None
    assert "TensorArray" in repr(ta)


def _squares_through_an_array(x):
    ta = tf.TensorArray(tf.float64, size=3)
    for i in range(3):
        ta = ta.write(i, x[i] * x[i])
    return ta.stack() + 10.0 * ta.read(0)


def test_gradients_through_stack_and_read():
    check_grads(_squares_through_an_array, [np.array([1.0, 2.0, 3.0])], {}, [0], np.random.default_rng(0))
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(_squares_through_an_array(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [62.0, 4.0, 6.0])


def test_unrolled_loops_in_a_function_with_gradients():
    @tf.function
    def doubled(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(tf.shape(x)[0]):  # one iteration unrolls (the first write gives the shape), then a loop
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack()

    x = tf.constant([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(doubled(x).numpy(), [2.0, 4.0, 6.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(doubled(x) * x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [4.0, 8.0, 12.0])


def cumulative(x, n):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=())
    total = tf.constant(0.0)
    for i in tf.range(n):
        total += x[i]
        ta = ta.write(i, total)
    return ta.stack()


def squares(x, n):
    ta = tf.TensorArray(tf.float32, size=3, element_shape=())
    for i in tf.range(n):
        ta = ta.write(i, x[i] * x[i])
    return ta.stack()


def test_array_carried_by_a_graph_loop():
    x = tf.constant([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tf.function(cumulative)(x, tf.constant(3)).numpy(), [1.0, 3.0, 6.0])
    np.testing.assert_array_equal(tf.function(squares)(x, tf.constant(3)).numpy(), [1.0, 4.0, 9.0])


def test_array_without_element_shape_in_a_graph_loop_learns_it_from_the_first_write():
    def unshaped(x, n):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(n):
            ta = ta.write(i, x[i])
        return ta.stack()

    f = tf.function(unshaped)
    x = tf.constant([1.0, 2.0, 3.0])
    for n, want in [(3, [1, 2, 3]), (2, [1, 2, 0]), (1, [1, 0, 0]), (0, [0, 0, 0])]:  # TF's values
        np.testing.assert_array_equal(f(x, tf.constant(n)).numpy(), want)


def test_array_in_a_traced_loop_with_gradients():
    f = tf.function(cumulative)
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(f(x, tf.constant(3)).numpy(), [1.0, 3.0, 6.0])
    np.testing.assert_array_equal(f(x, tf.constant(4)).numpy(), [1.0, 3.0, 6.0, 10.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x, tf.constant(2)))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 1.0, 0.0, 0.0])


def test_actor_critic_episode_gradient_through_a_growing_array_in_a_function():
    # TF's actor-critic tutorial: gathered probabilities written to a dynamic_size TensorArray in a
    # tf.range loop, the tape inside tf.function (SumToLike "cannot bring float32(4,) to (2,)" before).
    w = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) * 0.1)

    @tf.function
    def step(n):
        with tf.GradientTape() as tape:
            probs_ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            s = tf.ones([4])
            for t in tf.range(n):
                probs = tf.nn.softmax(tf.matmul(tf.expand_dims(s, 0), w))
                probs_ta = probs_ta.write(t, probs[0, tf.cast(t % 2, tf.int64)])
                s = s * 0.5
            loss = tf.reduce_sum(tf.math.log(probs_ta.stack()))
        return loss, tape.gradient(loss, w)

    loss, g = step(tf.constant(3))  # TF 2.21's values
    np.testing.assert_allclose(float(loss), -2.2555509, rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), [[0.50485, -0.50485]] * 4, rtol=1e-4)
    loss, g = step(tf.constant(0))
    assert float(loss) == 0.0 and not g.numpy().any()


# -- a size the trace computes (Note [Sizes a trace computes]) -------------------------------------------
@tf.function
def _squares(n):
    ta = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        ta = ta.write(i, tf.cast(i, tf.float32) ** 2)
    return ta.stack(), ta.size()


def test_an_array_sized_by_an_argument_serves_every_size_from_one_trace():
    # TF's function guide: TensorArray(size=n) with n an argument (values from TF 2.21).
    for n, want in [(4, [0.0, 1.0, 4.0, 9.0]), (1, [0.0]), (0, [])]:
        stacked, size = _squares(tf.constant(n))
        assert stacked.numpy().tolist() == want and size.numpy() == n
    assert _squares.experimental_get_tracing_count() == 1


def test_an_array_sized_by_a_shape_with_gradients():
    @tf.function
    def weighted(x):
        n = tf.shape(x)[0]
        ta = tf.TensorArray(tf.float32, size=n, element_shape=[2])
        for i in tf.range(n):
            ta = ta.write(i, x[i] * tf.cast(i + 1, tf.float32))
        return tf.reduce_sum(ta.stack() ** 2)

    x = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
    with tf.GradientTape() as tape:
        y = weighted(x)
    assert y.numpy() == 422.0  # TF 2.21
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0, 2], [16, 24], [72, 90]])


def test_an_array_sized_by_an_argument_unwritten_or_grown():
    @tf.function
    def unwritten(n):
        ta = tf.TensorArray(tf.float32, size=n, element_shape=[2])
        return ta.stack(), ta.read(0)

    stacked, row = unwritten(tf.constant(3))
    assert stacked.shape == (3, 2) and not stacked.numpy().any() and row.shape == (2,)

    @tf.function
    def grown(n):
        ta = tf.TensorArray(tf.float32, size=n, dynamic_size=True)
        for i in tf.range(n + 2):
            ta = ta.write(i, tf.fill([3], tf.cast(i, tf.float32)))
        return ta.stack()

    np.testing.assert_array_equal(grown(tf.constant(2)).numpy(), np.repeat(np.arange(4.0), 3).reshape(4, 3))


@pytest.mark.parametrize("body, error, message", [
    (lambda n: tf.TensorArray(tf.float32, size=n).stack(), tf.errors.InvalidArgumentError, "element shape is unknown"),
    (lambda n: tf.TensorArray(tf.float32, size=tf.cast(n, tf.float32)).size(), TypeError, "scalar int32"),
])
def test_an_array_sized_by_an_argument_refuses_what_tf_refuses(body, error, message):
    with pytest.raises(error, match=message):
        tf.function(body)(tf.constant(2))
