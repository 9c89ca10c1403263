"""keras.random.SeedGenerator: the seed state every keras.random function draws from.

Keras's random functions are stateless: an integer ``seed=`` gives the same values at every call. A
SeedGenerator holds a [2] int64 Variable ``[seed, counter]``; each draw reads it and advances it, so
repeated calls (and repeated calls of a tf.function that traced one, since the state is a Variable
the graph assigns) draw new values. ``seed=None`` draws from a global generator whose initial seed
comes from Python's ``random`` (so keras.utils.set_random_seed, which seeds it, makes it repeatable
once ``reset_global_seed_generator`` is called there too).
"""
import random as _python_random

import numpy as np

import tapegrad as tf

__all__ = ["SeedGenerator", "draw_seed", "global_seed_generator", "reset_global_seed_generator"]

_names = {}  # auto names: "seed_generator", "seed_generator_1", ... as Keras's auto_name gives
_global = [None]  # the generator behind seed=None, made on first use


def _auto_name(base):
    n = _names.get(base, 0)
    _names[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def _make_default_seed():
    return _python_random.randint(1, int(1e9))


class SeedGenerator:
    """A seed whose value advances at every use.

    Args:
      seed: an int (a reproducible sequence) or None (a random initial seed).
      name: the generator's name (default "seed_generator", numbered when taken).

    >>> gen = keras.random.SeedGenerator(seed=42)
    >>> a = keras.random.normal((2,), seed=gen)
    >>> b = keras.random.normal((2,), seed=gen)   # new values: the state advanced
    """

    def __init__(self, seed=None, name=None, **kwargs):
        kwargs.pop("backend", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self.name = name if name is not None else _auto_name("seed_generator")
        self._initial_seed = seed
        if seed is None:
            seed = _make_default_seed()
        if not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        with tf.init_scope():  # a generator made while tracing still owns an eager Variable
            self.state = tf.Variable(np.array([seed, 0], np.int64), trainable=False,
                                     name="seed_generator_state")
        self.state.path = f"{self.name}/seed_generator_state"  # Keras's variable path

    def next(self, ordered=True):
        """The state before this call, then the state advanced: counter + 1 (ordered), or a
        scrambling step that keeps values below 933199 (ordered=False, what seed=None uses)."""
        current = tf.identity(self.state.read_value())
        if ordered:
            self.state.assign_add(tf.constant([0, 1], tf.int64))
        else:
            self.state.assign((current + 1) * 5387 % 933199)
        return current

    def get_config(self):
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<SeedGenerator name={self.name!r} seed={self._initial_seed!r}>"


def global_seed_generator():
    """The generator that ``seed=None`` draws from."""
    if _global[0] is None:
        _global[0] = SeedGenerator()
    return _global[0]


def reset_global_seed_generator():
    """Forgets the global generator; the next seed=None draw makes one from Python's random seed
    (keras.utils.set_random_seed does this in Keras)."""
    _global[0] = None


def draw_seed(seed):
    """The [2] int64 seed tensor of one draw: a generator's state (advanced), [seed, 0] for an int,
    the global generator's scrambled state for None."""
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if isinstance(seed, int):
        return tf.constant([seed, 0], tf.int64)
    if seed is None:
        return global_seed_generator().next(ordered=False)
    raise ValueError("Argument `seed` must be either an integer or an instance of `SeedGenerator`. "
                     f"Received: seed={seed} (of type {type(seed)})")


def stateless_seed(seed):
    """draw_seed's value as the int32 pair tf.random's stateless ops take (as Keras on TF: the
    int64 state modulo 2**31 - 2)."""
    return tf.cast(tf.math.floormod(draw_seed(seed), 2147483646), tf.int32)
