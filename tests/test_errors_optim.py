"""Bad inputs to the optimizer update ops: each error names the op."""
import numpy as np
import pytest

import tapegrad as tf

IT = tf.constant(np.int64(0))
LR = tf.constant(0.1, tf.float64)


def _raises(op, *args, match=None, **attrs):
    with pytest.raises(tf.errors.InvalidArgumentError, match=match or op):
        tf._core.op(op)(*args, **attrs)


def test_variable_and_slots_must_be_variables():
    g = tf.constant(np.zeros(2))
    _raises("ApplySGD", tf.constant(np.zeros(2)), g, LR, IT, match="ApplySGD: the variable to update must be a Variable")
    _raises("ApplyAdagrad", tf.Variable(np.zeros(2)), g, LR, IT, tf.constant(np.zeros(2)), match="ApplyAdagrad: slot 0")


def test_shapes_and_dtypes_must_match():
    var = tf.Variable(np.zeros(2))
    _raises("ApplyAdagrad", var, tf.constant(np.zeros(2)), LR, IT, tf.Variable(np.zeros(3)), match="does not match")
    _raises("ApplySGD", var, tf.constant(np.zeros(3)), LR, IT, match="ApplySGD: gradient")
    _raises("ApplySGD", var, tf.constant(np.zeros(2, np.float32)), LR, IT, match="ApplySGD: gradient")
    _raises("ApplySGD", tf.Variable(np.zeros(2, np.int32)), tf.constant(np.zeros(2, np.int32)), LR, IT,
            match="float32 or float64")


def test_slot_count_follows_the_attributes():
    var, g = tf.Variable(np.zeros(2)), tf.constant(np.zeros(2))
    _raises("ApplyAdam", var, g, LR, IT, tf.Variable(np.zeros(2)), match="expected 6 inputs")
    _raises("ApplyAdam", var, g, LR, IT, tf.Variable(np.zeros(2)), tf.Variable(np.zeros(2)), amsgrad=True,
            match="expected 7 inputs")
    _raises("ApplySGD", var, g, LR, IT, momentum=0.9, match="expected 5 inputs")
    _raises("ApplySGD", var, g, LR, IT, tf.Variable(np.zeros(2)), momentum=1.5, match="momentum")
    _raises("ApplyRMSprop", var, g, LR, IT, tf.Variable(np.zeros(2)), centered=True, match="expected 6 inputs")


def test_scalars_and_aliasing():
    var, g, m = tf.Variable(np.zeros(2)), tf.constant(np.zeros(2)), tf.Variable(np.zeros(2))
    _raises("ApplyNadam", var, g, tf.constant([0.1, 0.2]), IT, m, tf.Variable(np.zeros(2)), match="learning rate")
    _raises("ApplyNadam", var, g, LR, tf.constant(0.0), m, tf.Variable(np.zeros(2)), match="iterations")
    _raises("ApplyNadam", var, g, LR, IT, m, m, match="same Variable")
    _raises("ApplyAdagrad", var, g, LR, IT, var, match="same Variable")


def test_optimizer_shape_mismatch_names_the_variable():
    from tapegrad import keras

    var = tf.Variable(np.zeros(2), name="kernel")
    with pytest.raises(ValueError, match="kernel"):
        keras.optimizers.SGD().apply_gradients([(tf.constant(np.zeros(3)), var)])
