"""A keras Loss computes in its dtype (the ``dtype`` argument, else floatx when it was made), as Keras 3:
float64 predictions give a float32 loss under the default floatx, and ``dtype="float64"`` keeps float64."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

Y_TRUE = np.array([0.0, 1.0, 3.0])
Y_PRED = np.array([0.5, -1.0, 3.2])
# Keras 3 (TF 2.21) values of the mean loss over Y_TRUE, Y_PRED, in float64
MSE = 1.43
HUBER = 0.5483333333333333


@pytest.mark.parametrize("make,value", [(keras.losses.MeanSquaredError, MSE), (keras.losses.Huber, HUBER)])
def test_float64_predictions_give_a_loss_in_floatx(make, value):
    loss = make()
    assert loss.dtype == "float32"
    out = loss(tf.constant(Y_TRUE), tf.constant(Y_PRED))
    assert out.dtype == tf.float32
    assert out.numpy() == np.float32(value)


@pytest.mark.parametrize("make,value", [(keras.losses.MeanSquaredError, MSE), (keras.losses.Huber, HUBER)])
def test_dtype_argument_sets_the_computation_dtype(make, value):
    loss = make(dtype="float64")
    assert loss.dtype == "float64"
    out = loss(tf.constant(Y_TRUE, tf.float32), tf.constant(Y_PRED, tf.float32))
    assert out.dtype == tf.float64
    # the float32 inputs are widened, not recomputed: the float32-rounded values' loss
    expected = np.mean(np.square(Y_PRED.astype(np.float32).astype(np.float64) - Y_TRUE)) if value == MSE else None
    if expected is not None:
        assert out.numpy() == pytest.approx(expected, rel=1e-15)
    np.testing.assert_allclose(loss(Y_TRUE, Y_PRED).numpy(), value, rtol=1e-15)


def test_floatx_is_read_when_the_loss_is_made():
    keras.backend.set_floatx("float64")
    try:
        loss = keras.losses.MeanSquaredError()
    finally:
        keras.backend.set_floatx("float32")
    assert loss(tf.constant(Y_TRUE), tf.constant(Y_PRED)).dtype == tf.float64


def test_custom_loss_call_gets_both_sides_in_the_loss_dtype():
    seen = []

    class Diff(keras.losses.Loss):
        def call(self, y_true, y_pred):
            seen.append((y_true.dtype, y_pred.dtype))
            return tf.abs(tf.convert_to_tensor(y_pred) - y_true)

    out = Diff()(tf.constant([1, 2]), tf.constant([1.5, 2.0], tf.float64))
    assert seen == [(tf.float32, tf.float32)]
    assert out.dtype == tf.float32 and out.numpy() == np.float32(0.25)


def test_sparse_crossentropy_labels_survive_the_conversion():
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    out = loss(np.array([2, 0]), tf.constant([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]], tf.float64))
    logits = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]])
    lse = np.log(np.exp(logits).sum(-1))
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), np.mean(lse - logits[[0, 1], [2, 0]]), rtol=1e-6)


def test_an_unknown_dtype_is_refused_naming_the_loss():
    with pytest.raises(ValueError, match="MeanSquaredError"):
        keras.losses.MeanSquaredError(dtype="float99")
