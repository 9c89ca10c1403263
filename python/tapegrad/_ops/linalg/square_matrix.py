"""tf.linalg's square-matrix ops on LAPACK (cpp/ops/matrix.cpp, Note [Matrix gradients]): inv, det,
slogdet, logdet, solve, triangular_solve, cholesky and cholesky_solve, batched over leading axes."""
import numpy as np

from tapegrad import _core, errors
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg, public_op
from tapegrad._ops.array.manipulation import broadcast_to, concat
from tapegrad._ops.array.unique_partition import broadcast_dynamic_shape
from tapegrad._ops.linalg.products_norms import diag_part
from tapegrad._ops.math.elementwise import log
from tapegrad._ops.math.reduction import reduce_sum
from tapegrad._tensor.tensor import Tensor, convert_to_tensor, shape

__all__ = ["inv", "det", "slogdet", "logdet", "solve", "triangular_solve", "cholesky", "cholesky_solve", "eigh",
           "eigvalsh"]

inv = public_op("MatrixInverse", "inv", "input, adjoint:bool=False",
                "The inverse of each square matrix in the last two axes (of its transpose with adjoint=True); "
                "a singular matrix raises InvalidArgumentError.")
det = public_op("MatrixDeterminant", "det", "input", "The determinant of each square matrix in the last two axes.")
solve = public_op("MatrixSolve", "solve", "matrix, rhs, adjoint:bool=False",
                  "X with matrix @ X = rhs (matrix^T @ X = rhs with adjoint=True), per matrix of the leading axes.")
cholesky = public_op("Cholesky", "cholesky", "input",
                     "The lower-triangular L with L @ L^T = input (read from its lower triangle); NaN where the "
                     "matrix is not positive definite, as TF.")
_triangular_solve = _raw.MatrixTriangularSolve
_eig = _raw.SelfAdjointEig
_log_abs_det = _raw.LogAbsDeterminant
_det_sign = _raw.DeterminantSign


@dispatch
def slogdet(input, name=None):
    """(sign, log|det|) of each square matrix: the log stays finite where det itself would overflow."""
    return _det_sign(input), _log_abs_det(input)


@dispatch
def logdet(matrix, name=None):
    """log(det(matrix)) of symmetric positive definite matrices, through their Cholesky factor."""
    m = convert_arg(matrix, "tensor", "logdet", "matrix")
    return 2.0 * reduce_sum(log(diag_part(cholesky(m))), axis=-1)


def _common_batch(matrix, rhs, fn):
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
    return broadcast_to(a, batch + list(sa[-2:])), broadcast_to(b, batch + list(sb[-2:]))


def _common_batch_at_run_time(a, b):
    """_common_batch for a matrix or rhs whose sizes change from call to call of the tf.function being
    traced: the leading axes broadcast at run time (the traced ones may not be the later calls')."""
    sa, sb = shape(a), shape(b)
    batch = broadcast_dynamic_shape(sa[:-2], sb[:-2])
    return broadcast_to(a, concat([batch, sa[-2:]], 0)), broadcast_to(b, concat([batch, sb[-2:]], 0))


@dispatch
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix @ X = rhs for triangular matrices (only the lower or upper triangle is read);
    a zero on the diagonal gives inf and NaN, as TF. Leading axes broadcast."""
    a, b = _common_batch(matrix, rhs, "triangular_solve")
    return _triangular_solve(a, b, lower=bool(lower), adjoint=bool(adjoint))


@dispatch
def cholesky_solve(chol, rhs, name=None):
    """X with A @ X = rhs, given A's Cholesky factor ``chol``: two triangular solves."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


@dispatch
def eigh(tensor, name=None):
    """(eigenvalues ascending, eigenvectors as columns) of symmetric matrices, read from their lower
    triangle; each eigenvector's largest component is positive. Differentiable (degenerate eigenvalues
    give inf gradients, as TF's)."""
    t = convert_to_tensor(tensor) if not isinstance(tensor, Tensor) else tensor
    packed = _eig(t)
    return packed[..., 0, :], packed[..., 1:, :]


@dispatch
def eigvalsh(tensor, name=None):
    """The eigenvalues (ascending) of symmetric matrices, read from their lower triangle."""
    return eigh(tensor)[0]
