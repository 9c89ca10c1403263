"""tf.gradients: the gradients of values of a tf.function's trace with respect to others.

TF 2 only allows tf.gradients while a function is being traced (eagerly it raises RuntimeError). A
tapegrad trace runs the Python body on real values while the C++ tracer records the ops, and the
tracer keeps no record that could be differentiated later; so differentiating needs a tape that
was recording from the start of the body. ``recording_for_gradients`` is that tape: opened by the
trace around the body (tapegrad._function.function), persistent, watching the trace's float
arguments and every variable the body reads, for the functions whose code names ``gradients``
(Note [When a trace records for tf.gradients]). tf.gradients then asks it for the gradients, which
are traced into the graph as any GradientTape's inside a tf.function.

Note [When a trace records for tf.gradients]: recording keeps every intermediate value of the trace
alive until the body returns, so only functions that may call tf.gradients pay for it: those whose
code (or a nested function's or lambda's) names ``gradients``. A tf.gradients called from a helper
defined elsewhere finds no tape and raises UnimplementedError saying so.
"""
import contextlib
import types

from tapegrad import _core
from tapegrad._autodiff.tape import GradientTape, UnconnectedGradients
from tapegrad._function.trace_context import current_trace
from tapegrad._nest import flatten
from tapegrad._ops.array.creation import ones_like, zeros_like
from tapegrad._tensor.tensor import Tensor, convert_to_tensor
from tapegrad.errors import UnimplementedError

__all__ = ["gradients", "recording_for_gradients", "mentions_gradients"]

_installed = [False]  # set once a trace has opened recording_for_gradients (for the error's wording)


def mentions_gradients(fn):
    """True when fn's code, or the code of a function or lambda defined in it, names ``gradients``."""
    fn = getattr(fn, "__func__", fn)
    code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
    pending = [code] if code is not None else []
    while pending:
        code = pending.pop()
        if "gradients" in code.co_names:
            return True
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return False


@contextlib.contextmanager
def recording_for_gradients(python_function, args, kwargs):
    """Around a trace's body: the tape tf.gradients differentiates (nothing if python_function never
    names ``gradients``). args and kwargs are the traced arguments; their float tensors are watched."""
    _installed[0] = True
    trace = current_trace()
    if trace is None or not mentions_gradients(python_function):
        yield
        return
    tape = GradientTape(persistent=True, watch_accessed_variables=True)
    with tape:
        for t in flatten((list(args), dict(kwargs))):
            if isinstance(t, Tensor) and t.dtype.is_floating:
                tape.watch(t)
        trace.gradients_tape = tape
        try:
            yield
        finally:
            trace.gradients_tape = None


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _unconnected_mode(value):
    try:
        return UnconnectedGradients(getattr(value, "value", value))
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def _differentiable(t):
    return isinstance(t, Tensor) and t.dtype.is_floating


def _checked_grad_y(g, y, i):
    g = convert_to_tensor(g)
    if g.dtype != y.dtype:
        raise TypeError(f"tf.gradients: grad_ys[{i}] has dtype {g.dtype.name}, but ys[{i}] is {y.dtype.name}")
    if not g.shape.is_compatible_with(y.shape):
        raise ValueError(f"tf.gradients: grad_ys[{i}] has shape {g.shape}, incompatible with the shape {y.shape} "
                         f"of ys[{i}]")
    return g


def _stops(stop_gradients):
    """The float tensors of stop_gradients, newest first (a tensor's id grows with its creation, so a
    stop tensor computed from another comes before it), without repeats."""
    found = {}
    for t in _as_list(stop_gradients) if stop_gradients is not None else []:
        if _differentiable(t):
            found.setdefault(t._id, t)
    return [found[i] for i in sorted(found, reverse=True)]


def _cut_gradients(tape, pairs, sources, stops, mode):
    """The gradients of the weighted ys with respect to sources, no gradient flowing through a stop
    tensor (a stop tensor that is a source still gets its own).

    Note [Cutting at stop tensors]: the tape cannot skip entries, so the cut is computed from full
    gradients. A y that is a stop tensor passes nothing on (TF stops its op): it is left out of the
    targets, and only its own gradient, if it is a source, starts with its weight. For the other ys,
    split each path from a y to a node v at the first stop tensor s on it (seen from the y): the full
    gradient a_v is the cut one c_v plus, over the stops s, c_s times the full derivative of s with
    respect to v. So c_v = the full gradient of (sum of weighted ys - sum of <c_s, s>) at v, the c_s
    held constant; and c_s itself needs only the stops made after s (the ones that can depend on it),
    so the stops are solved newest first, one sweep each. A source no stop lies behind keeps the plain
    sweep's result, and one only stop ys reach gets None, as TF; for the others the subtraction is
    exact up to rounding, and where every path to the ys passes a stop between them the result is
    zeros (TF gives None: telling the two apart needs the tape's paths, which it does not expose).
    """
    stop_ids = {s._id for s in stops}
    own = {}  # a stop y's weight, for its own gradient
    for y, g in pairs:
        if y._id in stop_ids:
            own[y._id] = own[y._id] + g if y._id in own else g
    pairs = [(y, g) for y, g in pairs if y._id not in stop_ids]
    ys, seeds = [y for y, _ in pairs], [g for _, g in pairs]
    if not stops:
        return tape.gradient(ys, sources, output_gradients=seeds, unconnected_gradients=mode)
    cut = {}  # stop id -> (stop, its cut gradient from the other ys)
    for s in stops:
        done = list(cut.values())
        g = tape.gradient(ys + [t for t, _ in done], [s], output_gradients=seeds + [-c for _, c in done])[0] \
            if ys else None
        if g is not None:
            cut[s._id] = (s, g)
    plain = tape.gradient(ys, sources, output_gradients=seeds) if ys else [None] * len(sources)
    through = tape.gradient([s for s, _ in cut.values()], sources, output_gradients=[c for _, c in cut.values()]) \
        if cut else [None] * len(sources)
    out = []
    for x, g, t in zip(sources, plain, through):
        if x._id in stop_ids:  # its own weight as a y, and what reaches it from the other ys
            c, w = cut.get(x._id, (None, None))[1], own.get(x._id)
            out.append(w if c is None else c if w is None else c + w)
        elif g is None:
            out.append(None)  # only stop ys reach x, or none does
        else:
            out.append(g if t is None else g - t)
    return out


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """The gradients of ``sum(ys)`` (each y weighted by its ``grad_ys`` entry, ones by default) with
    respect to each of ``xs``: a list as long as xs, None (or zeros, with
    ``unconnected_gradients="zero"``) for an x the ys do not depend on. Only inside a tf.function.
    ``stop_gradients`` (a tensor or a list) are held constant: no gradient flows through them, though
    one that is among xs gets its own (Note [Cutting at stop tensors]). ``gate_gradients`` and
    ``aggregation_method`` choose how TF schedules and sums the gradient ops; here they have no
    effect on the values.

    >>> @tf.function
    ... def f(x):
    ...     return tf.gradients(x * x, x)
    >>> f(tf.constant(3.0))   # [6.0]
    """

    if not _core._tracing():
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
                           "instead.")
    mode = _unconnected_mode(unconnected_gradients)
    tape = getattr(current_trace(), "gradients_tape", None)
    if tape is None and not _installed[0]:
        raise UnimplementedError("tf.gradients: tapegrad's tf.function does not yet record its traces for "
                                 "tf.gradients (no trace opens recording_for_gradients); use tf.GradientTape.")
    if tape is None:
        raise UnimplementedError(
            "tf.gradients: this trace keeps no record of its ops to differentiate. tapegrad records them only "
            "for a tf.function whose own code names `gradients` (a call from a helper defined elsewhere is not "
            "seen); call tf.gradients in the tf.function's body, or use tf.GradientTape.")
    ys, xs = _as_list(ys), _as_list(xs)
    if any(x is None for x in xs):
        raise AttributeError("tf.gradients: xs must be tensors or variables, got None")
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    grad_ys = _as_list(grad_ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Length mismatch. Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    ys = [y if _differentiable(y) else convert_to_tensor(y) for y in ys]
    pairs = [(y, ones_like(y) if g is None else _checked_grad_y(g, y, i))
             for i, (y, g) in enumerate(zip(ys, grad_ys)) if y.dtype.is_floating]
    sources = [i for i, x in enumerate(xs) if _differentiable(x)]
    result = [None] * len(xs)
    if pairs and sources:
        grads = _cut_gradients(tape, pairs, [xs[i] for i in sources], _stops(stop_gradients), mode)
        for i, g in zip(sources, grads):
            result[i] = zeros_like(xs[i]) if g is None and mode is UnconnectedGradients.ZERO else g
    elif mode is UnconnectedGradients.ZERO:
        for i in sources:
            result[i] = zeros_like(xs[i])
    return result
