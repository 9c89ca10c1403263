"""Reductions over axes bound to registry ops (reduce_sum and friends), cumsum and cumprod; the
reductions composed in Python (logsumexp, moments, norms, arg-reductions, add_n) are in reduce_composed.py."""
from tapegrad._ops._wrap import public_op

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all",
           "cumsum"]

def _reduce(op_name, py_name, doc):
    return public_op(op_name, py_name, "input_tensor, axis:axes=None, keepdims:bool=False", doc)


reduce_sum = _reduce("Sum", "reduce_sum", "Sum over ``axis`` (all axes if None).")
reduce_mean = _reduce("Mean", "reduce_mean",
                      "Mean over ``axis`` (all axes if None); integer inputs give an integer mean, as TF.")
reduce_max = _reduce("Max", "reduce_max", "Maximum over ``axis``; the gradient is shared among ties.")
reduce_min = _reduce("Min", "reduce_min", "Minimum over ``axis``; the gradient is shared among ties.")
reduce_prod = _reduce("Prod", "reduce_prod",
                      "Product over ``axis``; the gradient is the product of the other entries (exact with zeros).")
reduce_any = _reduce("Any", "reduce_any", "Logical or over ``axis`` of a bool tensor.")
reduce_all = _reduce("All", "reduce_all", "Logical and over ``axis`` of a bool tensor.")


cumprod = public_op("Cumprod", "cumprod", "x, axis:int=0, exclusive:bool=False, reverse:bool=False", """Running product
    along ``axis`` (1 before the first element when exclusive; from the end if reverse). Its gradient is
    TF's: it divides by x and gives 0 where x is 0.""")
cumsum = public_op("Cumsum", "cumsum", "x, axis:int=0, exclusive:bool=False, reverse:bool=False", """Running sum along ``axis``.

    Formula:
        out[i] = sum_{j <= i} x[j]   (j < i if exclusive; sums run from the end if reverse)

    >>> tf.cumsum([1, 2, 3], exclusive=True).numpy()
    array([0, 1, 3], dtype=int32)
    """)
