"""Rows for the fused optimizer updates (tf.raw_ops.ResourceApplyAdam, ...): each row runs one update on
Variables set to the arguments.

A sample's inputs are the op's arguments in TF's order. The row's fn copies the variable and slot
arrays into Variables (assigning them, so a traced call starts from the arguments every time), runs
the op with keyword arguments, and returns the updated variable and slots flattened into one vector;
the reference computes the same update in NumPy.
"""
import inspect

import numpy as np

import tapegrad as tf
from opinfo import optim_errors
from opinfo.core import OpInfo, SampleInput, attach_error_inputs

_VARIABLES = {"var", "m", "v", "vhat", "accum", "ms", "mom", "mg"}  # updated in place; the rest are read


def _inputs(op_name):
    """The op's input names in TF's order (its keyword-only arguments without a default)."""
    params = inspect.signature(getattr(tf.raw_ops, op_name)).parameters.values()
    return [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty]


def _update_fn(op_name):
    op, names = getattr(tf.raw_ops, op_name), _inputs(op_name)
    made = {}  # one Variable per input name, shape and dtype: a tf.function of fn creates none after its first trace

    def fn(*inputs, **attrs):
        state = {}
        for n, t in zip(names, inputs):
            if n in _VARIABLES:
                key = (n, tuple(t.shape), t.dtype.name)
                if key not in made:
                    made[key] = tf.Variable(np.zeros(t.shape, t.dtype.as_numpy_dtype))
                state[n] = made[key]
                state[n].assign(t)
        op(**{n: state.get(n, t) for n, t in zip(names, inputs)}, **attrs)
        return tf.concat([tf.reshape(state[n], [-1]) for n in names if n in state], 0)

    return fn


def _flat(*arrays):
    return np.concatenate([np.reshape(a, -1) for a in arrays])


def _gradient_descent(var, alpha, delta):
    return _flat(var - alpha * delta)


def _keras_momentum(var, accum, lr, grad, momentum, use_nesterov=False):
    accum = momentum * accum - lr * grad
    return _flat(var + (momentum * accum - lr * grad if use_nesterov else accum), accum)


def _adam_moments(m, v, grad, beta1, beta2):
    return m + (grad - m) * (1 - beta1), v + (grad * grad - v) * (1 - beta2)


def _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    alpha = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m, v = _adam_moments(m, v, grad, beta1, beta2)
    return _flat(var - alpha * m / (np.sqrt(v) + epsilon), m, v)


def _adam_amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    alpha = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m, v = _adam_moments(m, v, grad, beta1, beta2)
    vhat = np.maximum(vhat, v)
    return _flat(var - alpha * m / (np.sqrt(vhat) + epsilon), m, v, vhat)


def _keras_adam(var, m, v, local_step, lr, beta1, beta2, epsilon, grad, vhat=None):
    # Keras's rounding (Note [Keras's Adam]): the betas through float32, their powers and the step size
    # in the variable's dtype; 1 - beta from the exact value.
    dt = var.dtype.type
    t, b1, b2 = dt(local_step), float(beta1), float(beta2)
    p1, p2 = dt(np.float32(b1)) ** t, dt(np.float32(b2)) ** t
    alpha = dt(lr) * np.sqrt(dt(1) - p2) / (dt(1) - p1)
    m, v = m + (grad - m) * dt(1 - b1), v + (grad * grad - v) * dt(1 - b2)
    if vhat is None:
        return _flat(var - alpha * m / (np.sqrt(v) + dt(epsilon)), m, v)
    vhat = np.maximum(vhat, v)
    return _flat(var - alpha * m / (np.sqrt(vhat) + dt(epsilon)), m, v, vhat)


def _keras_adam_amsgrad(var, m, v, vhat, local_step, lr, beta1, beta2, epsilon, grad):
    return _keras_adam(var, m, v, local_step, lr, beta1, beta2, epsilon, grad, vhat)


def _nadam(var, m, v, local_step, lr, beta1, beta2, epsilon, grad):
    t = int(local_step)
    u = lambda s: beta1 * (1 - 0.5 * 0.96 ** s)  # noqa: E731
    p_t = np.prod([u(i) for i in range(1, t + 1)])
    c_m, c_g = u(t + 1) / (1 - p_t * u(t + 1)), (1 - u(t)) / (1 - p_t)
    m, v = _adam_moments(m, v, grad, beta1, beta2)
    return _flat(var - lr * (c_m * m + c_g * grad) / (np.sqrt(v / (1 - beta2 ** t)) + epsilon), m, v)


def _rmsprop(var, ms, mom, lr, rho, momentum, epsilon, grad):
    ms = rho * ms + (1 - rho) * grad * grad
    mom = momentum * mom + lr * grad / np.sqrt(ms + epsilon)
    return _flat(var - mom, ms, mom)


def _centered_rmsprop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    ms = rho * ms + (1 - rho) * grad * grad
    mg = rho * mg + (1 - rho) * grad
    mom = momentum * mom + lr * grad / np.sqrt(ms - mg * mg + epsilon)
    return _flat(var - mom, mg, ms, mom)


def _adagrad(var, accum, lr, epsilon, grad):
    accum = accum + grad * grad
    return _flat(var - lr * grad / (np.sqrt(accum) + epsilon), accum)


# Slot values: "signed" in (-1, 1), "positive" in (0.1, 1), "small" in (-0.1, 0.1).
_RANGES = {"signed": (-1, 1), "positive": (0.1, 1), "small": (-0.1, 0.1)}


def _samples(op_name, slots, scalar_sets):
    """slots: the range of each slot Variable; scalar_sets: (scalar inputs, attributes) pairs."""
    names = _inputs(op_name)

    def gen(rng, dtype):
        for shape in ((3,), (2, 3)):
            for scalars, attrs in scalar_sets:
                arrays = {"var": rng.uniform(-1, 1, shape), "grad": rng.uniform(-1, 1, shape), "delta":
                          rng.uniform(-1, 1, shape), **{n: rng.uniform(*_RANGES[k], shape) for n, k in slots.items()}}
                args = [(arrays[n] if n in arrays else np.array(scalars[n])).astype(dtype) for n in names]
                yield SampleInput(args, dict(attrs))
    return gen


def _row(name, ref, slots, scalar_sets):
    return OpInfo(name, _update_fn(name), ref, samples=_samples(name, slots, scalar_sets), differentiable=False)


_ADAM = dict(beta1_power=0.9, beta2_power=0.999, lr=0.05, beta1=0.9, beta2=0.999, epsilon=1e-7)
_ADAM_T5 = dict(_ADAM, beta1_power=0.8 ** 5, beta2_power=0.99 ** 5, beta1=0.8, beta2=0.99)
_RMS = dict(lr=0.05, rho=0.9, momentum=0.0, epsilon=1e-7)
_KERAS_ADAM = [(dict(local_step=1, lr=0.05, beta1=0.9, beta2=0.999, epsilon=1e-7), {}),
               (dict(local_step=5, lr=0.05, beta1=0.8, beta2=0.99, epsilon=1e-7), {})]
rows = [
    _row("ResourceApplyGradientDescent", _gradient_descent, {}, [(dict(alpha=0.05), {})]),
    _row("ResourceApplyKerasMomentum", _keras_momentum, {"accum": "signed"},
         [(dict(lr=0.05, momentum=0.9), {}), (dict(lr=0.05, momentum=0.5), dict(use_nesterov=True))]),
    _row("ResourceApplyAdam", _adam, {"m": "signed", "v": "positive"}, [(_ADAM, {}), (_ADAM_T5, {})]),
    _row("ResourceApplyAdamWithAmsgrad", _adam_amsgrad, {"m": "signed", "v": "positive", "vhat": "positive"},
         [(_ADAM, {}), (_ADAM_T5, {})]),
    _row("ResourceApplyKerasAdam", _keras_adam, {"m": "signed", "v": "positive"}, _KERAS_ADAM),
    _row("ResourceApplyKerasAdamWithAmsgrad", _keras_adam_amsgrad, {"m": "signed", "v": "positive", "vhat": "positive"},
         _KERAS_ADAM),
    _row("ResourceApplyNadam", _nadam, {"m": "signed", "v": "positive"},
         [(dict(local_step=1, lr=0.05, beta1=0.9, beta2=0.999, epsilon=1e-7), {}),
          (dict(local_step=5, lr=0.05, beta1=0.9, beta2=0.99, epsilon=1e-7), {})]),
    _row("ResourceApplyRMSProp", _rmsprop, {"ms": "positive", "mom": "signed"},
         [(_RMS, {}), (dict(_RMS, momentum=0.3), {})]),
    _row("ResourceApplyCenteredRMSProp", _centered_rmsprop, {"mg": "small", "ms": "positive", "mom": "signed"},
         [(dict(_RMS, momentum=0.5), {})]),
    _row("ResourceApplyAdagradV2", _adagrad, {"accum": "positive"}, [(dict(lr=0.05, epsilon=1e-7), {})]),
]

attach_error_inputs(rows, optim_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/optim_errors.py
