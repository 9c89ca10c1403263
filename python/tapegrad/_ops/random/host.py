"""Random values drawn on the host from NumPy's Philox generator: at once when eager, and in a tf.function
as a host call the graph makes at every call (Note [Host calls with results] in cpp/graph/trace.h).

A *source* says which Philox stream a draw reads: a stateless seed (the stream is a function of the
seed's value, which the graph reads at run time), or a Python-side state that each draw advances (a
tf.random.Generator, or the stream of random.gamma/poisson). Values are reproducible for a given NumPy
version (NumPy keeps the right to change how its distributions use the raw bits)."""
import enum
import threading

import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._function.host_call import fresh
from tapegrad._function.trace_context import current_trace, relaxed_trace
from tapegrad._ops import _raw
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.tensor import Tensor, convert_to_tensor, stop_gradient

MASK = (1 << 64) - 1
GENERATOR_DOMAIN = 0x6A09E667F3BCC908  # the second Philox key word of Generator streams
LEGACY_DOMAIN = 0xBB67AE8584CAA73B  # ... and of the random.gamma / random.poisson streams


def _splitmix(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def mix64(*words):
    """A well-spread 64-bit number from any Python ints (each folded in modulo 2**64)."""
    h = 0
    for w in words:
        h = _splitmix(h ^ (int(w) & MASK))
    return h


def philox(key0, key1, counter=(0, 0)):
    """A NumPy Generator on the Philox stream of key (key0, key1), after block ``counter``."""
    bits = np.random.Philox(key=np.array([key0 & MASK, key1 & MASK], np.uint64),
                            counter=np.array([counter[0] & MASK, counter[1] & MASK, 0, 0], np.uint64))
    return np.random.Generator(bits)


def counter_of(rng):
    """The (low, high) words of the last Philox block ``rng`` used: the next draw starts after it."""
    c = rng.bit_generator.state["state"]["counter"]
    return int(c[0]), int(c[1])


class Algorithm(enum.Enum):
    """The random number algorithms TF names. Every one draws from NumPy's Philox here (TF's CPU
    kernels do not run ThreeFry; AUTO_SELECT picks Philox there too)."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_ALG_NAMES = {"philox": Algorithm.PHILOX, "threefry": Algorithm.THREEFRY, "auto_select": Algorithm.AUTO_SELECT}


def algorithm(alg, fn, default=Algorithm.AUTO_SELECT):
    """``alg`` (None, a name, a number or an Algorithm) as an Algorithm; ValueError as TF for others."""
    if alg is None:
        return default
    if isinstance(alg, Algorithm):
        return alg
    if isinstance(alg, str) and alg.lower() in _ALG_NAMES:
        return _ALG_NAMES[alg.lower()]
    if isinstance(alg, (int, np.integer)) and not isinstance(alg, bool) and int(alg) in (1, 2, 3):
        return Algorithm(int(alg))
    if isinstance(alg, str):
        raise ValueError(f"{fn}: Argument `alg` got unsupported value {alg}. Supported values are philox for the "
                         "Philox algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")
    raise ValueError(f"{fn}: Argument `alg` got unsupported value {alg}. Supported values are 1 for the Philox "
                     "algorithm, 2 for the ThreeFry algorithm, and 3 for auto-selection.")


class Stateless:
    """The stream of a [2] integer seed tensor: the same seed draws the same values."""
    stateful = False

    def __init__(self, seed, fn):
        self.seed = seed_tensor(seed, fn)
        self.inputs = [self.seed]

    def generate(self, arrays, body):
        s = arrays[0].astype(np.int64)
        return body(philox(int(s[0]), int(s[1])), arrays[1:])


class Counted:
    """A stream that each draw advances: ``state`` is a list [counter low, counter high, key]."""
    stateful = True
    inputs = []

    def __init__(self, state, domain, lock=None):
        self.state, self.domain, self.lock = state, domain, lock or threading.Lock()

    def generate(self, arrays, body):
        with self.lock:
            rng = philox(self.state[2], self.domain, self.state[:2])
            out = body(rng, arrays)
            self.state[:2] = counter_of(rng)
        return out


def seed_tensor(seed, fn):
    """``seed`` as a tensor of shape [2] and dtype int32 or int64, refused as TF refuses it."""
    if seed is None:
        raise ValueError(f"{fn}: seed must be a shape [2] integer tensor, got None")
    if not isinstance(seed, Tensor):
        try:
            seed = convert_to_tensor(seed)
        except (TypeError, ValueError) as e:
            raise type(e)(f"{fn}: seed: {e}") from None
    if seed.dtype not in (dtypes.int32, dtypes.int64):
        raise errors.InvalidArgumentError(f"{fn}: seed must be an int32 or int64 tensor, got {seed.dtype.name}")
    if list(seed.shape) != [2]:
        raise errors.InvalidArgumentError(f"{fn}: seed must have shape [2], not {list(seed.shape)}")
    return seed


def out_dtype(dtype, fn, allowed, error=ValueError):
    """``dtype`` as a DType, refused with ``error`` (TF's class differs between the ops) unless allowed."""
    dt = convert_arg(dtype, "dtype", fn, "dtype")
    if dt not in allowed:
        names = ", ".join(f"tf.{d.name}" for d in allowed)
        raise error(f"{fn}: Argument `dtype` got invalid value {dt!r}. Accepted dtypes are ({names}).")
    return dt


def out_shape(shape, fn):
    """A list of ints, or (in a graph relaxed to several sizes) a traced 1-D integer tensor."""
    if isinstance(shape, Tensor):
        if not shape.dtype.is_integer:
            raise errors.InvalidArgumentError(f"{fn}: shape must be an int32 or int64 tensor, got {shape.dtype.name}")
        if _core._tracing() and _core._is_traced(shape) and relaxed_trace() is not None and shape.ndim == 1:
            return shape
        if shape.ndim != 1:
            raise errors.InvalidArgumentError(f"{fn}: shape must be a vector of int32 or int64, got shape "
                                              f"{list(shape.shape)}")
        shape = shape.numpy().tolist()
    try:
        vector = isinstance(shape, (list, tuple, np.ndarray)) and np.ndim(shape) == 1
    except ValueError:  # a ragged nesting
        vector = False
    if not vector:
        raise errors.InvalidArgumentError(f"{fn}: shape must be a vector of int32 or int64, got {shape!r}")
    dims = _core._convert_arg(shape, "ints", fn, "shape")
    for d in dims:
        if d < 0:
            raise errors.InvalidArgumentError(f"{fn}: Dimension {d} must be >= 0")
    return dims


def _alloc(shape, dt, fn):
    try:
        return _core._empty_with_view(list(shape), dt.code)
    except errors.OpError as e:
        raise type(e)(f"{fn}: {e}") from None


def known(t):
    """True if the value of tensor ``t`` is fixed now (eager, or a constant of the graph being traced)."""
    return not (_core._tracing() and (_core._is_traced(t) or t._is_variable))


def _zeros(shape, dt):
    """Zeros of the traced 1-D int tensor shape (a Fill, which reads its size at every call)."""
    return _raw.Fill(shape, _core.fill([], 0.0, dt.code))


def draw(fn, src, params, outs, body):
    """Tensors drawn on the host by ``body(rng, param_arrays, shapes) -> list of arrays``, one per (shape,
    dtype) of ``outs``. A shape may be a traced 1-D tensor (a relaxed graph): its output then takes its size at
    run time. ``params`` are tensors the draw reads (their gradients are cut: compose ops around the
    draw for those). A stateful source draws anew at every call of a graph; a stateless one whose inputs
    are all fixed draws once, while tracing, and the graph holds the values."""

    carriers = [_zeros(s, dt) for s, dt in outs if isinstance(s, Tensor)]  # output k takes input k's size
    if any(not isinstance(s, Tensor) for s, _ in outs[:len(carriers)]):
        raise errors.UnimplementedError(f"{fn}: only leading outputs may have a run-time shape")
    inputs = carriers + list(src.inputs) + [stop_gradient(p) if p.dtype.is_floating else p for p in params]
    nc = len(carriers)

    def run(values):
        arrays = [v._numpy_unchecked() for v in values]
        shapes, k = [], 0
        for s, _ in outs:
            shapes.append(arrays[k].shape if isinstance(s, Tensor) else s)
            k += isinstance(s, Tensor)
        made = [_alloc(s, dt, fn) for s, (_, dt) in zip(shapes, outs)]
        got = src.generate(arrays[nc:], lambda rng, rest: body(rng, rest, shapes))
        for (_, view), a in zip(made, got):
            view[...] = a
        return [t for t, _ in made]

    if not _core._tracing() or (not src.stateful and all(known(t) for t in inputs)):
        return run(inputs)
    trace = current_trace()
    if trace is not None and trace.dry:  # its values come when the graph runs
        shapes = [c.shape for c in carriers] + [s for s, _ in outs[nc:]]
        results = [fresh(s, dt.code) for s, (_, dt) in zip(shapes, outs)]
    else:
        results = run(inputs)
    _core._record_host_call(run, inputs, fn, results)
    return results


def to_dtype(a, dt):
    """A float64 array as ``dt``: integers saturate (NaN becomes 0), as a cast of huge values would not."""
    if dt.is_floating:
        return a.astype(dt.as_numpy_dtype)
    info = np.iinfo(dt.as_numpy_dtype)
    high = min(float(info.max), 2.0 ** 63 - 1024)  # the largest float64 below 2**63: int64's max rounds up
    return np.nan_to_num(np.clip(a, float(info.min), high), nan=0.0).astype(dt.as_numpy_dtype)
