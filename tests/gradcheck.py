"""Central finite differences against tape gradients, in float64.

Small inputs get the full Jacobian-transpose check (one perturbation per element); larger ones
a random-direction check of the VJP (<J^T w, v> against d/de <w, f(x + e v)>).
"""
import numpy as np

import tapegrad as tf

FULL_CHECK_MAX = 24


def _call(fn, args, kwargs):
    tensors = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    return tensors, fn(*tensors, **kwargs)


def _as_np(y):
    return np.asarray(y.numpy(), dtype=np.float64)


def vjp(fn, args, kwargs, idx, w, unconnected=tf.UnconnectedGradients.NONE):
    """Tape gradient of <w, fn(args)> with respect to args[i] for i in idx (w None: of sum(fn(args)))."""
    tensors = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    with tf.GradientTape() as tape:
        for i in idx:
            tape.watch(tensors[i])
        y = fn(*tensors, **kwargs)
        loss = tf.reduce_sum(y if w is None else y * tf.constant(w))
    return tape.gradient(loss, [tensors[i] for i in idx], unconnected_gradients=unconnected)


def numeric_vjp(fn, args, kwargs, i, w, eps):
    """Central-difference gradient of <w, fn(args)> with respect to args[i]."""
    x = args[i]
    g = np.zeros(x.shape)
    flat = x.reshape(-1)
    for k in range(flat.size):
        def at(delta):
            xs = flat.copy()
            xs[k] += delta
            a = list(args)
            a[i] = xs.reshape(x.shape)
            return float(np.sum(_as_np(_call(fn, a, kwargs)[1]) * w))
        g.reshape(-1)[k] = (at(eps) - at(-eps)) / (2 * eps)
    return g


def check_grads(fn, args, kwargs, idx, rng, eps=1e-6, atol=1e-5, rtol=1e-4,
                unconnected=tf.UnconnectedGradients.NONE):
    _, y = _call(fn, args, kwargs)
    w = rng.standard_normal(y.shape)
    grads = vjp(fn, args, kwargs, idx, w, unconnected)
    for i, g in zip(idx, grads):
        assert g is not None, f"no gradient for input {i}"
        assert tuple(g.shape) == args[i].shape, f"gradient shape {g.shape} != input shape {args[i].shape}"
        got = _as_np(g)
        if args[i].size <= FULL_CHECK_MAX:
            want = numeric_vjp(fn, args, kwargs, i, w, eps)
            np.testing.assert_allclose(got, want, atol=atol, rtol=rtol, err_msg=f"d/d input {i}")
        else:
            v = rng.standard_normal(args[i].shape)
            a_plus, a_minus = list(args), list(args)
            a_plus[i] = args[i] + eps * v
            a_minus[i] = args[i] - eps * v
            fd = (np.sum(_as_np(_call(fn, a_plus, kwargs)[1]) * w) -
                  np.sum(_as_np(_call(fn, a_minus, kwargs)[1]) * w)) / (2 * eps)
            np.testing.assert_allclose(np.sum(got * v), fd, atol=atol * 10, rtol=rtol * 10,
                                       err_msg=f"directional d/d input {i}")
    # The plain sum's gradient reaches the op as one broadcast value (Note [Lazy broadcast
    # gradients]): it must equal the gradient of <1, f> computed from a full array of ones.
    if y.dtype.is_floating:
        plain = vjp(fn, args, kwargs, idx, None, unconnected)
        for i, g, want in zip(idx, plain, vjp(fn, args, kwargs, idx, np.ones(y.shape), unconnected)):
            assert tuple(g.shape) == args[i].shape, f"sum: gradient shape {g.shape} != input shape {args[i].shape}"
            np.testing.assert_allclose(_as_np(g), _as_np(want), atol=1e-12, rtol=1e-12, err_msg=f"sum: d/d input {i}")


def check_second_order(fn, args, kwargs, idx, rng, eps=1e-5, atol=1e-4, rtol=1e-3):
    """Differentiates the tape gradient again (nested tapes) and compares with finite differences of it."""
    _, y = _call(fn, args, kwargs)
    w = rng.standard_normal(y.shape)
    u = [rng.standard_normal(args[i].shape) for i in idx]

    def inner(*xs):
        # <u, d<w, f>/dx> as a function of the differentiable inputs
        a = list(args)
        for i, x in zip(idx, xs):
            a[i] = x
        with tf.GradientTape() as t:
            for i in idx:
                t.watch(a[i])
            loss = tf.reduce_sum(fn(*a, **kwargs) * tf.constant(w))
        gs = t.gradient(loss, [a[i] for i in idx], unconnected_gradients=tf.UnconnectedGradients.ZERO)
        total = tf.constant(0.0, dtype=tf.float64)
        for g, uu in zip(gs, u):
            total = total + tf.reduce_sum(g * tf.constant(uu))
        return total

    xs = [args[i] for i in idx]
    # A linear op's gradient does not depend on its input: its second derivative is zero.
    check_grads(inner, xs, {}, list(range(len(xs))), rng, eps=eps, atol=atol, rtol=rtol,
                unconnected=tf.UnconnectedGradients.ZERO)
