"""tf.random.gamma and tf.random.poisson: stateful draws from host-side Philox streams that
tf.random.set_seed makes reproducible, with TF's seed rules (an op seed alone is deterministic too;
no seed at all draws from the operating system's entropy). The stream is looked up when the draw runs,
so a tf.function draws new values at every call, and the same ones again after set_seed."""
import threading

import numpy as np

from tapegrad import dtypes
from tapegrad._ops.random import distributions as dists
from tapegrad._ops.random.host import LEGACY_DOMAIN, Counted, mix64, philox

__all__ = ["gamma", "poisson"]

_DEFAULT_GLOBAL_SEED = 87654321  # stands for the global seed when only an op seed is given (as TF)
_lock = threading.Lock()
_global_seed = [None]
_streams = {}  # (global seed, op seed) -> Counted


def reset(seed):
    """Called by tf.random.set_seed: the streams start again from ``seed`` (None: no global seed)."""
    with _lock:
        _global_seed[0] = seed
        _streams.clear()


class _SeededStream:
    """The source of one op call site's draws: its stream is chosen when the draw runs."""
    stateful = True
    inputs = []

    def __init__(self, op_seed, fn):
        if op_seed is not None and (isinstance(op_seed, bool) or not isinstance(op_seed, (int, np.integer))):
            raise TypeError(f"{fn}: seed must be an integer or None, got {op_seed!r}")
        self.op_seed = None if op_seed is None else int(op_seed)

    def generate(self, arrays, body):
        g = _global_seed[0]
        if g is None and self.op_seed is None:
            key = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
            return body(philox(key, LEGACY_DOMAIN), arrays)
        g = _DEFAULT_GLOBAL_SEED if g is None else g
        with _lock:
            stream = _streams.get((g, self.op_seed))
            if stream is None:
                tag = -1 if self.op_seed is None else self.op_seed
                stream = _streams[(g, self.op_seed)] = Counted([0, 0, mix64(g, tag)], LEGACY_DOMAIN)
        return stream.generate(arrays, body)


def gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """Gamma(alpha, beta) values of shape ``shape + broadcast(alpha, beta).shape`` (beta is the rate).
    Differentiable in alpha (implicit reparameterization, as TF) and beta."""
    return dists.gamma(_SeededStream(seed, "random.gamma"), "random.gamma", shape, alpha, beta, dtype, trailing=True)


def poisson(shape, lam, dtype=dtypes.float32, seed=None, name=None):
    """Poisson(lam) values of shape ``shape + lam.shape``; a rate <= 0 draws 0."""
    return dists.poisson(_SeededStream(seed, "random.poisson"), "random.poisson", shape, lam, dtype, trailing=True)
