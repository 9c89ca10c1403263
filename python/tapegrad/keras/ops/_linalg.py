"""keras.ops.linalg over tapegrad's tf.linalg (inputs made floating, as Keras does)."""
import numpy as np

import tapegrad as tf
from tapegrad.keras.ops._dtypes import promote_float, to_float


def _upper(fn):
    def op(x, upper=False):
        x = to_float(x)
        return fn(tf.linalg.matrix_transpose(x) if upper else x, upper)
    return op


def _cholesky(x, upper):
    lower = tf.linalg.cholesky(x)
    return tf.linalg.matrix_transpose(lower) if upper else lower


def _cholesky_inverse(x, upper):
    # x is the lower factor L here (an upper factor arrives transposed); (L L^T)^-1
    eye = tf.eye(x.shape[-1], batch_shape=list(x.shape[:-2]), dtype=x.dtype)
    return tf.linalg.cholesky_solve(x, eye)


def _eigh(x):
    return tf.linalg.eigh(to_float(x))


def _solve(a, b):
    a, b = promote_float(a, b)
    if len(b.shape) == len(a.shape) - 1:
        return tf.squeeze(tf.linalg.solve(a, b[..., None]), -1)
    return tf.linalg.solve(a, b)


def _solve_triangular(a, b, lower=False):
    a, b = promote_float(a, b)
    if len(b.shape) == len(a.shape) - 1:
        return tf.squeeze(tf.linalg.triangular_solve(a, b[..., None], lower=lower), -1)
    return tf.linalg.triangular_solve(a, b, lower=lower)


def _svd(x, full_matrices=True, compute_uv=True):
    x = to_float(x)
    if not compute_uv:
        return tf.linalg.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
    return u, s, tf.linalg.adjoint(v)


def _lstsq(a, b, rcond=None):
    a, b = promote_float(a, b)
    vector = len(b.shape) == 1
    solution = tf.linalg.pinv(a, rcond=rcond) @ (b[:, None] if vector else b)
    return tf.squeeze(solution, -1) if vector else solution


def _pinv(x, rcond=None):
    x = to_float(x)
    return tf.linalg.pinv(x, rcond=1e-15 if rcond is None else rcond)


def _matrix_rank(x, tol=None):
    x = to_float(x)
    s = tf.linalg.svd(x, compute_uv=False)
    if tol is None:
        eps = np.finfo(x.dtype.name).eps
        tol = tf.reduce_max(s, axis=-1, keepdims=True) * max(x.shape[-2:]) * eps
    return tf.reduce_sum(tf.cast(tf.greater(s, tol), "int32"), axis=-1)


def _vector_norm(x, ord, axis, keepdims):
    a = tf.abs(x)
    if ord is None or ord == 2:
        return tf.sqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return tf.reduce_max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return tf.reduce_min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return tf.reduce_sum(tf.cast(tf.not_equal(x, 0), x.dtype), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"norm: invalid ord {ord!r} for a vector norm")
    return tf.pow(tf.reduce_sum(tf.pow(a, ord), axis=axis, keepdims=keepdims), 1.0 / ord)


def _matrix_norm(x, ord, axes, keepdims):
    rows, cols = axes
    if ord is None or ord == "fro":
        out = tf.sqrt(tf.reduce_sum(tf.square(x), axis=list(axes), keepdims=keepdims))
    elif ord in (1, -1, np.inf, -np.inf):
        summed, other = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = tf.reduce_sum(tf.abs(x), axis=summed, keepdims=True)
        pick = tf.reduce_max if ord > 0 else tf.reduce_min
        out = pick(sums, axis=other, keepdims=True)
        out = out if keepdims else tf.squeeze(out, sorted(axes))
    elif ord in (2, -2, "nuc"):
        moved = tf.transpose(x, [a for a in range(len(x.shape)) if a not in axes] + list(axes))
        s = tf.linalg.svd(moved, compute_uv=False)
        out = tf.reduce_sum(s, -1) if ord == "nuc" else tf.reduce_max(s, -1) if ord == 2 else tf.reduce_min(s, -1)
        if keepdims:
            for a in sorted(axes):
                out = tf.expand_dims(out, a)
    else:
        raise ValueError(f"norm: invalid ord {ord!r} for a matrix norm")
    return out


def _norm(x, ord=None, axis=None, keepdims=False):
    x = to_float(x)
    rank = len(x.shape)
    if axis is None:
        if ord is None:
            out = tf.sqrt(tf.reduce_sum(tf.square(x)))
            return tf.reshape(out, [1] * rank) if keepdims else out
        axis = tuple(range(rank))
    if isinstance(axis, int):
        return _vector_norm(x, ord, axis, keepdims)
    axis = tuple(a % rank for a in axis)
    if len(axis) == 1:
        return _vector_norm(x, ord, axis[0], keepdims)
    if len(axis) == 2:
        return _matrix_norm(x, ord, axis, keepdims)
    raise ValueError(f"norm: axis must be an int or a pair, got {axis}")


def _jvp(fun, primals, tangents, has_aux=False):
    primals = [tf.convert_to_tensor(p) for p in primals]
    with tf.autodiff.ForwardAccumulator(primals, [tf.convert_to_tensor(t) for t in tangents]) as acc:
        result = fun(*primals)
        out, aux = result if has_aux else (result, None)
    tangent = tf.nest.map_structure(lambda t: acc.jvp(t, unconnected_gradients="zero"), out)
    return (out, tangent, aux) if has_aux else (out, tangent)


LINALG = {
    "cholesky": _upper(_cholesky), "cholesky_inverse": _upper(_cholesky_inverse),
    "det": lambda x: tf.linalg.det(to_float(x)), "eigh": _eigh, "inv": lambda x: tf.linalg.inv(to_float(x)),
    "solve": _solve, "solve_triangular": _solve_triangular, "svd": _svd, "lstsq": _lstsq, "pinv": _pinv,
    "matrix_rank": _matrix_rank, "norm": _norm, "jvp": _jvp,
    "logdet": lambda x: tf.linalg.logdet(to_float(x)),
}
