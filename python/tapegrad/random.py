"""``tf.random``: normal and uniform tensors from stateful C++ ops, reproducible after ``set_seed``;
stateless ops (values a function of a seed), ``Generator`` and random.gamma/poisson from NumPy's Philox.

The ops (RandomStandardNormal, RandomUniform; cpp/ops/random.cpp) keep their generator state in
C++, so inside a ``tf.function`` every call draws new values. As in TensorFlow, ``set_seed(g)``
fixes the sequence of values drawn from then on; an op ``seed`` selects a separate stream (two
calls with the same op seed still draw different values, and the same ones after ``set_seed``).
The stateless ops, Generator, gamma and poisson draw on the host from NumPy's Philox generator
(tapegrad._ops.random.host): the same seed gives the same values every time, but not TF's values
(TF's Philox kernels lay out key and counter their own way). Keras initializers and tf.data draw
from the NumPy generator of ``_numpy_generator``, which ``set_seed`` seeds too.
"""
import sys as _sys
import types as _types

import numpy as np

from tapegrad import _core, dtypes
from tapegrad._ops import _raw
from tapegrad._ops._wrap import convert_arg as _convert_arg
from tapegrad._ops._lib.shapes import computed_dims as _computed_dims
from tapegrad._ops.array import manipulation as _manipulation
from tapegrad._ops.math import elementwise as _elementwise
from tapegrad._ops.nn.sampled_losses import (all_candidate_sampler, log_uniform_candidate_sampler,
                                             uniform_candidate_sampler)
from tapegrad._ops.random import distributions as _random_dists, stateful as _stateful
from tapegrad._ops.random.generator import (Algorithm, Generator, create_rng_state, get_global_generator,
                                            set_global_generator)
from tapegrad._ops.random.stateful import gamma, poisson
from tapegrad._ops.random.stateless import (fold_in, split, stateless_binomial, stateless_categorical, stateless_gamma,
                                            stateless_normal, stateless_parameterized_truncated_normal,
                                            stateless_poisson, stateless_truncated_normal, stateless_uniform)
from tapegrad._tensor import tensor as _tensor

__all__ = ["set_seed", "normal", "uniform", "truncated_normal", "categorical", "shuffle", "get_global_generator",
           "set_global_generator", "Generator", "Algorithm", "create_rng_state", "gamma", "poisson",
           "stateless_uniform", "stateless_normal", "stateless_truncated_normal", "stateless_categorical",
           "stateless_binomial", "stateless_gamma", "stateless_poisson", "stateless_parameterized_truncated_normal",
           "split", "fold_in", "experimental", "all_candidate_sampler", "log_uniform_candidate_sampler",
           "uniform_candidate_sampler"]

_generator = np.random.default_rng()
_normal = _raw.RandomStandardNormal
_uniform = _raw.RandomUniform


def set_seed(seed):
    """Makes the random ops (and the Keras initializers) reproducible from here on."""
    global _generator
    seed = int(seed)
    _generator = np.random.default_rng(seed)
    _core._set_random_seed(seed)
    _stateful.reset(seed)


def _numpy_generator():
    """The NumPy generator behind Keras initializers and tf.data's shuffles (seeded by set_seed)."""
    return _generator


def _shape(shape, op):
    if hasattr(shape, "numpy"):
        shape = shape.numpy().reshape(-1).tolist()
    if isinstance(shape, (float, np.floating, dict)) or not hasattr(shape, "__len__") and not isinstance(shape, int):
        raise TypeError(f"{op}: shape must be a list of ints, got {type(shape).__name__} {shape!r}")
    return _convert_arg(shape, "ints", op, "shape")


def _draw(op, shape, dtype, seed, where):
    """One call of a random op. A shape computed while tracing a graph that serves several sizes
    (tf.shape of a traced tensor there) is passed as a tensor: the graph reads it at every call."""
    if _core._tracing():
        dims = _computed_dims(shape, where, "shape")  # a traced tensor, or a list holding one
        if dims is not None:
            return op(dims, dtype=dtype, seed=seed, shape_input=True)
    return op(shape=_shape(shape, where), dtype=dtype, seed=seed)


def _seed(seed):
    return -1 if seed is None else int(seed) & 0x7FFFFFFFFFFFFFFF


def _is(v, number):
    return isinstance(v, (int, float)) and v == number


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """``mean + stddev * z`` with z standard normal, of the given shape and float dtype."""
    dt = _convert_arg(dtype, "dtype", "random.normal", "dtype")
    if not dt.is_floating:
        raise ValueError(f"random.normal: dtype must be float32 or float64, got {dt.name}")
    z = _draw(_normal, shape, dt.code, _seed(seed), "random.normal")
    if not _is(stddev, 1.0):
        z = z * stddev
    if not _is(mean, 0.0):
        z = z + mean
    return z


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform in ``[minval, maxval)`` (``maxval`` defaults to 1 for floats; required for integers)."""

    dt = _convert_arg(dtype, "dtype", "random.uniform", "dtype")
    if dt.is_integer:
        if maxval is None:
            raise ValueError("uniform: maxval must be given for integer dtypes")
        lo, hi = int(minval), int(maxval)
        if hi <= lo:
            raise ValueError(f"uniform: need minval < maxval for integer dtypes, got [{lo}, {hi})")
        u = _draw(_uniform, shape, dtypes.float64.code, _seed(seed), "random.uniform")
        k = _elementwise.minimum(_elementwise.floor(u * float(hi - lo)), float(hi - lo - 1))
        return _tensor.cast(k, dt) + _tensor.cast(lo, dt) if lo else _tensor.cast(k, dt)
    if not dt.is_floating:
        raise ValueError(f"random.uniform: dtype must be a float or integer type, got {dt.name}")
    u = _draw(_uniform, shape, dt.code, _seed(seed), "random.uniform")
    hi = 1.0 if maxval is None else maxval
    if not (_is(minval, 0) and _is(hi, 1.0)):
        u = u * (hi - minval) + minval
    return u


_PHI_MINUS_2 = 0.022750131948179195  # the standard normal CDF at -2


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values with those more than two standard deviations from the mean left out: the
    normal's inverse CDF applied to a uniform draw on [CDF(-2), CDF(2)], which is exactly that
    distribution (no redraws, so it traces like any op)."""
    dt = _convert_arg(dtype, "dtype", "random.truncated_normal", "dtype")
    if not dt.is_floating:  # TF: a TypeError from its op's dtype check
        raise TypeError(f"random.truncated_normal: dtype must be float32 or float64, got {dt.name}")
    u = _draw(_uniform, shape, dt.code, _seed(seed), "random.truncated_normal")
    p = u * (1.0 - 2 * _PHI_MINUS_2) + _PHI_MINUS_2
    z = _elementwise.erfinv(p * 2.0 - 1.0) * 1.4142135623730951
    if not _is(stddev, 1.0):
        z = z * stddev
    if not _is(mean, 0.0):
        z = z + mean
    return z


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``num_samples`` class indices per row of ``logits`` ([batch, classes], unnormalised log-probabilities),
    by inverting each row's cumulative distribution at uniform draws (a binary search per draw: large
    vocabularies cost O(classes + samples log classes) a row). A NaN logit is never drawn; a row with no
    finite logit draws ``classes`` (out of range), as TF's kernel does."""
    return _random_dists.categorical(logits, num_samples, dtype,
                                     lambda shape: uniform(shape, dtype=dtypes.float64, seed=seed),
                                     "random.categorical")


def shuffle(value, seed=None, name=None):
    """``value`` with its first dimension randomly permuted (a scalar comes back as it is); the
    permutation sorts random keys, and the result is a gather, so gradients flow back to ``value``."""

    v = value if isinstance(value, _tensor.Tensor) else _tensor.convert_to_tensor(value)
    if v.ndim == 0:
        return v
    keys = uniform(_random_dists.leading_shape(v, []), dtype=dtypes.float64, seed=seed)
    if v._is_variable:  # read densely: the gradient is a dense tensor, not a gather's IndexedSlices
        v = _raw.Identity(v)
    return _manipulation.gather(v, _raw.ArgSort(keys, axis=0, descending=False))


def _experimental_module():
    """``tf.random.experimental``: TF's names for the generator API and the seed helpers."""
    module = _types.ModuleType(__name__ + ".experimental", _experimental_module.__doc__)
    names = {"Algorithm": Algorithm, "Generator": Generator, "create_rng_state": create_rng_state,
             "get_global_generator": get_global_generator, "set_global_generator": set_global_generator,
             "stateless_split": split, "stateless_fold_in": fold_in}
    module.__dict__.update(names)
    module.__all__ = sorted(names)
    _sys.modules[module.__name__] = module
    return module


experimental = _experimental_module()
