"""tf.random's stateless ops: values that are a function of a [2] integer ``seed`` (the same seed draws the
same values, eagerly and in every call of a tf.function, which reads a traced seed at run time), and the
seed helpers split and fold_in.

The values come from NumPy's Philox keyed by the seed, so they are not TF's (TF keys its own Philox
kernels with another counter layout): the same distributions, shapes, dtypes, errors and gradients.
"""
import math
import numpy as np

from tapegrad import dtypes, errors
from tapegrad._ops._lib.arrays import stack
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.math._common import erfc, is_inf, ndtri
from tapegrad._ops.math.elementwise import maximum, minimum
from tapegrad._ops.random import distributions as dists
from tapegrad._ops.random.host import Stateless, algorithm, draw, out_shape, seed_tensor
from tapegrad._tensor.tensor import Tensor, cast, stop_gradient

__all__ = ["stateless_uniform", "stateless_normal", "stateless_truncated_normal", "stateless_categorical",
           "stateless_binomial", "stateless_gamma", "stateless_poisson", "stateless_parameterized_truncated_normal",
           "split", "fold_in"]


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Uniform values in ``[minval, maxval)`` (``maxval`` 1 by default for floats); for integer dtypes
    ``minval`` and ``maxval`` are both given (scalars) or both None (the dtype's whole range)."""
    algorithm(alg, "stateless_uniform")
    return dists.uniform(Stateless(seed, "stateless_uniform"), "stateless_uniform", shape, minval, maxval, dtype)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """``mean + stddev * z`` with z standard normal; gradients flow to ``mean`` and ``stddev``."""
    algorithm(alg, "stateless_normal")
    return dists.normal(Stateless(seed, "stateless_normal"), "stateless_normal", shape, mean, stddev, dtype)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                               alg="auto_select"):
    """Normal values with those more than two standard deviations from the mean drawn again."""
    fn = "stateless_truncated_normal"
    algorithm(alg, fn)
    return dists.normal(Stateless(seed, fn), fn, shape, mean, stddev, dtype, truncated=True)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """``num_samples`` class indices per row of ``logits`` ([batch, classes] unnormalised log-probabilities)."""
    fn = "stateless_categorical"
    src = Stateless(seed, fn)
    return dists.categorical(logits, num_samples, dtype,
                             lambda shape: dists.uniform(src, fn, shape, 0, None, dtypes.float64), fn)


def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """Binomial(counts, probs) values; ``shape`` must end with the broadcast shape of counts and probs."""
    fn = "stateless_binomial"
    return dists.binomial(Stateless(seed, fn), fn, shape, counts, probs, output_dtype)


def stateless_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None):
    """Gamma(alpha, beta) values (beta is the rate); ``shape`` must end with alpha's and beta's broadcast
    shape. Differentiable in alpha (implicit reparameterization, as TF) and beta."""
    fn = "stateless_gamma"
    return dists.gamma(Stateless(seed, fn), fn, shape, alpha, beta, dtype, trailing=False)


def stateless_poisson(shape, seed, lam, dtype=dtypes.int32, name=None):
    """Poisson(lam) values; ``shape`` must end with lam's shape. A rate <= 0 draws 0."""
    fn = "stateless_poisson"
    return dists.poisson(Stateless(seed, fn), fn, shape, lam, dtype, trailing=False)


def _std_normal_cdf(t):
    return 0.5 * erfc(t * (-1.0 / math.sqrt(2.0)))


def _standardised(bound, mean, stddev):
    """(bound - mean) / stddev; an infinite bound stays infinite with no path to mean or stddev (whose
    gradient would be inf * 0 there)."""
    inf = is_inf(bound)
    return select(inf, bound, (select(inf, 0.0, bound) - mean) / stddev)


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0,
                                             name=None):
    """Normal(means, stddevs) values truncated to [minvals, maxvals]: the inverse CDF at a uniform draw,
    which is exactly that distribution. Gradients as TF's: ``means + stddevs * z`` with z's standardised
    bounds held fixed for the gradients to means and stddevs (so d/dmeans is 1, d/dstddevs is z), and
    d/dminvals, d/dmaxvals at fixed CDF. A bound ~37 standard deviations into a tail draws that bound."""

    fn = "stateless_parameterized_truncated_normal"
    src = Stateless(seed, fn)
    params = [dists._any_tensor(v, fn, arg)
              for v, arg in ((means, "means"), (stddevs, "stddevs"), (minvals, "minvals"), (maxvals, "maxvals"))]
    dt = params[0].dtype
    if not dt.is_floating or any(p.dtype != dt for p in params):
        raise errors.InvalidArgumentError(f"{fn}: means, stddevs, minvals and maxvals must be float tensors of one "
                                          f"dtype, got {', '.join(p.dtype.name for p in params)}")
    shape = dists._sample_shape(out_shape(shape, fn), params, fn, False)

    def body(rng, arrays, shapes):
        _, s, lo, hi = (dists._spread(a, shapes[0], fn) for a in arrays)
        if not np.all((s > 0) & (lo < hi) & (np.isfinite(lo) | np.isfinite(hi))):
            raise errors.InvalidArgumentError(f"{fn}: Invalid parameters: stddevs must be > 0 and minvals < maxvals "
                                              "(not both infinite)")
        return [rng.random(shapes[0])]
    u = draw(fn, src, params, [(shape, dtypes.float64)], body)[0]
    m, s, lo, hi = (cast(p, dtypes.float64) for p in params)
    a = _standardised(lo, stop_gradient(m), stop_gradient(s))
    b = _standardised(hi, stop_gradient(m), stop_gradient(s))
    upper = a > 0.0  # both bounds above the mean: draw -z from [-b, -a], where the CDF keeps its digits
    low, high = select(upper, -b, a), select(upper, -a, b)
    p_low, p_high = _std_normal_cdf(low), _std_normal_cdf(high)
    z = minimum(maximum(ndtri(p_low + u * (p_high - p_low)), low), high)
    return cast(m + s * select(upper, -z, z), dt)


def _seed_and_dtype(seed, fn):
    s = seed_tensor(seed, fn)
    return s, s.dtype


def split(seed, num=2, alg="auto_select"):
    """``num`` new seeds ([num, 2], of the seed's dtype) drawn from ``seed``."""
    algorithm(alg, "split")
    s, dt = _seed_and_dtype(seed, "split")
    return dists.full_int(Stateless(s, "split"), "split", [num, 2], dt)


def fold_in(seed, data, alg="auto_select"):
    """A new seed from ``seed`` and the integer ``data``: [a number drawn from seed, data], of data's dtype."""
    algorithm(alg, "fold_in")
    s, _ = _seed_and_dtype(seed, "fold_in")
    d = data if isinstance(data, Tensor) else dists._any_tensor(data, "fold_in", "data")
    if d.dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"fold_in: data must be an int32 or int64 scalar, got {d.dtype.name}")
    if d.ndim:
        raise errors.InvalidArgumentError(f"fold_in: data must be a scalar, got shape {list(d.shape)}")
    return stack([dists.full_int(Stateless(s, "fold_in"), "fold_in", [], d.dtype), d])

