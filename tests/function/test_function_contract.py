"""TF's tracing contract: shape-polymorphic graphs from an input_signature, variables on the first
trace only, leaked tensors, symbolic text of traced tensors, trace reuse and the retracing warning."""
import logging

import numpy as np
import pytest

import tapegrad as tf


# -- one trace serves every compatible shape (an input_signature with None dimensions) ---------
def test_none_dimension_traces_once_for_every_batch_size():
    w = tf.Variable(np.arange(6.0).reshape(3, 2))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64)])
    def f(x):
        return tf.tanh(x @ w) * 2.0 + 1.0

    for n in [3, 0, 1, 2, 5]:
        x = np.linspace(-1, 1, 3 * n).reshape(n, 3)
        out = f(tf.constant(x))
        assert out.shape == (n, 2)
        np.testing.assert_allclose(out.numpy(), np.tanh(x @ w.numpy()) * 2.0 + 1.0, rtol=1e-12)
    assert f.experimental_get_tracing_count() == 1
    assert f.get_concrete_function().graph.relaxed


def test_gradients_through_the_relaxed_graph_for_every_batch_size():
    w = tf.Variable(np.array([[0.5, -1.0], [2.0, 0.25]]))

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float64)])
    def loss(x):
        return tf.reduce_sum(tf.sin(x @ w) ** 2)

    for n in [4, 1, 0, 3]:
        x = tf.constant(np.linspace(-2, 2, 2 * n).reshape(n, 2))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        gx, gw = tape.gradient(y, [x, w])
        z = x.numpy() @ w.numpy()
        dz = 2 * np.sin(z) * np.cos(z)
        np.testing.assert_allclose(gx.numpy(), dz @ w.numpy().T, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gw.numpy(), x.numpy().T @ dz, rtol=1e-10, atol=1e-12)
    assert loss.experimental_get_tracing_count() == 1


def test_tf_shape_of_an_unknown_dimension_is_a_run_time_value():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return tf.shape(x), tf.reduce_sum(x) / tf.cast(tf.shape(x)[0], tf.float32)

    for n in [2, 1, 4]:
        shape, mean = f(tf.constant(np.arange(n, dtype=np.float32)))
        assert shape.numpy().tolist() == [n]
        assert float(mean) == pytest.approx(np.arange(n).mean())
    assert f.experimental_get_tracing_count() == 1
    assert "Shape" in f.get_concrete_function().graph.ops


def test_graph_that_bakes_a_size_is_traced_again_and_stays_right():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return tf.reshape(x, [x.shape[0], 1]) * 2.0  # a Python int from the traced size

    assert f(tf.constant([1.0, 2.0])).shape == (2, 1)
    assert f(tf.constant([1.0, 2.0, 3.0])).numpy().ravel().tolist() == [2.0, 4.0, 6.0]
    assert f.experimental_get_tracing_count() == 2
    assert "cannot be shared across shapes" in f.tracing_report()


@pytest.mark.parametrize("body", [
    lambda x: tf.zeros_like(x),   # a constant of the traced shape
    lambda x: x[-2:] * 1.0,       # begin normalised from the traced size
    lambda x: x[1:] + 0.0,
    lambda x: tf.stack([x, x]),   # a Reshape to the traced shape
    lambda x: x[-10:] + 0.0,      # clamped to the traced size: the same at 1 and 2 rows, not at 20
    lambda x: x[:10] + 0.0,
])
@pytest.mark.parametrize("first", [1, 3])
def test_graphs_holding_a_traced_size_never_serve_other_sizes(body, first):
    f = tf.function(body, input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    for n in [first, first + 1, 20, 4]:
        x = np.arange(2.0 * n, dtype=np.float32).reshape(n, 2)
        np.testing.assert_array_equal(f(tf.constant(x)).numpy(), body(tf.constant(x)).numpy())


def test_a_second_shape_is_verified_not_counted():
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        runs.append(1)
        return x * 2.0

    for n in [2, 3, 4, 7]:
        f(tf.ones([n]))
    assert f.experimental_get_tracing_count() == 1 and len(runs) == 2
    assert "verification: the Python function ran again" in f.tracing_report()


@pytest.mark.parametrize("body, expect", [
    (lambda x: tf.zeros([tf.shape(x)[0], 3]), lambda n: np.zeros([n, 3])),
    (lambda x: tf.cast(tf.range(tf.shape(x)[0]), tf.float32), lambda n: np.arange(n)),
    (lambda x: tf.fill(tf.shape(x), 2.0), lambda n: np.full([n], 2.0)),
    (lambda x: x[: tf.shape(x)[0] // 2], lambda n: np.arange(n)[: n // 2]),
])
def test_shapes_computed_in_the_graph_serve_every_size_in_one_trace(body, expect):
    # zeros, fill and range given a computed shape or limit are value-shaped nodes (Fill, Range)
    f = tf.function(body, input_signature=[tf.TensorSpec([None], tf.float32)])
    for n in [3, 5, 2]:
        np.testing.assert_array_equal(f(tf.constant(np.arange(n, dtype=np.float32))).numpy(), expect(n))
    assert f.experimental_get_tracing_count() == 1


def test_sizes_read_as_python_values_trace_per_shape_and_stay_right():
    f = tf.function(lambda x: x + tf.constant(np.arange(int(tf.shape(x)[0])), tf.float32),
                    input_signature=[tf.TensorSpec([None], tf.float32)])
    for n in [3, 5, 2]:
        np.testing.assert_array_equal(f(tf.constant(np.arange(n, dtype=np.float32))).numpy(), 2 * np.arange(n))
    assert f.experimental_get_tracing_count() == 3
    assert "reads a size as a Python value" in f.tracing_report()


def test_a_relaxed_trace_that_gives_up_undoes_its_assignments():
    v = tf.Variable(0.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        v.assign_add(1.0)
        return tf.zeros([tf.shape(x)[0]]) + v  # needs the size as a Python int: traced again

    assert f(tf.ones([3])).numpy().tolist() == [1.0, 1.0, 1.0]
    assert float(v) == 1.0
    f(tf.ones([2]))
    assert float(v) == 2.0


def test_tf_size_of_an_unknown_dimension_is_a_run_time_value():
    f = tf.function(lambda x: tf.size(x), input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    assert [int(f(tf.ones([n, 2]))) for n in (3, 0, 5)] == [6, 0, 10]
    assert f.experimental_get_tracing_count() == 1


def test_get_concrete_function_of_a_none_signature_traces_once_and_serves_calls():
    f = tf.function(lambda x: x * 3.0)
    cf = f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32))
    assert cf.structured_input_signature[0][0].shape == (None, 2)
    assert f(tf.ones([5, 2])).numpy().sum() == 30.0
    assert f(tf.ones([1, 2])).numpy().sum() == 6.0
    assert f.experimental_get_tracing_count() == 1


def test_a_concrete_function_of_a_none_signature_takes_every_size_it_allows():
    # TF: the concrete function itself serves every length [None] allows, nested specs included.
    f = tf.function(lambda x, n, d: tf.reduce_sum(x) * n + d["a"])
    cf = f.get_concrete_function(tf.TensorSpec([None]), 3.0, {"a": tf.TensorSpec([None, 2])})
    assert cf(tf.constant([5.0]), tf.ones([1, 2])).numpy().tolist() == [[16.0, 16.0]]
    out = cf(tf.constant([1.0, 2.0, 4.0]), tf.ones([4, 2]))
    assert out.shape == (4, 2) and out.numpy()[0, 0] == 22.0
    assert f(tf.constant([1.0, 2.0]), 3.0, {"a": tf.zeros([3, 2])}).numpy()[0, 0] == 9.0
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"argument x must be float32\(None,\)"):
        cf(tf.ones([2, 2]), tf.ones([1, 2]))


def test_a_concrete_function_whose_graph_depends_on_the_size_answers_each_size():
    cf = tf.function(lambda x: x[-2:] * 2.0).get_concrete_function(tf.TensorSpec([None]))
    assert cf(tf.constant([1.0, 2.0, 3.0, 4.0])).numpy().tolist() == [6.0, 8.0]
    assert cf(tf.constant([7.0])).numpy().tolist() == [14.0]


@pytest.mark.parametrize("call", [
    lambda f: f(tf.ones([2, 2])),                         # rank
    lambda f: f(tf.ones([2], tf.int32)),                  # dtype
    lambda f: f(tf.ones([2]), tf.ones([2])),              # too many
    lambda f: f(y=tf.ones([2])),                          # unknown keyword
    lambda f: f([1.5, "a"]),                              # not convertible
])
def test_a_call_that_does_not_fit_the_signature_raises_type_error(call):
    f = tf.function(lambda x: x + 1.0, input_signature=[tf.TensorSpec([None], tf.float32)])
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function failed due to .*TensorSpec\(shape=\(None,\)"):
        call(f)


def test_signature_binds_keywords_and_converts_lists():
    f = tf.function(lambda x: x + 1.0, input_signature=[tf.TensorSpec([None], tf.float32)])
    assert f(x=tf.constant([1.0])).numpy().tolist() == [2.0]
    assert f([1, 2]).numpy().tolist() == [2.0, 3.0]
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(2, 2\), dtype=tf.float32, name=None\) "
                                        r"to TensorSpec\(shape=\(None,\), dtype=tf.float32, name=None\)"):
        f(tf.ones([2, 2]))


# -- variables, leaks and the text of traced tensors -------------------------------------------
def test_variable_created_after_the_first_trace_raises_value_error():
    state = {}

    @tf.function
    def f(x):
        if "v" not in state or x.shape[0] == 3:
            state["v"] = tf.Variable(1.0)
        return x * state["v"]

    f(tf.ones([2]))
    with pytest.raises(ValueError, match="only supports singleton tf.Variables created on the first call"):
        f(tf.ones([3]))


def test_tensor_leaked_from_one_trace_and_used_in_another_raises_type_error():
    kept = []

    @tf.function
    def leaks(x):
        y = x * 2.0
        kept.append(y)
        return y + 1.0

    @tf.function
    def uses(x):
        return x + kept[0]

    leaks(tf.ones([2]))
    with pytest.raises(TypeError, match=r"<tf.Tensor 'mul:0' shape=\(2,\) dtype=float32> is out of scope"):
        uses(tf.ones([2]))


def test_reading_a_leaked_tensor_after_the_trace_raises_type_error():
    kept = []

    @tf.function
    def f(x):
        y = tf.sin(x)
        kept.append(y)
        return y * 2.0

    f(tf.ones([2]))
    assert repr(kept[0]) == "<tf.Tensor 'Sin:0' shape=(2,) dtype=float32>"
    assert str(kept[0]) == 'Tensor("Sin:0", shape=(2,), dtype=float32)'
    for read in (lambda t: t.numpy(), lambda t: t + 1.0, lambda t: tf.exp(t), lambda t: t[0], np.asarray):
        with pytest.raises(TypeError, match="'Sin:0' .* is out of scope"):
            read(kept[0])
    del kept[:]
    f(tf.ones([3]))  # the next trace forgets freed leaks
    assert float(tf.constant(1.0)) == 1.0


def test_custom_gradient_in_a_function_under_a_tape_is_not_a_leak():
    @tf.custom_gradient
    def clipped(x):
        y = tf.exp(x)

        def grad(dy):
            return dy * y

        return y, grad

    f = tf.function(lambda x: clipped(x) * 3.0)
    x = tf.constant([0.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = f(x)
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), 3 * np.exp([0.0, 1.0]), rtol=1e-6)


def test_returned_tensors_are_not_leaks():
    kept = []

    @tf.function
    def f(x):
        y = x * 2.0
        kept.append(y)
        return y

    f(tf.ones([2]))
    g = tf.function(lambda x: x + kept[0])
    assert g(tf.ones([2])).numpy().tolist() == [3.0, 3.0]


def test_str_repr_and_format_of_traced_tensors_are_symbolic():
    shown = {}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def f(x):
        shown["str"], shown["repr"], shown["f"] = str(x), repr(x), f"x = {x}"
        y = x + 1
        shown["y"] = str(y)
        return y

    f(tf.constant([1, 2]))
    assert shown["str"] == 'Tensor("x:0", shape=(None,), dtype=int32)'
    assert shown["repr"] == "<tf.Tensor 'x:0' shape=(None,) dtype=int32>"
    assert shown["f"] == 'x = Tensor("x:0", shape=(None,), dtype=int32)'
    assert shown["y"].startswith('Tensor("add:0", shape=')
    assert str(tf.constant(1)) == "tf.Tensor(1, shape=(), dtype=int32)"


# -- trace reuse, the retracing warning, bounded caches ----------------------------------------
def test_get_concrete_function_and_calls_share_one_trace():
    f = tf.function(lambda x: x * 2.0)
    f.get_concrete_function(tf.TensorSpec([3], tf.float32))
    f(tf.ones([3]))
    f.get_concrete_function(tf.ones([3]))
    f.get_concrete_function(tf.TensorSpec([3], tf.float32))
    assert f.experimental_get_tracing_count() == 1


def _retrace_warnings(caplog):
    return [r for r in caplog.records if "triggered tf.function retracing" in r.getMessage()]


def test_frequent_retracing_warns_as_tf_does(caplog):
    def body(x):
        return x + 1.0

    f = tf.function(body)
    with caplog.at_level(logging.WARNING, logger="tapegrad"):
        for n in range(1, 5):
            f(tf.ones([n]))
        assert not _retrace_warnings(caplog)
        f(tf.ones([5]))
        assert len(_retrace_warnings(caplog)) == 1
        assert "5 out of the last 5 calls to" in _retrace_warnings(caplog)[0].getMessage()
        assert "shape of x" in _retrace_warnings(caplog)[0].getMessage()
        for n in range(6, 20):
            f(tf.ones([n]))
    assert len(_retrace_warnings(caplog)) == 2  # at most twice per Python function, as TF


@pytest.mark.parametrize("calls_per_shape, warnings", [(3, 2), (5, 0)])  # TF 2.21 gives the same
def test_retracing_warning_counts_the_last_ten_calls(caplog, calls_per_shape, warnings):
    f = tf.function(lambda x: x + 1.0)
    with caplog.at_level(logging.WARNING, logger="tapegrad"):
        for n in range(1, 10):
            for _ in range(calls_per_shape):
                f(tf.ones([n]))
    assert len(_retrace_warnings(caplog)) == warnings
    assert all("5 out of the last 13 calls" in r.getMessage() for r in _retrace_warnings(caplog))


def test_trace_cache_is_bounded():
    f = tf.function(lambda x, n: x * n)
    for n in range(300):
        f(tf.constant(1.0), n)
    assert len(f._concrete) <= 128 and f._memo_size <= 256 and len(f._history) <= 256
    assert float(f(tf.constant(2.0), 299)) == 598.0


def test_calls_of_a_signature_with_tensors_use_the_cpp_call_cache():
    f = tf.function(lambda x: x * 2.0, input_signature=[tf.TensorSpec([None], tf.float32)])
    f(tf.ones([3]))
    f([1.0, 2.0])  # converted by the signature: not a key the C++ cache describes
    assert f._memo_size == 1
    assert f(tf.ones([3])).numpy().tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(TypeError, match="Binding inputs"):
        f(tf.ones([3], tf.float64))


def test_functions_made_again_for_one_python_function_count_together(caplog):
    def body(x):
        return x * 2.0

    with caplog.at_level(logging.WARNING, logger="tapegrad"):
        for _ in range(5):  # a new tf.function in a loop traces at every call: TF warns
            tf.function(body)(tf.ones([2]))
        assert len(_retrace_warnings(caplog)) == 1
        caplog.clear()

        def other(x):
            return x * 3.0

        for _ in range(5):  # each one called often: the calls in between count
            f = tf.function(other)
            for _ in range(12):
                f(tf.ones([2]))
    assert not _retrace_warnings(caplog)


def test_a_tape_inside_a_relaxed_graph_takes_the_batch_size_at_run_time():
    # Mean's gradient divides by the reduced count: in a trace, computed from Shape(x) at every call
    # (Note [Sizes in traced rules]), so one graph serves every batch size.
    w = tf.Variable(np.array([[0.5], [-1.0], [2.0]]))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64), tf.TensorSpec([None, 1], tf.float64)])
    def grad(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((x @ w - y) ** 2)
        return tape.gradient(loss, w)

    for n in [2, 5, 1]:
        x, y = np.linspace(-1, 1, 3 * n).reshape(n, 3), np.linspace(0, 1, n).reshape(n, 1)
        want = 2 * x.T @ (x @ w.numpy() - y) / n
        np.testing.assert_allclose(grad(tf.constant(x), tf.constant(y)).numpy(), want, rtol=1e-12)
    assert grad.experimental_get_tracing_count() == 1
    assert grad.get_concrete_function().graph.relaxed


def test_dropout_in_a_relaxed_graph_draws_a_mask_of_the_run_time_shape():
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def drop(x):
        return tf.nn.dropout(x, 0.5)

    for n in [3, 7, 1]:
        out = drop(tf.ones([n, 4])).numpy()
        assert out.shape == (n, 4) and set(np.unique(out)) <= {0.0, 2.0}
    big = drop(tf.ones([2000, 4])).numpy()
    assert 0.4 < (big == 0).mean() < 0.6
    assert drop.experimental_get_tracing_count() == 1


def test_a_keras_training_step_with_a_none_batch_serves_every_size():
    keras = tf.keras
    model = keras.Sequential([keras.layers.Conv2D(3, 3, activation="relu"), keras.layers.Flatten(),
                              keras.layers.Dropout(0.2), keras.layers.Dense(2)])
    model(np.zeros((1, 6, 6, 1), np.float32))
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = keras.optimizers.Adam()

    @tf.function(input_signature=[tf.TensorSpec([None, 6, 6, 1]), tf.TensorSpec([None], tf.int64)])
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    for n in [4, 3, 1, 4]:
        assert np.isfinite(float(step(tf.ones([n, 6, 6, 1]), tf.zeros([n], tf.int64))))
    assert step.experimental_get_tracing_count() == 2  # the first trace builds Adam's slots and is redone (TF: 2)
