"""A fused optimizer update refused leaves the variable alone, and a Keras optimizer names the variable
(the update rows' bad calls are in tests/ops/test_op_errors.py)."""
import numpy as np
import pytest

import tapegrad as tf


def _raises(op, match, cls=tf.errors.InvalidArgumentError, **kwargs):
    with pytest.raises(cls, match=match):
        getattr(tf.raw_ops, op)(**kwargs)


@pytest.mark.parametrize("step", [0, -1, float("nan")])
def test_keras_adam_and_nadam_refuse_a_step_before_the_first(step):
    # At t = 0 the bias corrections divide by zero: raised, before the variable is touched.
    var = tf.Variable(np.ones(2))
    for op, slots in (("ResourceApplyKerasAdam", ("m", "v")), ("ResourceApplyKerasAdamWithAmsgrad", ("m", "v", "vhat")),
                      ("ResourceApplyNadam", ("m", "v"))):
        _raises(op, f"{op}: local_step must be >= 1", var=var, **{k: tf.Variable(np.zeros(2)) for k in slots},
                local_step=step, lr=0.1, beta1=0.9, beta2=0.999, epsilon=1e-7, grad=tf.constant(np.ones(2)))
    np.testing.assert_array_equal(var.numpy(), [1.0, 1.0])


def test_optimizer_shape_mismatch_names_the_variable():
    from tapegrad import keras

    var = tf.Variable(np.zeros(2), name="kernel")
    with pytest.raises(ValueError, match="kernel"):
        keras.optimizers.SGD().apply_gradients([(tf.constant(np.zeros(3)), var)])
