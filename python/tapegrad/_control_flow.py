"""tf.cond and tf.while_loop, run as Python control flow on the predicate's value.

Eagerly this is TensorFlow's behaviour: the chosen branch (each iteration) runs and a tape records
its ops. Inside a tf.function the predicate must have a value at tracing time (a Python value, or
a tensor that does not depend on the arguments or variables): the branch taken is then fixed in
the graph. A predicate computed from the arguments raises OperatorNotAllowedInGraphError naming
the line: graphs hold no conditional or loop nodes.
"""
from tapegrad import _core
from tapegrad._nest import sequence_like
from tapegrad._tensor import Tensor, identity, stop_gradient
from tapegrad._trace_context import traced_value_error

__all__ = ["cond", "while_loop"]


def _read(value):
    """A Variable read inside a trace: a traced tensor (its value at tracing time would be baked in)."""
    if isinstance(value, _core.Variable) and _core._tracing():
        return identity(value)
    return value


def _decide(pred, what):
    if not isinstance(pred, Tensor):
        return bool(pred)
    pred = _read(pred)
    if pred.dtype.name != "bool" or pred._size != 1:
        raise ValueError(f"{what}: the predicate must be a boolean scalar, got {pred.dtype.name} of shape "
                         f"{tuple(pred._shape)}")
    if _core._is_traced(pred):
        raise traced_value_error(pred, f"{what} on the value")
    return bool(pred._item())


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``."""
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("tf.cond: true_fn and false_fn must be callables")
    return true_fn() if _decide(pred, "tf.cond") else false_fn()


def _flat(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _rebuild(like, items):
    return sequence_like(like, items) if isinstance(like, (list, tuple)) else items[0]


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the final loop_vars
    in the structure given (a single tensor, a list, a tuple or a namedtuple)."""
    if not callable(cond) or not callable(body):
        raise TypeError("tf.while_loop: cond and body must be callables")
    limit = None if maximum_iterations is None else int(_read(maximum_iterations))
    values = _flat(loop_vars)
    steps = 0
    while (limit is None or steps < limit) and _decide(cond(*values), "tf.while_loop"):
        new = _flat(body(*values))
        if len(new) != len(values):
            raise ValueError(f"tf.while_loop: body returned {len(new)} values for {len(values)} loop variables")
        values = new
        steps += 1
    if not back_prop:
        values = [stop_gradient(v) if isinstance(v, Tensor) else v for v in values]
    return _rebuild(loop_vars, values)

