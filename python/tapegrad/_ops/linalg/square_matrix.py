"""tf.linalg's square-matrix ops on LAPACK (cpp/ops/matrix.cpp, Note [Matrix gradients]): inv, det,
slogdet, logdet, solve, triangular_solve, cholesky and cholesky_solve, batched over leading axes."""
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._lib.shapes import diag_last_two
from tapegrad._ops._wrap import public_op
from tapegrad._ops.linalg import _common
from tapegrad._ops.math.elementwise import log
from tapegrad._ops.math.reduction import reduce_sum
from tapegrad._tensor.tensor import Tensor, convert_to_tensor

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
_eig = _raw.SelfAdjointEig
_log_abs_det = _raw.LogAbsDeterminant
_det_sign = _raw.DeterminantSign


@dispatch
def slogdet(input, name=None):
    """(sign, log|det|) of each square matrix: the log stays finite where det itself would overflow."""
    return _det_sign(input), _log_abs_det(input)


@dispatch("matrix")
def logdet(matrix, *, name=None):
    """log(det(matrix)) of symmetric positive definite matrices, through their Cholesky factor."""
    return 2.0 * reduce_sum(log(diag_last_two(cholesky(matrix))), axis=-1)


@dispatch
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix @ X = rhs for triangular matrices (only the lower or upper triangle is read);
    a zero on the diagonal gives inf and NaN, as TF. Leading axes broadcast."""
    return _common.triangular_solve(matrix, rhs, lower, adjoint)


@dispatch
def cholesky_solve(chol, rhs, name=None):
    """X with A @ X = rhs, given A's Cholesky factor ``chol``: two triangular solves."""
    return _common.cholesky_solve(chol, rhs)


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
