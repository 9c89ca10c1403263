"""tf.linalg.svd on the Svd / SvdValues ops (cpp/ops/svd.cpp, Note [SVD gradient]), and what it
serves: pinv, matrix_rank and lstsq."""
import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.shapes import refuse_varying
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.linalg._common import cholesky_solve
from tapegrad._ops.math.reduction import reduce_max, reduce_sum
from tapegrad._tensor.tensor import cast

__all__ = ["svd", "pinv", "matrix_rank", "lstsq"]

_svd = _raw.Svd
_values = _raw.SvdValues
_reshape = _raw.Reshape
_matmul = _raw.MatMul
_cholesky = _raw.Cholesky


def _matrix(t, fn, arg):
    if t.ndim < 2:
        raise errors.InvalidArgumentError(None, None, f"{fn}: argument '{arg}' must have rank >= 2, got shape {t.shape}")
    return t


@dispatch("tensor, full_matrices:bool=False, compute_uv:bool=True")
def svd(tensor, full_matrices=False, compute_uv=True, *, name=None):
    """Singular values (descending) of the matrices in the last two axes, and with ``compute_uv`` the
    (s, u, v) with tensor = u diag(s) v^T; each column of u has its largest component positive."""
    t = _matrix(tensor, "svd", "tensor")
    refuse_varying(t, "svd", "its results and their gradient are unpacked to the traced sizes")
    if not compute_uv:
        return _values(t)
    m, n = t._shape[-2], t._shape[-1]
    if full_matrices and m != n:
        raise errors.UnimplementedError(None, None, f"svd: full_matrices=True for non-square matrices ({m} x {n}) "
                                                    "is not supported; use full_matrices=False")
    k = min(m, n)
    batch = list(t._shape[:-2])
    packed = _svd(t)
    s = packed[..., :k]
    u = _reshape(packed[..., k:k + m * k], shape=batch + [m, k])
    v = _reshape(packed[..., k + m * k:], shape=batch + [n, k])
    return s, u, v


def _cutoff(s, m, n, given, dtype):
    """The singular values below it count as zero: given, or max(m, n) * eps * the largest (NumPy's rule)."""
    if given is not None:
        return given
    eps = float(np.finfo(dtype.as_numpy_dtype).eps)
    return reduce_max(s, axis=-1, keepdims=True) * (max(m, n) * eps)


@dispatch("a, rcond:any=None, validate_args:any=False")
def pinv(a, rcond=None, validate_args=False, *, name=None):
    """The Moore-Penrose pseudo-inverse: v diag(1/s) u^T over the singular values above rcond * the largest."""
    t = _matrix(a, "pinv", "a")
    s, u, v = svd(t)
    m, n = t._shape[-2], t._shape[-1]
    if rcond is None:
        rcond = 10.0 * max(m, n) * float(np.finfo(t.dtype.as_numpy_dtype).eps)
    keep = s > reduce_max(s, axis=-1, keepdims=True) * rcond
    inv_s = select(keep, 1.0 / select(keep, s, 1.0), 0.0)
    return _matmul(v * inv_s[..., None, :], u, transpose_a=False, transpose_b=True)


@dispatch("a, tol:any=None, validate_args:any=False")
def matrix_rank(a, tol=None, validate_args=False, *, name=None):
    """The number of singular values above ``tol`` (default: max(m, n) * eps * the largest), int32."""
    t = _matrix(a, "matrix_rank", "a")
    s = svd(t, compute_uv=False)
    cut = _cutoff(s, t._shape[-2], t._shape[-1], tol, t.dtype)
    return reduce_sum(cast(s > cut, dtypes.int32), axis=-1)


# rhs keeps its own dtype (not matrix's); l2_regularizer=None is refused naming the op (a declared float
# would let None through)
@dispatch("matrix, rhs:tensor_own_dtype, l2_regularizer:any=0.0, fast:bool=True")
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, *, name=None):
    """The least-squares solution of matrix @ x = rhs, by the regularized normal equations through a
    Cholesky factor (TF's fast path): (A^T A + l2 I) x = A^T b when rows >= columns, else
    x = A^T (A A^T + l2 I)^-1 b."""
    a = _matrix(matrix, "lstsq", "matrix")
    b = _matrix(rhs, "lstsq", "rhs")
    if not fast:
        raise errors.UnimplementedError(None, None, "lstsq: fast=False (the complete orthogonal factorization) is "
                                                    "not supported")
    # (which of the two formulas applies, and the size of the identity, follow the matrices' sizes)
    refuse_varying(a, "lstsq", "its formula and identity are chosen by the traced matrix size", a.ndim - 2)
    refuse_varying(a, "lstsq", "its formula and identity are chosen by the traced matrix size", a.ndim - 1)
    m, n = a._shape[-2], a._shape[-1]
    reg = convert_arg(l2_regularizer, "float", "lstsq", "l2_regularizer")
    if m >= n:
        gram = _matmul(a, a, transpose_a=True, transpose_b=False) + reg * _eye(n, a.dtype)
        return cholesky_solve(_cholesky(gram), _matmul(a, b, transpose_a=True, transpose_b=False))
    gram = _matmul(a, a, transpose_a=False, transpose_b=True) + reg * _eye(m, a.dtype)
    return _matmul(a, cholesky_solve(_cholesky(gram), b), transpose_a=True, transpose_b=False)


def _eye(n, dtype):
    """The n x n identity matrix of dtype."""
    return _core.from_numpy(np.eye(n, dtype=dtype.as_numpy_dtype), dtype.code)
