"""Every differentiable op: forward-mode JVPs against central finite differences in float64.

Each row of the op table (tests/op_db.py) is pushed forward along a random tangent of each
differentiable input, and the result compared with (f(x + e v) - f(x - e v)) / 2e. Rows with a
second-order check also get a forward-over-reverse check: the JVP of the tape gradient
(a Hessian-vector product) against finite differences of the gradient.
"""
import numpy as np
import pytest

import tapegrad as tf
from op_db import op_db

ZERO = tf.UnconnectedGradients.ZERO


def _diff_args(sample):
    if sample.grad_args is not None:
        return sample.grad_args
    return [i for i, a in enumerate(sample.args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]


def _tensors(args):
    return [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]


def _value(fn, args, kwargs):
    return np.asarray(fn(*_tensors(args), **kwargs).numpy(), dtype=np.float64)


def _shifted(args, i, delta):
    a = list(args)
    a[i] = args[i] + delta
    return a


def check_jvp(fn, args, kwargs, idx, rng, eps=1e-6, atol=1e-5, rtol=1e-4):
    directions = [[i] for i in idx] + ([idx] if len(idx) > 1 else [])
    for which in directions:
        v = {i: rng.standard_normal(args[i].shape) for i in which}
        tensors = _tensors(args)
        with tf.autodiff.ForwardAccumulator([tensors[i] for i in which], [tf.constant(v[i]) for i in which]) as acc:
            y = fn(*tensors, **kwargs)
        got = acc.jvp(y, unconnected_gradients=ZERO)
        assert tuple(got.shape) == tuple(y.shape), f"JVP shape {got.shape} != output shape {y.shape}"
        plus, minus = list(args), list(args)
        for i in which:
            plus[i] = np.asarray(args[i] + eps * v[i])
            minus[i] = np.asarray(args[i] - eps * v[i])
        want = (_value(fn, plus, kwargs) - _value(fn, minus, kwargs)) / (2 * eps)
        np.testing.assert_allclose(np.asarray(got.numpy(), np.float64), want, atol=atol, rtol=rtol,
                                   err_msg=f"JVP along input(s) {which}")


def check_hvp(fn, args, kwargs, idx, rng, eps=1e-5, atol=1e-4, rtol=1e-3):
    """acc.jvp(d<w, f>/dx) = H v for the differentiable inputs, against differences of the gradient."""
    y0 = _value(fn, args, kwargs)
    w = tf.constant(rng.standard_normal(y0.shape))
    v = {i: rng.standard_normal(args[i].shape) for i in idx}

    def grads(a, forward=False):
        tensors = _tensors(a)
        xs = [tensors[i] for i in idx]
        acc = tf.autodiff.ForwardAccumulator(xs, [tf.constant(v[i]) for i in idx])
        with acc:
            with tf.GradientTape() as tape:
                tape.watch(xs)
                loss = tf.reduce_sum(fn(*tensors, **kwargs) * w)
            gs = tape.gradient(loss, xs, unconnected_gradients=ZERO)
        return acc.jvp(gs, unconnected_gradients=ZERO) if forward else gs

    got = grads(args, forward=True)
    plus, minus = list(args), list(args)
    for i in idx:
        plus[i] = np.asarray(args[i] + eps * v[i])
        minus[i] = np.asarray(args[i] - eps * v[i])
    for k, (gp, gm) in enumerate(zip(grads(plus), grads(minus))):
        want = (np.asarray(gp.numpy(), np.float64) - np.asarray(gm.numpy(), np.float64)) / (2 * eps)
        np.testing.assert_allclose(got[k].numpy(), want, atol=atol, rtol=rtol, err_msg=f"H v, input {idx[k]}")


@pytest.mark.parametrize("op", [o for o in op_db if o.differentiable and "float64" in o.dtypes], ids=lambda o: o.name)
def test_jvp_float64(op, rng):
    for s in op.sample_inputs(rng, np.float64):
        check_jvp(op.fn, s.args, s.kwargs, _diff_args(s), rng, atol=op.atol, rtol=op.rtol)


@pytest.mark.parametrize("op", [o for o in op_db if o.differentiable and o.order >= 2], ids=lambda o: o.name)
def test_forward_over_reverse_float64(op, rng):
    for s in op.sample_inputs(rng, np.float64):
        check_hvp(op.fn, s.args, s.kwargs, _diff_args(s), rng)


def test_every_differentiable_op_has_a_checked_jvp():
    """A registered differentiable op with no JVP (no rule and no gradient to derive one), or with
    no float64 row above to check it, fails here."""
    checked = {o.registry_op for o in op_db if o.differentiable and "float64" in o.dtypes}
    missing, unchecked = [], []
    for name in tf._core.registered_ops():
        if not tf._core.is_differentiable(name):
            continue
        if tf._core._jvp_kind(name) == "none":
            missing.append(name)
        if name not in checked and name != "Identity":
            unchecked.append(name)
    assert not missing, f"differentiable ops without a JVP: {missing}"
    assert not unchecked, f"differentiable ops whose JVP no float64 row checks: {unchecked}"


def test_linear_and_elementwise_ops_have_explicit_rules():
    """The fallback (double VJP) costs two extra passes: the common ops must not need it."""
    explicit = ["Add", "Mul", "Exp", "Tanh", "Select", "MatMul", "Reshape", "Transpose", "BroadcastTo", "Cast",
                "Identity", "Sum", "Mean", "Max", "StridedSlice", "ConcatV2", "Pad", "Tile", "GatherV2",
                "Softmax", "LogSoftmax", "Cumsum", "SparseSoftmaxCrossEntropyWithLogits"]
    assert [n for n in explicit if tf._core._jvp_kind(n) != "rule"] == []
