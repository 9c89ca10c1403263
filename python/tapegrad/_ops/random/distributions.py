"""The distributions of tf.random's stateless ops, Generator methods and random.gamma/poisson, drawn from
a source of random/host.py: arguments checked as TF checks them (TF's error classes), values drawn on the
host, and float parameters composed around the draw with ops, so gradients reach them as in TF."""
import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import concat
from tapegrad._ops._lib.tensors import select
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.math._common import is_nan
from tapegrad._ops.math.elementwise import exp, maximum, minimum
from tapegrad._ops.math.reduction import cumsum, reduce_max
from tapegrad._ops.random import samplers
from tapegrad._ops.random.host import draw, known, out_dtype, out_shape, to_dtype
from tapegrad._tensor.tensor import Tensor, cast, constant, convert_to_tensor, shape, stop_gradient

FLOATS = (dtypes.float32, dtypes.float64)
INTS = (dtypes.int32, dtypes.int64)


def param(value, dt, fn, arg):
    """A parameter as a tensor of ``dt``: Python values are converted, a tensor must already be ``dt``."""
    if isinstance(value, Tensor):
        if value.dtype != dt:
            raise ValueError(f"{fn}: {arg}: Tensor conversion requested dtype {dt.name} for Tensor with dtype "
                             f"{value.dtype.name}")
        return value
    try:
        return convert_to_tensor(value, dt)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{fn}: {arg}: {e}") from None


def _any_tensor(value, fn, arg, hint=None):
    if isinstance(value, Tensor):
        return value
    try:
        return convert_to_tensor(value, dtype_hint=hint)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{fn}: {arg}: {e}") from None


def uniform(src, fn, shape, minval, maxval, dtype, dtype_error=ValueError):
    dt = out_dtype(dtype, fn, FLOATS + INTS, dtype_error)
    npdt = dt.as_numpy_dtype
    if dt.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"{fn}: For integer `dtype` argument {dt!r}, argument `minval` and `maxval` must be "
                             f"both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        shape = out_shape(shape, fn)
        if minval is None:
            return draw(fn, src, [], [(shape, dt)], lambda rng, a, s: [samplers.full_int(rng, s[0], npdt)])[0]
        lo, hi = param(minval, dt, fn, "minval"), param(maxval, dt, fn, "maxval")
        for v, arg in ((lo, "minval"), (hi, "maxval")):
            if v.ndim:
                raise errors.InvalidArgumentError(f"{fn}: {arg} must be 0-D, got shape {list(v.shape)}")

        def between(rng, a, s):
            low, high = int(a[0]), int(a[1])
            if low >= high:
                raise errors.InvalidArgumentError(f"{fn}: Need minval < maxval, got {low} >= {high}")
            return [rng.integers(low, high, size=s[0], dtype=npdt)]
        return draw(fn, src, [lo, hi], [(shape, dt)], between)[0]
    lo = None if isinstance(minval, (int, float)) and minval == 0 else param(minval, dt, fn, "minval")
    hi = None if maxval is None else param(maxval, dt, fn, "maxval")
    shape = out_shape(shape, fn)
    u = draw(fn, src, [], [(shape, dt)], lambda rng, a, s: [rng.random(s[0], dtype=npdt)])[0]
    if lo is None and hi is None:
        return u
    lo = lo if lo is not None else param(0.0, dt, fn, "minval")
    hi = hi if hi is not None else param(1.0, dt, fn, "maxval")
    return u * (hi - lo) + lo


def normal(src, fn, shape, mean, stddev, dtype, truncated=False):
    """``mean + stddev * z``: z standard normal (truncated: redrawn beyond two standard deviations)."""
    dt = out_dtype(dtype, fn, FLOATS, TypeError)
    mean, stddev = param(mean, dt, fn, "mean"), param(stddev, dt, fn, "stddev")
    shape = out_shape(shape, fn)
    npdt = dt.as_numpy_dtype
    if truncated:
        z = draw(fn, src, [], [(shape, dt)], lambda rng, a, s: [samplers.truncated_normal(rng, s[0], npdt)])[0]
    else:
        z = draw(fn, src, [], [(shape, dt)], lambda rng, a, s: [rng.standard_normal(s[0], dtype=npdt)])[0]
    return z * stddev + mean


def full_int(src, fn, shape, dtype):
    dt = out_dtype(dtype, fn, INTS, errors.InvalidArgumentError)
    npdt = dt.as_numpy_dtype
    return draw(fn, src, [], [(out_shape(shape, fn), dt)], lambda rng, a, s: [samplers.full_int(rng, s[0], npdt)])[0]


def _params_shape(params, fn):
    try:
        return list(np.broadcast_shapes(*[tuple(p.shape) for p in params]))
    except ValueError:
        shapes = " vs. ".join(str(list(p.shape)) for p in params)
        raise errors.InvalidArgumentError(f"{fn}: Incompatible shapes: {shapes}") from None


def _sample_shape(shape, params, fn, trailing):
    """The output's shape: ``shape`` then the parameters' (trailing, random.gamma/poisson), or ``shape``,
    which must end with the parameters' broadcast shape (the stateless ops)."""
    pshape = _params_shape(params, fn)
    if isinstance(shape, Tensor):  # a run-time shape: the draw checks it
        if trailing:
            return concat([cast(shape, dtypes.int32), convert_to_tensor(pshape, dtypes.int32)], 0)
        return shape
    if trailing:
        return list(shape) + pshape
    if len(pshape) > len(shape) or (pshape and list(shape[-len(pshape):]) != pshape):
        raise errors.InvalidArgumentError(f"{fn}: Shape passed in must end with broadcasted shape: shape {shape}, "
                                          f"parameters broadcast to {pshape}.")
    return shape


def _spread(a, shape, fn):
    try:
        return np.broadcast_to(a.astype(np.float64), shape)
    except ValueError:
        raise errors.InvalidArgumentError(f"{fn}: Shape passed in must end with broadcasted shape: shape "
                                          f"{list(shape)}, parameter of shape {list(a.shape)}.") from None


def _wants_gradient(t):
    """Whether a gradient may be asked of float tensor ``t``: a tape watches it now, or it is a value of
    the graph being traced (a tape outside may watch the argument it comes from)."""
    return t.dtype.is_floating and (_core.should_record([t]) or (_core._tracing() and not known(t)))


def gamma(src, fn, shape, alpha, beta, dtype, trailing):
    """Gamma(alpha, beta) values, floored at the dtype's smallest normal number as TF. The gradient to
    alpha is d sample / d alpha at fixed CDF (Note [Gamma's implicit gradient]), drawn beside the sample
    and joined as ``x + (alpha - stop_gradient(alpha)) * dx_dalpha``; beta's flows through ``x / beta``."""
    dt = out_dtype(dtype, fn, FLOATS, TypeError)
    alpha = param(alpha, dt, fn, "alpha")
    beta = None if beta is None else param(beta, dt, fn, "beta")
    shape = _sample_shape(out_shape(shape, fn), [alpha] + ([beta] if beta is not None else []), fn, trailing)
    grad = _wants_gradient(alpha)
    npdt = dt.as_numpy_dtype

    def body(rng, arrays, shapes):
        a = _spread(arrays[0], shapes[0], fn)
        x = samplers.gamma(rng, a)
        out = [x.astype(npdt)]
        if grad:
            out.append(samplers.gamma_dx_da(x, a, shapes[0]).astype(npdt))
        return out
    got = draw(fn, src, [alpha], [(shape, dt)] * (2 if grad else 1), body)
    x = got[0]
    if grad:
        x = x + (alpha - stop_gradient(alpha)) * got[1]
    if beta is not None:
        x = x / beta
    return maximum(x, np.finfo(npdt).tiny)


def poisson(src, fn, shape, lam, dtype, trailing):
    dt = out_dtype(dtype, fn, FLOATS + INTS, errors.InvalidArgumentError)
    lam = _any_tensor(lam, fn, "lam", dtypes.float32)
    if not (lam.dtype.is_floating or lam.dtype.is_integer):
        raise errors.InvalidArgumentError(f"{fn}: lam must be a float or integer tensor, got {lam.dtype.name}")
    shape = _sample_shape(out_shape(shape, fn), [lam], fn, trailing)

    def body(rng, arrays, shapes):
        return [to_dtype(samplers.poisson(rng, _spread(arrays[0], shapes[0], fn)), dt)]
    return draw(fn, src, [lam], [(shape, dt)], body)[0]


def binomial(src, fn, shape, counts, probs, dtype):
    dt = out_dtype(dtype, fn, FLOATS + INTS, errors.InvalidArgumentError)
    probs = _any_tensor(probs, fn, "probs", dtypes.float32)
    counts = _any_tensor(counts, fn, "counts", probs.dtype)
    if counts.dtype != probs.dtype or not probs.dtype.is_floating:
        raise errors.InvalidArgumentError(f"{fn}: counts and probs must be float tensors of one dtype, got "
                                          f"{counts.dtype.name} and {probs.dtype.name}")
    shape = _sample_shape(out_shape(shape, fn), [counts, probs], fn, False)

    def body(rng, arrays, shapes):
        n, p = _spread(arrays[0], shapes[0], fn), _spread(arrays[1], shapes[0], fn)
        return [to_dtype(samplers.binomial(rng, n, p), dt)]
    return draw(fn, src, [counts, probs], [(shape, dt)], body)[0]


def categorical(logits, num_samples, dtype, uniform_draw, fn):
    """``num_samples`` class indices per row of ``logits`` ([batch, classes], unnormalised log-probabilities),
    by inverting each row's cumulative distribution at ``uniform_draw(shape)`` (float64 in [0, 1)): a
    binary search per draw. A NaN logit is never drawn; a row with no finite logit draws ``classes`` (out
    of range), as TF's kernel does."""

    lg = logits if isinstance(logits, Tensor) else convert_to_tensor(logits)
    if not lg.dtype.is_floating:
        raise errors.InvalidArgumentError(f"{fn}: argument 'logits' must be a float tensor, got {lg.dtype.name}")
    if lg.ndim != 2:
        raise errors.InvalidArgumentError(f"{fn}: logits should be a matrix, got shape {lg.shape}")
    if isinstance(num_samples, float):  # TF's TypeError, as for any float where an int32 is wanted
        raise TypeError(f"{fn}: argument 'num_samples' must be an integer, got {num_samples!r}")
    n = convert_arg(num_samples, "int", fn, "num_samples")
    if n < 0:
        raise errors.InvalidArgumentError(f"{fn}: num_samples should be non-negative, got {n}")
    out = dtypes.int64 if dtype is None else convert_arg(dtype, "dtype", fn, "dtype")
    if out not in INTS:
        raise ValueError(f"{fn}: Argument `dtype` got invalid value {out!r}. Accepted dtypes are (tf.int32, tf.int64).")
    classes = lg._shape[1]
    if classes == 0:
        raise errors.InvalidArgumentError(f"{fn}: num_classes should be positive, got 0")
    # In float64 whatever the logits' dtype: the cumulative sums of a large vocabulary keep their steps.
    clean = select(is_nan(lg), float("-inf"), cast(lg, dtypes.float64))
    top = reduce_max(clean, axis=1, keepdims=True)
    empty_row = top[:, 0] == float("-inf")
    weights = exp(clean - select(empty_row[:, None], 0.0, top))  # the largest is 1: no overflow, no underflow to 0
    cdf = cumsum(weights, axis=1)
    u = uniform_draw(leading_shape(lg, [n])) * cdf[:, -1:]
    # the first class whose cumulative weight exceeds u: a class of weight 0 is never drawn
    draws = minimum(_raw.SearchSorted(cdf, u, right=True, out_type=out.code), cast(classes - 1, out))
    return select(empty_row[:, None], cast(classes, out), draws)


def leading_shape(t, trailing):
    """[t's first dimension] + trailing, as a list when that dimension is known, else as a tensor."""
    first = t._shape[0]
    if first is not None and first >= 0:
        return [first] + list(trailing)
    return concat([shape(t)[:1], constant(list(trailing), dtypes.int32)], 0)
