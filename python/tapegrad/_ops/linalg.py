"""Matrix products."""
from tapegrad import _core

__all__ = ["matmul"]

_matmul = _core.op("MatMul")


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, name=None, **kwargs):
    """a @ b over the last two axes; leading (batch) axes broadcast."""
    return _matmul(a, b, transpose_a=bool(transpose_a or adjoint_a), transpose_b=bool(transpose_b or adjoint_b))
