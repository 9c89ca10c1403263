"""Bad calls of the tf.nn rows (opinfo/nn.py): InvalidArgumentError (or ValueError, TypeError) naming the
op, never a crash."""
import numpy as np

import tapegrad as tf
from opinfo.core import BadCall

IAE = tf.errors.InvalidArgumentError


def _naming(call, name, *words, error=IAE):
    """The bad call raises `error`, its message holding the name and each of the words."""
    return call.raises(error, contains=(name, *words))


def _softmax_family(fn, op):
    return lambda: [
        _naming(BadCall(fn, tf.constant([1, 2, 3])), op),                  # integer logits
        _naming(BadCall(fn, tf.constant(1.0)), op),                        # scalar logits
        _naming(BadCall(fn, tf.ones((2, 3)), axis=2), op, "axis 2"),      # axis out of range
        _naming(BadCall(fn, tf.ones((2, 3)), axis=-3), op),
    ]


def _sparse_cross_entropy():
    op, f = "SparseSoftmaxCrossEntropyWithLogits", tf.nn.sparse_softmax_cross_entropy_with_logits
    logits = tf.ones((2, 3))
    return [
        # labels out of range
        _naming(BadCall(f, [0, 3], logits), op, "3", "[0, 3)"),
        _naming(BadCall(f, [-1, 0], logits), op),
        _naming(BadCall(f, tf.constant(np.array([0, 2 ** 40], np.int64)), logits), op),
        # bad labels and logits
        _naming(BadCall(f, tf.constant([0.0, 1.0]), tf.ones((2, 3))), op),    # float labels
        _naming(BadCall(f, [0, 1, 2], tf.ones((2, 3))), op),                   # batch size mismatch
        _naming(BadCall(f, [[0, 1]], tf.ones((2, 3))), op),                    # labels rank != logits rank - 1
        _naming(BadCall(f, [0, 1], tf.constant([[1, 2], [3, 4]])), op),        # integer logits
        _naming(BadCall(f, 0, tf.constant(1.0)), op),                          # scalar logits
        _naming(BadCall(f, [0], tf.ones((1, 0))), op),                         # no classes: every label is invalid
    ]


def _sigmoid_cross_entropy():
    op, f = "SigmoidCrossEntropyWithLogits", tf.nn.sigmoid_cross_entropy_with_logits
    return [
        _naming(BadCall(f, labels=tf.ones((2, 3)), logits=tf.ones((3,))), op),                   # shapes must match
        _naming(BadCall(f, labels=tf.constant([1, 0]), logits=tf.constant([1.0, 2.0])), op),     # int labels
        _naming(BadCall(f, labels=tf.constant([1, 0]), logits=tf.constant([1, 2])), op),        # int logits
        BadCall(f, logits=tf.ones((2,))).raises(ValueError),                                    # no labels
    ]


def _dense_cross_entropy():
    f = tf.nn.softmax_cross_entropy_with_logits
    return [BadCall(f, tf.ones((2, 4)), tf.ones((2, 3))).raises(IAE),
            _naming(BadCall(f, tf.ones((2, 3)), tf.ones((2, 3)), axis=5), "LogSoftmax")]


def _dropout():
    x = tf.ones((3, 4))
    return [BadCall(tf.nn.dropout, x, rate).raises(ValueError, "dropout") for rate in (-0.1, 1.0, 1.5)] + [
        BadCall(tf.nn.dropout, tf.constant([1, 2]), 0.5).raises(ValueError, "dropout"),
        _naming(BadCall(tf.nn.dropout, x, 0.5, noise_shape=[3, 2]), "dropout"),
        _naming(BadCall(tf.nn.dropout, x, 0.5, noise_shape=[4]), "dropout"),
        BadCall(tf.nn.dropout, tf.ones([2]), "a").raises(TypeError, r"^dropout: rate must be a number"),
    ]


def _activation_grad(op):
    f = tf._core.op(op)
    return lambda: [
        _naming(BadCall(f, tf.constant([1, 2]), tf.constant([1, 2])), op),          # integer inputs
        _naming(BadCall(f, tf.ones((2, 3)), tf.ones((4,))), op),                      # shapes do not broadcast
        _naming(BadCall(f, tf.ones((2,)), tf.ones((2,), tf.float64)), op),            # mixed dtypes
    ]


def _fused_pair(op, **attrs):
    """Bad calls of SoftmaxGrad and LayerNormGrad: (values, gradient) of one shape and float dtype."""
    f = tf._core.op(op)
    return lambda: [
        _naming(BadCall(f, tf.ones((2, 3)), tf.ones((3, 2)), **attrs), op),                  # shapes differ
        _naming(BadCall(f, tf.ones((2, 3)), tf.ones((2, 3), tf.float64), **attrs), op),      # dtypes differ
        _naming(BadCall(f, tf.constant([1, 2]), tf.constant([1, 2]), **attrs), op),        # integers
        _naming(BadCall(f, tf.constant(1.0), tf.constant(1.0), **attrs), op),              # scalars
    ]


def _layer_norm():
    f = tf._core.op("LayerNorm")
    return [_naming(BadCall(f, tf.constant([1, 2])), "LayerNorm"),
            _naming(BadCall(f, tf.constant(1.0)), "LayerNorm", "rank >= 1"),
            _naming(BadCall(f, tf.ones((2, 3)), epsilon=-1.0), "LayerNorm", "epsilon")]


ERROR_INPUTS = {
    "SoftmaxGrad": _fused_pair("SoftmaxGrad"),
    "LayerNorm": _layer_norm,
    "LayerNormGrad": _fused_pair("LayerNormGrad"),
    "Softmax": _softmax_family(tf.nn.softmax, "Softmax"),
    "LogSoftmax": _softmax_family(tf.nn.log_softmax, "LogSoftmax"),
    "SparseSoftmaxCrossEntropyWithLogits": _sparse_cross_entropy,
    "SparseSoftmaxCrossEntropyWithLogitsGrad": lambda: [_naming(
        BadCall(tf._core.op("SparseSoftmaxCrossEntropyWithLogitsGrad"), tf.ones((2, 3)), tf.constant([5, 0])),
        "SparseSoftmaxCrossEntropyWithLogitsGrad")],
    "SigmoidCrossEntropyWithLogits": _sigmoid_cross_entropy,
    "softmax_cross_entropy_with_logits": _dense_cross_entropy,
    # the activation rows refuse integers
    "Gelu": lambda: [_naming(BadCall(tf.nn.gelu, tf.constant([1, 2])), "Gelu")],
    "GeluTanh": lambda: [_naming(BadCall(tf.nn.gelu, tf.constant([1, 2]), approximate=True), "GeluTanh")],
    "Silu": lambda: [_naming(BadCall(tf.nn.silu, tf.constant([1, 2])), "Silu")],
    "ReluGrad": _activation_grad("ReluGrad"), "EluGrad": _activation_grad("EluGrad"),
    "dropout": _dropout,
    # a NumPy int64 id beyond int32 stays int64 (it wrapped to a valid row), as TF
    "embedding_lookup": lambda: [
        _naming(BadCall(tf.nn.embedding_lookup, tf.ones((5, 2)), np.array([2 ** 32 + 1])), "embedding_lookup", "[0, 5)"),
        _naming(BadCall(tf.nn.embedding_lookup, tf.ones((5, 2)), [2 ** 32 + 1]), "embedding_lookup"),
        _naming(BadCall(tf.nn.embedding_lookup, tf.ones((5, 2)), [0.5]), "embedding_lookup", "float32")],
}
