"""What converted code calls (as ``ag__.*``): each decides at run time between Python and graph ops.

A condition or iterable that is a traced tensor (it depends on a tf.function's arguments or
variables) becomes tf.cond / tf.while_loop over the state the block assigns; anything else runs
as plain Python, so eager code and Python-valued conditions behave exactly as before conversion.
"""
from tapegrad._function import control_flow as _control_flow
from tapegrad import _core
from tapegrad._ops.math.elementwise import logical_and, logical_not, logical_or
from tapegrad._tensor.tensor import Tensor
from tapegrad.autograph import _loops
from tapegrad.autograph._loops import is_graph_tensor
from tapegrad.autograph._undefined import Undefined, UndefinedReturnValue, located, undefined_error

__all__ = ["Undefined", "UndefinedReturnValue", "ld", "retval", "and_", "or_", "not_", "is_false", "and_values",
           "if_exp", "if_stmt",
           "while_stmt", "for_stmt", "is_graph_tensor"]


def ld(value):
    """A read of one of the function's variables: an undefined one raises naming why."""
    if isinstance(value, Undefined):
        raise undefined_error(value)
    return value


def retval(value):
    return None if isinstance(value, UndefinedReturnValue) else value


# -- expressions ------------------------------------------------------------------------------------
def and_(a_fn, b_fn):
    a = a_fn()
    if is_graph_tensor(a):
        return logical_and(a, b_fn())
    return a and b_fn()


def or_(a_fn, b_fn):
    a = a_fn()
    if is_graph_tensor(a):
        return logical_or(a, b_fn())
    return a or b_fn()


def is_false(a):
    """A loop's go-on flag that is a Python False (a traced one is decided by the graph)."""
    return not is_graph_tensor(a) and not a


def and_values(a, b):
    return logical_and(a, b) if is_graph_tensor(a) or is_graph_tensor(b) else (a and b)


def not_(a):
    if is_graph_tensor(a):
        return logical_not(a)
    return not a


def if_exp(cond, true_fn, false_fn, where):
    if is_graph_tensor(cond):
        return _control_flow.cond(cond, true_fn, false_fn)
    return true_fn() if cond else false_fn()


# -- statements ---------------------------------------------------------------------------------------
def if_stmt(cond, body, orelse, get_state, set_state, names, body_names, orelse_names, where):
    """``if cond: body() else: orelse()``; a traced ``cond`` becomes tf.cond over the assigned names."""
    if not is_graph_tensor(cond):
        if cond:
            body()
        else:
            orelse()
        return
    init = list(get_state())
    outputs, after = [], {}
    for k, (name, value) in enumerate(zip(names, init)):
        if not isinstance(value, Undefined) or (name in body_names and name in orelse_names):
            outputs.append(k)
        elif isinstance(value, UndefinedReturnValue):
            missing = "else" if name in body_names else "if"
            raise ValueError(located(where, f"the {missing} branch must also have a return statement "
                                             "(the condition is a traced tensor)."))
        else:  # assigned in one branch only: an error if read after the if (see Undefined)
            missing = "else" if name in body_names else "if"
            after[k] = Undefined(name, located(where, f"'{name}' must also be initialized in the {missing} "
                                                       "branch (the condition is a traced tensor)"))
    templates = {}

    def branch(fn, label, other):
        def run():
            set_state(init)
            fn()
            state = get_state()
            out = []
            for k in outputs:
                value = state[k]
                if isinstance(value, Undefined):
                    what = "return statement" if isinstance(value, UndefinedReturnValue) else "assignment"
                    raise ValueError(located(where, f"'{names[k]}' is set in the {other} branch but not in the "
                                                     f"{label} branch (no {what} ran there); the condition is a "
                                                     "traced tensor, so both branches must set it."))
                out.append(_loops.to_graph_value(value, names[k], where, templates, k))
            return tuple(out)
        return run

    result = _control_flow.cond(cond, branch(body, "if", "else"), branch(orelse, "else", "if"))
    final = list(init)
    for k, value in zip(outputs, result):
        final[k] = _loops.from_graph_value(value, templates.get(k))
    for k, value in after.items():
        final[k] = value
    set_state(final)


def while_stmt(test, body, get_state, set_state, names, opts, where):
    """``while test(): body()``; once the condition is a traced tensor, a tf.while_loop."""
    _loops.run_loop(test, body, get_state, set_state, names, opts or {}, where)


def for_stmt(iterable, extra_test, body, get_state, set_state, names, opts, where):
    """``for x in iterable: body(x)`` while ``extra_test()`` (the loop's break/return flags).

    A tensor inside a tf.function (or tf.range with a traced bound) iterates over axis 0 by an
    index: unrolled while the count and the break flags have values at tracing time, a
    tf.while_loop from the first traced one (see run_loop). An object with ``_autograph_for_stmt``
    (the iteration protocol, e.g. a dataset) runs the loop itself; anything else is a Python loop.
    """
    hook = getattr(type(iterable), "_autograph_for_stmt", None)
    if hook is not None:
        return hook(iterable, extra_test, body, get_state, set_state, names, opts or {}, where)
    if isinstance(iterable, _loops.RangeLoop) or isinstance(iterable, Tensor) and _core._tracing():
        source = iterable if isinstance(iterable, _loops.RangeLoop) else _loops.TensorLoop(iterable)
        return _loops.indexed_loop(source, extra_test, body, get_state, set_state, names, opts or {}, where)
    if isinstance(iterable, Tensor) and not iterable._shape:
        raise TypeError(located(where, "iterating over a 0-d tensor is not allowed"))
    if extra_test is not None and not _python_test(extra_test(), where):
        return
    for item in iterable:
        body(item)
        if extra_test is not None and not _python_test(extra_test(), where):
            break


def _python_test(value, where):
    if is_graph_tensor(value):
        raise NotImplementedError(located(where, "break and return statements which depend on a traced tensor "
                                                  "are not supported in Python for loops; iterate over a tensor "
                                                  "(e.g. tf.range) to make it a graph loop."))
    return value

