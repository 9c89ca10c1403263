"""tf.cond, tf.while_loop, tf.case and tf.switch_case.

Eagerly, and inside a tf.function when nothing they decide on depends on the function's arguments
or variables, they are Python control flow: the chosen branch (each iteration) runs and a tape
records its ops; inside a trace that choice is then fixed in the graph, which is right because it
cannot change between calls.

When the predicate (or a loop variable, the loop's bound, or a value the condition or body reads)
is a traced tensor, they build a control-flow node (Note [Control-flow nodes] in cpp/graph/graph.h):
each branch, or the condition and the body, is traced once as a subgraph whose outer values are
captured as explicit inputs; the node runs in C++ for this call (a loop with no Python per
iteration) and the enclosing trace records the node, so every later call decides again.
"""
import contextlib

from tapegrad import _core, _nest as nest
from tapegrad._function.trace_context import _Trace, _trace_stack, traced_value_error
from tapegrad._nest import sequence_like
from tapegrad._tensor.tensor import Tensor, convert_to_tensor, identity, stop_gradient
from tapegrad.errors import InvalidArgumentError

__all__ = ["cond", "while_loop", "case", "switch_case"]


def _read(value):
    """A Variable read inside a trace: a traced tensor (its value at tracing time would be baked in)."""
    if isinstance(value, _core.Variable) and _core._tracing():
        return identity(value)
    return value


def _check_predicate(pred, what):
    if pred.dtype.name != "bool" or pred._size != 1:
        raise ValueError(f"{what}: the predicate must be a boolean scalar, got {pred.dtype.name} of shape "
                         f"{tuple(pred._shape)}")


def _decide(pred, what):
    if not isinstance(pred, Tensor):
        return bool(pred)
    pred = _read(pred)
    _check_predicate(pred, what)
    if _core._is_traced(pred):
        raise traced_value_error(pred, f"{what} on the value")
    return bool(pred._item())


def _traced_predicate(pred, what):
    """The predicate as a traced boolean tensor when it decides inside the graph, else None."""
    if not isinstance(pred, Tensor) or not _core._tracing():
        return None
    pred = _read(pred)
    _check_predicate(pred, what)
    return pred if _core._is_traced(pred) else None


def _as_tensor(value, what):
    value = _read(value)
    if isinstance(value, Tensor):
        return value
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: {value!r} is not a tensor or a value convertible to one") from e


def _trace_subgraph(fn, structure, values, captures, what, varying=None):
    """Traces ``fn(*structure-with-values)`` once as a subgraph (a dry trace: variable assignments,
    random draws and prints are undone or skipped). Returns (graph, captures, result, flat outputs):
    the graph's arguments are the values, then ``captures`` (the outer values it reads, those
    given first). With ``varying`` (a list), the trace serves sizes it does not see (tf.shape is a
    run-time value) and is appended to the list."""
    sub = _core._Tracer(subgraph=True)
    views = [_core._alias(v) for v in values]
    for v in views:
        sub.placeholder(v)
    for c in captures:
        sub.capture(c)
    stack = _trace_stack()
    outer = stack[-1] if stack else None  # a subgraph of a relaxed trace serves other sizes too
    relaxed = {} if varying is not None else (outer.relaxed_shapes if outer is not None else None)
    trace = _Trace(outer.function if outer is not None else None, True, relaxed)
    if varying is not None:
        varying.append(trace)
    stack.append(trace)
    outer_sizes = _core._set_sizes_at_run_time(True) if varying is not None else None  # Note [Sizes in traced rules]
    try:
        with sub:
            result = fn(*nest.pack_sequence_as(structure, views))
            flat = [] if result is None else [_as_tensor(v, what) for v in nest.flatten(result)]
    finally:
        stack.pop()
        if outer_sizes is not None:
            _core._set_sizes_at_run_time(outer_sizes)
    graph, _ = sub.finish(flat)
    return graph, list(sub.captures), result, flat


def _reads_state(*graphs):
    return any(op in ("ReadVariable", "AssignVariable", "If", "While", "HostCall") for g in graphs for op in g.ops)


# -- tf.cond ------------------------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``; inside a tf.function, a traced ``pred`` builds a
    conditional node (both branches traced once) and each call takes its own branch."""
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("tf.cond: true_fn and false_fn must be callables")
    traced = _traced_predicate(pred, "tf.cond")
    if traced is None:
        return true_fn() if _decide(pred, "tf.cond") else false_fn()
    then_g, caps, then_result, then_flat = _trace_subgraph(true_fn, [], [], [], "tf.cond: true_fn")
    else_g, caps, else_result, else_flat = _trace_subgraph(false_fn, [], [], caps, "tf.cond: false_fn")
    try:
        nest.assert_same_structure(then_result, else_result, check_types=False)
    except (TypeError, ValueError) as e:
        raise ValueError("tf.cond: true_fn and false_fn must return the same number, type and overall "
                         f"structure of values: {e}") from None
    for k, (a, b) in enumerate(zip(then_flat, else_flat)):
        if a.dtype != b.dtype:
            raise TypeError(f"tf.cond: output {k} is {a.dtype.name} in true_fn and {b.dtype.name} in false_fn; "
                            "both branches must return the same dtypes")
    outs = _core._run_if(then_g, else_g, traced, caps)
    return None if then_result is None else nest.pack_sequence_as(then_result, outs)


# -- tf.while_loop ------------------------------------------------------------------------------------
def _args_of(loop_vars):
    """The positional arguments of cond and body: the items of a list or tuple, else the value itself."""
    return list(loop_vars) if isinstance(loop_vars, (list, tuple)) else [loop_vars]


def _rebuild(like, items):
    return sequence_like(like, items) if isinstance(like, (list, tuple)) else items[0]


def _shape_text(shape):
    return "(" + ", ".join("None" if d is None or d < 0 else str(d) for d in shape) + (",)" if len(shape) == 1 else ")")


def _invariant_shapes(shape_invariants, args, flat):
    """Per flat loop variable: the shape it may take (None dims vary), from shape_invariants."""
    if shape_invariants is None:
        return [tuple(v._shape) for v in flat]
    given = []

    def walk(like, inv):  # shapes are leaves wherever loop_vars has a leaf (a TensorShape is a sequence too)
        if nest.is_nested(like) and nest.is_nested(inv) and not hasattr(inv, "as_list"):
            kids = nest._children(inv)
            if len(kids) != len(nest._children(like)):
                raise ValueError(f"tf.while_loop: shape_invariants {shape_invariants!r} does not match the "
                                 "structure of loop_vars")
            for a, b in zip(nest._children(like), kids):
                walk(a, b)
        else:
            given.extend([inv] * len(nest.flatten(like)))

    walk(args, _args_of(shape_invariants) if isinstance(shape_invariants, (list, tuple)) else [shape_invariants])
    if len(given) != len(flat):
        raise ValueError(f"tf.while_loop: shape_invariants has {len(given)} shapes for {len(flat)} loop variables")
    out = []
    for k, (s, v) in enumerate(zip(given, flat)):
        dims = None if s is None or getattr(s, "rank", 0) is None else getattr(s, "as_list", lambda: s)()
        if dims is None:
            raise ValueError("tf.while_loop: a shape invariant of unknown rank is not supported "
                             f"(loop variable {k}); give its rank with None dimensions")
        dims = tuple(None if d is None else int(d) for d in dims)
        if len(dims) != v.ndim or any(d is not None and d != n for d, n in zip(dims, v._shape)):
            raise ValueError(f"tf.while_loop: loop variable {k} enters the loop with shape {_shape_text(v._shape)}, "
                             f"which does not fit its shape invariant {_shape_text(dims)}")
        out.append(dims)
    return out


def _check_body_outputs(flat_in, flat_out, shapes):
    for k, (a, b, s) in enumerate(zip(flat_in, flat_out, shapes)):
        if a.dtype != b.dtype:
            raise TypeError(f"tf.while_loop: loop variable {k} enters the loop with type {a.dtype.name}, "
                            f"but has type {b.dtype.name} after one iteration")
        if b.ndim != len(s) or any(d is not None and d != n for d, n in zip(s, b._shape)):
            raise ValueError(f"tf.while_loop: loop variable {k} enters the loop with shape {_shape_text(a._shape)}, "
                             f"but has shape {_shape_text(b._shape)} after one iteration. To allow the shape to "
                             "vary across iterations, use the `shape_invariants` argument of tf.while_loop to "
                             "specify a less-specific shape.")


# A dataset loop whose elements have unknown dimensions (Note [Dataset loops in graphs]) hands the
# next While built a switch that traces its body once more with elements of other sizes.
_varying_elements = []


@contextlib.contextmanager
def varying_elements(switch):
    """Makes the next tf.while_loop in the block trace its body a second time inside
    ``switch.other_sizes()`` and relax the dimensions that differ; ``switch.refuse(why)`` raises
    when the two traces differ."""
    _varying_elements.append(switch)
    try:
        yield
    finally:
        if switch in _varying_elements:  # no loop was built
            _varying_elements.remove(switch)


def _graph_while(cond, body, loop_vars, shape_invariants, maximum_iterations):
    """The loop as a While node, or None when nothing it decides on is traced (Python runs it)."""
    vary = _varying_elements.pop() if _varying_elements else None  # loops nested in the body do not see it
    args = _args_of(loop_vars)
    flat = [_as_tensor(v, "tf.while_loop: loop_vars") for v in nest.flatten(args)]
    limit = None
    if maximum_iterations is not None:
        limit = _as_tensor(maximum_iterations, "tf.while_loop: maximum_iterations")
        if limit._size != 1 or not limit.dtype.is_integer:
            raise ValueError(f"tf.while_loop: maximum_iterations must be an integer scalar, got {limit.dtype.name} "
                             f"of shape {tuple(limit._shape)}")
    shapes = _invariant_shapes(shape_invariants, args, flat)
    cond_g, caps, _, pred = _trace_subgraph(cond, args, flat, [], "tf.while_loop: cond")
    cond_caps = list(caps)
    traces = None if vary is None else []
    body_g, caps, new, flat_new = _trace_subgraph(body, args, flat, caps, "tf.while_loop: body", traces)
    if vary is not None:
        with vary.other_sizes():
            other_g, other_caps, _, _ = _trace_subgraph(body, args, flat, cond_caps, "tf.while_loop: body", traces)
        same, why = body_g.same_structure(other_g)
        if same and [c._id for c in other_caps] != [c._id for c in caps]:
            same, why = False, "it reads other outer values"
        frozen = traces[0].frozen_size or traces[1].frozen_size
        if not same or frozen:
            vary.refuse(why if not same else frozen)
        body_g.relax([tuple(v._shape) for v in flat], other_g)
    new_args = _args_of(new)
    if len(flat_new) != len(flat):
        raise ValueError(f"tf.while_loop: body returned {len(flat_new)} values for {len(flat)} loop variables")
    traced = (caps or (limit is not None and _core._is_traced(limit)) or any(_core._is_traced(v) for v in flat)
              or _reads_state(cond_g, body_g))
    if not traced:
        return None
    if len(pred) != 1 or pred[0].dtype.name != "bool" or pred[0].ndim != 0:
        raise ValueError("tf.while_loop: cond must return a boolean scalar tensor")
    try:
        nest.assert_same_structure(args, new_args, check_types=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"tf.while_loop: body must return the structure of loop_vars: {e}") from None
    _check_body_outputs(flat, flat_new, shapes)
    relaxed = [tuple(-1 if d is None else d for d in s) for s in shapes]
    if any(-1 in s for s in relaxed):
        cond_g.relax(relaxed, cond_g)
        body_g.relax(relaxed, body_g)
    outs = _core._run_while(cond_g, body_g, flat, caps, limit)[:len(flat)]  # then the trip count
    return _rebuild(loop_vars, nest.pack_sequence_as(args, outs))


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the final loop_vars
    in the structure given (a tensor, or a list, tuple or namedtuple whose items may be nested).

    Inside a tf.function, a loop whose condition, variables or bound depend on the function's
    arguments or variables becomes a While node: the loop runs in C++ at every call, with that
    call's trip count. A loop variable's dtype must stay the same, and its shape too unless
    ``shape_invariants`` gives ``None`` for the dimensions that change.
    """
    if not callable(cond) or not callable(body):
        raise TypeError("tf.while_loop: cond and body must be callables")
    result = _graph_while(cond, body, loop_vars, shape_invariants, maximum_iterations) if _core._tracing() else None
    if result is None:
        result = _python_while(cond, body, loop_vars, maximum_iterations)
    if not back_prop:
        result = nest.map_structure(lambda v: stop_gradient(v) if isinstance(v, Tensor) else v, result)
    return result


def _python_while(cond, body, loop_vars, maximum_iterations):
    limit = None if maximum_iterations is None else int(_read(maximum_iterations))
    values = _args_of(loop_vars)
    steps = 0
    while (limit is None or steps < limit) and _decide(cond(*values), "tf.while_loop"):
        new = _args_of(body(*values))
        if len(new) != len(values):
            raise ValueError(f"tf.while_loop: body returned {len(new)} values for {len(values)} loop variables")
        values = new
        steps += 1
    return _rebuild(loop_vars, values)


# -- tf.case, tf.switch_case --------------------------------------------------------------------------
def _items(value, what, arg):
    if isinstance(value, dict):
        return list(value.items())
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{what}: {arg} must be a list (or dict) of callables or pairs, got {type(value).__name__}")
    return list(value)


def _pairs(pred_fn_pairs):
    items = _items(pred_fn_pairs, "tf.case", "pred_fn_pairs")
    for item in items:
        if not isinstance(item, tuple) or len(item) != 2 or not callable(item[1]):
            raise TypeError(f"tf.case: each item of pred_fn_pairs must be a (predicate, callable) pair, got {item!r}")
    return items


def _chain(preds_fns, default, what):
    """cond(p0, f0, lambda: cond(p1, f1, ... default)) for the (predicate, function) pairs."""
    def build(k):
        if k == len(preds_fns):
            return default()
        p, f = preds_fns[k]
        return cond(p, f, lambda: build(k + 1))
    return build(0)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The function of the first pair whose predicate is true, else ``default()`` (TF's tf.case).

    Without ``default``, an eager call where no predicate holds raises InvalidArgumentError, as TF's;
    in a traced function the last pair's function then runs (graphs hold no assertion node yet).
    With ``exclusive=True`` eager calls check that at most one predicate is true.
    """
    pairs = _pairs(pred_fn_pairs)
    if default is not None and not callable(default):
        raise TypeError("tf.case: default must be callable")
    if not pairs:
        if default is None:
            raise ValueError("tf.case: pred_fn_pairs is empty and no default is given")
        return default()
    if exclusive and not _core._tracing():
        true = [k for k, (p, _) in enumerate(pairs) if _decide(p, "tf.case")]
        if len(true) > 1:
            raise InvalidArgumentError(None, None, f"tf.case: more than one condition evaluated as True "
                                                   f"(pairs {true}) with exclusive=True")
    if default is None and not _core._tracing() and not any(_decide(p, "tf.case") for p, _ in pairs):
        raise InvalidArgumentError(None, None, f"tf.case: none of the {len(pairs)} conditions evaluated as True "
                                               f"and no default is given")
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]
    return _chain(pairs, default, "tf.case")


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``branch_fns[branch_index]()``; an index out of range runs ``default`` (or the last branch).

    ``branch_fns`` is a list of callables, a list of (int, callable) pairs or a dict of them.
    """
    items = _items(branch_fns, "tf.switch_case", "branch_fns")
    if not items:
        raise ValueError("tf.switch_case: branch_fns must not be empty")
    if all(isinstance(i, tuple) and len(i) == 2 for i in items):
        items = sorted(items, key=lambda kv: kv[0])
        if [k for k, _ in items] != list(range(len(items))):
            raise ValueError(f"tf.switch_case: branch keys must be 0..{len(items) - 1}, got {[k for k, _ in items]}")
        fns = [f for _, f in items]
    else:
        fns = items
    if not all(callable(f) for f in fns) or (default is not None and not callable(default)):
        raise TypeError("tf.switch_case: branch_fns and default must be callables")
    index = _as_tensor(branch_index, "tf.switch_case: branch_index")
    if not index.dtype.is_integer:
        raise TypeError(f"tf.switch_case: branch_index must be an integer tensor, got {index.dtype.name}")
    if index._size != 1:
        raise ValueError(f"tf.switch_case: branch_index must be an integer scalar, got {index.dtype.name} "
                         f"of shape {tuple(index._shape)}")
    if default is None:
        fns, default = fns[:-1], fns[-1]
    if not (_core._tracing() and _core._is_traced(index)):
        k = int(index._item())
        return fns[k]() if 0 <= k < len(fns) else default()
    return _chain([(index == k, f) for k, f in enumerate(fns)], default, "tf.switch_case")
