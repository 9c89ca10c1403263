"""Linear algebra: matmul, matvec, tensordot, norms and norm clipping (einsum is in einsum.py)."""
from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes, errors
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.arrays import expand_dims, zeros_like
from tapegrad._ops._lib.shapes import diag_last_two, size_product, reshape_to, size_or_run_time
from tapegrad._ops.linalg import _common
from tapegrad._ops.math.elementwise import maximum
from tapegrad._ops.composite.indexed_slices import IndexedSlices
from tapegrad._ops.math.reduction import reduce_sum
from tapegrad._ops._lib.tensors import safe_sqrt
from tapegrad._tensor.tensor import Tensor, cast, convert_to_tensor
from tapegrad._ops import _raw

__all__ = ["matmul", "tensordot", "norm", "clip_by_norm", "clip_by_global_norm"]
# tf.linalg only (see tapegrad/linalg.py): matvec, global_norm, trace, matrix_transpose, diag_part, eye.

_matmul = _raw.MatMul
_transpose = _raw.Transpose


def _error(msg):
    return _core.InvalidArgumentError(msg)


@dispatch
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
    """a @ b over the last two axes; leading (batch) axes broadcast. The sparsity hints and grad_a/grad_b
    change nothing here; ``output_type`` (TF's int8 -> int32 product) is refused."""
    if output_type is not None:
        raise TypeError(f"matmul: output_type={output_type!r} is not supported (it is for int8 inputs, which "
                        "tapegrad does not have)")
    a, b = _bfloat16_with_float32(a, b)
    return _matmul(a, b, transpose_a=bool(transpose_a or adjoint_a), transpose_b=bool(transpose_b or adjoint_b))


def _bfloat16_with_float32(a, b):
    """TF multiplies a bfloat16 matrix by a float32 one (rank 2, either order) in float32 (its sparse matmul
    kernel's mixed case), giving float32; every other mixed pair is refused by MatMul."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and {a.dtype, b.dtype} == {dtypes.bfloat16, dtypes.float32} \
            and a.ndim == 2 and b.ndim == 2:
        return cast(a, dtypes.float32), cast(b, dtypes.float32)
    return a, b


@dispatch
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix times vector over the last axes: [..., m, n] x [..., n] -> [..., m]."""
    b = convert_to_tensor(b)
    if b.ndim < 1:
        raise _error(f"MatVec: b must have rank >= 1, got shape {tuple(b.shape)}")
    out = _matmul(a, expand_dims(b, -1), transpose_a=bool(transpose_a or adjoint_a),
                  transpose_b=False)
    return _raw.Squeeze(out, axis=[out.ndim - 1])


@dispatch
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swaps the last two axes."""
    a = convert_to_tensor(a)
    if a.ndim < 2:
        raise _error(f"MatrixTranspose: expected rank >= 2, got shape {tuple(a.shape)}")
    perm = list(range(a.ndim))
    perm[-2:] = perm[-1], perm[-2]
    return _transpose(a, perm=perm)


@dispatch
def trace(x, name=None):
    """Sum of the main diagonal of the last two axes (only the diagonal is read: an inf or NaN
    elsewhere does not reach the result)."""
    return reduce_sum(diag_part(x), -1)


@dispatch
def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):
    """The main diagonal of the last two axes ([..., m, n] -> [..., min(m, n)]); entries off the
    diagonal are never read (see array.diag_last_two)."""
    if k != 0:
        raise errors.UnimplementedError(f"diag_part: only k=0 is supported, got k={k!r}")
    x = convert_to_tensor(input)
    if x.ndim < 2:
        raise _error(f"MatrixDiagPart: input must be at least 2-D, got shape {tuple(x.shape)}")
    return diag_last_two(x)


def _axis_list(axes, rank, what):
    out = []
    for a in axes:
        a = int(a)
        if not -rank <= a < rank:
            raise _error(f"Tensordot: axis {a} is out of range for {what} of rank {rank}")
        out.append(a % rank)
    return out


@dispatch
def tensordot(a, b, axes, name=None):
    """Sums the products of a and b over the given axes.

    ``axes`` is an int N (the last N axes of a against the first N of b) or a pair
    ``[a_axes, b_axes]`` of ints or lists of ints.
    """
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if isinstance(axes, Tensor):
        axes = axes.numpy().tolist()
    if not isinstance(axes, (list, tuple)):
        n = convert_arg(axes, "int", "tensordot", "axes")
        if n < 0 or n > a.ndim or n > b.ndim:
            raise _error(f"Tensordot: axes={n} is invalid for shapes {tuple(a.shape)} and {tuple(b.shape)}")
        a_axes, b_axes = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        if len(axes) != 2:
            raise _error(f"Tensordot: axes must be an int or a pair of axis lists, got {axes!r}")
        a_axes, b_axes = (convert_arg(x, "ints", "tensordot", "axes") for x in axes)
        a_axes, b_axes = _axis_list(a_axes, a.ndim, "a"), _axis_list(b_axes, b.ndim, "b")
    # (the traced sizes: one that changes from call to call is checked by the matmul at run time)
    if len(a_axes) != len(b_axes) or any(a._shape[i] != b._shape[j] for i, j in zip(a_axes, b_axes)):
        raise _error(f"Tensordot: axes {a_axes} of {tuple(a.shape)} and {b_axes} of {tuple(b.shape)} "
                     "do not match in number or size")
    free_a = [i for i in range(a.ndim) if i not in a_axes]
    free_b = [i for i in range(b.ndim) if i not in b_axes]
    # sizes that change from call to call are read at run time (Note [Varying dimensions])
    sa = [size_or_run_time(a, i) for i in range(a.ndim)]
    sb = [size_or_run_time(b, i) for i in range(b.ndim)]
    m, k, n = size_product([sa[i] for i in free_a]), size_product([sa[i] for i in a_axes]), size_product([sb[i] for i in free_b])
    at = reshape_to(_permuted(a, free_a + a_axes), [m, k])
    bt = reshape_to(_permuted(b, b_axes + free_b), [k, n])
    out = _matmul(at, bt, transpose_a=False, transpose_b=False)
    return reshape_to(out, [sa[i] for i in free_a] + [sb[i] for i in free_b])


def _permuted(t, perm):
    return t if perm == list(range(t.ndim)) else _transpose(t, perm=perm)


@dispatch
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """Vector norm (axis None or int) or matrix norm (axis a pair).

    Formula:
        euclidean / fro / 2:  sqrt(sum(x^2))  (gradient 0 at x = 0, a subgradient)
        1:  sum |x|      inf:  max |x|      p > 0:  (sum |x|^p)^(1/p)
        matrix 1:  max over columns of the column sums of |x|; inf: the same over rows
    """
    return _common.norm(convert_to_tensor(tensor), ord, axis, keepdims)


@dispatch
def global_norm(t_list, name=None):
    """sqrt(sum of squares of every entry of every tensor in t_list); None entries are skipped."""
    if isinstance(t_list, (Tensor, str)) or not hasattr(t_list, "__iter__"):
        raise TypeError("global_norm: t_list must be a sequence of tensors")
    # an IndexedSlices counts its values (a repeated index's rows each), as in TF
    parts = [reduce_sum(t * t) for t in (convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t)
                                         for t in t_list if t is not None)]
    if not parts:
        return convert_to_tensor(0.0)
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return safe_sqrt(total)


# clip_norm takes t's dtype (the binder would give a Python t clip_norm's); axes go to reduce_sum as given
@dispatch("t, clip_norm:any, axes:any=None")
def clip_by_norm(t, clip_norm, axes=None, *, name=None):
    """Scales t so that its L2 norm over ``axes`` is at most clip_norm.

    Formula:
        c = max(clip_norm, 0)     # a negative clip_norm gives zeros, as in TF (not a flipped sign)
        t * c / max(norm(t), c)
    """
    n = safe_sqrt(reduce_sum(t * t, axes, keepdims=True))
    clip = convert_arg(clip_norm, "tensor", "clip_by_norm", "clip_norm", t.dtype)
    clip = maximum(clip, zeros_like(clip))
    return t * clip / maximum(n, clip)


def _scale(t, scale):
    """t times scale; an IndexedSlices stays one, its values scaled (TF's clip_by_global_norm)."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(t.values * cast(scale, t.dtype), t.indices, t.dense_shape)
    t = convert_to_tensor(t)
    return t * cast(scale, t.dtype)


# t_list may hold None and IndexedSlices; clip_norm takes the norm's dtype
@dispatch("t_list:any, clip_norm:any, use_norm:tensor_own_dtype=None")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, *, name=None):
    """Scales every tensor by clip_norm / max(global_norm, clip_norm); returns (clipped list, global norm).

    None entries stay None. If the global norm is infinite, every entry becomes NaN, as in TF.
    """
    if isinstance(t_list, (Tensor, str)) or not hasattr(t_list, "__iter__"):
        raise TypeError("clip_by_global_norm: t_list must be a sequence of tensors")
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list)
    clip = convert_arg(clip_norm, "tensor", "clip_by_global_norm", "clip_norm", use_norm.dtype)
    # the (n - n) term turns an infinite norm into NaN; it adds 0 otherwise
    scale = clip / maximum(use_norm, clip) + (use_norm - use_norm)
    clipped = [None if t is None else _scale(t, scale) for t in t_list]
    return clipped, use_norm
