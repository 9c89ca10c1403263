"""keras.ops.numpy's ops that make tensors (arange, zeros, eye, linspace, windows, ...) over tapegrad's ops."""
import math

import tapegrad as tf
from tapegrad.keras import backend
from tapegrad.keras.ops._dtypes import as_tensor, dtype_name, result_type


def _float_or(dtype):
    return dtype_name(dtype) or backend.floatx()


def _shape(shape):
    return [shape] if isinstance(shape, int) else list(shape)


def _arange(start, stop=None, step=None, dtype=None):
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    dtype = dtype_name(dtype) or result_type(*(v for v in (start, stop, step)))
    return tf.cast(tf.range(start, stop, step, dtype="float64" if dtype.startswith("float") else "int64"), dtype)


def _full(shape, fill_value, dtype=None):
    return tf.fill(_shape(shape), tf.cast(fill_value, _float_or(dtype)))


def _like(fill):
    def op(x, dtype=None):
        x = as_tensor(x)
        return tf.fill(tf.shape(x), tf.cast(fill, dtype_name(dtype) or x.dtype.name))
    return op


def _full_like(x, fill_value, dtype=None):
    x = as_tensor(x)
    return tf.fill(tf.shape(x), tf.cast(fill_value, dtype_name(dtype) or x.dtype.name))


def _band(n, m, k, compare):
    rows = tf.range(n)[:, None]
    return compare(tf.range(m)[None, :] - rows, k)


def _eye(N, M=None, k=0, dtype=None):  # noqa: N803 -- Keras's names
    return tf.cast(_band(N, N if M is None else M, k, tf.equal), _float_or(dtype))


def _tri(N, M=None, k=0, dtype=None):  # noqa: N803
    return tf.cast(_band(N, N if M is None else M, k, tf.less_equal), _float_or(dtype))


def _triangle(compare):
    def op(x, k=0):
        x = as_tensor(x)
        n, m = x.shape[-2], x.shape[-1]
        return tf.where(_band(n, m, k, compare), x, tf.zeros_like(x))
    return op


def _linspace_values(start, stop, num, endpoint, dtype):
    start, stop = tf.cast(start, "float64"), tf.cast(stop, "float64")
    divisions = (num - 1 if endpoint else num) or 1
    step = (stop - start) / divisions
    values = start + tf.cast(tf.range(num), "float64") * step
    if endpoint and num > 1:
        values = tf.concat([values[:-1], tf.reshape(stop, [1])], axis=0)
    return values, step


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    dtype = dtype_name(dtype) or _float_or(None)
    _check_scalar_axis("linspace", start, stop, axis)
    values, step = _linspace_values(start, stop, num, endpoint, dtype)
    values = tf.cast(values, dtype)
    return (values, tf.cast(step, dtype)) if retstep else values


def _logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    _check_scalar_axis("logspace", start, stop, axis)
    values, _ = _linspace_values(start, stop, num, endpoint, None)
    return tf.cast(tf.pow(tf.constant(float(base), "float64"), values), dtype_name(dtype) or _float_or(None))


def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    _check_scalar_axis("geomspace", start, stop, axis)
    values, _ = _linspace_values(math.log(start), math.log(stop), num, endpoint, None)
    return tf.cast(tf.exp(values), dtype_name(dtype) or _float_or(None))


def _check_scalar_axis(name, start, stop, axis):
    if getattr(as_tensor(start), "shape", ()) != () or getattr(as_tensor(stop), "shape", ()) != ():
        raise tf.errors.UnimplementedError(None, None, f"keras.ops.{name}: tapegrad takes scalar start and stop")


def _window(coefficients):  # a cosine-sum window of length x (Hann, Hamming, Blackman)
    def op(x):
        n = int(x)
        if n == 1:
            return tf.ones([1], backend.floatx())
        phase = tf.cast(tf.range(n), "float64") * (2 * math.pi / (n - 1))
        total = sum(((-1) ** i) * c * tf.cos(i * phase) for i, c in enumerate(coefficients))
        return tf.cast(total, backend.floatx())
    return op


def _bartlett(x):
    n = int(x)
    if n == 1:
        return tf.ones([1], backend.floatx())
    k = tf.cast(tf.range(n), "float64")
    half = (n - 1) / 2.0
    return tf.cast(1.0 - tf.abs(k - half) / half, backend.floatx())


def _meshgrid(*x, indexing="xy"):
    return tf.meshgrid(*[as_tensor(v) for v in x], indexing=indexing)


def _array(x, dtype=None):
    return as_tensor(x, dtype)


def _vander(x, N=None, increasing=False):  # noqa: N803
    x = as_tensor(x)
    n = x.shape[0] if N is None else N
    powers = tf.range(n) if increasing else tf.range(n - 1, -1, -1)
    return tf.pow(x[:, None], tf.cast(powers, x.dtype)[None, :])


NUMPY_CREATE = {
    "arange": _arange, "full": _full, "full_like": _full_like, "eye": _eye, "tri": _tri,
    "identity": lambda n, dtype=None: _eye(n, dtype=dtype),
    "zeros": lambda shape, dtype=None: tf.zeros(_shape(shape), _float_or(dtype)),
    "ones": lambda shape, dtype=None: tf.ones(_shape(shape), _float_or(dtype)),
    "empty": lambda shape, dtype=None: tf.zeros(_shape(shape), _float_or(dtype)),
    "zeros_like": _like(0), "ones_like": _like(1), "empty_like": _like(0),
    "tril": _triangle(lambda d, k: tf.less_equal(d, k)), "triu": _triangle(lambda d, k: tf.greater_equal(d, k)),
    "linspace": _linspace, "logspace": _logspace, "geomspace": _geomspace, "meshgrid": _meshgrid,
    "hanning": _window([0.5, 0.5]), "hamming": _window([0.54, 0.46]), "blackman": _window([0.42, 0.5, 0.08]),
    "bartlett": _bartlett, "array": _array, "vander": _vander,
}
