"""Bad inputs to the fused optimizer updates (tf.raw_ops): each error names the op and the argument."""
import numpy as np
import pytest

import tapegrad as tf


def _raises(op, match, cls=tf.errors.InvalidArgumentError, **kwargs):
    with pytest.raises(cls, match=match):
        getattr(tf.raw_ops, op)(**kwargs)


def test_variable_and_slots_must_be_variables():
    g = tf.constant(np.zeros(2))
    _raises("ResourceApplyGradientDescent", "ResourceApplyGradientDescent: var must be a Variable",
            var=tf.constant(np.zeros(2)), alpha=0.1, delta=g)
    _raises("ResourceApplyAdagradV2", "ResourceApplyAdagradV2: slot accum must be a Variable",
            var=tf.Variable(np.zeros(2)), accum=tf.constant(np.zeros(2)), lr=0.1, epsilon=1e-7, grad=g)


def test_shapes_and_dtypes_must_match():
    var = tf.Variable(np.zeros(2))
    _raises("ResourceApplyAdagradV2", "accum of float64.*does not match", var=var, accum=tf.Variable(np.zeros(3)),
            lr=0.1, epsilon=1e-7, grad=tf.constant(np.zeros(2)))
    _raises("ResourceApplyGradientDescent", "ResourceApplyGradientDescent: delta", var=var, alpha=0.1,
            delta=tf.constant(np.zeros(3)))
    _raises("ResourceApplyGradientDescent", "ResourceApplyGradientDescent: delta", var=var, alpha=0.1,
            delta=tf.constant(np.zeros(2, np.float32)))
    _raises("ResourceApplyGradientDescent", "float32 or float64", var=tf.Variable(np.zeros(2, np.int32)), alpha=1,
            delta=tf.constant(np.zeros(2, np.int32)))


def test_scalars_and_aliasing():
    var, g, m = tf.Variable(np.zeros(2)), tf.constant(np.zeros(2)), tf.Variable(np.zeros(2))
    nadam = dict(var=var, m=m, v=tf.Variable(np.zeros(2)), local_step=1, lr=0.1, beta1=0.9, beta2=0.999,
                 epsilon=1e-7, grad=g)
    _raises("ResourceApplyNadam", "lr must be a numeric scalar", **dict(nadam, lr=tf.constant([0.1, 0.2])))
    _raises("ResourceApplyNadam", "local_step must be a numeric scalar", **dict(nadam, local_step=[1, 2]))
    _raises("ResourceApplyNadam", "slot v is the same Variable as m", **dict(nadam, v=m))
    _raises("ResourceApplyAdagradV2", "same Variable", var=var, accum=var, lr=0.1, epsilon=1e-7, grad=g)
    keras_adam = dict(nadam, v=tf.Variable(np.zeros(2)))
    _raises("ResourceApplyKerasAdam", "lr must be a numeric scalar", **dict(keras_adam, lr=tf.constant([0.1, 0.2])))
    _raises("ResourceApplyKerasAdam", "slot v is the same Variable as m", **dict(keras_adam, v=m))
    _raises("ResourceApplyKerasAdamWithAmsgrad", "slot vhat is the same Variable as v",
            **dict(keras_adam, vhat=keras_adam["v"]))
    _raises("ResourceApplyKerasAdam", "m of float32.*does not match", **dict(keras_adam, m=tf.Variable(np.zeros(2, np.float32))))


@pytest.mark.parametrize("step", [0, -1, float("nan")])
def test_keras_adam_and_nadam_refuse_a_step_before_the_first(step):
    # At t = 0 the bias corrections divide by zero: raised, before the variable is touched.
    var = tf.Variable(np.ones(2))
    for op, slots in (("ResourceApplyKerasAdam", ("m", "v")), ("ResourceApplyKerasAdamWithAmsgrad", ("m", "v", "vhat")),
                      ("ResourceApplyNadam", ("m", "v"))):
        _raises(op, f"{op}: local_step must be >= 1", var=var, **{k: tf.Variable(np.zeros(2)) for k in slots},
                local_step=step, lr=0.1, beta1=0.9, beta2=0.999, epsilon=1e-7, grad=tf.constant(np.ones(2)))
    np.testing.assert_array_equal(var.numpy(), [1.0, 1.0])


def test_arguments_are_keyword_only_as_in_tf():
    var = tf.Variable(np.zeros(2))
    with pytest.raises(TypeError, match="ResourceApplyGradientDescent.. takes 0 positional arguments"):
        tf.raw_ops.ResourceApplyGradientDescent(var, 0.1, tf.constant(np.zeros(2)))
    _raises("ResourceApplyGradientDescent", "missing required argument 'delta'", TypeError, var=var, alpha=0.1)
    _raises("ResourceApplyAdagradV2", "unexpected keyword argument 'weight_decay'", TypeError, var=var, accum=var,
            lr=0.1, epsilon=1e-7, grad=var, weight_decay=0.1)


def test_what_tapegrad_does_not_do_is_unimplemented():
    var, g = tf.Variable(np.zeros(2)), tf.constant(np.zeros(2))
    _raises("ResourceApplyAdam", "use_nesterov", tf.errors.UnimplementedError, var=var, m=tf.Variable(np.zeros(2)),
            v=tf.Variable(np.zeros(2)), beta1_power=0.9, beta2_power=0.999, lr=0.1, beta1=0.9, beta2=0.999,
            epsilon=1e-7, grad=g, use_nesterov=True)
    _raises("ResourceApplyAdagradV2", "update_slots", tf.errors.UnimplementedError, var=var,
            accum=tf.Variable(np.zeros(2)), lr=0.1, epsilon=1e-7, grad=g, update_slots=False)


def test_optimizer_shape_mismatch_names_the_variable():
    from tapegrad import keras

    var = tf.Variable(np.zeros(2), name="kernel")
    with pytest.raises(ValueError, match="kernel"):
        keras.optimizers.SGD().apply_gradients([(tf.constant(np.zeros(3)), var)])
