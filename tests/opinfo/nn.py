"""Rows for tf.nn: softmax family, fused cross-entropies, gelu/silu, and the Python-level composites."""
import math

import numpy as np

import tapegrad as tf
from opinfo import nn_edges, nn_errors
from opinfo.core import OpInfo, SampleInput, attach_edge_samples, attach_error_inputs

_erf = np.vectorize(math.erf, otypes=[float])


# NumPy references (computed in the input dtype; float64 for the float32 forward check).
def _softmax(x, axis=None):
    axis = -1 if axis is None else axis
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _logsumexp(x, axis=-1, keepdims=False):
    m = x.max(axis=axis, keepdims=True)
    r = m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
    return r if keepdims else np.squeeze(r, axis=axis)


def _log_softmax(x, axis=None):
    axis = -1 if axis is None else axis
    return x - _logsumexp(x, axis, keepdims=True)


def _one_hot(labels, n, dtype):
    return (labels[..., None] == np.arange(n)).astype(dtype)


def _sparse_xent(labels, logits):
    picked = np.take_along_axis(logits, labels[..., None].astype(np.int64), axis=-1)[..., 0]
    return _logsumexp(logits) - picked


def _sparse_xent_grad(logits, labels):
    return _softmax(logits) - _one_hot(labels, logits.shape[-1], logits.dtype)


def _xent(labels, logits, axis=-1):
    return -np.sum(labels * _log_softmax(logits, axis), axis=axis)


def _sigmoid_xent(labels, logits):
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


def _gelu(x, approximate=False):
    # TF's definition holds 1/sqrt(2) and 0.044715 as float32, also for float64 inputs
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + float(np.float32(0.044715)) * x ** 3)))
    return 0.5 * x * (1 + _erf(x * float(np.float32(1 / np.sqrt(2)))))


def _silu(x, beta=1.0):
    return x / (1 + np.exp(-beta * x))


# Sample generators.
def _softmax_samples(rng, dtype):
    for shape, kw in [((5,), {}), ((2, 3), {}), ((2, 3, 4), {"axis": 1}), ((3, 2), {"axis": 0}),
                      ((2, 4), {"axis": -2})]:
        yield SampleInput([rng.uniform(-3, 3, shape).astype(dtype)], kw)


def _sparse_samples(rng, dtype):
    for batch, n, ldt in [((4,), 3, np.int32), ((2, 3), 4, np.int64), ((), 5, np.int32)]:
        labels = rng.integers(0, n, size=batch).astype(ldt)
        yield SampleInput([labels, rng.uniform(-3, 3, batch + (n,)).astype(dtype)])


def _sparse_grad_samples(rng, dtype):
    for s in _sparse_samples(rng, dtype):
        yield SampleInput([s.args[1], s.args[0]])


def _xent_samples(rng, dtype):
    for shape, kw in [((4, 3), {}), ((2, 3, 4), {"axis": 1}), ((5,), {})]:
        labels = rng.uniform(0, 1, shape)
        labels /= labels.sum(axis=kw.get("axis", -1), keepdims=True)
        yield SampleInput([labels.astype(dtype), rng.uniform(-3, 3, shape).astype(dtype)], kw)


def _sigmoid_xent_samples(rng, dtype):
    for shape in [(), (5,), (2, 3)]:
        x = rng.uniform(0.2, 4, shape) * rng.choice([-1, 1], shape)
        yield SampleInput([rng.uniform(0, 1, shape).astype(dtype), np.asarray(x, dtype)])


def _unary_samples(lo=-3.0, hi=3.0):
    def gen(rng, dtype):
        for shape in [(), (5,), (2, 3)]:
            yield SampleInput([rng.uniform(lo, hi, shape).astype(dtype)])
    return gen


def _moments_samples(rng, dtype):
    for shape, axes, keep in [((4, 3), [0], False), ((2, 3, 4), [0, 2], True), ((5,), [0], False)]:
        yield SampleInput([rng.uniform(-2, 2, shape).astype(dtype), axes], {"keepdims": keep})


def _moments_mean_ref(x, axes, keepdims=False):
    return np.mean(x, axis=tuple(axes), keepdims=keepdims)


def _moments_var_ref(x, axes, keepdims=False):
    return np.var(x, axis=tuple(axes), keepdims=keepdims)


def _dropout_samples(rng, dtype):
    yield SampleInput([rng.uniform(-2, 2, (4, 5)).astype(dtype), 0.5], {"seed": 3})
    yield SampleInput([rng.uniform(-2, 2, (3, 4)).astype(dtype), 0.25], {"seed": 7, "noise_shape": [3, 1]})


def _activation_grad_samples(rng, dtype):
    # (saved value, upstream gradient); the saved value kept away from the kink at 0
    for sx, sy in [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (4,)), ((4,), ())]:
        x = rng.uniform(0.2, 0.9, sx) * rng.choice([-1, 1], sx)
        yield SampleInput([np.asarray(x, dtype), rng.uniform(-2, 2, sy).astype(dtype)])


def _seeded_dropout(x, rate, **kwargs):
    """tf.nn.dropout after resetting the global seed, so that every call (finite differences) draws one mask."""
    tf.random.set_seed(0)
    return tf.nn.dropout(x, rate, **kwargs)


def _softmax_grad_samples(rng, dtype):
    # (y = softmax(x) along axis, upstream g)
    for shape, axis in [((5,), -1), ((2, 3), -1), ((2, 3, 4), 1), ((3, 2), 0)]:
        y = _softmax(rng.uniform(-2, 2, shape), axis)
        yield SampleInput([y.astype(dtype), rng.uniform(-2, 2, shape).astype(dtype)], {"axis": axis})


def _softmax_grad_ref(y, g, axis=-1):
    return y * (g - np.sum(g * y, axis=axis, keepdims=True))


def _layer_norm_ref(x, epsilon=1e-3):
    d = x - x.mean(-1, keepdims=True)
    return d / np.sqrt((d * d).mean(-1, keepdims=True) + epsilon)


def _layer_norm_grad_ref(x, g, epsilon=1e-3):
    xh = _layer_norm_ref(x, epsilon)
    d = x - x.mean(-1, keepdims=True)
    r = 1 / np.sqrt((d * d).mean(-1, keepdims=True) + epsilon)
    return r * (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True))


def _layer_norm_samples(rng, dtype):
    # rows away from zero and of differing spread; one row of one element (normalized to 0)
    for shape, eps in [((4, 5), 1e-3), ((2, 3, 6), 1e-5), ((1,), 1e-3), ((3, 1), 0.1)]:
        yield SampleInput([(rng.uniform(-2, 2, shape) * 2 + 1).astype(dtype)], {"epsilon": eps})


def _layer_norm_grad_samples(rng, dtype):
    for shape, eps in [((4, 5), 1e-3), ((2, 3, 6), 1e-5), ((3, 1), 0.1)]:
        yield SampleInput([(rng.uniform(-2, 2, shape) * 2 + 1).astype(dtype), rng.uniform(-2, 2, shape).astype(dtype)],
                          {"epsilon": eps})


_softmax_grad_op, _layer_norm_op = tf._core.op("SoftmaxGrad"), tf._core.op("LayerNorm")
_layer_norm_grad_op = tf._core.op("LayerNormGrad")
_sparse_grad_op = tf._core.op("SparseSoftmaxCrossEntropyWithLogitsGrad")
_relu_grad_op, _elu_grad_op = tf._core.op("ReluGrad"), tf._core.op("EluGrad")

rows = [
    # registered ops
    OpInfo("Softmax", tf.nn.softmax, _softmax, samples=_softmax_samples, order=2),
    OpInfo("LogSoftmax", tf.nn.log_softmax, _log_softmax, samples=_softmax_samples, order=2),
    # softmax's fused backward op (y, g), and LayerNorm over the last axis with its fused backward (x, g)
    OpInfo("SoftmaxGrad", _softmax_grad_op, _softmax_grad_ref, samples=_softmax_grad_samples, order=2),
    OpInfo("LayerNorm", _layer_norm_op, _layer_norm_ref, samples=_layer_norm_samples, order=2),
    OpInfo("LayerNormGrad", _layer_norm_grad_op, _layer_norm_grad_ref, samples=_layer_norm_grad_samples, order=2),
    OpInfo("SparseSoftmaxCrossEntropyWithLogits", tf.nn.sparse_softmax_cross_entropy_with_logits,
           _sparse_xent, samples=_sparse_samples, order=2),
    OpInfo("SparseSoftmaxCrossEntropyWithLogitsGrad", lambda logits, labels: _sparse_grad_op(logits, tf.convert_to_tensor(labels)),
           _sparse_xent_grad, samples=_sparse_grad_samples, order=2),
    # domain: the logits' (labels are probabilities, in [0, 1])
    OpInfo("SigmoidCrossEntropyWithLogits",
           lambda labels, logits: tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits),
           _sigmoid_xent, samples=_sigmoid_xent_samples, order=2, domain=(-5.0, 5.0),
           public=(tf.nn.sigmoid_cross_entropy_with_logits,)),
    OpInfo("Gelu", tf.nn.gelu, _gelu, samples=_unary_samples(), order=2),
    OpInfo("GeluTanh", lambda x: tf.nn.gelu(x, approximate=True), lambda x: _gelu(x, True),
           samples=_unary_samples(), order=2, public=(tf.nn.gelu,)),
    OpInfo("Silu", tf.nn.silu, _silu, samples=_unary_samples(), order=2),
    # fused backward ops of Relu and Elu: (x or y = elu(x), upstream g)
    OpInfo("ReluGrad", _relu_grad_op, lambda x, g: np.where(x > 0, g, np.zeros_like(g)),
           samples=_activation_grad_samples, order=2),
    OpInfo("EluGrad", _elu_grad_op, lambda y, g: np.where(y > 0, g, g * (y + 1)),
           samples=_activation_grad_samples, order=2),
    # Python-level composites of registered ops
    OpInfo("softmax_cross_entropy_with_logits", tf.nn.softmax_cross_entropy_with_logits, _xent,
           samples=_xent_samples, order=2, op=None),
    OpInfo("silu_beta", lambda x: tf.nn.silu(x, beta=1.5), lambda x: _silu(x, 1.5),
           samples=_unary_samples(), order=2, op=None, public=(tf.nn.silu,)),
    OpInfo("l2_loss", tf.nn.l2_loss, lambda t: np.sum(t * t) / 2, order=2, op=None),
    OpInfo("moments_mean", lambda x, axes, **kw: tf.nn.moments(x, axes, **kw)[0], _moments_mean_ref,
           samples=_moments_samples, op=None, public=(tf.nn.moments,)),
    OpInfo("moments_variance", lambda x, axes, **kw: tf.nn.moments(x, axes, **kw)[1], _moments_var_ref,
           samples=_moments_samples, order=2, op=None, public=(tf.nn.moments,)),
    OpInfo("dropout", _seeded_dropout, None, samples=_dropout_samples, op=None, draws_random=True),
]


# tf.nn.embedding_lookup and tf.nn.batch_normalization (Python-level composites)
def _embedding_samples(rng, dtype):
    yield SampleInput([rng.uniform(-2, 2, (5, 3)).astype(dtype), np.array([[0, 4], [2, 2]], "int32")])
    yield SampleInput([rng.uniform(-2, 2, (4, 3, 2)).astype(dtype), np.array(3, "int64")])
    # rows of norm about 0.5 (kept) and 3.5 (clipped), away from the kink at max_norm
    params = rng.uniform(0.2, 0.4, (3, 4)).astype(dtype) * np.array([[1.0], [7.0], [1.0]], dtype)
    yield SampleInput([params, np.array([1, 0, 1, 2], "int32")], {"max_norm": 1.5})


def _embedding_ref(params, ids, max_norm=None):
    out = params[ids]
    if max_norm is not None:
        axes = tuple(range(np.ndim(ids), out.ndim))
        norm = np.sqrt(np.sum(out * out, axis=axes, keepdims=True))
        out = out * max_norm / np.maximum(norm, max_norm)
    return out


def _batch_norm_samples(rng, dtype):
    def u(shape, lo=-2.0, hi=2.0):
        return rng.uniform(lo, hi, shape).astype(dtype)
    yield SampleInput([u((4, 3)), u((3,)), u((3,), 0.5, 2.0), u((3,)), u((3,)), 1e-3])
    yield SampleInput([u((2, 2, 3)), u((1, 1, 3)), u((1, 1, 3), 0.5, 2.0), None, None, 0.01])
    yield SampleInput([u((2, 3)), u(()), u((), 0.5, 2.0), u(()), None, 0.0])


def _batch_norm_ref(x, mean, variance, offset, scale, eps):
    y = (x - mean) / np.sqrt(variance + eps)
    y = y if scale is None else y * scale
    return y if offset is None else y + offset


rows += [
    OpInfo("embedding_lookup", tf.nn.embedding_lookup, _embedding_ref, samples=_embedding_samples,
           order=2, op=None),
    OpInfo("batch_normalization", tf.nn.batch_normalization, _batch_norm_ref, samples=_batch_norm_samples,
           order=2, op=None),
]

attach_error_inputs(rows, nn_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/nn_errors.py
attach_edge_samples(rows, nn_edges.EDGE_SAMPLES)  # their edge values, in opinfo/nn_edges.py
