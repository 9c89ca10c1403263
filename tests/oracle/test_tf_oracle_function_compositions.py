"""tf.function compositions run by TensorFlow and by tapegrad with the same code, each called several
times with changing values: nested traced functions, closures over variables and Python state,
assigns, iterators, py_function, tf.init_scope, retraced callers of retraced callees. A graph that
replays a trace-time value where TF reads the new one shows here as a different sequence.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

CASES = {}


def case(fn):
    """A case: fn(lib) -> the list of what each call gave (tensors, numbers, error class names)."""
    CASES[fn.__name__] = fn
    return fn


def _errors_of(lib, f, *args):
    try:
        return f(*args)
    except (lib.errors.OutOfRangeError, StopIteration) as e:
        return type(e).__name__


@case
def inner_assigns_its_argument(lib):
    v = lib.Variable(1.0)

    @lib.function
    def inner(a):
        v.assign(a)
        return v * a

    @lib.function
    def outer(a):
        return inner(a) + 1.0

    return [outer(lib.constant(x)) for x in (2.0, 4.0, 7.5)] + [v.read_value()]


@case
def outer_assigns_inner_reads(lib):
    v = lib.Variable(1.0)

    @lib.function
    def inner(a):
        return v * a

    @lib.function
    def outer(a):
        v.assign(a)
        return inner(a) + 1.0

    return [outer(lib.constant(x)) for x in (2.0, 4.0, 7.5)]


@case
def inner_traced_before_the_outer(lib):
    v = lib.Variable([1.0, 2.0])

    @lib.function
    def inner(a, b):
        v.assign_add(a)
        return v * b

    first = inner(lib.constant([1.0, 1.0]), lib.constant(3.0))

    @lib.function
    def outer(a):
        return inner(a, a[0]) - inner(a * 2.0, a[1])

    return [first] + [outer(lib.constant([x, -x])) for x in (0.5, 2.0, -1.0)] + [v.read_value()]


@case
def three_levels_with_gradients(lib):
    w = lib.Variable([[1.0, -0.5], [0.25, 2.0]])

    @lib.function
    def layer(x):
        return lib.tanh(lib.matmul(x, w))

    @lib.function
    def block(x):
        return layer(layer(x)) + x

    @lib.function
    def loss(x):
        return lib.reduce_sum(block(x) ** 2)

    out = []
    for s in (1.0, -2.0, 0.3):
        x = lib.constant([[s, 2.0 * s]])
        with lib.GradientTape() as tape:
            tape.watch(x)
            value = loss(x)
        gw, gx = tape.gradient(value, [w, x])
        out += [value, gw, gx]
        w.assign_sub(0.1 * gw)
    return out


@case
def closure_over_a_variable_changed_outside(lib):
    v = lib.Variable(3.0)

    @lib.function
    def f(x):
        return x * v + v

    out = []
    for x in (1.0, 2.0, 3.0):
        out.append(f(lib.constant(x)))
        v.assign(v * 2.0 - x)
    return out


@case
def python_state_runs_once_per_trace(lib):
    traces, seen = [], []

    @lib.function
    def inner(x):
        traces.append("inner")
        return x + 1.0

    @lib.function
    def outer(x):
        traces.append("outer")
        seen.append(len(traces))
        return inner(x) * 2.0

    out = [outer(lib.constant(x)) for x in (1.0, 2.0, 3.0)]
    out.append(outer(lib.constant([1.0, 2.0])))  # a new shape: both trace again
    return out + [len(traces), traces.count("outer"), seen]


@case
def python_values_retrace_and_the_callee_follows(lib):
    @lib.function
    def inner(x, n):
        return x ** n

    @lib.function
    def outer(x, n):
        return inner(x, n) + inner(x, n + 1)

    return [outer(lib.constant(1.5), n) for n in (1, 2, 1, 3)] + [outer.experimental_get_tracing_count(),
                                                                   inner.experimental_get_tracing_count()]


@case
def retraced_callers_of_retraced_callees(lib):
    v = lib.Variable(0.0)

    @lib.function
    def inner(x):
        v.assign_add(lib.reduce_sum(x))
        return lib.reduce_mean(x) * v

    @lib.function
    def outer(x):
        return inner(x) + inner(x[:1])

    out = []
    for shape in ((3,), (3,), (5,), (2, 2), (5,)):
        x = lib.reshape(lib.range(1.0, 1.0 + int(np.prod(shape))), shape)
        out.append(outer(x))
    return out + [v.read_value()]


@case
def next_of_an_iterator_argument(lib):
    it = iter(lib.data.Dataset.range(3))
    f = lib.function(lambda it: next(it))
    return [_errors_of(lib, f, it) for _ in range(4)]


@case
def next_of_a_captured_iterator_inside_a_nested_function(lib):
    it = iter(lib.data.Dataset.from_tensor_slices(({"a": [1.0, 2.0, 3.0]}, [10, 20, 30])))
    scale = lib.Variable(1.0)

    @lib.function
    def take():
        x, y = next(it)
        return x["a"] * scale, y

    @lib.function
    def step():
        a, y = take()
        scale.assign_add(1.0)
        return a, y

    return [step() for _ in range(3)] + [scale.read_value()]


@case
def get_next_at_the_end_raises_out_of_range(lib):
    it = iter(lib.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]))

    @lib.function
    def f():
        return it.get_next() * 2

    return [_errors_of(lib, f) for _ in range(3)]


@case
def py_function_runs_at_every_call(lib):
    log = []

    def host(x):
        log.append(float(x))
        return x * 10.0

    @lib.function
    def inner(x):
        return lib.py_function(host, [x], lib.float32)

    @lib.function
    def outer(x):
        return inner(x + 1.0) + 1.0

    return [outer(lib.constant(x)) for x in (1.0, 2.0, 3.0)] + [log]


@case
def init_scope_runs_once_per_trace(lib):
    count = lib.Variable(0)
    v = lib.Variable(2.0)

    @lib.function
    def f(x):
        with lib.init_scope():
            count.assign_add(1)
        return x * v

    out = [f(lib.constant(x)) for x in (1.0, 2.0, 3.0)]
    v.assign(5.0)
    out.append(f(lib.constant(4.0)))
    out.append(f(lib.constant([1.0, 2.0])))
    return out + [count.read_value()]


@case
def method_of_a_module_called_by_a_function(lib):
    class Counter(lib.Module):
        def __init__(self):
            super().__init__()
            self.total = lib.Variable(0.0)

        @lib.function
        def add(self, x):
            self.total.assign_add(x)
            return self.total * 1.0

    a, b = Counter(), Counter()

    @lib.function
    def both(x):
        return a.add(x) + b.add(2.0 * x)

    return [both(lib.constant(x)) for x in (1.0, 2.0, 3.0)] + [a.total.read_value(), b.total.read_value()]


@case
def assign_then_read_order_across_calls(lib):
    v = lib.Variable(1.0)

    @lib.function
    def read():
        return v.read_value()

    @lib.function
    def f(x):
        before = read()
        v.assign(x)
        middle = read()
        v.assign_add(1.0)
        return before, middle, read()

    return [f(lib.constant(x)) for x in (5.0, 7.0, -1.0)]


@case
def optimizer_step_in_a_nested_function(lib):
    w = lib.Variable([1.0, -1.0])
    opt_lr = 0.1

    @lib.function
    def loss(x):
        return lib.reduce_sum((w * x - 1.0) ** 2)

    @lib.function
    def train_step(x):
        with lib.GradientTape() as tape:
            value = loss(x)
        w.assign_sub(opt_lr * tape.gradient(value, w))
        return value

    return [train_step(lib.constant([x, 2.0])) for x in (1.0, 0.5, 2.0, 1.0)] + [w.read_value()]


def _plain(lib, value):
    """Tensors as NumPy arrays, nested lists as lists, the rest as it is."""
    if isinstance(value, (list, tuple)):
        return [_plain(lib, v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(lib, v) for k, v in sorted(value.items())}
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return value


def _same(got, want, where):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{where}: {got!r} != {want!r}"
        for k in want:
            _same(got[k], want[k], f"{where}[{k!r}]")
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{where}: {got!r} is not an array like {want!r}"
        assert got.dtype == want.dtype and got.shape == want.shape, f"{where}: {got!r} != {want!r}"
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=where)
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_composition_matches_tf(name):
    want = _plain(ref, CASES[name](ref))
    got = _plain(tg, CASES[name](tg))
    _same(got, want, name)
