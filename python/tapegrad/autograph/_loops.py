"""Loops over traced tensors: the state a block assigns becomes tf.while_loop's loop variables.

Note [Loop state]: a converted block shares its variables with the function through
``get_state``/``set_state``. A graph loop carries every variable defined before it (Python numbers
become tensors, a TensorArray becomes its stacked buffer and size); a variable first assigned inside
the loop is local to an iteration and undefined after the loop (reading it there names the loop).
After one traced iteration each carried value must keep its dtype and shape (TF's rule; shape
invariants from ``set_loop_options`` relax the shape).
"""
from tapegrad import _core
from tapegrad._function import control_flow as _control_flow, tensor_array as _tensor_array
from tapegrad._function.tensor_array import TensorArray
from tapegrad._nest import sequence_like
from tapegrad._ops.array.creation import zeros
from tapegrad._ops.array.manipulation import gather
from tapegrad._ops.math.elementwise import ceil, floordiv, logical_and, maximum, sign
from tapegrad._tensor.tensor import Tensor, TensorShape, cast, convert_to_tensor, identity, shape
from tapegrad.autograph._undefined import Undefined, UndefinedReturnValue, located

_LOOP_OPTIONS = ("parallel_iterations", "swap_memory", "maximum_iterations")


def _tensor_array_type():
    return TensorArray


def _tensor_array_module():
    return _tensor_array


def to_graph_value(value, name, where, templates, k):
    """What a variable's value is inside tf.cond / tf.while_loop: tensors (and tuples of them)."""
    if isinstance(value, Tensor):
        return identity(value) if value._is_variable else value
    if isinstance(value, _tensor_array_type()):
        templates[k] = value
        return value._to_loop_value()
    if isinstance(value, (list, tuple)):
        return sequence_like(value, [to_graph_value(v, name, where, {}, None) for v in value])
    if isinstance(value, (bool, int, float)) or type(value).__module__ == "numpy":
        return convert_to_tensor(value)
    raise TypeError(located(where, f"'{name}' holds a {type(value).__name__}, which cannot be a value of graph "
                                    "control flow (the condition is a traced tensor); use tensors, numbers, "
                                    "TensorArrays or lists and tuples of them."))


def from_graph_value(value, template):
    return value if template is None else template._from_loop_value(value)


def _check(before, after, name, where, invariant, rows=False):
    """A carried value keeps its dtype and shape through an iteration; rows=True compares only the
    shape of a row (a TensorArray's buffer may grow)."""
    if isinstance(before, (list, tuple)):
        if not isinstance(after, (list, tuple)) or len(before) != len(after):
            raise ValueError(located(where, f"'{name}' changed its structure in the loop"))
        for b, a in zip(before, after):
            _check(b, a, name, where, None)
        return
    if before.dtype != after.dtype:
        raise TypeError(located(where, f"'{name}' has dtype {before.dtype.name} before the loop, but dtype "
                                        f"{after.dtype.name} after one iteration"))
    want = tuple(before.shape)[rows:] if invariant is None else tuple(invariant)
    got = tuple(after.shape)[rows:]
    if len(want) != len(got) or any(w is not None and w != g for w, g in zip(want, got)):
        what, b, a = ("rows of shape", want, got) if rows else ("shape", before.shape, after.shape)
        raise ValueError(located(where, f"'{name}' has {what} {b} before the loop, but {what} "
                                         f"{a} after one iteration. Use "
                                         "tf.autograph.experimental.set_loop_options to set shape invariants."))


def is_graph_tensor(x):
    """A tensor whose value the graph computes at each call: traced from the arguments, or a Variable."""
    return isinstance(x, Tensor) and _core._tracing() and (_core._is_traced(x) or x._is_variable)


def run_loop(test, body, get_state, set_state, names, opts, where):
    """``while test(): body()``: Python iterations while the condition has a value at tracing time
    (unrolled into the graph, as before conversion), then a tf.while_loop for the rest once it is
    traced (e.g. a break on a traced condition, or a traced bound)."""
    limit = opts.get("maximum_iterations")
    steps = 0
    while limit is None or is_graph_tensor(limit) or steps < limit:
        cond = test()
        # graph_loop (tf.range in a trace): a graph loop as in TF, once every TensorArray it carries
        # knows its element shape (until then iterations unroll, as TF infers the shape from a write)
        if is_graph_tensor(cond) or opts.get("graph_loop") and cond and _arrays_ready(get_state()):
            rest = dict(opts, maximum_iterations=None if limit is None else limit - steps)
            # A TensorArray that does not know its element shape yet learns it from the first
            # iteration's write, as TF infers it: that iteration is peeled off, as for a variable
            # the loop defines.
            if _defined_inside(get_state(), names, rest) or not _arrays_ready(get_state()):
                return _peeled_loop(cond, test, body, get_state, set_state, names, rest, where)
            return _graph_loop(test, body, get_state, set_state, names, rest, where)
        if not cond:
            return
        body()
        steps += 1


def _arrays_ready(state):
    return all(v._loop_ready() for v in state if isinstance(v, _tensor_array_type()))


def _defined_inside(state, names, opts):
    """Whether the loop assigns a variable that is read after it and that it cannot carry from
    before: undefined there, or a for loop's own target (not ``retval_``: a return inside a graph
    loop is refused, as TF refuses it)."""
    local, live = set(opts.get("iterate_names", ())), opts.get("live_names", names)
    return any(n in live and (n in local or isinstance(v, Undefined) and not isinstance(v, UndefinedReturnValue))
               for n, v in zip(names, state))


def _dummy_like(value):
    if isinstance(value, (list, tuple)):
        return sequence_like(value, [_dummy_like(v) for v in value])
    return zeros(list(value.shape), value.dtype)


def _peeled_loop(cond, test, body, get_state, set_state, names, opts, where):
    """A loop that defines variables it did not have before, as TF runs it: ``if cond: (one
    iteration, then the loop, which now carries them) else: (zeros of their types)``. The else
    branch takes the types from the first, which tf.cond traces first."""
    init = list(get_state())
    limit = opts.get("maximum_iterations")
    ahead = opts.get("rows_ahead")
    rest = dict(opts, iterate_names=(), maximum_iterations=None if limit is None else limit - 1,
                rows_ahead=None if ahead is None else maximum(ahead - 1, 0))
    kept, templates, outputs = [], {}, []
    # TensorArrays that learn their element shape in the first iteration: that iteration writes to
    # a copy (its elements are values of the branch), the other branch has them unwritten.
    unwritten = {k: v for k, v in enumerate(init) if isinstance(v, _tensor_array_type()) and not v._loop_ready()}

    def first():
        set_state([v._detached() if k in unwritten else v for k, v in enumerate(init)])
        body()
        _graph_loop(test, body, get_state, set_state, names, rest, where)
        state = get_state()
        kept[:] = [k for k, v in enumerate(state) if not isinstance(v, Undefined)]
        outputs[:] = [to_graph_value(state[k], names[k], where, templates, k) for k in kept]
        return tuple(outputs)

    def none():  # no iteration: the values from before the loop, zeros for what it would define
        set_state(init)
        values = []
        for k, out in zip(kept, outputs):
            if isinstance(init[k], Undefined):
                values.append(_dummy_like(out))
                continue
            if k in unwritten:  # as many rows as the first branch gives a loop that writes a row per step
                value = unwritten[k]._unwritten_loop_value(out)
                values.append(value if ahead is None or not unwritten[k].dynamic_size else
                              _tensor_array_module().grow_rows(value, ahead))
                continue
            before = to_graph_value(init[k], names[k], where, {}, k)
            if k not in templates:
                _check(before, out, names[k], where, None)
            values.append(before)
        return tuple(values)

    result = _control_flow.cond(cond, first, none)
    state = list(init)
    for k, value in zip(kept, result):
        state[k] = from_graph_value(value, templates.get(k))
    set_state(state)


def _graph_loop(test, body, get_state, set_state, names, opts, where):
    """``while test(): body()`` as tf.while_loop over the variables defined before the loop."""
    init = list(get_state())
    local = set(opts.get("iterate_names", ()))  # a for loop's target: assigned before any read
    carried = [k for k, v in enumerate(init) if not isinstance(v, Undefined) and names[k] not in local]
    carried_set = set(carried)
    if any(isinstance(v, UndefinedReturnValue) for v in init):
        raise NotImplementedError(located(where, "a return statement cannot be placed inside a loop over a traced "
                                                  "tensor; set a variable, break, and return it after the loop."))
    templates = {}
    entry = [to_graph_value(init[k], names[k], where, templates, k) for k in carried]
    entry = _room_ahead(entry, carried, templates, opts.get("rows_ahead"))
    invariants = {id(v): s for v, s in opts.get("shape_invariants", None) or ()}

    def restore(values, reason):
        state = list(init)
        for k, v in zip(carried, values):
            state[k] = from_graph_value(v, templates.get(k))
        for k, v in enumerate(init):
            if k not in carried_set:
                state[k] = Undefined(names[k], located(where, f"'{names[k]}' {reason}"))
        set_state(state)

    inside = "is read before it is assigned in an iteration of a loop over a traced tensor; define it before the loop"
    after = "is assigned only inside the loop over a traced tensor here; define it before the loop to use it after"

    def cond_fn(*values):
        restore(values, inside)
        return test()

    def body_fn(*values):
        restore(values, inside)
        body()
        state = get_state()
        out = []
        for pos, k in enumerate(carried):
            new = to_graph_value(state[k], names[k], where, {}, k)
            if k in templates:
                _check(entry[pos][0], new[0], names[k], where, None, rows=True)
            else:
                _check(entry[pos], new, names[k], where, invariants.get(id(init[k])))
            out.append(new)
        return tuple(out)

    kwargs = {key: opts[key] for key in _LOOP_OPTIONS if opts.get(key) is not None}
    if invariants or templates:
        kwargs["shape_invariants"] = tuple(_invariant(e, init[k], k in templates, invariants)
                                           for k, e in zip(carried, entry))
    result = _control_flow.while_loop(cond_fn, body_fn, tuple(entry), **kwargs)
    restore(result, after)


def _room_ahead(entry, carried, templates, rows_ahead):
    """A dynamic_size TensorArray carried by a loop of rows_ahead iterations (a tf.range loop) gets
    room for a row per iteration before the loop: its buffer then keeps one shape through the loop
    (a buffer that doubles as it goes has another shape at each step, which the loop's backward,
    replaying the steps against the final gradient's rows, could not bring back)."""
    if rows_ahead is None:
        return entry
    grow_rows = _tensor_array_module().grow_rows
    return [grow_rows(e, rows_ahead) if k in templates and templates[k].dynamic_size else e
            for k, e in zip(carried, entry)]


def _invariant(value, initial, is_array, given):
    """tf.while_loop's shape invariant of one carried variable (a TensorArray's buffer may grow)."""
    if is_array:
        return TensorShape([None] + list(value[0].shape[1:])), TensorShape([])
    if id(initial) in given:
        return TensorShape(given[id(initial)])
    if isinstance(value, (list, tuple)):
        return sequence_like(value, [_invariant(v, None, False, {}) for v in value])
    return TensorShape(value.shape)


class TensorLoop:
    """``for x in tensor``: the rows of a tensor."""

    def __init__(self, tensor):
        if not tensor._shape:
            raise TypeError("iterating over a 0-d tensor is not allowed")
        self.tensor = tensor

    def count(self):
        return shape(self.tensor)[0]

    def item(self, i):
        return gather(self.tensor, i)


class RangeLoop:
    """``for i in tf.range(...)`` with a traced bound: the numbers, computed from the index."""

    def __init__(self, start, limit=None, delta=1, dtype=None, name=None, graph_loop=False):
        self.graph_loop = graph_loop  # a graph loop even with bounds known at tracing time (tf.range)
        if limit is None:
            start, limit = 0, start
        values = [start, limit, delta]
        if dtype is None:
            kinds = [v.dtype if isinstance(v, Tensor) else convert_to_tensor(v).dtype for v in values]
            floats = [d for d in kinds if d.is_floating]
            dtype = max(floats, key=lambda d: d.size) if floats else max(kinds, key=lambda d: d.size)
        self.dtype = dtype
        self.start, self.limit, self.delta = (cast(convert_to_tensor(v), dtype) for v in values)

    def count(self):
        span = self.limit - self.start
        if self.dtype.is_integer:  # ceil(span / delta) without leaving the integers
            n = floordiv(span + self.delta - sign(self.delta), self.delta)
        else:
            n = ceil(span / self.delta)
        return cast(maximum(n, 0), "int32")

    def item(self, i):
        return self.start + cast(i, self.dtype) * self.delta


def indexed_loop(source, extra_test, body, get_state, set_state, names, opts, where):
    """``for x in source`` as a graph loop over an int32 index (first loop variable)."""
    index = [convert_to_tensor(0)]
    n = source.count()

    def get():
        return (index[0],) + tuple(get_state())

    def put(values):
        index[0] = values[0]
        set_state(values[1:])

    def test():
        more = index[0] < n
        return more if extra_test is None else logical_and(more, extra_test())

    def step():
        i = index[0]
        index[0] = i + 1
        body(source.item(i))

    if getattr(source, "graph_loop", False):
        opts = dict(opts, graph_loop=True)
    run_loop(test, step, get, put, ("<index>",) + tuple(names), dict(opts, rows_ahead=n), where)
