"""Adam on a float64 variable gives Keras 3's values: its bias corrections 1 - beta^t use the betas rounded to
float32 (Keras casts them to the variable's dtype through a float32 constant), the moment updates the exact
1 - beta. Values from TF 2.21 / Keras 3 with floatx float64 (so the learning rate itself is not rounded)."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

TF_AFTER_3_STEPS = [0.9902579409434833, 2.0041423934348717, 2.9902287483415204]


def _run(make, traced):
    keras.backend.set_floatx("float64")
    try:
        var = tf.Variable(np.array([1.0, 2.0, 3.0]))
        opt = make()
    finally:
        keras.backend.set_floatx("float32")
    step = tf.function(lambda g: opt.apply_gradients([(g, var)])) if traced else (
        lambda g: opt.apply_gradients([(g, var)]))
    for i in range(3):
        step(tf.constant(np.array([1e-3, -2e-6, 0.5]) * (i + 1) * (-1) ** i))
    return var.numpy()


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_float64_matches_keras(amsgrad, traced):
    out = _run(lambda: keras.optimizers.Adam(0.01, amsgrad=amsgrad), traced)
    np.testing.assert_allclose(out, TF_AFTER_3_STEPS, rtol=1e-14, atol=0)
