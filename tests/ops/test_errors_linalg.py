"""Bad inputs to the linear-algebra ops raise errors naming the op; norms behave at zero and infinity."""
import numpy as np
import pytest

import tapegrad as tf

E = tf.errors.InvalidArgumentError
A = tf.ones((2, 3))


def test_matmul_rejects_bad_shapes_and_dtypes():
    with pytest.raises(E, match="MatMul: inner dimensions differ .*float32\\(2, 3\\) and float32\\(2, 3\\)"):
        tf.matmul(A, A)
    with pytest.raises(E, match="MatMul: inputs must have the same dtype .*float32\\(2, 3\\) and float64"):
        tf.matmul(A, tf.ones((3, 2), dtype=tf.float64))
    with pytest.raises(E, match="MatMul: inputs must have rank >= 2"):
        tf.matmul(A, tf.ones((3,)))
    with pytest.raises(E, match="MatMul: batch dimensions do not broadcast"):
        tf.matmul(tf.ones((2, 2, 3)), tf.ones((3, 3, 4)))
    with pytest.raises(E, match="MatMul: bool inputs are not supported"):
        tf.matmul(tf.ones((2, 2), dtype=tf.bool), tf.ones((2, 2), dtype=tf.bool))
    with pytest.raises(E, match="MatMul: inner dimensions differ .*\\(transpose_b\\)"):
        tf.matmul(A, tf.ones((3, 2)), transpose_b=True)


def test_matvec_rejects_bad_shapes():
    with pytest.raises(E, match="MatVec: b must have rank >= 1"):
        tf.linalg.matvec(A, 1.0)
    with pytest.raises(E, match="MatMul: inner dimensions differ"):
        tf.linalg.matvec(A, tf.ones((2,)))


def test_tensordot_rejects_bad_axes():
    with pytest.raises(E, match="Tensordot: axes=3 is invalid"):
        tf.tensordot(A, A, 3)
    with pytest.raises(E, match="Tensordot: axes=-1 is invalid"):
        tf.tensordot(A, A, -1)
    with pytest.raises(E, match="Tensordot: axis 2 is out of range for a of rank 2"):
        tf.tensordot(A, A, [[2], [0]])
    with pytest.raises(E, match="Tensordot: axes \\[1\\] of \\(2, 3\\) and \\[0\\] of \\(2, 3\\) do not match"):
        tf.tensordot(A, A, [[1], [0]])
    with pytest.raises(E, match="Tensordot: axes must be an int or a pair"):
        tf.tensordot(A, A, [[1], [0], [1]])


@pytest.mark.parametrize("equation,shapes,message", [
    ("ij,jk->ik", [(2, 3)], "names 2 operands, got 1"),
    ("ij,jk->ik", [(2, 3), (4, 5)], "label 'j' has sizes 3 and 4"),
    ("i1->i", [(2, 3)], "invalid labels \\['1'\\]"),
    ("ij->k", [(2, 3)], "output labels \\['k'\\] .* appear in no input"),
    ("ij->ii", [(2, 3)], "repeats a label"),
    ("ijk->i", [(2, 3)], "term 'ijk' .* does not match an operand of shape \\(2, 3\\)"),
    ("ij->i->j", [(2, 3)], "more than one '->'"),
    ("i..j->i", [(2, 3)], "invalid ellipsis"),
    ("...i,...i->...", [(2, 3), (4, 3)], "label '...' has sizes 2 and 4"),
    ("ii->i", [(2, 3)], "label 'i' has sizes 2 and 3"),
])
def test_einsum_rejects_bad_equations(equation, shapes, message):
    with pytest.raises(E, match="Einsum: .*" + message):
        tf.einsum(equation, *[tf.ones(s) for s in shapes])


def test_einsum_rejects_mixed_dtypes_and_no_operands():
    with pytest.raises(E, match="Einsum: operands must have one dtype"):
        tf.einsum("i,i->", tf.ones(2), tf.ones(2, dtype=tf.float64))
    with pytest.raises(E, match="Einsum: no operands"):
        tf.einsum("i->i")


def test_norm_rejects_bad_ord_and_axis():
    with pytest.raises(ValueError, match="norm: ord=-1 is not supported for vectors"):
        tf.norm(A, ord=-1)
    with pytest.raises(ValueError, match="norm: ord='nuc' is not supported for vectors"):
        tf.norm(A, ord="nuc")
    with pytest.raises(ValueError, match="norm: ord=2 is not supported for matrices .*singular value"):
        tf.norm(A, ord=2, axis=[0, 1])
    with pytest.raises(E, match="Norm: axis \\[1, -1\\] must be two distinct axes"):
        tf.norm(A, axis=[1, -1])
    with pytest.raises(E, match="Norm: axis 2 is out of range"):
        tf.norm(A, axis=2)
    with pytest.raises(ValueError, match="norm: axis must be None, an int or a pair"):
        tf.norm(A, axis=[0, 1, 0])


def test_norm_clipping_reject_non_sequences():
    with pytest.raises(TypeError, match="global_norm: t_list must be a sequence"):
        tf.linalg.global_norm(A)
    with pytest.raises(TypeError, match="clip_by_global_norm: t_list must be a sequence"):
        tf.clip_by_global_norm(A, 1.0)


# Edge values: the Euclidean norm's gradient at zero is exactly 0; an infinite global norm gives NaN.

@pytest.mark.parametrize("fn,want", [
    (tf.norm, 0.0), (lambda x: tf.norm(x, axis=[0, 1]), 0.0), (lambda x: tf.linalg.global_norm([x, None, x]), 0.0),
    (tf.math.reduce_euclidean_norm, 0.0), (lambda x: tf.reduce_sum(tf.clip_by_norm(x, 1.0)), 1.0),
])
def test_norm_gradient_at_zero_is_finite_and_exact(fn, want):
    x = tf.zeros((2, 2), dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    assert float(y) == 0.0
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.full((2, 2), want))


def test_clip_by_global_norm_of_infinite_norm_is_nan_and_passes_none():
    clipped, n = tf.clip_by_global_norm([tf.constant([np.inf, 1.0]), None], 1.0)
    assert float(n) == np.inf
    assert np.all(np.isnan(clipped[0].numpy())) and clipped[1] is None


def test_clip_by_global_norm_leaves_small_tensors_alone():
    (c,), n = tf.clip_by_global_norm([tf.constant([0.3, 0.4])], 1.0)
    np.testing.assert_allclose(c.numpy(), [0.3, 0.4], rtol=1e-6)
    np.testing.assert_allclose(float(n), 0.5, rtol=1e-6)
