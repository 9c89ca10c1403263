"""keras.losses' reduction strings without TensorFlow (Keras 3's five, AUTO refused) and the legacy
tf.keras.losses.Reduction names; tests/oracle/test_tf_oracle_keras_random.py compares them with Keras.
(Kept beside the keras.random tests: both are the Keras 3 surface this change adds.)"""
import numpy as np
import pytest

from tapegrad import keras

Y_TRUE = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], "float32")
Y_PRED = np.array([[0.2, 0.7], [0.9, 0.1], [0.3, 0.8]], "float32")
WEIGHT = np.array([1.0, 0.0, 3.0], "float32")
PER_SAMPLE = ((Y_TRUE - Y_PRED) ** 2).mean(axis=1)


@pytest.mark.parametrize("reduction,expected", [
    ("sum_over_batch_size", (PER_SAMPLE * WEIGHT).mean()), ("mean", (PER_SAMPLE * WEIGHT).mean()),
    ("sum", (PER_SAMPLE * WEIGHT).sum()), ("mean_with_sample_weight", (PER_SAMPLE * WEIGHT).sum() / WEIGHT.sum())])
def test_weighted_reductions(reduction, expected):
    loss = keras.losses.MeanSquaredError(reduction=reduction)
    np.testing.assert_allclose(loss(Y_TRUE, Y_PRED, sample_weight=WEIGHT).numpy(), expected, rtol=1e-6)
    assert loss.get_config()["reduction"] == reduction


@pytest.mark.parametrize("reduction", [None, "none"])
def test_no_reduction(reduction):
    loss = keras.losses.MeanSquaredError(reduction=reduction)
    np.testing.assert_allclose(loss(Y_TRUE, Y_PRED, sample_weight=WEIGHT).numpy(), PER_SAMPLE * WEIGHT, rtol=1e-6)


def test_unweighted_mean_with_sample_weight_is_the_mean():
    loss = keras.losses.MeanSquaredError(reduction="mean_with_sample_weight")
    np.testing.assert_allclose(loss(Y_TRUE, Y_PRED).numpy(), PER_SAMPLE.mean(), rtol=1e-6)


@pytest.mark.parametrize("bad", ["auto", "foo"])
def test_other_reductions_are_refused(bad):
    with pytest.raises(ValueError, match=f"Invalid value for argument `reduction`.*Received: reduction={bad}"):
        keras.losses.MeanSquaredError(reduction=bad)


def test_legacy_reduction_names():
    R = keras.losses.Reduction
    assert (R.AUTO, R.NONE, R.SUM, R.SUM_OVER_BATCH_SIZE) == ("auto", "none", "sum", "sum_over_batch_size")
    assert R.all() == ("auto", "none", "sum", "sum_over_batch_size")
    R.validate("sum")
    with pytest.raises(ValueError, match="Invalid Reduction Key: foo"):
        R.validate("foo")
