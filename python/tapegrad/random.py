"""``tf.random``: seeded normal and uniform tensors."""
import numpy as np

from tapegrad import dtypes
from tapegrad import _core

__all__ = ["set_seed", "normal", "uniform", "get_global_generator"]

_generator = np.random.default_rng()


def set_seed(seed):
    """Makes the random ops reproducible from here on."""
    global _generator
    _generator = np.random.default_rng(seed)


def get_global_generator():
    return _generator


def _rng(seed):
    return _generator if seed is None else np.random.default_rng(seed)


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    dt = dtypes.as_dtype(dtype)
    values = _rng(seed).normal(float(mean), float(stddev), size=[int(d) for d in shape])
    return _core.from_numpy(values.astype(dt.as_numpy_dtype), dt.code)


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    dt = dtypes.as_dtype(dtype)
    shape = [int(d) for d in shape]
    if dt.is_integer:
        if maxval is None:
            raise ValueError("uniform: maxval must be given for integer dtypes")
        values = _rng(seed).integers(int(minval), int(maxval), size=shape)
    else:
        values = _rng(seed).uniform(float(minval), 1.0 if maxval is None else float(maxval), size=shape)
    return _core.from_numpy(values.astype(dt.as_numpy_dtype), dt.code)
