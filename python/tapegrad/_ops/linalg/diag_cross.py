"""More of tf.linalg, composed of registered ops: diag and set_diag (a select against a constant
diagonal mask, so entries off the diagonal are never multiplied by anything and NaN stays where it
is), tensor_diag / tensor_diag_part (the same on the flattened tensor), normalize and cross."""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import dtypes, errors
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.arrays import concat, expand_dims
from tapegrad._ops._lib.shapes import diag_last_two, refuse_varying
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.linalg._common import norm
from tapegrad._tensor.tensor import cast, constant
from tapegrad._ops import _raw

__all__ = ["diag", "set_diag", "tensor_diag", "tensor_diag_part", "normalize", "cross"]

_InvalidArgument = errors.InvalidArgumentError
_reshape = _raw.Reshape


def _padded(d, before, after):
    """d with ``before`` and ``after`` zeros around its last axis."""
    parts = []
    for n in (before, after):
        shape = list(d.shape[:-1]) + [n]
        parts.append(constant(np.zeros(shape, d.dtype.as_numpy_dtype)) if n else None)
    return concat([p for p in (parts[0], d, parts[1]) if p is not None], -1) if before or after else d


def _place(d, mask, background):
    """A [..., rows, cols] matrix with d[..., j] at the True entries of ``mask`` (one per column at
    most) and ``background`` elsewhere."""
    return select(constant(mask), expand_dims(d, -2), background)


def _diag_size(n, k, num_rows, num_cols):
    """(rows, cols) as TF's MatrixDiag chooses them for a diagonal of length n on diagonal k."""
    min_rows, min_cols = n + max(-k, 0), n + max(k, 0)
    if num_rows == -1 and num_cols == -1:
        return max(min_rows, min_cols), max(min_rows, min_cols)
    rows = min_rows if num_rows == -1 else num_rows
    cols = min_cols if num_cols == -1 else num_cols
    if rows < min_rows or cols < min_cols:
        raise _InvalidArgument(f"diag: the number of rows or columns ({rows}, {cols}) is too small for a "
                               f"diagonal of length {n} at k={k}")
    if rows != min_rows and cols != min_cols:
        raise _InvalidArgument(f"diag: the number of rows or columns ({rows}, {cols}) is not consistent "
                               f"with a diagonal of length {n} at k={k}")
    return rows, cols


@dispatch
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """A batch of matrices with ``diagonal`` ([..., n]) on diagonal ``k`` and ``padding_value``
    elsewhere; num_rows / num_cols (-1: the smallest that fit) make it rectangular. Supported: one
    diagonal k, and k != 0 only for the default square size; other cases raise UnimplementedError."""
    d = convert_arg(diagonal, "tensor", "diag", "diagonal")
    if isinstance(k, (list, tuple)) or hasattr(k, "shape") and len(k.shape):
        raise errors.UnimplementedError("diag: a range of diagonals (k a pair) is not supported")
    k = convert_arg(k, "int", "diag", "k")
    num_rows = convert_arg(num_rows, "int", "diag", "num_rows")
    num_cols = convert_arg(num_cols, "int", "diag", "num_cols")
    if k != 0 and (num_rows, num_cols) != (-1, -1):
        raise errors.UnimplementedError("diag: num_rows / num_cols with k != 0 are not supported")
    if d.ndim < 1:
        raise _InvalidArgument(f"diag: diagonal must be at least 1-D, got shape {tuple(d.shape)}")
    refuse_varying(d, "diag", "the matrices' size and the mask of their diagonal would keep the traced sizes")
    n = d.shape[-1]
    rows, cols = _diag_size(n, k, num_rows, num_cols)
    if rows * cols > 2 ** 31:  # the mask is a constant of the output's size
        raise errors.ResourceExhaustedError(f"diag: an output of {rows} x {cols} matrices is too large")
    padding = convert_arg(padding_value, "tensor", "diag", "padding_value")
    padding = padding if padding.dtype == d.dtype else cast(padding, d.dtype)
    before = max(k, 0)
    return _place(_padded(d, before, cols - n - before), np.eye(rows, cols, k, dtype=bool), padding)


@dispatch
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    """``input`` ([..., m, n]) with its main diagonal replaced by ``diagonal`` ([..., min(m, n)]);
    only k=0 is supported (UnimplementedError otherwise)."""
    x = convert_arg(input, "tensor", "set_diag", "input")
    d = convert_arg(diagonal, "tensor", "set_diag", "diagonal", x.dtype)
    if isinstance(k, (list, tuple)) or convert_arg(k, "int", "set_diag", "k") != 0:
        raise errors.UnimplementedError(f"set_diag: only k=0 is supported, got k={k!r}")
    if x.ndim < 2:
        raise _InvalidArgument(f"set_diag: input must be at least 2-D, got shape {tuple(x.shape)}")
    if x.dtype != d.dtype:
        raise _InvalidArgument(f"set_diag: diagonal must have input's dtype {x.dtype.name}, got {d.dtype.name}")
    for t in (x, d):
        refuse_varying(t, "set_diag", "the mask of the diagonal would keep the traced sizes")
    *batch, m, n = x.shape
    if list(d.shape) != batch + [min(m, n)]:
        raise _InvalidArgument(f"set_diag: diagonal must have shape {tuple(batch + [min(m, n)])} for input of "
                               f"shape {tuple(x.shape)}, got {tuple(d.shape)}")
    return _place(_padded(d, 0, n - min(m, n)), np.eye(m, n, dtype=bool), x)


def _no_bool(x, fn, arg):
    if x.dtype == dtypes.bool:
        raise _InvalidArgument(f"{fn}: {arg} of dtype bool is not supported")


@dispatch("diagonal")
def tensor_diag(diagonal, *, name=None):
    """The tensor of shape s + s (s the diagonal's shape, rank >= 1) with out[i, i] = diagonal[i]
    for every multi-index i, zero elsewhere."""
    d = diagonal
    _no_bool(d, "tensor_diag", "diagonal")
    refuse_varying(d, "tensor_diag", "the mask of the diagonal would keep the traced sizes")
    if d.ndim < 1:
        raise _InvalidArgument(f"tensor_diag: diagonal must be at least rank 1, got shape {tuple(d.shape)}")
    size = int(np.prod(d.shape, dtype=np.int64))
    flat = _place(_reshape(d, shape=[size]), np.eye(size, dtype=bool), constant(0, dtype=d.dtype))
    return _reshape(flat, shape=list(d.shape) * 2)


@dispatch("input")
def tensor_diag_part(input, *, name=None):
    """The inverse of tensor_diag: from a tensor of shape s + s, the entries at [i, i], of shape s."""
    x = input
    _no_bool(x, "tensor_diag_part", "input")
    refuse_varying(x, "tensor_diag_part", "the flattened diagonal would keep the traced sizes")
    half = x.ndim // 2
    if x.ndim % 2 or list(x.shape[:half]) != list(x.shape[half:]):
        raise _InvalidArgument(f"tensor_diag_part: input's shape must be s + s, got {tuple(x.shape)}")
    size = int(np.prod(x.shape[:half], dtype=np.int64))
    return _reshape(diag_last_two(_reshape(x, shape=[size, size])), shape=list(x.shape[:half]))


# ord is a string or a number; axis an int or a list of ints, converted as it is given (as norm takes it)
@dispatch("tensor, ord:any='euclidean', axis:any=None")
def normalize(tensor, ord="euclidean", axis=None, *, name=None):
    """(tensor / norm, norm): the norm as tf.linalg.norm computes it, its axes kept."""
    x = tensor
    if not x.dtype.is_floating:
        raise _InvalidArgument(f"normalize: tensor must be float32 or float64, got {x.dtype.name}")
    if axis is not None:
        kind = "ints" if isinstance(axis, (list, tuple)) else "int"
        axis = convert_arg(axis, kind, "normalize", "axis")
    n = norm(x, ord, axis, keepdims=True)
    n = n if n.dtype == x.dtype else cast(n, x.dtype)
    return x / n, n


# a keeps its own dtype and b takes it (the binder would give a Python a the dtype of a tensor b)
@dispatch("a, b:any")
def cross(a, b, *, name=None):
    """The cross product over the last axis (of size 3) of two tensors of one shape and dtype."""
    b = convert_arg(b, "tensor", "cross", "b", a.dtype)
    if a.dtype != b.dtype:
        raise _InvalidArgument(f"cross: a and b must have the same dtype, got {a.dtype.name} and {b.dtype.name}")
    if a.ndim < 1:
        raise _InvalidArgument(f"cross: inputs must be at least 1-D, got shape {tuple(a.shape)}")
    if tuple(a.shape) != tuple(b.shape):
        raise _InvalidArgument(f"cross: both inputs must have the same shape, got {tuple(a.shape)} and "
                               f"{tuple(b.shape)}")
    if a.shape[-1] != 3:
        raise errors.FailedPreconditionError(f"cross: cross products are only defined for 3-element vectors, "
                                             f"got shape {tuple(a.shape)}")
    yzx, zxy = constant(np.array([1, 2, 0], np.int32)), constant(np.array([2, 0, 1], np.int32))
    return _last_at(a, yzx) * _last_at(b, zxy) - _last_at(a, zxy) * _last_at(b, yzx)


def _last_at(t, positions):
    """t's entries at ``positions`` (int32) along its last axis."""
    return _raw.GatherV2(t, positions, axis=t.ndim - 1, batch_dims=0)
