"""Reductions over axes (reduce_sum and friends), add_n."""
from tapegrad import _core
from tapegrad._tensor import Tensor, convert_to_tensor

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "add_n"]

_ops = {name: _core.op(name) for name in ("Sum", "Mean", "Max", "Min")}


def _axes(axis):
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis.numpy().tolist()
    if isinstance(axis, (list, tuple)):
        return [int(a) for a in axis]
    return [int(axis)]


def _reduce(op_name, doc):
    handle = _ops[op_name]

    def fn(input_tensor, axis=None, keepdims=False, name=None):
        return handle(input_tensor, axis=_axes(axis), keepdims=bool(keepdims))

    fn.__doc__ = doc
    return fn


reduce_sum = _reduce("Sum", "Sum over ``axis`` (all axes if None).")
reduce_mean = _reduce("Mean", "Mean over ``axis`` (all axes if None); integer inputs give an integer mean, as TF.")
reduce_max = _reduce("Max", "Maximum over ``axis``; the gradient is shared among ties.")
reduce_min = _reduce("Min", "Minimum over ``axis``; the gradient is shared among ties.")


def add_n(inputs, name=None):
    """Sums a list of tensors of the same shape and dtype."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("add_n: inputs must be a non-empty list")
    total = convert_to_tensor(inputs[0])
    for t in inputs[1:]:
        total = total + t
    return total
