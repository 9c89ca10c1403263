"""Special functions composed of registered ones: tf.math.lbeta."""
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops.math.elementwise import lgamma
from tapegrad._ops.math.reduction import reduce_sum

__all__ = ["lbeta"]


@dispatch("x")
def lbeta(x, *, name=None):
    """log|B(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x)) (-inf for an empty last axis, as TF)."""
    return reduce_sum(lgamma(x), axis=-1) - lgamma(reduce_sum(x, axis=-1))
