"""keras metrics inside tf.function: state in Variables, the same results eagerly and traced, resets, the book's step."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from book import book_model, book_step

RNG = np.random.default_rng(7)
N_CALLS = 4


def _regression(i):
    return (RNG.normal(size=(8, 3)).astype("float32"), RNG.normal(size=(8, 3)).astype("float32"))


def _positive(i):
    y, p = _regression(i)
    return np.abs(y) + 0.5, np.abs(p) + 0.5


def _labels(i):
    return (RNG.integers(0, 3, size=8).astype("float32"), RNG.integers(0, 3, size=8).astype("float32"))


def _binary(i):
    return (RNG.integers(0, 2, size=(8, 1)).astype("float32"), RNG.uniform(0.01, 0.99, size=(8, 1)).astype("float32"))


def _one_hot(i):
    y = np.eye(4, dtype="float32")[RNG.integers(0, 4, size=8)]
    return y, RNG.uniform(size=(8, 4)).astype("float32")


def _probabilities(i):
    y, p = _one_hot(i)
    return y, p / p.sum(-1, keepdims=True)


def _sparse(i):
    labels = RNG.integers(0, 4, size=(8, 1)).astype("int64")
    p = RNG.uniform(size=(8, 4)).astype("float32")
    return labels, p / p.sum(-1, keepdims=True)


def _values(i):
    return (RNG.normal(size=(5, 2)).astype("float32"),)


def _custom_fn(y_true, y_pred):
    return tf.reduce_max(tf.abs(y_true - y_pred), axis=-1)


# (metric factory, data per call, reference of the final result from every call's data)
CASES = {
    "Mean": (keras.metrics.Mean, _values, lambda d: np.mean([x for (v,) in d for x in v.ravel()])),
    "Sum": (keras.metrics.Sum, _values, lambda d: sum(v.astype("float64").sum() for (v,) in d)),
    "MeanAbsoluteError": (keras.metrics.MeanAbsoluteError, _regression,
                          lambda d: np.mean([np.abs(y - p).mean(-1) for y, p in d])),
    "MeanSquaredError": (keras.metrics.MeanSquaredError, _regression,
                         lambda d: np.mean([((y - p) ** 2).mean(-1) for y, p in d])),
    "RootMeanSquaredError": (keras.metrics.RootMeanSquaredError, _regression,
                             lambda d: np.sqrt(np.mean([((y - p) ** 2).mean(-1) for y, p in d]))),
    "MeanAbsolutePercentageError": (keras.metrics.MeanAbsolutePercentageError, _positive,
                                    lambda d: np.mean([100 * (np.abs(y - p) / y).mean(-1) for y, p in d])),
    "Accuracy": (keras.metrics.Accuracy, _labels, lambda d: np.mean([y == p for y, p in d])),
    "BinaryAccuracy": (keras.metrics.BinaryAccuracy, _binary,
                       lambda d: np.mean([y == (p > 0.5) for y, p in d])),
    "CategoricalAccuracy": (keras.metrics.CategoricalAccuracy, _one_hot,
                            lambda d: np.mean([y.argmax(-1) == p.argmax(-1) for y, p in d])),
    "SparseCategoricalAccuracy": (keras.metrics.SparseCategoricalAccuracy, _sparse,
                                  lambda d: np.mean([y[:, 0] == p.argmax(-1) for y, p in d])),
    "BinaryCrossentropy": (keras.metrics.BinaryCrossentropy, _binary,
                           lambda d: np.mean([-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean(-1) for y, p in d])),
    "CategoricalCrossentropy": (keras.metrics.CategoricalCrossentropy, _probabilities,
                                lambda d: np.mean([-(y * np.log(p)).sum(-1) for y, p in d])),
    "SparseCategoricalCrossentropy": (keras.metrics.SparseCategoricalCrossentropy, _sparse,
                                      lambda d: np.mean([-np.log(p[np.arange(len(y)), y[:, 0]]) for y, p in d])),
    "MeanMetricWrapper": (lambda: keras.metrics.MeanMetricWrapper(_custom_fn), _regression,
                          lambda d: np.mean([np.abs(y - p).max(-1) for y, p in d])),
}


def _run_both(make, data, sample_weights=None):
    """Results after each call: one metric updated eagerly, one inside a tf.function."""
    eager, traced = make(), make()

    @tf.function
    def update(args, w):
        traced.update_state(*args, sample_weight=w)
        return traced.result()

    eager_out, traced_out = [], []
    for i, args in enumerate(data):
        w = None if sample_weights is None else sample_weights[i]
        eager.update_state(*[tf.constant(a) for a in args], sample_weight=None if w is None else tf.constant(w))
        eager_out.append(float(eager.result()))
        traced_out.append(float(update(tuple(tf.constant(a) for a in args), None if w is None else tf.constant(w))))
        assert float(traced.result()) == traced_out[-1]  # the result read outside the function
    return eager_out, traced_out, update, eager, traced


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_metric_gives_the_same_results_eagerly_and_traced(name):
    make, gen, ref = CASES[name]
    data = [gen(i) for i in range(N_CALLS)]
    eager_out, traced_out, update, eager, traced = _run_both(make, data)
    np.testing.assert_allclose(traced_out, eager_out, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(eager_out[-1], ref(data), rtol=1e-5, atol=1e-6)
    assert update.experimental_get_tracing_count() == 1
    for m in (eager, traced):
        assert m.variables and all(not v.trainable for v in m.variables) and m.trainable_variables == []


@pytest.mark.parametrize("name", ["Mean", "Sum", "MeanAbsoluteError", "SparseCategoricalAccuracy"])
def test_weighted_updates_eagerly_and_traced(name):
    make, gen, _ = CASES[name]
    data = [gen(i) for i in range(N_CALLS)]
    first = np.asarray(data[0][0])
    n = first.shape[0]
    weights = [RNG.uniform(0.0, 2.0, size=n).astype("float32") for _ in data]
    eager_out, traced_out, update, _, _ = _run_both(make, data, weights)
    np.testing.assert_allclose(traced_out, eager_out, rtol=1e-6, atol=1e-7)
    assert update.experimental_get_tracing_count() == 1


def test_mean_and_sum_accumulate_in_float64():
    # float32 state would lose each +1 next to 2**24; float64 keeps it, eagerly and traced alike.
    m, s = keras.metrics.Mean(), keras.metrics.Sum()
    traced = keras.metrics.Mean()
    step = tf.function(lambda x: traced.update_state(x))
    for x in [16777216.0, 1.0, 1.0, 1.0, 1.0]:
        m.update_state(tf.constant(x))
        s.update_state(tf.constant(x))
        step(tf.constant(x))
    assert m.total.dtype == tf.float64 and m.count.dtype == tf.float64
    assert float(m.result()) == 16777220.0 / 5 == float(traced.result())
    assert float(s.result()) == 16777220.0 and s.result().dtype == tf.float32
    assert keras.metrics.Mean(dtype="float64").result().dtype == tf.float64


def test_weighted_mean_inside_a_function_and_the_fit_loss_tracker_form():
    m = keras.metrics.Mean()

    @tf.function
    def update(x, w):
        m.update_state(x, sample_weight=w)
        return m.result()

    assert np.isclose(float(update(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 0.0, 2.0]))), 7.0 / 3.0)
    m.reset_state()
    for loss, batch in [(2.0, 32), (4.0, 8)]:  # fit's loss tracker: a scalar loss weighted by the batch size
        m.update_state(tf.constant(loss), sample_weight=batch)
    assert np.isclose(float(m.result()), (2.0 * 32 + 4.0 * 8) / 40)


def test_bad_sample_weight_shape_raises_eagerly_and_traced():
    m = keras.metrics.Mean()
    with pytest.raises(ValueError, match="sample_weight"):
        m.update_state(tf.constant([1.0, 2.0, 3.0]), sample_weight=tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="sample_weight"):
        tf.function(lambda x, w: m.update_state(x, sample_weight=w))(tf.constant([1.0, 2.0, 3.0]),
                                                                       tf.constant([1.0, 2.0]))


def test_reset_state_eagerly_and_inside_a_function():
    m = keras.metrics.MeanAbsoluteError()
    y, p = _regression(0)

    @tf.function
    def update(y, p):
        m.update_state(y, p)
        return m.result()

    @tf.function
    def reset():
        m.reset_state()
        return m.result()

    assert float(m.result()) == 0.0
    update(tf.constant(y), tf.constant(p))
    assert float(m.result()) > 0.0
    m.reset_state()
    assert float(m.result()) == 0.0 and float(m.count) == 0.0
    first = float(update(tf.constant(y), tf.constant(p)))
    assert float(reset()) == 0.0 and float(m.total) == 0.0
    assert float(update(tf.constant(y), tf.constant(p))) == first
    reset()
    m.update_state(tf.constant(y), tf.constant(p))  # eager after traced updates and resets
    assert float(m.result()) == first
    m.reset_states()
    assert float(m.result()) == 0.0
    assert update.experimental_get_tracing_count() == 1 and reset.experimental_get_tracing_count() == 1


def test_eager_and_traced_updates_of_one_metric_add_up():
    m = keras.metrics.Mean()
    traced = tf.function(lambda x: m.update_state(x))
    m.update_state(tf.constant([1.0, 2.0]))
    traced(tf.constant([3.0, 4.0]))
    m.update_state(tf.constant(5.0))
    traced(tf.constant([6.0, 7.0]))
    assert float(m.result()) == 4.0 and float(m.count) == 7.0


def test_a_metric_created_inside_every_trace_is_refused():
    @tf.function
    def mean_so_far(x):
        m = keras.metrics.Mean()  # its variables made again by the second trace: TF's ValueError
        m(x)
        return m.result()

    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        mean_so_far(tf.constant([1.0, 2.0]))


def test_metrics_are_not_model_variables():
    class WithMetric(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)
            self.tracker = keras.metrics.Mean(name="tracker")
            self.mae = keras.metrics.MeanAbsoluteError()

        def call(self, x):
            return self.dense(x)

    model = WithMetric()
    model(np.ones((1, 3), "float32"))
    assert len(model.trainable_variables) == 2 and len(model.variables) == 2
    ids = {id(v) for v in model.variables}
    assert not any(id(v) in ids for v in model.tracker.variables + model.mae.variables)


class StreamingHuber(keras.metrics.Metric):
    """The book's custom streaming metric (Keras 2 add_weight with the name first)."""

    def __init__(self, threshold=1.0, **kwargs):
        super().__init__(**kwargs)
        self.threshold = threshold
        self.total = self.add_weight("total", initializer="zeros")
        self.count = self.add_weight("count", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        error = y_true - y_pred
        small = tf.abs(error) < self.threshold
        loss = tf.where(small, tf.square(error) / 2, self.threshold * tf.abs(error) - self.threshold ** 2 / 2)
        self.total.assign_add(tf.reduce_sum(loss))
        self.count.assign_add(tf.cast(tf.size(y_true), tf.float32))

    def result(self):
        return self.total / self.count


def test_a_user_subclass_updates_eagerly_and_traced():
    data = [_regression(i) for i in range(N_CALLS)]
    eager_out, traced_out, update, eager, _ = _run_both(lambda: StreamingHuber(2.0), data)
    np.testing.assert_allclose(traced_out, eager_out, rtol=1e-6)
    assert [v.name for v in eager.variables] == ["total:0", "count:0"]
    eager.reset_state()
    assert float(eager.total) == 0.0 and float(eager.count) == 0.0
    assert update.experimental_get_tracing_count() == 1


# ---- the book's custom training loop step, eagerly and as a tf.function

X = RNG.standard_normal((32, 10)).astype("float32")
Y = RNG.standard_normal((32, 1)).astype("float32")


def _book_objects():
    keras.utils.set_random_seed(42)
    model = book_model()
    model(X[:1])
    return model, keras.optimizers.Nadam(lr=0.01), keras.metrics.Mean(), [keras.metrics.MeanAbsoluteError()]


def _train(traced, eager_first=0):
    objects = _book_objects()
    model, _, mean_loss, metrics = objects
    eager_step = book_step(*objects)
    step = tf.function(eager_step) if traced else eager_step
    rows = []
    for i in range(5):
        run = eager_step if i < eager_first else step
        loss = run(tf.constant(X), tf.constant(Y))
        rows.append([float(loss), float(mean_loss.result()), float(metrics[0].result())])
    for metric in [mean_loss] + metrics:
        metric.reset_states()
    assert float(mean_loss.result()) == 0.0 and float(metrics[0].result()) == 0.0
    return np.array(rows), model, step


def test_the_books_step_as_a_function_matches_eager():
    eager, eager_model, _ = _train(traced=False)
    traced, traced_model, step = _train(traced=True)
    np.testing.assert_allclose(traced, eager, rtol=1e-5, atol=1e-6)
    for a, b in zip(traced_model.get_weights(), eager_model.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # The optimizer's slots and the metrics' variables are created during the first trace, which is
    # traced again over them, as TF's: two traces, the step's updates once.
    assert step.experimental_get_tracing_count() == 2
    assert len(traced_model.trainable_variables) == 4 and len(traced_model.variables) == 4


def test_the_books_step_traced_after_an_eager_step():
    # Slots created eagerly first, then the function traces once over existing variables.
    eager, _, _ = _train(traced=False)
    mixed, _, step = _train(traced=True, eager_first=1)
    np.testing.assert_allclose(mixed, eager, rtol=1e-5, atol=1e-6)
    assert step.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("kwargs", [{}, {"from_logits": True}, {"ignore_class": 1}, {"from_logits": True, "ignore_class": 2}])
def test_sparse_crossentropy_with_traced_labels_matches_eager(kwargs):
    labels = RNG.integers(0, 4, size=(8, 1)).astype("int32")
    p = RNG.uniform(0.1, 1.0, size=(8, 4)).astype("float32")
    fn = keras.losses.sparse_categorical_crossentropy
    traced = tf.function(lambda y, q: fn(y, q, **kwargs))
    np.testing.assert_allclose(traced(tf.constant(labels), tf.constant(p)).numpy(),
                               fn(tf.constant(labels), tf.constant(p), **kwargs).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="sparse_categorical_crossentropy"):
        traced(tf.constant(labels[:4]), tf.constant(p))
