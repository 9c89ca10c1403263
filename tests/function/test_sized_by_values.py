"""tf.where(c), tf.boolean_mask, tf.range, tf.fill/zeros/ones and tf.one_hot with sizes computed inside a
tf.function: one trace serves every value (cpp/ops/sized_by_values.cpp); ops after them take their
shapes at run time (reverse, expand_dims, stack, squeeze), and those that would keep the traced sizes
(split, unstack along a varying axis, a Python loop over the tensor) raise instead of giving a wrong
result, and the static shape holds None for the sizes that vary (Note [Varying dimensions])."""
import numpy as np
import pytest

import tapegrad as tf

# the same input shape with 4 and then 2 distinct values: a graph keeping the first sizes would show
X1 = np.array([1.0, 1.0, 2.0, 3.0, 3.0, 4.0], np.float32)
X2 = np.array([5.0, 5.0, 6.0, 6.0, 6.0, 6.0], np.float32)
X3 = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], np.float32)


def distinct(x):
    return np.array(list(dict.fromkeys(x.tolist())), x.dtype)


def run_each(f, expect):
    for x in (X1, X2, X3):
        got = f(tf.constant(x))
        got = got if isinstance(got, (list, tuple)) else [got]
        want = expect(x)
        want = want if isinstance(want, (list, tuple)) else [want]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
    assert f.experimental_get_tracing_count() == 1


def test_boolean_mask_and_where_follow_the_values():
    run_each(tf.function(lambda x: tf.boolean_mask(x, x > 2.5)), lambda x: x[x > 2.5])
    run_each(tf.function(lambda x: tf.where(x > 2.5)), lambda x: np.argwhere(x > 2.5))
    run_each(tf.function(lambda x: tf.gather_nd(tf.reshape(x, [2, 3]), tf.where(tf.reshape(x, [2, 3]) > 2.5))),
             lambda x: x.reshape(2, 3)[x.reshape(2, 3) > 2.5])
    run_each(tf.function(lambda x: tf.boolean_mask(tf.reshape(x, [3, 2]), tf.reshape(x, [3, 2])[:, 0] > 1.5)),
             lambda x: x.reshape(3, 2)[x.reshape(3, 2)[:, 0] > 1.5])


def test_shapes_read_from_values():
    run_each(tf.function(lambda x: tf.range(tf.size(tf.unique(x).y))), lambda x: np.arange(len(distinct(x))))
    run_each(tf.function(lambda x: (tf.zeros(tf.shape(tf.unique(x).y)), tf.fill([tf.size(tf.unique(x).y), 2], 7.0),
                                    tf.ones([tf.size(tf.unique(x).y)], tf.int32))),
             lambda x: (np.zeros(len(distinct(x))), np.full([len(distinct(x)), 2], 7.0),
                        np.ones(len(distinct(x)), np.int32)))
    ids = lambda x: np.unique(x, return_inverse=True)[1].reshape(-1)  # noqa: E731 (x is sorted here)
    run_each(tf.function(lambda x: tf.one_hot(tf.unique(x).idx, tf.size(tf.unique(x).y))),
             lambda x: np.eye(len(distinct(x)), dtype=np.float32)[ids(x)])
    run_each(tf.function(lambda x: tf.one_hot(tf.unique(x).idx, tf.size(tf.unique(x).y), axis=0, on_value=5.0)),
             lambda x: 5.0 * np.eye(len(distinct(x)), dtype=np.float32)[ids(x)].T)


def test_ops_after_them_take_run_time_shapes():
    y = lambda x: tf.unique(x).y  # noqa: E731
    run_each(tf.function(lambda x: (tf.reverse(y(x), [0]), y(x)[::-1])), lambda x: (distinct(x)[::-1],) * 2)
    run_each(tf.function(lambda x: tf.expand_dims(y(x), 0)), lambda x: distinct(x)[None])
    run_each(tf.function(lambda x: tf.stack([y(x), y(x)], axis=1)), lambda x: np.stack([distinct(x)] * 2, 1))
    run_each(tf.function(lambda x: tf.transpose(tf.stack([y(x), 2 * y(x)]))),
             lambda x: np.stack([distinct(x), 2 * distinct(x)]).T)
    run_each(tf.function(lambda x: tf.squeeze(tf.expand_dims(y(x), 1), axis=1)), distinct)


@pytest.mark.parametrize("key", [
    np.s_[1:], np.s_[-1], np.s_[:-1], np.s_[::2], np.s_[-2::-1], np.s_[1:100], np.s_[-100:2], np.s_[None, 1:],
    np.s_[..., 0], np.s_[:, None], np.s_[0, None], np.s_[3:1], np.s_[1::-3],
])
def test_slices_resolve_against_the_run_time_length(key):
    run_each(tf.function(lambda x: tf.unique(x).y[key]), lambda x: distinct(x)[key])
    m = lambda x: np.stack([distinct(x), 2 * distinct(x)], 1)  # noqa: E731 (the length on axis 0)
    run_each(tf.function(lambda x: tf.transpose(tf.stack([tf.unique(x).y, 2 * tf.unique(x).y]))[key]),
             lambda x: m(x)[key])
    t = lambda x: m(x).T  # noqa: E731 (the length on axis 1)
    run_each(tf.function(lambda x: tf.stack([tf.unique(x).y, 2 * tf.unique(x).y])[(slice(None),) + _tuple(key)]),
             lambda x: t(x)[(slice(None),) + _tuple(key)])


def _tuple(key):
    return key if isinstance(key, tuple) else (key,)


def test_gradient_of_a_slice_of_a_varying_length():
    def step(w, x):
        with tf.GradientTape() as tape:
            y = tf.boolean_mask(w * x, x > 0.5)
            loss = tf.reduce_sum(y[1:] * y[:-1]) + tf.reduce_sum(tf.stack([y, y])[:, -1])
        return tape.gradient(loss, w)

    f, w = tf.function(step), tf.Variable(np.linspace(0.5, 1.5, 6).astype(np.float32))
    for x in (X1, X2, X3 - 3.0):
        np.testing.assert_allclose(f(w, tf.constant(x)).numpy(), step(w, tf.constant(x)).numpy(), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_gradients_through_a_mask_match_eager():
    def loss(w, x):
        with tf.GradientTape() as tape:
            v = tf.reduce_sum(tf.square(tf.boolean_mask(w * x, x > 2.5)))
            v += tf.reduce_sum(tf.fill([tf.size(tf.where(x > 2.5))], w))
        return v, tape.gradient(v, w)

    traced = tf.function(loss)
    w = tf.Variable(1.5)
    for x in (X1, X2, X3):
        eager, graph = loss(w, tf.constant(x)), traced(w, tf.constant(x))
        mask = x > 2.5
        want = np.sum(2 * 1.5 * x[mask] ** 2) + mask.sum()
        np.testing.assert_allclose(float(graph[1]), want, rtol=1e-6)
        np.testing.assert_allclose([float(eager[0]), float(eager[1])], [float(graph[0]), float(graph[1])], rtol=1e-6)
    assert traced.experimental_get_tracing_count() == 1


def test_what_would_keep_the_traced_size_is_refused():
    y = lambda x: tf.unique(x).y  # noqa: E731
    rows = lambda x: tf.reshape(tf.boolean_mask(M, M[:, 0] > x[0]), [3, -1])  # noqa: E731 (a varying axis 1)
    for fn in (lambda x: tf.split(y(x), 2), lambda x: tf.unstack(y(x)), lambda x: y(x)[[0, 1]],
               lambda x: tf.unstack(rows(x), axis=1), lambda x: tf.split(rows(x), 1, axis=1)):
        with pytest.raises(tf.errors.UnimplementedError, match="size changes from call to call"):
            tf.function(fn)(tf.constant(X1))

    def loop(x):
        s = 0.0
        for v in y(x):
            s += v
        return s

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating over a tf.Tensor whose length"):
        tf.function(loop, autograph=False)(tf.constant(X1))
    with pytest.raises(TypeError, match="len is not well defined"):
        tf.function(lambda x: len(y(x)))(tf.constant(X1))


M = np.arange(12.0, dtype=np.float32).reshape(4, 3)


def test_a_size_that_follows_values_is_none_in_the_static_shape():
    seen = {}

    @tf.function
    def f(x):
        y = tf.boolean_mask(M, M[:, 0] > x[0])
        seen.update(y=y.shape.as_list(), first=y[:, 0].shape.as_list(), cols=y[:, 1:].shape.as_list(),
                    zeros=tf.zeros(tf.shape(y)).shape.as_list(), rows=tf.zeros([tf.shape(y)[0], 5]).shape.as_list(),
                    matmul=tf.matmul(y, tf.ones([3, 2])).shape.as_list(), get_shape=y.get_shape().as_list())
        return y

    f(tf.constant([2.0]))
    assert seen == dict(y=[None, 3], first=[None], cols=[None, 2], zeros=[None, 3], rows=[None, 5],
                        matmul=[None, 2], get_shape=[None, 3])


def test_a_varying_size_read_as_a_number_fails_loudly():
    # y.shape[0] read as the traced count would make the second call's result one row short
    @tf.function
    def f(x):
        y = tf.boolean_mask(x, x > 0)
        return tf.zeros([y.shape[0]]) + tf.reduce_sum(y)

    with pytest.raises(ValueError, match="unknown"):
        f(tf.constant([1.0, -2.0, 3.0]))


def test_split_and_unstack_along_an_axis_of_fixed_size():
    @tf.function
    def f(x):
        y = tf.boolean_mask(M, M[:, 0] > x)
        a, b, c = tf.unstack(y, axis=1)
        p, q = tf.split(y, [1, 2], axis=1)
        return a + b + c, p, q

    for x in (2.0, 7.0, 20.0):
        want = M[M[:, 0] > x]
        s, p, q = f(tf.constant(x))
        np.testing.assert_array_equal(s.numpy(), want.sum(1))
        np.testing.assert_array_equal(p.numpy(), want[:, :1])
        np.testing.assert_array_equal(q.numpy(), want[:, 1:])
    assert f.experimental_get_tracing_count() == 1


def test_indexing_a_varying_tensor_with_a_tensor_index():
    @tf.function
    def f(x, n):
        y = tf.boolean_mask(M, M[:, 0] > x)
        return y[n], y[:, n], y[0, n], y[n, ..., 1]

    for x, n in ((2.0, 1), (-1.0, 2), (5.0, 0)):
        y = M[M[:, 0] > x]
        got = f(tf.constant(x), tf.constant(n))
        for g, w in zip(got, (y[n], y[:, n], y[0, n], y[n, 1])):
            np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        tf.function(lambda x: tf.boolean_mask(M, M[:, 0] > x)[:, 3])(tf.constant(1.0))


def test_errors_and_edges():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Where: condition must have rank 1"):
        tf.where(tf.constant(True))
    assert tf.where(tf.zeros([2, 0])).shape == (0, 2)
    # subnormals count as 0, as TF's kernels flush them; NaN is true
    np.testing.assert_array_equal(tf.where(tf.constant([0.0, 1e-45, np.nan, -0.0], tf.float32)).numpy(), [[2]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires delta != 0"):
        tf.range(tf.constant(1), 5, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires start <= limit when delta > 0"):
        tf.function(lambda n: tf.range(n))(tf.constant(-3))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Fill: dims must not be negative"):
        tf.function(lambda n: tf.zeros([n, 2]))(tf.constant(-1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="BooleanMask"):
        tf.boolean_mask(tf.ones([2, 3]), [True, False, True])


def test_range_of_tensors_takes_the_widest_dtype():
    assert tf.range(tf.constant(3, tf.int64), 7).dtype == tf.int64
    assert tf.range(tf.constant(2), 7.5).dtype == tf.float32
    assert tf.range(tf.constant(1.0, tf.float64)).dtype == tf.float64
    assert tf.range(tf.constant(1), 4, dtype=tf.float64).dtype == tf.float64
    np.testing.assert_array_equal(tf.range(tf.constant(5), 1, -2).numpy(), [5, 3])
    np.testing.assert_array_equal(tf.range(tf.constant(0.0), 1.0, 0.25).numpy(), [0, 0.25, 0.5, 0.75])


def test_dataset_map_of_a_value_shaped_result_has_unknown_dimensions():
    ds = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
    assert ds.element_spec == tf.TensorSpec([None], tf.int64)
    assert [t.numpy().tolist() for t in ds] == [[1], [2, 2], [3, 3, 3], [4, 4, 4, 4]]
    masked = tf.data.Dataset.from_tensor_slices(np.arange(12.0, dtype=np.float32).reshape(4, 3)).map(
        lambda r: tf.boolean_mask(r, r > 4.0))
    assert masked.element_spec == tf.TensorSpec([None], tf.float32)
    assert [t.numpy().tolist() for t in masked] == [[], [5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]
    # only the sizes that follow values are unknown (Note [Varying dimensions])
    pairs = tf.data.Dataset.from_tensor_slices(np.arange(12.0, dtype=np.float32).reshape(2, 6)).map(
        lambda r: tf.reshape(tf.boolean_mask(r, r > 3.0), [-1, 2]))
    assert pairs.element_spec == tf.TensorSpec([None, 2], tf.float32)


# gradients whose rules would keep traced sizes (Note [Gradients of sized copies], zeros_like in rules)
GRADIENT_BODIES = {
    "pad": lambda y: tf.reduce_sum(tf.pad(y, [[1, 2]]) * tf.cast(tf.range(tf.size(y) + 3), tf.float32)),
    "pad_2d": lambda y: tf.reduce_sum(tf.pad(tf.stack([y, y]), [[1, 0], [0, 2]]) ** 2),
    "tile": lambda y: tf.reduce_sum(tf.tile(y, [2]) * tf.cast(tf.range(2 * tf.size(y)), tf.float32)),
    "tile_2d": lambda y: tf.reduce_sum(tf.tile(tf.stack([y, y * y]), [3, 2]) ** 2),
    "tile_none": lambda y: tf.reduce_sum(tf.tile(tf.stack([y, y]), [0, 2])) + tf.reduce_sum(y * y),
    "select": lambda y: tf.reduce_sum(tf.where(y > 1.0, y * y, -y)),
    "concat_axis1": lambda y: tf.reduce_sum(tf.concat([tf.expand_dims(y, 0), tf.expand_dims(y * y, 0)], 1) ** 2),
    "gather_axis1": lambda y: tf.reduce_sum(tf.gather(tf.stack([y, 2 * y]), [1, 0], axis=0)[:, -1]),
    "reshape": lambda y: tf.reduce_sum(tf.reshape(tf.stack([y, y * y], 1), [-1]) ** 2),
    "matmul": lambda y: tf.reduce_sum(tf.matmul(tf.stack([y, y * 2], 1), tf.ones([2, 3]))),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_BODIES))
def test_traced_gradients_follow_the_run_time_sizes(name):
    body = GRADIENT_BODIES[name]

    def step(w, x):
        with tf.GradientTape() as tape:
            loss = body(tf.boolean_mask(w * x, x > 0.5))
        return tape.gradient(loss, w)

    f, w = tf.function(step), tf.Variable(np.linspace(0.5, 1.5, 6).astype(np.float32))
    for x in (X1, X3 - 3.0, X3):  # 6, 3 and 6 rows
        np.testing.assert_allclose(f(w, tf.constant(x)).numpy(), step(w, tf.constant(x)).numpy(), rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1


SIG = [tf.TensorSpec([None, 4], tf.float32)]


@pytest.mark.parametrize("body, expect", [
    (lambda x: tf.reshape(x, [tf.shape(x)[0], 2, 2]), lambda x: x.reshape(len(x), 2, 2)),
    (lambda x: tf.reshape(x, tf.stack([2, -1])), lambda x: x.reshape(2, -1)),
    (lambda x: tf.broadcast_to(tf.constant([1.0, 2.0]), [tf.shape(x)[0], 2]), lambda x: np.tile([1.0, 2.0], (len(x), 1))),
    (lambda x: tf.tile(x[:1], [tf.shape(x)[0], 1]), lambda x: np.tile(x[:1], (len(x), 1))),
    (lambda x: tf.shape(tf.random.normal((tf.shape(x)[0], 3))), lambda x: np.array([len(x), 3])),
    (lambda x: tf.shape(tf.random.uniform([tf.shape(x)[0]])), lambda x: np.array([len(x)])),
    (lambda x: x[: tf.shape(x)[0] // 2], lambda x: x[: len(x) // 2]),
    (lambda x: x[tf.shape(x)[0] - 1 :: -2, 1:], lambda x: x[len(x) - 1 :: -2, 1:]),
    (lambda x: tf.sequence_mask(tf.range(tf.shape(x)[0])), lambda x: np.arange(len(x))[:, None] > np.arange(
        max(len(x) - 1, 0))),
])
def test_sizes_computed_from_a_batch_of_any_size(body, expect):
    f = tf.function(body, input_signature=SIG)
    for n in (4, 6, 2):
        x = np.arange(4 * n, dtype=np.float32).reshape(n, 4)
        np.testing.assert_array_equal(f(tf.constant(x)).numpy(), expect(x))
    assert f.experimental_get_tracing_count() == 1


def test_gradients_through_computed_shapes():
    w = tf.Variable(np.linspace(-1.0, 1.0, 4).astype(np.float32))

    def step(x):
        with tf.GradientTape() as tape:
            y = tf.reshape(x * w, [tf.shape(x)[0], 2, 2])
            z = tf.broadcast_to(w[:1], [tf.shape(x)[0], 3]) + tf.tile(tf.reshape(w, [1, 4]), [tf.shape(x)[0], 1])[:, :3]
            loss = tf.reduce_sum(y ** 2) + tf.reduce_sum(z ** 2)
        return tape.gradient(loss, w)

    f = tf.function(step, input_signature=SIG)
    for n in (3, 5):
        x = tf.constant(np.arange(4 * n, dtype=np.float32).reshape(n, 4))
        np.testing.assert_allclose(f(x).numpy(), step(x).numpy(), rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("body", [
    lambda w, i: tf.pad(w, [[1, tf.reduce_max(i)]]) * tf.cast(tf.range(7 + tf.reduce_max(i)), tf.float32),
    lambda w, i: tf.repeat(w, i) * tf.cast(tf.range(tf.reduce_sum(i)), tf.float32),
    lambda w, i: tf.eye(tf.reduce_max(i)) * tf.reduce_sum(w),
    lambda w, i: tf.math.top_k(w * w, tf.reduce_max(i)).values,
    lambda w, i: tf.math.segment_max(w, tf.sort(i)),
], ids=["pad", "repeat", "eye", "top_k", "segment_max"])
def test_gradients_with_computed_counts_match_eager(body):
    def step(w, i):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(body(w, i) ** 2)
        return tape.gradient(loss, w)

    f, w = tf.function(step), tf.Variable(np.linspace(-1.0, 1.5, 6).astype(np.float32))
    for i in ([0, 0, 1, 2, 2, 2], [1, 3, 0, 1, 2, 1], [4, 1, 1, 1, 1, 1]):
        i = tf.constant(i)
        np.testing.assert_allclose(f(w, i).numpy(), step(w, i).numpy(), rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1


def test_graph_loops_over_a_value_shaped_result():
    # the loops' subgraphs take the varying rows as arguments: they run with the call's shapes
    # (a loop body kept at the traced shapes wrote past its buffer)
    x = tf.constant(np.arange(18, dtype=np.float32).reshape(6, 3))

    @tf.function(input_signature=[tf.TensorSpec([6], tf.bool)])
    def mapped(m):
        y = tf.boolean_mask(x, m)
        return tf.map_fn(lambda r: r * 2.0, y), tf.scan(lambda a, r: a + r, y)

    @tf.function(input_signature=[tf.TensorSpec([6], tf.int32)])
    def gathered(v):
        return tf.map_fn(lambda r: r - 1.0, tf.gather(x, tf.unique(v)[0]))

    for m in ([True, True, False, True, False, True], [True] * 6, [False, True] + [False] * 4):
        y = x.numpy()[np.array(m)]
        got_map, got_scan = mapped(tf.constant(m))
        np.testing.assert_array_equal(got_map.numpy(), y * 2.0)
        np.testing.assert_array_equal(got_scan.numpy(), np.cumsum(y, 0))
    empty = tf.function(lambda m: tf.map_fn(lambda r: r * 2.0, tf.boolean_mask(x, m)),
                        input_signature=[tf.TensorSpec([6], tf.bool)])
    for m in ([True] * 2 + [False] * 4, [False] * 6, [True] * 6):
        np.testing.assert_array_equal(empty(tf.constant(m)).numpy(), x.numpy()[np.array(m)] * 2.0)
    for v in ([1, 2, 1, 1, 1, 1], [0, 1, 2, 3, 4, 5], [3] * 6):
        np.testing.assert_array_equal(gathered(tf.constant(v)).numpy(), x.numpy()[list(dict.fromkeys(v))] - 1.0)


def test_repeat_with_computed_counts_broadcasts_and_checks_them_as_tf():
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    per_row = tf.function(lambda x, c: tf.repeat(x, c, axis=0),
                          input_signature=[tf.TensorSpec([None, 3]), tf.TensorSpec([None], tf.int32)])
    one = tf.function(lambda x, c: tf.repeat(x, c, axis=0),
                      input_signature=[tf.TensorSpec([None, 3]), tf.TensorSpec([], tf.int32)])
    for c in ([2], [1, 0, 2, 1], [1, -1, 1, 1]):  # one count for all rows; a negative among several is 0
        want = np.repeat(x, np.maximum(np.broadcast_to(c, [4]), 0), axis=0)
        np.testing.assert_array_equal(per_row(tf.constant(x), tf.constant(c)).numpy(), want)
    np.testing.assert_array_equal(one(tf.constant(x), tf.constant(2)).numpy(), np.repeat(x, 2, axis=0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="BroadcastTo"):
        per_row(tf.constant(x), tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must not be negative"):
        one(tf.constant(x), tf.constant(-1))


def test_slices_with_a_computed_step_and_indices_out_of_range():
    a = np.arange(10)
    f = tf.function(lambda x, b, e, s: x[b:e:s])
    for b, e, s in [(0, 10, 3), (8, 1, -2), (-3, 100, 1), (100, -100, -3), (2, 2, 1), (5, 0, 4), (-100, 3, -1)]:
        assert f(tf.constant(a), tf.constant(b), tf.constant(e), tf.constant(s)).numpy().tolist() == a[b:e:s].tolist()
    g = tf.function(lambda x, s: x[::s])
    for s in (1, 2, -1, -4, 11, -11):
        assert g(tf.constant(a), tf.constant(s)).numpy().tolist() == a[::s].tolist()
    with pytest.raises(tf.errors.InvalidArgumentError, match="delta != 0"):
        g(tf.constant(a), tf.constant(0))
    h = tf.function(lambda x, i: x[i])
    assert [int(h(tf.constant(a), tf.constant(i))) for i in (3, -1, -10)] == [3, 9, 0]
    for i in (10, -11):  # an error, as TF's: not wrapped round to another element
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
            h(tf.constant(a), tf.constant(i))


def test_a_boolean_key_on_a_varying_tensor_and_counts_given_as_scalars():
    @tf.function
    def f(m):
        y = tf.boolean_mask(M, m)
        return y[y[:, 0] > 5]

    for m in ([True, False, True, True], [False, False, True, False], [True] * 4):
        y = M[np.array(m)]
        np.testing.assert_array_equal(f(tf.constant(m)).numpy(), y[y[:, 0] > 5])
    assert tf.function(lambda n: tf.zeros(n))(tf.constant(3)).numpy().tolist() == [0.0] * 3
    assert tf.function(lambda n: tf.ones(n, tf.int32))(tf.constant(2)).numpy().tolist() == [1, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="paddings must be non-negative"):
        tf.function(lambda n: tf.pad(tf.range(5), [[n, 1]]))(tf.constant(-1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="num must be non-negative"):
        tf.function(lambda n: tf.linspace(1.0, 5.0, n))(tf.constant(-2))


def test_repeat_with_computed_counts_of_an_axis_with_no_rows_at_a_later_call():
    f = tf.function(lambda x, c: tf.repeat(x, c, axis=0),
                    input_signature=[tf.TensorSpec([None, 2]), tf.TensorSpec([], tf.int32)])
    assert f(tf.ones([3, 2]), tf.constant(2)).shape == (6, 2)
    assert f(tf.ones([0, 2]), tf.constant(2)).shape == (0, 2)
