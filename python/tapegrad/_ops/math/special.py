"""Special functions composed of registered ones: tf.math.lbeta."""
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.math.elementwise import lgamma
from tapegrad._ops.math.reduction import reduce_sum

__all__ = ["lbeta"]


@dispatch
def lbeta(x, name=None):
    """log|B(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x)) (-inf for an empty last axis, as TF)."""
    t = convert_arg(x, "tensor", "lbeta", "x")
    return reduce_sum(lgamma(t), axis=-1) - lgamma(reduce_sum(t, axis=-1))
