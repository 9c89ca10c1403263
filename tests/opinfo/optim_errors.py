"""Bad calls of the fused optimizer update rows (opinfo/optim.py, through tf.raw_ops): each error names the
op and the argument; a refused update leaves the variable alone (the `after` checks)."""
import numpy as np

import tapegrad as tf
from opinfo.core import BadCall

E = tf.errors.InvalidArgumentError


def _raw(op, match, cls=E, **kwargs):
    """tf.raw_ops.<op>(**kwargs) raises cls with a message matching `match`."""
    return BadCall(getattr(tf.raw_ops, op), **kwargs).raises(cls, match)


def _nadam_inputs():
    var, m = tf.Variable(np.zeros(2)), tf.Variable(np.zeros(2))
    return dict(var=var, m=m, v=tf.Variable(np.zeros(2)), local_step=1, lr=0.1, beta1=0.9, beta2=0.999,
                epsilon=1e-7, grad=tf.constant(np.zeros(2)))


def _gradient_descent():
    op, var = "ResourceApplyGradientDescent", tf.Variable(np.zeros(2))
    return [
        _raw(op, "ResourceApplyGradientDescent: var must be a Variable", var=tf.constant(np.zeros(2)), alpha=0.1,
             delta=tf.constant(np.zeros(2))),
        _raw(op, "ResourceApplyGradientDescent: delta", var=var, alpha=0.1, delta=tf.constant(np.zeros(3))),
        _raw(op, "ResourceApplyGradientDescent: delta", var=var, alpha=0.1, delta=tf.constant(np.zeros(2, np.float32))),
        _raw(op, "float32 or float64", var=tf.Variable(np.zeros(2, np.int32)), alpha=1,
             delta=tf.constant(np.zeros(2, np.int32))),
        # keyword-only arguments, as in TF
        BadCall(tf.raw_ops.ResourceApplyGradientDescent, var, 0.1, tf.constant(np.zeros(2)))
        .raises(TypeError, "ResourceApplyGradientDescent.. takes 0 positional arguments"),
        _raw(op, "missing required argument 'delta'", TypeError, var=var, alpha=0.1),
    ]


def _adagrad():
    op, var, g = "ResourceApplyAdagradV2", tf.Variable(np.zeros(2)), tf.constant(np.zeros(2))
    return [
        _raw(op, "ResourceApplyAdagradV2: slot accum must be a Variable", var=var, accum=tf.constant(np.zeros(2)),
             lr=0.1, epsilon=1e-7, grad=g),
        _raw(op, "accum of float64.*does not match", var=var, accum=tf.Variable(np.zeros(3)), lr=0.1, epsilon=1e-7,
             grad=g),
        _raw(op, "same Variable", var=var, accum=var, lr=0.1, epsilon=1e-7, grad=g),
        _raw(op, "unexpected keyword argument 'weight_decay'", TypeError, var=var, accum=var, lr=0.1, epsilon=1e-7,
             grad=var, weight_decay=0.1),
        _raw(op, "update_slots", tf.errors.UnimplementedError, var=var, accum=tf.Variable(np.zeros(2)), lr=0.1,
             epsilon=1e-7, grad=g, update_slots=False),
    ]


def _nadam():
    nadam, op = _nadam_inputs(), "ResourceApplyNadam"
    return [_raw(op, "lr must be a numeric scalar", **dict(nadam, lr=tf.constant([0.1, 0.2]))),
            _raw(op, "local_step must be a numeric scalar", **dict(nadam, local_step=[1, 2])),
            _raw(op, "slot v is the same Variable as m", **dict(nadam, v=nadam["m"]))]


def _keras_adam():
    nadam, op = _nadam_inputs(), "ResourceApplyKerasAdam"
    return [_raw(op, "lr must be a numeric scalar", **dict(nadam, lr=tf.constant([0.1, 0.2]))),
            _raw(op, "slot v is the same Variable as m", **dict(nadam, v=nadam["m"])),
            _raw(op, "m of float32.*does not match", **dict(nadam, m=tf.Variable(np.zeros(2, np.float32))))]


def _keras_adam_amsgrad():
    keras_adam = _nadam_inputs()
    return [_raw("ResourceApplyKerasAdamWithAmsgrad", "slot vhat is the same Variable as v",
                 **dict(keras_adam, vhat=keras_adam["v"]))]


def _adam():
    zeros = lambda: tf.Variable(np.zeros(2))  # noqa: E731
    return [_raw("ResourceApplyAdam", "use_nesterov", tf.errors.UnimplementedError, var=zeros(), m=zeros(), v=zeros(),
                 beta1_power=0.9, beta2_power=0.999, lr=0.1, beta1=0.9, beta2=0.999, epsilon=1e-7,
                 grad=tf.constant(np.zeros(2)), use_nesterov=True)]


def _step_before_first(op, *slots):
    """At t = 0 the bias corrections divide by zero: a step of 0, -1 or NaN is raised, before the variable is
    touched."""
    cases = []
    for step in (0, -1, float("nan")):
        var = tf.Variable(np.ones(2))
        cases.append(BadCall(getattr(tf.raw_ops, op), var=var, **{k: tf.Variable(np.zeros(2)) for k in slots},
                             local_step=step, lr=0.1, beta1=0.9, beta2=0.999, epsilon=1e-7,
                             grad=tf.constant(np.ones(2)))
                     .raises(E, f"{op}: local_step must be >= 1", after=_unchanged(var, [1.0, 1.0])))
    return cases


def _unchanged(var, value):
    return lambda: np.testing.assert_array_equal(var.numpy(), value)


ERROR_INPUTS = {
    "ResourceApplyGradientDescent": _gradient_descent, "ResourceApplyAdagradV2": _adagrad,
    "ResourceApplyNadam": lambda: _nadam() + _step_before_first("ResourceApplyNadam", "m", "v"),
    "ResourceApplyKerasAdam": lambda: _keras_adam() + _step_before_first("ResourceApplyKerasAdam", "m", "v"),
    "ResourceApplyKerasAdamWithAmsgrad": lambda: _keras_adam_amsgrad() + _step_before_first(
        "ResourceApplyKerasAdamWithAmsgrad", "m", "v", "vhat"),
    "ResourceApplyAdam": _adam,
}
