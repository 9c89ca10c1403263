"""Rows for MatMul and the linear-algebra composites (matvec, tensordot, einsum, norms, clipping)."""
import numpy as np

import tapegrad as tf
from opinfo import linalg_edges, linalg_errors
from opinfo.core import OpInfo, SampleInput, attach_edge_samples, attach_error_inputs


def _u(rng, shape, dtype, lo=-2.0, hi=2.0):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-4, 5, size=shape).astype(dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def _matmul_samples(rng, dtype):
    cases = [
        ((2, 3), (3, 4), {}),
        ((3, 2), (3, 4), {"transpose_a": True}),
        ((2, 3), (4, 3), {"transpose_b": True}),
        ((3, 2), (4, 3), {"transpose_a": True, "transpose_b": True}),
        ((2, 2, 3), (2, 3, 4), {}),                        # batched
        ((2, 1, 2, 3), (3, 3, 2), {}),                     # batch dims broadcast
        ((4, 2, 3), (3, 2), {}),                           # batch against a matrix
        ((2, 3, 2), (1, 4, 3), {"transpose_a": True, "transpose_b": True}),
        ((1, 1), (1, 5), {}), ((2, 0), (0, 3), {}),        # outer product; empty inner dimension
    ]
    for sa, sb, kw in cases:
        yield SampleInput([_u(rng, sa, dtype), _u(rng, sb, dtype)], kw)


def _matmul_ref(a, b, transpose_a=False, transpose_b=False):
    return np.matmul(np.swapaxes(a, -1, -2) if transpose_a else a, np.swapaxes(b, -1, -2) if transpose_b else b)


def _matvec_samples(rng, dtype):
    for sa, sb, kw in [((2, 3), (3,), {}), ((3, 2), (3,), {"transpose_a": True}), ((4, 2, 3), (4, 3), {}),
                       ((2, 3), (5, 3), {})]:
        yield SampleInput([_u(rng, sa, dtype), _u(rng, sb, dtype)], kw)


def _matvec_ref(a, b, transpose_a=False):
    return _matmul_ref(a, b[..., None], transpose_a)[..., 0]


def _tensordot_samples(rng, dtype):
    for sa, sb, axes in [((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 2), 2), ((2, 3), (4,), 0),
                         ((3, 2, 4), (4, 3), [[0, 2], [1, 0]]), ((2, 3), (2, 5), [[0], [0]]),
                         ((2, 3), (3, 2), [-1, 0]), ((2, 3), (2, 3), 2)]:
        yield SampleInput([_u(rng, sa, dtype), _u(rng, sb, dtype), axes])


EINSUM_CASES = [
    ("ij,jk->ik", (2, 3), (3, 4)), ("bij,bjk->bik", (2, 2, 3), (2, 3, 4)), ("i,i->", (5,), (5,)),
    ("ij->ji", (2, 3)), ("ij->", (2, 3)), ("bi,bi->b", (3, 4), (3, 4)), ("i,j->ij", (3,), (4,)),
    ("ij,jk", (2, 3), (3, 2)), ("ii->i", (3, 3)), ("ii", (3, 3)), ("ij,ij->ij", (2, 3), (2, 3)),
    ("...ij,...jk->...ik", (2, 2, 3), (3, 4)), ("b...i,bi->b...", (2, 3, 4), (2, 4)),
    ("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)), ("i,jk->", (3,), (2, 2)), ("bij,bkj->bik", (2, 2, 3), (2, 4, 3)),
    ("ibj,jbk->bik", (2, 3, 4), (4, 3, 2)), ("ijk->kij", (2, 3, 4)), ("...,...->...", (2, 1), (3,)),
]


def _einsum_samples(rng, dtype):
    for eq, *shapes in EINSUM_CASES:
        yield SampleInput([eq] + [_u(rng, s, dtype) for s in shapes])


def _norm_samples(rng, dtype):
    x = _u(rng, (3, 4), dtype)
    for kw in [{}, {"axis": 1}, {"axis": -2, "keepdims": True}, {"ord": 1}, {"ord": 1, "axis": 0},
               {"ord": 2, "axis": 1}, {"ord": np.inf, "axis": 1}, {"ord": 3, "axis": 0}, {"ord": "fro"},
               {"ord": "fro", "axis": [0, 1]}, {"ord": 1, "axis": [0, 1]}, {"ord": np.inf, "axis": [-1, 0]},
               {"ord": "euclidean", "axis": (1, 0), "keepdims": True}]:
        yield SampleInput([x], kw)
    yield SampleInput([_u(rng, (2, 3, 4), dtype)], {"axis": [1, 2]})


def _norm_ref(x, ord="euclidean", axis=None, keepdims=False):
    if axis is None:
        return np.linalg.norm(x.reshape(-1), ord=None if ord in ("euclidean", "fro") else ord,
                              keepdims=False).reshape((1,) * x.ndim if keepdims else ())
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        return np.linalg.norm(x, ord="fro" if ord == "euclidean" else ord, axis=tuple(axis), keepdims=keepdims)
    return np.linalg.norm(x, ord=None if ord in ("euclidean", "fro") else ord, axis=axis, keepdims=keepdims)


def _zero_norm_samples(rng, dtype):
    # the Euclidean norm's gradient at 0 is 0 (a subgradient), never NaN
    yield SampleInput([np.zeros((3,), dtype)])
    yield SampleInput([np.array([[0.0, 0.0], [3.0, -4.0]], dtype)], {"axis": 1})
    yield SampleInput([np.zeros((2, 2), dtype)], {"ord": "fro", "axis": [0, 1]})


def _global_norm_samples(rng, dtype):
    yield SampleInput([_u(rng, (2, 3), dtype), _u(rng, (4,), dtype), _u(rng, (), dtype)])
    yield SampleInput([np.zeros((3,), dtype), np.zeros((2,), dtype)])


def _clip_samples(rng, dtype):
    for scale, kw in [(0.2, {}), (3.0, {}), (3.0, {"axes": [1]}), (0.2, {"axes": 0})]:
        yield SampleInput([(_u(rng, (2, 3), dtype) * scale).astype(dtype), 1.5], kw)


def _clip_ref(t, clip_norm, axes=None):
    n = np.sqrt(np.sum(t * t, axis=tuple(axes) if isinstance(axes, list) else axes, keepdims=True))
    return t * clip_norm / np.maximum(n, clip_norm)


def _clip_global(a, b, clip_norm):
    (ca, none, cb), n = tf.clip_by_global_norm([a, None, b], clip_norm)
    assert none is None
    return ca + tf.reduce_sum(cb) + n


def _clip_global_ref(a, b, clip_norm):
    n = np.sqrt(np.sum(a * a) + np.sum(b * b))
    s = clip_norm / max(n, clip_norm)
    return a * s + np.sum(b * s) + n


def _clip_global_samples(rng, dtype):
    for scale in (0.1, 3.0):
        yield SampleInput([(_u(rng, (2, 3), dtype) * scale).astype(dtype), (_u(rng, (4,), dtype) * scale).astype(dtype),
                           1.5])


# The Einsum op's own equations: attention's head layouts, transposed operands and outputs, outer
# products, dot products (the kernel folds, copies or writes through a buffer by layout)
EINSUM_OP_CASES = [("bqhd,bkhd->bhqk", (2, 3, 2, 4), (2, 5, 2, 4)), ("bhqk,bkhd->bqhd", (2, 2, 3, 5), (2, 5, 2, 4)),
                   ("ij,kj->ki", (3, 4), (5, 4)), ("abc,cd->dba", (2, 3, 4), (4, 2)), ("ab,cd->abcd", (2, 3), (2, 2)),
                   ("abc,abc->ab", (2, 3, 4), (2, 3, 4)), ("ijk,jil->kl", (3, 2, 4), (2, 3, 2)),
                   ("bqhd,hde->bqe", (2, 3, 2, 2), (2, 2, 3))]


def _einsum_op_samples(rng, dtype):
    for eq, sa, sb in EINSUM_OP_CASES:
        yield SampleInput([_u(rng, sa, dtype), _u(rng, sb, dtype)], {"equation": eq})


_einsum_op = tf._core.op("Einsum")

rows = [
    OpInfo("Einsum", _einsum_op, lambda a, b, equation: np.einsum(equation, a, b), samples=_einsum_op_samples,
           order=2, public=(tf.einsum,)),
    OpInfo("MatMul", tf.matmul, _matmul_ref, samples=_matmul_samples, order=2,
           dtypes=("float32", "float64", "int32")),
    # composites
    OpInfo("matvec", tf.linalg.matvec, _matvec_ref, samples=_matvec_samples, order=2, op=None),
    OpInfo("tensordot", tf.tensordot, lambda a, b, axes: np.tensordot(a, b, axes), samples=_tensordot_samples,
           order=2, op=None),
    OpInfo("einsum", tf.einsum, np.einsum, samples=_einsum_samples, order=2, op=None),
    OpInfo("norm", tf.norm, _norm_ref, samples=_norm_samples, op=None),
    OpInfo("norm_at_zero", tf.norm, _norm_ref, samples=_zero_norm_samples, op=None),
    OpInfo("global_norm", lambda *ts: tf.linalg.global_norm(list(ts)),
           lambda *ts: np.sqrt(sum(np.sum(t * t) for t in ts)), samples=_global_norm_samples, op=None),
    OpInfo("clip_by_norm", tf.clip_by_norm, _clip_ref, samples=_clip_samples, order=2, op=None),
    OpInfo("clip_by_global_norm", _clip_global, _clip_global_ref, samples=_clip_global_samples, order=2, op=None),
]

attach_error_inputs(rows, linalg_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/linalg_errors.py
attach_edge_samples(rows, linalg_edges.EDGE_SAMPLES)  # their edge values, in opinfo/linalg_edges.py
