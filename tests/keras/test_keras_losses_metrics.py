"""keras losses (one loss per instance, classes with reduction) and metrics (stateful, callable)."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

RNG = np.random.default_rng(0)
Y = RNG.normal(size=(6, 3))
P = RNG.normal(size=(6, 3))


@pytest.mark.parametrize("fn,ref", [
    (keras.losses.mean_squared_error, lambda y, p: ((y - p) ** 2).mean(-1)),
    (keras.losses.mean_absolute_error, lambda y, p: np.abs(y - p).mean(-1)),
    (keras.losses.huber, lambda y, p: np.where(np.abs(p - y) <= 1, 0.5 * (p - y) ** 2, np.abs(p - y) - 0.5).mean(-1)),
    (keras.losses.mean_absolute_percentage_error, lambda y, p: 100 * (np.abs(y - p) / np.abs(y)).mean(-1)),
])
def test_regression_losses_one_per_instance(fn, ref):
    out = fn(tf.constant(Y), tf.constant(P))
    assert out.shape == (6,)
    np.testing.assert_allclose(out.numpy(), ref(Y, P), rtol=1e-10)


def test_mse_squeezes_a_trailing_unit_axis():
    y, p = np.arange(4.0), np.arange(4.0).reshape(4, 1) + 1
    assert float(keras.losses.mean_squared_error(y, p)) == 1.0


def test_crossentropies():
    logits = RNG.normal(size=(5, 4))
    labels = np.array([0, 3, 1, 2, 3])
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expect = -log_p[np.arange(5), labels]
    out = keras.losses.sparse_categorical_crossentropy(labels, tf.constant(logits), from_logits=True)
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-10)
    onehot = np.eye(4)[labels]
    np.testing.assert_allclose(keras.losses.categorical_crossentropy(onehot, tf.constant(logits), from_logits=True).numpy(),
                               expect, rtol=1e-10)
    probs = np.exp(log_p)
    np.testing.assert_allclose(keras.losses.categorical_crossentropy(onehot, tf.constant(probs)).numpy(), expect,
                               rtol=1e-6)
    z, y = RNG.normal(size=(5, 2)), RNG.integers(0, 2, size=(5, 2)).astype(float)
    s = 1 / (1 + np.exp(-z))
    bce = -(y * np.log(s) + (1 - y) * np.log(1 - s)).mean(-1)
    np.testing.assert_allclose(keras.losses.binary_crossentropy(y, tf.constant(z), from_logits=True).numpy(), bce, rtol=1e-10)
    np.testing.assert_allclose(keras.losses.binary_crossentropy(y, tf.constant(s)).numpy(), bce, rtol=1e-5)
    with pytest.raises(ValueError, match="labels"):
        keras.losses.sparse_categorical_crossentropy(np.array([0, 9, 0, 0, 0]), tf.constant(logits))


def test_big_logits_do_not_overflow():
    out = keras.losses.sparse_categorical_crossentropy([0], tf.constant([[1000.0, 0.0]]), from_logits=True)
    assert np.isfinite(out.numpy()).all()
    out = keras.losses.binary_crossentropy([[1.0]], tf.constant([[-1000.0]]), from_logits=True)
    np.testing.assert_allclose(out.numpy(), [1000.0])


def test_loss_classes_reduce():
    per = ((Y - P) ** 2).mean(-1)
    assert np.isclose(float(keras.losses.MeanSquaredError()(Y, tf.constant(P))), per.mean())
    assert np.isclose(float(keras.losses.MeanSquaredError(reduction="sum")(Y, tf.constant(P))), per.sum())
    # float32 under the default floatx, as Keras's loss classes
    np.testing.assert_allclose(keras.losses.MeanSquaredError(reduction="none")(Y, tf.constant(P)).numpy(), per,
                               rtol=1e-6)
    w = np.arange(6.0)
    assert np.isclose(float(keras.losses.MeanSquaredError()(Y, tf.constant(P), sample_weight=w)), (per * w).mean())
    assert keras.losses.Huber(2.0).name == "huber_loss"
    with pytest.raises(ValueError):
        keras.losses.MeanSquaredError(reduction="bogus")


def test_mean_and_sum_metrics():
    m = keras.metrics.Mean()
    assert m.name == "mean"
    m(tf.constant(1.0))
    m.update_state([2.0, 3.0])
    assert float(m.result()) == 2.0
    m.update_state([10.0], sample_weight=[2.0])
    assert np.isclose(float(m.result()), 26.0 / 5.0)
    m.reset_states()
    assert float(m.result()) == 0.0
    s = keras.metrics.Sum()
    s([1.0, 2.0])
    s.update_state(3.0)
    assert float(s.result()) == 6.0
    s.reset_state()
    assert float(s.result()) == 0.0


def test_regression_metrics_average_over_instances():
    mae = keras.metrics.MeanAbsoluteError()
    assert mae.name == "mean_absolute_error"
    mae(Y[:2], P[:2])
    out = mae(Y[2:], P[2:])
    np.testing.assert_allclose(float(out), np.abs(Y - P).mean(), rtol=1e-6)
    mse = keras.metrics.MeanSquaredError()
    mse.update_state(Y, P)
    np.testing.assert_allclose(float(mse.result()), ((Y - P) ** 2).mean(), rtol=1e-6)


def test_accuracy_metrics():
    acc = keras.metrics.Accuracy()
    acc.update_state([1, 2, 3, 4], [1, 2, 0, 4])
    assert float(acc.result()) == 0.75
    bacc = keras.metrics.BinaryAccuracy()
    bacc.update_state([[1.0], [0.0], [1.0]], [[0.9], [0.6], [0.4]])
    assert np.isclose(float(bacc.result()), 1 / 3)
    sacc = keras.metrics.SparseCategoricalAccuracy()
    sacc.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0]])
    assert float(sacc.result()) == 0.5
    sacc.reset_state()
    assert float(sacc.result()) == 0.0
