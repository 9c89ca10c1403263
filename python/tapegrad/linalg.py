"""``tf.linalg``: matrix products, einsum and norms."""
from tapegrad._ops.linalg.products_norms import (  # noqa: F401
    diag_part, global_norm, matmul, matrix_transpose, matvec, norm, tensordot, trace,
)
from tapegrad._ops.linalg.einsum import einsum  # noqa: F401
from tapegrad._ops.array.creation import eye  # noqa: F401
from tapegrad._ops.array.roll_repeat_mask import band_part  # noqa: F401
from tapegrad._ops.nn.activations_losses import l2_normalize  # noqa: F401
from tapegrad._ops.linalg.svd import lstsq, matrix_rank, pinv, svd  # noqa: F401
from tapegrad._ops.linalg.square_matrix import (  # noqa: F401
    cholesky, cholesky_solve, det, eigh, eigvalsh, inv, logdet, slogdet, solve, triangular_solve,
)


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two axes: the transpose, tapegrad's dtypes being real."""
    return matrix_transpose(matrix)
from tapegrad._ops.linalg.diag_cross import *  # noqa: F401,F403,E402
