"""Rows for the optimizer update ops (ApplySGD, ApplyAdam, ...): each row runs one update on fresh Variables.

The row's fn copies the variable and slot arrays into Variables (assigning them, so a traced call
starts from the arguments every time), runs the op, and returns the updated variable and slots
flattened into one vector; the reference computes the same update in NumPy.
"""
import numpy as np

import tapegrad as tf
from opinfo.core import OpInfo, SampleInput


def _update_fn(op_name):
    op = tf._core.op(op_name)

    def fn(var, grad, lr, iterations, *slots, **attrs):
        state = [tf.Variable(np.zeros(t.shape, t.dtype.as_numpy_dtype)) for t in (var, *slots)]
        for v, t in zip(state, (var, *slots)):
            v.assign(t)
        op(state[0], grad, lr, iterations, *state[1:], **attrs)
        return tf.concat([tf.reshape(v, [-1]) for v in state], 0)

    return fn


def _flat(*arrays):
    return np.concatenate([np.reshape(a, -1) for a in arrays])


def _keep(var, lr, weight_decay):
    return var * (1 - lr * weight_decay)


def _sgd(var, grad, lr, it, *slots, momentum=0.0, nesterov=False, weight_decay=0.0):
    x = _keep(var, lr, weight_decay)
    if not momentum:
        return _flat(x - lr * grad)
    m = momentum * slots[0] - lr * grad
    return _flat(x + (momentum * m - lr * grad if nesterov else m), m)


def _adam(var, grad, lr, it, m, v, *vhat, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, weight_decay=0.0):
    t = float(it) + 1
    alpha = lr * np.sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t)
    m = m + (grad - m) * (1 - beta_1)
    v = v + (grad * grad - v) * (1 - beta_2)
    if amsgrad:
        vmax = np.maximum(vhat[0], v)
        return _flat(_keep(var, lr, weight_decay) - alpha * m / (np.sqrt(vmax) + epsilon), m, v, vmax)
    return _flat(_keep(var, lr, weight_decay) - alpha * m / (np.sqrt(v) + epsilon), m, v)


def _nadam(var, grad, lr, it, m, v, beta_1=0.9, beta_2=0.999, epsilon=1e-7, weight_decay=0.0):
    t = int(it) + 1
    u = lambda s: beta_1 * (1 - 0.5 * 0.96 ** s)  # noqa: E731
    p_t = np.prod([u(i) for i in range(1, t + 1)])
    c_m, c_g = u(t + 1) / (1 - p_t * u(t + 1)), (1 - u(t)) / (1 - p_t)
    m = m + (grad - m) * (1 - beta_1)
    v = v + (grad * grad - v) * (1 - beta_2)
    x = _keep(var, lr, weight_decay) - lr * (c_m * m + c_g * grad) / (np.sqrt(v / (1 - beta_2 ** t)) + epsilon)
    return _flat(x, m, v)


def _rmsprop(var, grad, lr, it, s, *rest, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, weight_decay=0.0):
    rest = list(rest)
    s = rho * s + (1 - rho) * grad * grad
    den = s + epsilon
    out = [s]
    if centered:
        a = rho * rest.pop(0) + (1 - rho) * grad
        den = den - a * a
        out.append(a)
    inc = lr * grad / np.sqrt(den)
    if momentum:
        inc = inc + momentum * rest.pop(0)
        out.append(inc)
    return _flat(_keep(var, lr, weight_decay) - inc, *out)


def _adagrad(var, grad, lr, it, acc, epsilon=1e-7, weight_decay=0.0):
    acc = acc + grad * grad
    return _flat(_keep(var, lr, weight_decay) - lr * grad / np.sqrt(acc + epsilon), acc)


def _samples(slot_kinds, attr_sets):
    """slot_kinds: "signed", "positive" or "small" (|s| < 0.1) per slot;
    attr_sets: (attrs, number of slots used) pairs."""
    def gen(rng, dtype):
        for shape, step in (((3,), 0), ((2, 3), 4)):
            for attrs, n in attr_sets:
                var, grad = rng.uniform(-1, 1, shape).astype(dtype), rng.uniform(-1, 1, shape).astype(dtype)
                lo_hi = {"signed": (-1, 1), "positive": (0.1, 1), "small": (-0.1, 0.1)}
                slots = [rng.uniform(*lo_hi[k], shape) for k in slot_kinds[:n]]
                lr = np.array(0.05, dtype=dtype)
                yield SampleInput([var, grad, lr, np.array(step, np.int64)] + [s.astype(dtype) for s in slots],
                                  dict(attrs))
    return gen


def _row(name, ref, samples):
    return OpInfo(name, _update_fn(name), ref, samples=samples, differentiable=False)


rows = [
    _row("ApplySGD", _sgd, _samples(["signed"], [({}, 0), (dict(momentum=0.9), 1),
                                                 (dict(momentum=0.5, nesterov=True, weight_decay=0.1), 1)])),
    _row("ApplyAdam", _adam, _samples(["signed", "positive", "positive"],
                                      [({}, 2), (dict(amsgrad=True, beta_1=0.8), 3), (dict(weight_decay=0.2), 2)])),
    _row("ApplyNadam", _nadam, _samples(["signed", "positive"], [({}, 2), (dict(beta_2=0.99, weight_decay=0.1), 2)])),
    _row("ApplyRMSprop", _rmsprop, _samples(["positive", "small", "signed"],
                                            [({}, 1), (dict(centered=True, momentum=0.5), 3),
                                             (dict(momentum=0.3), 2)])),
    _row("ApplyAdagrad", _adagrad, _samples(["positive"], [({}, 1), (dict(weight_decay=0.1), 1)])),
]
