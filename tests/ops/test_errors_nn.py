"""Bad inputs to the nn ops raise InvalidArgumentError (or ValueError) naming the op, never crash."""
import numpy as np
import pytest

import tapegrad as tf

IAE = tf.errors.InvalidArgumentError
_sparse_grad = tf._core.op("SparseSoftmaxCrossEntropyWithLogitsGrad")


def _raises(op_name, fn, *args, **kwargs):
    with pytest.raises(IAE) as e:
        fn(*args, **kwargs)
    assert op_name in str(e.value), str(e.value)
    return str(e.value)


@pytest.mark.parametrize("fn,op", [(tf.nn.softmax, "Softmax"), (tf.nn.log_softmax, "LogSoftmax")])
def test_softmax_family_errors(fn, op):
    _raises(op, fn, tf.constant([1, 2, 3]))                      # integer logits
    _raises(op, fn, tf.constant(1.0))                            # scalar logits
    msg = _raises(op, fn, tf.ones((2, 3)), axis=2)              # axis out of range
    assert "axis 2" in msg
    _raises(op, fn, tf.ones((2, 3)), axis=-3)


def test_sparse_cross_entropy_label_out_of_range():
    logits = tf.ones((2, 3))
    msg = _raises("SparseSoftmaxCrossEntropyWithLogits", tf.nn.sparse_softmax_cross_entropy_with_logits,
                  [0, 3], logits)
    assert "3" in msg and "[0, 3)" in msg
    _raises("SparseSoftmaxCrossEntropyWithLogits", tf.nn.sparse_softmax_cross_entropy_with_logits, [-1, 0], logits)
    big = tf.constant(np.array([0, 2 ** 40], np.int64))
    _raises("SparseSoftmaxCrossEntropyWithLogits", tf.nn.sparse_softmax_cross_entropy_with_logits, big, logits)
    _raises("SparseSoftmaxCrossEntropyWithLogitsGrad", _sparse_grad, logits, tf.constant([5, 0]))


def test_sparse_cross_entropy_bad_labels_and_logits():
    op = "SparseSoftmaxCrossEntropyWithLogits"
    f = tf.nn.sparse_softmax_cross_entropy_with_logits
    _raises(op, f, tf.constant([0.0, 1.0]), tf.ones((2, 3)))     # float labels
    _raises(op, f, [0, 1, 2], tf.ones((2, 3)))                    # batch size mismatch
    _raises(op, f, [[0, 1]], tf.ones((2, 3)))                     # labels rank != logits rank - 1
    _raises(op, f, [0, 1], tf.constant([[1, 2], [3, 4]]))         # integer logits
    _raises(op, f, 0, tf.constant(1.0))                           # scalar logits
    _raises(op, f, [0], tf.ones((1, 0)))                          # no classes: every label is invalid


def test_sparse_cross_entropy_error_leaves_tape_usable():
    x = tf.ones((2, 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(IAE):
            tf.nn.sparse_softmax_cross_entropy_with_logits([0, 9], x)
        loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits([0, 2], x))
    assert tape.gradient(loss, x).shape == (2, 3)


def test_sigmoid_cross_entropy_errors():
    op = "SigmoidCrossEntropyWithLogits"
    f = tf.nn.sigmoid_cross_entropy_with_logits
    _raises(op, f, labels=tf.ones((2, 3)), logits=tf.ones((3,)))   # shapes must match exactly
    _raises(op, f, labels=tf.constant([1, 0]), logits=tf.constant([1.0, 2.0]))  # int labels
    _raises(op, f, labels=tf.constant([1, 0]), logits=tf.constant([1, 2]))      # int logits
    with pytest.raises(ValueError):
        f(logits=tf.ones((2,)))


def test_dense_cross_entropy_errors():
    with pytest.raises(IAE):
        tf.nn.softmax_cross_entropy_with_logits(tf.ones((2, 4)), tf.ones((2, 3)))
    _raises("LogSoftmax", tf.nn.softmax_cross_entropy_with_logits, tf.ones((2, 3)), tf.ones((2, 3)), axis=5)


@pytest.mark.parametrize("fn,op", [(tf.nn.gelu, "Gelu"), (lambda x: tf.nn.gelu(x, approximate=True), "GeluTanh"),
                                   (tf.nn.silu, "Silu")])
def test_activation_rows_reject_integers(fn, op):
    _raises(op, fn, tf.constant([1, 2]))


def test_dropout_errors():
    x = tf.ones((3, 4))
    for rate in (-0.1, 1.0, 1.5):
        with pytest.raises(ValueError, match="dropout"):
            tf.nn.dropout(x, rate)
    with pytest.raises(ValueError, match="dropout"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)
    _raises("dropout", tf.nn.dropout, x, 0.5, noise_shape=[3, 2])
    _raises("dropout", tf.nn.dropout, x, 0.5, noise_shape=[4])


@pytest.mark.parametrize("op", ["ReluGrad", "EluGrad"])
def test_activation_grad_op_errors(op):
    f = tf._core.op(op)
    _raises(op, f, tf.constant([1, 2]), tf.constant([1, 2]))          # integer inputs
    _raises(op, f, tf.ones((2, 3)), tf.ones((4,)))                      # shapes do not broadcast
    _raises(op, f, tf.ones((2,)), tf.ones((2,), tf.float64))            # mixed dtypes
