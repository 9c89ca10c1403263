"""tf.random.Generator: a random number generator whose state (a Philox counter and key) advances at every
draw, in a tf.function at every call of the graph too; the global generator; create_rng_state.

The state is an int64 vector [counter low, counter high, key], kept in Python (so a graph's host calls
read and advance it, Note [Host calls with results]): ``state`` returns a snapshot tensor, not TF's
tf.Variable (``reset`` sets it; read inside a tf.function, it is the value at tracing time).
``from_seed`` hashes the seed into the key, so the states (and the values drawn) are not TF's; the
same seed draws the same values every time. Not saved by checkpoints.
"""
import threading

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._ops.random import distributions as dists
from tapegrad._ops.random import samplers
from tapegrad._ops.random.host import GENERATOR_DOMAIN, MASK, Algorithm, Counted, algorithm, mix64
from tapegrad._tensor.tensor import Tensor, constant

__all__ = ["Generator", "Algorithm", "get_global_generator", "set_global_generator", "create_rng_state"]


def _signed(words):
    """uint64 words as the int64 numbers a state tensor holds."""
    return [w - (1 << 64) if w >= 1 << 63 else w for w in (int(v) & MASK for v in words)]


def _state_from_seed(seed, fn):
    """[0, 0, key]: the key a hash of the seed (an int, or a vector of ints) -- different seeds, different
    streams (TF puts the seed's words in the state as they are: seeds 1 and 2 share a stream there)."""
    value = seed.numpy() if isinstance(seed, Tensor) else seed
    if value is None:
        raise ValueError(f"{fn}: seed must be an integer or a vector of integers, got None")
    try:
        a = np.asarray(value)
        if a.dtype.kind not in "iuf" or a.ndim > 1:
            raise TypeError
        words = [int(v) for v in a.reshape(-1)]
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"{fn}: seed must be an integer or a vector of integers, got {seed!r}") from None
    if a.ndim == 0:  # a Python int of any size: its 64-bit words
        n = words[0]
        words = [(n >> (64 * k)) & MASK for k in range(max(1, (n.bit_length() + 64) // 64))]
    return [0, 0, mix64(a.ndim, *words)]


def _check_state(state, fn):
    value = state.numpy() if isinstance(state, Tensor) else state
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, np.integer)) for v in value):
        value = np.array([int(v) & MASK for v in value], np.uint64)  # Python ints of either sign
    value = np.asarray(value)
    if value.dtype.kind not in "iuf":
        raise TypeError(f"{fn}: state must be integers, got {state!r}")
    if value.shape != (3,):
        raise ValueError(f"{fn}: Shapes {value.shape} and [3] are incompatible (a state is [counter low, "
                         "counter high, key])")
    if value.dtype.kind == "f":
        value = value.astype(np.int64)
    return [int(v) & MASK for v in value]


def create_rng_state(seed, alg):
    """The int64 state [counter low, counter high, key] of a generator created from ``seed``."""
    algorithm(alg, "create_rng_state")
    return constant(np.array(_signed(_state_from_seed(seed, "create_rng_state")), np.int64))


class Generator:
    """A random number generator with a state that each draw advances.

    >>> g = tf.random.Generator.from_seed(1)
    >>> g.normal([2, 3])
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if not isinstance(copy_from, Generator):
                raise TypeError(f"Generator: copy_from must be a Generator, got {type(copy_from).__name__}")
            words, self._alg = list(copy_from._src.state), copy_from._alg
        elif state is not None and alg is not None:
            words, self._alg = _check_state(state, "Generator"), algorithm(alg, "Generator")
        else:
            raise ValueError("Generator: give copy_from, or both state and alg (or use Generator.from_seed or "
                             "Generator.from_non_deterministic_state)")
        self._src = Counted(words, GENERATOR_DOMAIN, threading.Lock())

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose draws are a function of ``seed`` (an integer or a vector of integers)."""
        return cls(state=_state_from_seed(seed, "Generator.from_seed"),
                   alg=algorithm(alg, "Generator.from_seed", Algorithm.PHILOX))

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy."""
        words = [int(w) for w in np.random.SeedSequence().generate_state(3, np.uint64)]
        return cls(state=_signed(words), alg=algorithm(alg, "Generator.from_non_deterministic_state",
                                                       Algorithm.PHILOX))

    @classmethod
    def from_state(cls, state, alg):
        """A generator with the given state (an int64 vector of 3: counter low, counter high, key)."""
        if alg is None:
            raise ValueError("Generator.from_state: alg must be given")
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator with the given key (a scalar) and counter (a vector of 2)."""
        return cls(state=_key_counter_state(key, counter, "Generator.from_key_counter"), alg=alg)

    def reset(self, state):
        """Sets the state (an int64 vector of 3). Inside a tf.function this happens while tracing only."""
        self._set(_check_state(state, "Generator.reset"))

    def reset_from_seed(self, seed):
        self._set(_state_from_seed(seed, "Generator.reset_from_seed"))

    def reset_from_key_counter(self, key, counter):
        self._set(_key_counter_state(key, counter, "Generator.reset_from_key_counter"))

    def _set(self, words):
        with self._src.lock:
            self._src.state[:] = words

    @property
    def state(self):
        """A snapshot of the state: int64 [counter low, counter high, key]."""
        with self._src.lock:
            return constant(np.array(_signed(self._src.state), np.int64))

    @property
    def key(self):
        return self.state[2]

    @property
    def algorithm(self):
        """The algorithm's number (1 Philox, 2 ThreeFry, 3 auto-select); every one draws from Philox here."""
        return self._alg.value

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        return dists.normal(self._src, "Generator.normal", shape, mean, stddev, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        return dists.normal(self._src, "Generator.truncated_normal", shape, mean, stddev, dtype, truncated=True)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Uniform in [minval, maxval); integer dtypes take both bounds, or neither (the whole range)."""
        return dists.uniform(self._src, "Generator.uniform", shape, minval, maxval, dtype, TypeError)

    def uniform_full_int(self, shape, dtype=dtypes.int64, name=None):
        """Integers over the dtype's whole range (TF's default dtype, uint64, does not exist here)."""
        return dists.full_int(self._src, "Generator.uniform_full_int", shape, dtype)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None):
        return dists.binomial(self._src, "Generator.binomial", shape, counts, probs, dtype)

    def make_seeds(self, count=1):
        """``count`` seeds for the stateless ops: an int64 tensor of shape [2, count]."""
        return dists.full_int(self._src, "Generator.make_seeds", [2, count], dtypes.int64)

    def split(self, count=1):
        """``count`` new generators on streams of their own (their keys drawn from this one, which advances)."""
        if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or count < 0:
            raise errors.InvalidArgumentError(f"Generator.split: count must be an integer >= 0, got {count!r}")
        keys = self._src.generate([], lambda rng, _: samplers.full_int(rng, (int(count),), np.uint64))
        return [Generator(state=[0, 0, int(k)], alg=self._alg) for k in keys]

    def __getstate__(self):  # copy.deepcopy and pickle: the state, not the lock
        return {"state": list(self._src.state), "alg": self._alg.value}

    def __setstate__(self, saved):
        self._alg = Algorithm(saved["alg"])
        self._src = Counted(list(saved["state"]), GENERATOR_DOMAIN, threading.Lock())

    def __repr__(self):
        return f"<tf.random.Generator algorithm={self._alg.name} state={_signed(self._src.state)}>"


def _key_counter_state(key, counter, fn):
    k = np.asarray(key.numpy() if isinstance(key, Tensor) else key)
    c = np.asarray(counter.numpy() if isinstance(counter, Tensor) else counter)
    if k.shape not in ((), (1,)) or c.shape != (2,) or k.dtype.kind not in "iu" or c.dtype.kind not in "iu":
        raise ValueError(f"{fn}: key must be an integer scalar and counter a vector of 2 integers")
    return [int(c[0]) & MASK, int(c[1]) & MASK, int(k.reshape(-1)[0]) & MASK]


_global = []  # the global generator, made on first use


def get_global_generator():
    """The global generator: made from non-deterministic state on first use, unless set_global_generator
    gave one."""
    if not _global:
        _global.append(Generator.from_non_deterministic_state())
    return _global[0]


def set_global_generator(generator):
    """Replaces the global generator (objects holding the previous one keep it)."""
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator: generator must be a tf.random.Generator, got "
                        f"{type(generator).__name__}")
    _global[:] = [generator]
