"""keras.initializers: seeded weight initializers (a seeded initializer gives the same values every call)."""
import math

import numpy as np

import tapegrad as tf
from tapegrad.keras import backend

from tapegrad.keras.saving._serialization import AutoConfig

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomNormal", "RandomUniform", "TruncatedNormal",
           "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeNormal", "HeUniform", "LecunNormal",
           "LecunUniform", "Orthogonal", "Identity", "get", "zeros", "ones", "constant", "random_normal",
           "random_uniform", "truncated_normal", "glorot_uniform", "glorot_normal", "he_normal", "he_uniform",
           "lecun_normal", "lecun_uniform", "orthogonal", "identity"]


def _rng(seed):
    """The generator for one call: a fresh one from ``seed``, else the global one (set_random_seed)."""
    return np.random.default_rng(seed) if seed is not None else tf.random._numpy_generator()


def _tensor(values, dtype):
    dt = tf.as_dtype(dtype or backend.floatx())
    return tf.constant(np.asarray(values).astype(dt.as_numpy_dtype), dtype=dt)


class Initializer(AutoConfig):
    """Base class: ``init(shape, dtype)`` returns a tensor."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError


class Zeros(Initializer):
    def __call__(self, shape, dtype=None):
        return _tensor(np.zeros(shape), dtype)


class Ones(Initializer):
    def __call__(self, shape, dtype=None):
        return _tensor(np.ones(shape), dtype)


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return _tensor(np.full(shape, self.value), dtype)


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        return _tensor(_rng(self.seed).normal(self.mean, self.stddev, size=shape), dtype)


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None):
        return _tensor(_rng(self.seed).uniform(self.minval, self.maxval, size=shape), dtype)


def _truncated_normal(rng, stddev, shape):
    """Normal samples redrawn until within two standard deviations."""
    out = rng.normal(0.0, 1.0, size=shape)
    bad = np.abs(out) > 2.0
    while bad.any():
        out[bad] = rng.normal(0.0, 1.0, size=int(bad.sum()))
        bad = np.abs(out) > 2.0
    return out * stddev


class TruncatedNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        return _tensor(self.mean + _truncated_normal(_rng(self.seed), self.stddev, shape), dtype)


def _fans(shape):
    """fan_in, fan_out of a kernel: the last two axes, times the receptive field for conv kernels."""
    shape = tuple(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n``, n = fan_in, fan_out or their average.

    distribution "truncated_normal" (stddev corrected for the truncation), "untruncated_normal" or
    "uniform" (limit sqrt(3 scale / n)).
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if scale <= 0:
            raise ValueError(f"VarianceScaling: scale must be positive, got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"VarianceScaling: mode must be fan_in, fan_out or fan_avg, got {mode!r}")
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError(f"VarianceScaling: unknown distribution {distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        var = self.scale / max(1.0, n)
        rng = _rng(self.seed)
        if self.distribution == "truncated_normal":
            values = _truncated_normal(rng, math.sqrt(var) / 0.87962566103423978, shape)
        elif self.distribution == "untruncated_normal":
            values = rng.normal(0.0, math.sqrt(var), size=shape)
        else:
            limit = math.sqrt(3.0 * var)
            values = rng.uniform(-limit, limit, size=shape)
        return _tensor(values, dtype)


class GlorotUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "uniform", seed)


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)


class HeNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "uniform", seed)


class LecunNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed)


class LecunUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "uniform", seed)


class Orthogonal(Initializer):
    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the shape must have at least 2 axes, got {tuple(shape)}")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        a = _rng(self.seed).normal(size=(max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return _tensor(self.gain * q.reshape(shape), dtype)


class Identity(Initializer):
    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        if len(shape) != 2:
            raise ValueError(f"Identity: the shape must have 2 axes, got {tuple(shape)}")
        return _tensor(self.gain * np.eye(*shape), dtype)


zeros, ones, constant = Zeros, Ones, Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
glorot_uniform, glorot_normal, he_normal, he_uniform = GlorotUniform, GlorotNormal, HeNormal, HeUniform
lecun_normal, lecun_uniform, orthogonal, identity = LecunNormal, LecunUniform, Orthogonal, Identity

_BY_NAME = {"zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
            "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
            "variance_scaling": VarianceScaling, "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
            "he_normal": HeNormal, "he_uniform": HeUniform, "lecun_normal": LecunNormal,
            "lecun_uniform": LecunUniform, "orthogonal": Orthogonal, "identity": Identity}
# the other names Keras accepts for the same classes
_BY_NAME.update({"uniform": RandomUniform, "normal": RandomNormal, "one": Ones, "zero": Zeros,
                 "OrthogonalInitializer": Orthogonal, "IdentityInitializer": Identity})


def get(identifier):
    """An initializer from a name ("he_normal", "HeNormal"), a class, an instance or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier if identifier in _BY_NAME else \
            next((k for k, c in _BY_NAME.items() if c.__name__ == identifier), None)
        if key is None:
            raise ValueError(f"Unknown initializer: '{identifier}'; known: {sorted(_BY_NAME)}")
        return _BY_NAME[key]()
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret initializer identifier: {identifier!r}")
