"""Reductions composed in Python: logsumexp, variance, std, the euclidean norm, argmax/argmin and add_n."""
from tapegrad import dtypes
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._lib.tensors import safe_sqrt, select, sum_of, tensor_list
from tapegrad._tensor.tensor import convert_to_tensor, stop_gradient

__all__ = ["reduce_logsumexp", "reduce_variance", "reduce_std", "reduce_euclidean_norm", "argmax", "argmin", "add_n"]

_ops = {name: getattr(_raw, name) for name in ("Sum", "Mean", "Max", "Min")}
_argmax, _argmin = _raw.ArgMax, _raw.ArgMin
_exp, _log, _sqrt, _abs, _less = _raw.Exp, _raw.Log, _raw.Sqrt, _raw.Abs, _raw.Less


def _float_input(x, op):
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{op}: expected a float tensor, got {x.dtype.name}{tuple(x.shape)}")
    return x


@dispatch("input_tensor, axis:axes=None, keepdims:bool=False")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, *, name=None):
    """log(sum(exp(x))) over ``axis``, computed without overflow.

    Formula:
        m = stop_gradient(max(x))   (0 where the max is not finite)
        logsumexp(x) = log(sum(exp(x - m))) + m
    The gradient is softmax(x), finite for any finite input.

    >>> float(tf.reduce_logsumexp([1000.0, 1000.0]))   # 1000 + log 2
    1000.6931...
    """
    x = _float_input(input_tensor, "reduce_logsumexp")
    raw_max = _ops["Max"](x, axis=axis, keepdims=True)
    finite = _less(_abs(raw_max), float("inf"))
    m = stop_gradient(select(finite, raw_max, 0.0))
    summed = _ops["Sum"](_exp(x - m), axis=axis, keepdims=keepdims)
    # m without the reduced axes (a reduction of its length-1 axes: no traced size is kept)
    return _log(summed) + (m if keepdims else _ops["Max"](m, axis=axis, keepdims=False))


@dispatch("input_tensor, axis:axes=None, keepdims:bool=False")
def reduce_variance(input_tensor, axis=None, keepdims=False, *, name=None):
    """Population variance over ``axis``: mean((x - mean(x))^2)."""
    x = _float_input(input_tensor, "reduce_variance")
    centered = x - _ops["Mean"](x, axis=axis, keepdims=True)
    return _ops["Mean"](centered * centered, axis=axis, keepdims=keepdims)


@dispatch("input_tensor, axis:axes=None, keepdims:bool=False")
def reduce_std(input_tensor, axis=None, keepdims=False, *, name=None):
    """Population standard deviation over ``axis``: sqrt(reduce_variance)."""
    return _sqrt(reduce_variance(_float_input(input_tensor, "reduce_std"), axis, keepdims))


@dispatch("input_tensor, axis:axes=None, keepdims:bool=False")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, *, name=None):
    """sqrt(sum(x^2)) over ``axis``; the gradient at an all-zero slice is 0."""
    x = input_tensor
    return safe_sqrt(_ops["Sum"](x * x, axis=axis, keepdims=keepdims))


@dispatch("input:any, axis:int=None, output_type:dtype='int64'")
def argmax(input, axis=None, output_type=dtypes.int64, *, name=None):
    """Index of the largest entry along ``axis`` (0 if None); the first one on ties."""
    return _argmax(input, axis=0 if axis is None else axis, output_type=output_type.code)


@dispatch("input:any, axis:int=None, output_type:dtype='int64'")
def argmin(input, axis=None, output_type=dtypes.int64, *, name=None):
    """Index of the smallest entry along ``axis`` (0 if None); the first one on ties."""
    return _argmin(input, axis=0 if axis is None else axis, output_type=output_type.code)


@dispatch
def add_n(inputs, name=None):
    """Sums a list of tensors of the same shape and dtype."""
    inputs = tensor_list(inputs, "add_n", "inputs")
    if not inputs:
        raise ValueError("add_n: inputs must be a non-empty list")
    return sum_of(inputs)
