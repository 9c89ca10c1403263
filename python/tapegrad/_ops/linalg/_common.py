"""Pieces of tf.linalg's ops that several of them run on tensors already converted: the norms, broadcasts
to a shape tensor, and the triangular and Cholesky solves with their leading axes broadcast."""
import numpy as np

from tapegrad import _core, errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.shapes import dynamic_broadcast, join
from tapegrad._ops._lib.tensors import safe_sqrt
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.math.reduction import reduce_max, reduce_sum
from tapegrad._tensor.tensor import Tensor, convert_to_tensor, shape

_abs, _pow = _raw.Abs, _raw.Pow


def _error(msg):
    return _core.InvalidArgumentError(msg)


def norm(x, ord, axis, keepdims):
    """tf.linalg.norm of the tensor x, its arguments checked (the errors name Norm or norm)."""
    matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if matrix:
        ax = [convert_arg(a, "int", "norm", "axis") for a in axis]
        if not all(-x.ndim <= a < x.ndim for a in ax) or ax[0] % x.ndim == ax[1] % x.ndim:
            raise _error(f"Norm: axis {axis} must be two distinct axes of a tensor of shape {tuple(x.shape)}")
        if ord not in ("euclidean", "fro", 1, np.inf):
            raise ValueError(f"norm: ord={ord!r} is not supported for matrices ('euclidean', 'fro', 1, np.inf)"
                             + (" (ord=2 needs a singular value decomposition)" if ord == 2 else ""))
    else:
        if isinstance(axis, (list, tuple)):
            if len(axis) != 1:
                raise ValueError(f"norm: axis must be None, an int or a pair of ints, got {axis!r}")
            axis = axis[0]
        ax = None if axis is None else [convert_arg(axis, "int", "norm", "axis")]
        if ax is not None and not -x.ndim <= ax[0] < max(x.ndim, 1):
            raise _error(f"Norm: axis {axis} is out of range for a tensor of shape {tuple(x.shape)}")
        if ord not in ("euclidean", "fro") and (isinstance(ord, str) or not ord > 0):
            raise ValueError(f"norm: ord={ord!r} is not supported for vectors ('euclidean', 'fro', 1, 2, np.inf "
                             "or any positive number)")
    if ord in ("euclidean", "fro") or (ord == 2 and not matrix):
        result = safe_sqrt(reduce_sum(x * x, ax, keepdims=True))
    elif matrix:
        first, second = (ax[0], ax[1]) if ord == 1 else (ax[1], ax[0])
        result = reduce_max(reduce_sum(_abs(x), first, keepdims=True), second, keepdims=True)
    elif ord == np.inf:
        result = reduce_max(_abs(x), ax, keepdims=True)
    elif ord == 1:
        result = reduce_sum(_abs(x), ax, keepdims=True)
    else:
        result = _pow(reduce_sum(_pow(_abs(x), float(ord)), ax, keepdims=True), 1.0 / float(ord))
    if keepdims:
        return result
    reduced = set(range(x.ndim)) if ax is None else {a % x.ndim for a in ax}
    return _raw.Squeeze(result, axis=sorted(reduced)) if reduced else result  # (sizes that vary stay run-time ones)


def common_batch(matrix, rhs, fn):
    """matrix and rhs broadcast to the same leading axes (TF's triangular_solve broadcasts them)."""
    a = matrix if isinstance(matrix, Tensor) else convert_to_tensor(matrix)
    b = rhs if isinstance(rhs, Tensor) else convert_to_tensor(rhs, dtype_hint=a.dtype)
    sa, sb = a._shape, b._shape
    if len(sa) >= 2 and len(sb) >= 2 and (_core._varying_dims(a) or _core._varying_dims(b)):
        return _common_batch_at_run_time(a, b)
    if len(sa) < 2 or len(sb) < 2 or sa[:-2] == sb[:-2]:
        return a, b
    try:
        batch = list(np.broadcast_shapes(tuple(sa[:-2]), tuple(sb[:-2])))
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"{fn}: the leading dimensions of matrix {list(sa)} and rhs "
                                                      f"{list(sb)} do not broadcast") from None
    return _raw.BroadcastTo(a, shape=batch + list(sa[-2:])), _raw.BroadcastTo(b, shape=batch + list(sb[-2:]))


def _common_batch_at_run_time(a, b):
    """common_batch for a matrix or rhs whose sizes change from call to call of the tf.function being
    traced: the leading axes broadcast at run time (the traced ones may not be the later calls')."""
    sa, sb = shape(a), shape(b)
    batch = _raw.BroadcastArgs(sa[:-2], sb[:-2])
    return dynamic_broadcast(a, join([batch, sa[-2:]])), dynamic_broadcast(b, join([batch, sb[-2:]]))


def triangular_solve(matrix, rhs, lower, adjoint):
    """X with matrix @ X = rhs for triangular matrices, the leading axes broadcast."""
    a, b = common_batch(matrix, rhs, "triangular_solve")
    return _raw.MatrixTriangularSolve(a, b, lower=bool(lower), adjoint=bool(adjoint))


def cholesky_solve(chol, rhs):
    """X with A @ X = rhs, given A's Cholesky factor ``chol``: two triangular solves."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)
