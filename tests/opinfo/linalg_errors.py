"""Bad calls of the linear-algebra rows (opinfo/linalg.py): errors naming the op, InvalidArgumentError for
bad shapes and dtypes, ValueError or TypeError where TF's Python code refuses first."""
import functools

import tapegrad as tf
from opinfo.core import BadCall

E = tf.errors.InvalidArgumentError


@functools.cache
def _a():
    return tf.ones((2, 3))


def _matmul():
    A = _a()
    return [
        BadCall(tf.matmul, A, A).raises(E, "MatMul: inner dimensions differ .*float32\\(2, 3\\) and float32\\(2, 3\\)"),
        BadCall(tf.matmul, A, tf.ones((3, 2), dtype=tf.float64))
        .raises(E, "MatMul: inputs must have the same dtype .*float32\\(2, 3\\) and float64"),
        BadCall(tf.matmul, A, tf.ones((3,))).raises(E, "MatMul: inputs must have rank >= 2"),
        BadCall(tf.matmul, tf.ones((2, 2, 3)), tf.ones((3, 3, 4)))
        .raises(E, "MatMul: batch dimensions do not broadcast"),
        BadCall(tf.matmul, tf.ones((2, 2), dtype=tf.bool), tf.ones((2, 2), dtype=tf.bool))
        .raises(E, "MatMul: bool inputs are not supported"),
        BadCall(tf.matmul, A, tf.ones((3, 2)), transpose_b=True)
        .raises(E, "MatMul: inner dimensions differ .*\\(transpose_b\\)"),
        BadCall(tf.matmul, tf.zeros([2, 3]), tf.zeros([2, 3]))
        .raises(E, r"MatMul.*inner dimensions.*\(2, 3\).*\(2, 3\)"),
        BadCall(tf.matmul, tf.zeros([3]), tf.zeros([3])).raises(E, "MatMul.*rank"),
    ]


def _tensordot():
    A = _a()
    return [
        BadCall(tf.tensordot, A, A, 3).raises(E, "Tensordot: axes=3 is invalid"),
        BadCall(tf.tensordot, A, A, -1).raises(E, "Tensordot: axes=-1 is invalid"),
        BadCall(tf.tensordot, A, A, [[2], [0]]).raises(E, "Tensordot: axis 2 is out of range for a of rank 2"),
        BadCall(tf.tensordot, A, A, [[1], [0]])
        .raises(E, "Tensordot: axes \\[1\\] of \\(2, 3\\) and \\[0\\] of \\(2, 3\\) do not match"),
        BadCall(tf.tensordot, A, A, [[1], [0], [1]]).raises(E, "Tensordot: axes must be an int or a pair"),
    ]


# Equations einsum refuses, with the operands' shapes and the words its message holds.
_BAD_EQUATIONS = [
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
]


def _einsum():
    return [BadCall(tf.einsum, equation, *[tf.ones(s) for s in shapes]).raises(E, "Einsum: .*" + message)
            for equation, shapes, message in _BAD_EQUATIONS] + [
        BadCall(tf.einsum, "i,i->", tf.ones(2), tf.ones(2, dtype=tf.float64))
        .raises(E, "Einsum: operands must have one dtype"),
        BadCall(tf.einsum, "i->i").raises(E, "Einsum: no operands"),
        BadCall(tf.einsum, 3, tf.ones([2])).raises(TypeError, r"Einsum: the equation must be a string"),
        BadCall(tf.einsum, "i,i->", tf.ones([2]), None).raises(ValueError, r"Einsum: operand 1 is None"),
    ]


def _norm():
    A = _a()
    return [
        BadCall(tf.norm, A, ord=-1).raises(ValueError, "norm: ord=-1 is not supported for vectors"),
        BadCall(tf.norm, A, ord="nuc").raises(ValueError, "norm: ord='nuc' is not supported for vectors"),
        BadCall(tf.norm, A, ord=2, axis=[0, 1])
        .raises(ValueError, "norm: ord=2 is not supported for matrices .*singular value"),
        BadCall(tf.norm, A, axis=[1, -1]).raises(E, "Norm: axis \\[1, -1\\] must be two distinct axes"),
        BadCall(tf.norm, A, axis=2).raises(E, "Norm: axis 2 is out of range"),
        BadCall(tf.norm, A, axis=[0, 1, 0]).raises(ValueError, "norm: axis must be None, an int or a pair"),
    ]


def _einsum_op():
    f, a = tf._core.op("Einsum"), _a()
    return [
        BadCall(f, a, tf.ones((4, 5)), equation="ij,jk->ik").raises(E, "Einsum: .*label 'j' the sizes 3 and 4"),
        BadCall(f, tf.ones((2, 2)), a, equation="ii,ij->j").raises(E, "Einsum: .*repeats label 'i'"),
        BadCall(f, a, tf.ones((3, 4)), equation="ij,jk->i").raises(E, "Einsum: .*sums label 'k' of one operand"),
        BadCall(f, a, tf.ones((3, 4)), equation="ij,jk").raises(E, "Einsum: .*must have the form"),
        BadCall(f, a, tf.ones((3, 4)), equation="ij,jk->iz").raises(E, "Einsum: .*output label 'z' in no operand"),
        BadCall(f, a, tf.ones((3, 4)), equation="i...,jk->ik").raises(E, "Einsum: .*other than a letter"),
        BadCall(f, a, tf.ones((3, 4)), equation="ijk,jk->ik").raises(E, "Einsum: .*every axis"),
        BadCall(f, a, tf.ones((3, 4), tf.float64), equation="ij,jk->ik").raises(E, "Einsum: .*one dtype"),
        BadCall(f, tf.constant([[1, 2]]), tf.constant([[1], [2]]), equation="ij,jk->ik").raises(E, "Einsum: .*float"),
    ]


ERROR_INPUTS = {
    "MatMul": _matmul, "Einsum": _einsum_op, "tensordot": _tensordot, "einsum": _einsum, "norm": _norm,
    "matvec": lambda: [BadCall(tf.linalg.matvec, _a(), 1.0).raises(E, "MatVec: b must have rank >= 1"),
                       BadCall(tf.linalg.matvec, _a(), tf.ones((2,))).raises(E, "MatMul: inner dimensions differ")],
    "global_norm": lambda: [BadCall(tf.linalg.global_norm, _a())
                            .raises(TypeError, "global_norm: t_list must be a sequence")],
    "clip_by_global_norm": lambda: [BadCall(tf.clip_by_global_norm, _a(), 1.0)
                                    .raises(TypeError, "clip_by_global_norm: t_list must be a sequence")],
}
