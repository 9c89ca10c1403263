"""AutoGraph: Python control flow in converted functions keeps Python's results, and on traced tensors
becomes tf.cond / tf.while_loop with TF's results (or TF's errors, naming the file and line)."""
import functools

import numpy as np
import pytest

import tapegrad as tf
from tapegrad.autograph._api import convert, is_user_function



# -- Python semantics: converted and plain functions agree ------------------------------------------
def loops_with_jumps(n):
    out = []
    for i in range(n):
        for j in range(i):
            if j == 2:
                break
            if (i + j) % 3 == 0:
                continue
            out.append((i, j))
        else:
            out.append(-i)
    return out


def first_negative(xs):
    for k, x in enumerate(xs):
        if x < 0:
            return k
    return None


def while_true_break(n):
    k = 0
    while True:
        k += 1
        if k * k > n:
            break
    return k


def while_else(n):
    k = 0
    while k < n:
        k += 1
        if k == 5:
            break
    else:
        k = -k
    return k


def elif_chain(x):
    if x < 0:
        sign = -1
    elif x == 0:
        sign = 0
    else:
        sign = 1
    return sign


def boolean_operators(x):
    return (x > 2 and x < 10 or not x), (1 if x > 5 else 2), (x or "zero")


def return_in_nested_loops(grid):
    for r, row in enumerate(grid):
        for c, v in enumerate(row):
            if v == 0:
                return r, c
    return -1, -1


def _odd_or_zero(v):
    if v % 2:
        return v
    return 0


def calls_a_helper(n):
    total = 0
    for i in range(n):
        total += _odd_or_zero(i)
    return total


def handles_exceptions(x):
    try:
        if x > 1:
            raise KeyError(x)
    except KeyError as err:
        return f"caught {err}"
    return "none"


def counts_with_closure(n):
    seen = []
    count = 0

    def bump():
        nonlocal count
        count += 1

    for i in range(n):
        if i % 2 == 0:
            bump()
            seen.append(i)
    return count, seen


def iterates_a_tensor(x):
    s = tf.constant(0.0)
    for row in x:
        if float(tf.reduce_sum(row)) > 2:
            continue
        s += tf.reduce_sum(row)
    return s


last_odd = None


def assigns_a_global(n):
    global last_odd
    for i in range(n):
        if i % 2:
            last_odd = i
    return last_odd


def walrus_in_a_loop_condition(xs):
    it = iter(xs)
    got = []
    while (v := next(it, None)) is not None:
        if v < 0:
            break
        got.append(v)
    return got, list(it), v


def return_inside_try_finally(n):
    log = []
    for i in range(n):
        try:
            if i == 2:
                return log
            log.append(i)
        finally:
            log.append("finally")
    return log


def statements_of_every_kind(n, *args, **kwargs):
    x = 1
    if n > 0:
        del x
        x = 5
        import math as m
    else:
        import cmath as m

    class Box:
        size = n

    squares = [i * i for i in range(n) if i % 2]
    for n in range(n):  # noqa: B020 -- shadows the parameter, as Python allows
        pass
    return x, m.__name__, Box.size, squares, n, len(args), sorted(kwargs), 0 < x < 10


PYTHON_CASES = [
    (assigns_a_global, (6,)), (walrus_in_a_loop_condition, ([1, 2, -1, 4, 5],)),
    (walrus_in_a_loop_condition, ([1, 2],)), (return_inside_try_finally, (5,)), (return_inside_try_finally, (1,)),
    (statements_of_every_kind, (4, 1, 2), ), (statements_of_every_kind, (0,)),
    (loops_with_jumps, (7,)), (first_negative, ([1, 2, -1, 3],)), (first_negative, ([1],)),
    (while_true_break, (50,)), (while_else, (3,)), (while_else, (9,)),
    (elif_chain, (-3,)), (elif_chain, (0,)), (elif_chain, (4,)),
    (boolean_operators, (5,)), (boolean_operators, (0,)), (boolean_operators, (20,)),
    (return_in_nested_loops, ([[1, 2], [3, 0]],)), (return_in_nested_loops, ([[1]],)),
    (calls_a_helper, (6,)), (handles_exceptions, (2,)), (handles_exceptions, (0,)),
    (counts_with_closure, (5,)),
]


@pytest.mark.parametrize("f,args", PYTHON_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_converted_function_gives_python_results(f, args):
    assert tf.autograph.to_graph(f)(*args) == f(*args)


def test_eager_tensors_run_as_python():
    x = tf.constant([[1.0, 2.0], [0.5, 0.25], [3.0, 1.0]])
    assert float(tf.autograph.to_graph(iterates_a_tensor)(x)) == float(iterates_a_tensor(x)) == 0.75

    def count_up(n):
        s = 0
        for i in tf.range(n):
            if i % 2 == 0:
                continue
            s += i
        return s

    assert int(tf.autograph.to_graph(count_up)(tf.constant(6))) == 9


def test_python_conditions_in_a_function_unroll_and_keep_their_values():
    @tf.function
    def power(x, n):
        y = tf.ones_like(x)
        for _ in range(n):
            y = y * x
        if n > 2:
            return y
        return -y

    x = tf.constant([1.0, 2.0])
    np.testing.assert_allclose(power(x, 3).numpy(), [1.0, 8.0])
    np.testing.assert_allclose(power(x, 2).numpy(), [-1.0, -4.0])
    np.testing.assert_allclose(power(x, 3).numpy(), [1.0, 8.0])


def test_for_over_a_tensor_argument_in_a_function():
    @tf.function
    def rows(x):
        s = tf.zeros([2])
        for row in x:
            s = s + row * row
        return s

    np.testing.assert_allclose(rows(tf.constant([[1.0, 2.0], [3.0, 4.0]])).numpy(), [10.0, 20.0])
    np.testing.assert_allclose(rows(tf.constant([[1.0, 1.0]] * 3)).numpy(), [3.0, 3.0])


def test_methods_closures_and_super():
    class Base:
        def scale(self):
            return 2

    class Model(Base):
        def __init__(self):
            self.calls = 0

        def step(self, x, n):
            for _ in range(n):
                self.calls += 1
                if self.calls > 2:
                    x = x * super().scale()
            return x

    m = Model()
    assert tf.autograph.to_graph(m.step)(1, 4) == 4 and m.calls == 4
    f = tf.function(Model().step)
    assert float(f(tf.constant(1.0), 3)) == 2.0


# -- the loop of the issue: a traced count must never be baked in ------------------------------------
def total(n):
    s = 0
    for i in tf.range(n):
        s += i
    return s


def test_range_over_a_traced_count_never_replays_the_first_count():
    f = tf.function(total)
    results = []
    for n in (3, 5):
        try:
            results.append(int(f(tf.constant(n))))
        except tf.errors.OperatorNotAllowedInGraphError:
            results.append(None)  # refused until graph loops exist; never a wrong number
    assert results in ([3, 10], [None, None])
    g = tf.function(total, autograph=False)  # a Python loop over a range whose length is computed
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating over a tf.Tensor whose length"):
        g(tf.constant(3))


def test_range_over_a_traced_count():
    f = tf.function(total)
    assert int(f(tf.constant(3))) == 3 and int(f(tf.constant(5))) == 10
    assert f.experimental_get_tracing_count() == 1


# -- traced conditions: TF's documented results ------------------------------------------------------
def absolute(x):
    if x > 0:
        return x
    return -x


def collatz_steps(x):
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    return steps


def jumps_in_a_tensor_loop(n):
    s = 0
    for i in tf.range(n):
        if i > 6:
            break
        if i % 2 == 0:
            continue
        s += i
    return s


def sum_until_negative(x):
    s = tf.constant(0.0)
    for v in x:
        if v < 0:
            break
        s += v
    return s


def nested_tensor_loops(n):
    s = 0
    for i in tf.range(n):
        for j in tf.range(i):
            s += j
    return s


def calls_converted_helper(x):
    return absolute(x) + 1.0


def defined_in_a_tensor_loop(n):
    for i in tf.range(n):
        z = i * 2
    return z


def last_index(n):
    i = -1
    for i in tf.range(n):
        pass
    return i


def last_index_of_another_dtype(n):
    i = 0.5
    for i in tf.range(n):
        pass
    return i


def python_builtins_on_traced_tensors(x):
    s = 0
    for i in range(int(x)):  # int() casts, range() counts in the graph, as in TF
        s += i
    return float(s)


def reuses_a_loop_variable(n):
    s = 0.0
    for t in range(3):  # t is a Python int after this loop ...
        s += t
    for t in tf.range(0.0, n):  # ... and a float tensor in this one: not a value the loop carries
        s += t
    return s


TRACED_CASES = [
    (absolute, [(tf.constant(-2.0),), (tf.constant(3.0),)], [2.0, 3.0]),
    (collatz_steps, [(tf.constant(6),), (tf.constant(27),)], [8, 111]),
    (jumps_in_a_tensor_loop, [(tf.constant(5),), (tf.constant(20),)], [4, 9]),
    (sum_until_negative, [(tf.constant([1.0, 2.0, -1.0, 5.0]),), (tf.constant([1.0, 2.0, 3.0, 5.0]),)], [3.0, 11.0]),
    (nested_tensor_loops, [(tf.constant(3),), (tf.constant(5),)], [1, 10]),
    (calls_converted_helper, [(tf.constant(-2.0),), (tf.constant(3.0),)], [3.0, 4.0]),
    (reuses_a_loop_variable, [(tf.constant(3.0),), (tf.constant(4.5),)], [6.0, 13.0]),
    (defined_in_a_tensor_loop, [(tf.constant(3),), (tf.constant(5),)], [4, 8]),  # the last iteration's, as in TF
    (last_index, [(tf.constant(4),), (tf.constant(0),)], [3, -1]),
    (python_builtins_on_traced_tensors, [(tf.constant(4.5),), (tf.constant(6.0),)], [6.0, 15.0]),
]


@pytest.mark.parametrize("f,calls,want", TRACED_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_traced_control_flow_gives_tf_results(f, calls, want):
    g = tf.function(f)
    assert [float(g(*args)) for args in calls] == want
    assert g.experimental_get_tracing_count() == 1


def test_gradient_through_a_traced_if_and_loop():
    @tf.function
    def f(x, n):
        y = x
        for _ in tf.range(n):
            if tf.reduce_sum(y) > 0:
                y = y * x
            else:
                y = y - x
        return y

    x = tf.constant(1.5, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3))
    assert float(y) == pytest.approx(1.5 ** 4)
    assert float(tape.gradient(y, x)) == pytest.approx(4 * 1.5 ** 3)


# -- what cannot be converted ---------------------------------------------------------------------
def _line_of(f, text):
    import inspect
    lines, first = inspect.getsourcelines(f)
    return first + next(k for k, line in enumerate(lines) if text in line)


def defined_in_one_branch(x):
    if x > 0:
        y = x
    return y


def returns_in_one_branch(x):
    if x > 0:
        return x


def defined_in_one_branch_unused(x):
    if x > 0:
        y = x * 2  # noqa: F841 -- never read after the if: no error, as in TF
    return x


def changes_dtype(n):
    v = tf.constant(0)
    while v < n:
        v = tf.cast(v, tf.float32) + 1.5
    return v


def changes_rank(x):
    v = x
    while tf.reduce_sum(v) < 10.0:
        v = tf.stack([v, v])
    return v


def returns_in_a_tensor_loop(n):
    for i in tf.range(n):
        if i * i > n:
            return i
    return -1


def breaks_a_python_loop_on_a_tensor(x):
    s = 0
    for i in range(3):
        if x > i:
            break
        s += 1
    return s


ERROR_CASES = [
    (defined_in_one_branch, tf.constant(1.0), ValueError, "'y' must also be initialized in the else branch",
     "if x > 0"),
    (returns_in_one_branch, tf.constant(1.0), ValueError, "else branch must also have a return", "if x > 0"),
    (changes_dtype, tf.constant(3), TypeError, "'v' has dtype int32 before the loop, but dtype float32", "while v"),
    (last_index_of_another_dtype, tf.constant(3), TypeError, "'i' has dtype float32 before the loop, but dtype "
     "int32", "for i in"),
    (changes_rank, tf.constant(1.0), ValueError, r"'v' has shape \(\) before the loop, but shape \(2,\)", "while tf"),
    (returns_in_a_tensor_loop, tf.constant(20), NotImplementedError, "return statement cannot be placed inside",
     "for i in"),
    (breaks_a_python_loop_on_a_tensor, tf.constant(1), NotImplementedError, "not supported in Python for loops",
     "for i in"),
]


@pytest.mark.parametrize("f,arg,error,message,line", ERROR_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_what_cannot_be_converted_raises_naming_the_line(f, arg, error, message, line):
    with pytest.raises(error, match=message) as info:
        tf.function(f)(arg)
    assert f'test_autograph.py", line {_line_of(f, line)}:' in str(info.value)


def test_a_name_defined_in_one_branch_and_unused_is_fine():
    assert float(tf.function(defined_in_one_branch_unused)(tf.constant(-1.0))) == -1.0


def test_loop_options_and_shape_invariants():
    @tf.function
    def capped(x):
        v = x
        while v < 1000.0:
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
            v = v * 2.0
        return v

    assert float(capped(tf.constant(1.0))) == 8.0

    @tf.function
    def grows(x):
        v = x
        while tf.reduce_sum(v) < 10.0:
            tf.autograph.experimental.set_loop_options(shape_invariants=[(v, tf.TensorShape([None]))])
            v = tf.concat([v, v], 0)
        return v

    assert grows(tf.constant([1.5])).shape == (8,)


def test_boolean_operators_and_conditional_expressions_on_traced_tensors():
    @tf.function
    def f(x):
        inside = x > 0 and x < 10
        return (x * 2.0 if inside else -x), (not inside)

    y, outside = f(tf.constant(3.0))
    assert float(y) == 6.0 and not bool(outside)
    y, outside = f(tf.constant(30.0))
    assert float(y) == -30.0 and bool(outside)


# -- the public surface ------------------------------------------------------------------------------
def test_to_code_shows_the_converted_statements():
    code = tf.autograph.to_code(jumps_in_a_tensor_loop)
    assert code.startswith("def jumps_in_a_tensor_loop(n):")
    for piece in ("ag__.for_stmt(", "ag__.if_stmt(", "break_", "continue_", "def loop_body_"):
        assert piece in code
    compile(code, "<to_code>", "exec")


def test_conversion_is_cached_per_function_and_skips_library_code():
    assert convert(total) is convert(total)
    assert is_user_function(total) and not is_user_function(tf.reduce_sum) and not is_user_function(np.sum)
    assert convert(np.sum) is np.sum and convert(len) is len


def test_do_not_convert_and_autograph_false_run_python_as_written():
    @tf.autograph.experimental.do_not_convert
    def raw(x):
        if x > 0:
            return x
        return -x

    assert convert(raw) is raw and float(raw(tf.constant(-2.0))) == 2.0
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="bool"):
        tf.function(raw)(tf.constant(1.0))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="bool"):
        tf.function(absolute, autograph=False)(tf.constant(1.0))
    f = tf.function(absolute, autograph=True, experimental_autograph_options=None)
    assert f._autograph


def test_functions_without_source_run_as_written():
    namespace = {}
    exec("def made(x):\n    return x + 1\n", namespace)
    assert convert(namespace["made"]) is namespace["made"]
    with pytest.raises(TypeError, match="function or method"):
        tf.autograph.to_code(3)


def test_int_and_float_of_a_traced_tensor_cast_in_converted_code():
    @tf.function
    def f(x):
        return int(x) * 2, float(x > 1.0)

    n, flag = f(tf.constant(3.7))
    assert (n.dtype, int(n), flag.dtype, float(flag)) == (tf.int32, 6, tf.float32, 1.0)
    n, flag = f(tf.constant(0.5))
    assert (int(n), float(flag)) == (0, 0.0)


def test_indexing_with_a_traced_index_reads_it_at_run_time():
    # loops over tf.range index tensors with x[i]: a traced i must never be baked into the graph
    pick = tf.function(lambda x, i: x[i])
    x = tf.constant([1.0, 2.0, 3.0])
    assert [float(pick(x, tf.constant(k))) for k in (1, 2, -1)] == [2.0, 3.0, 3.0]
    # inside a tuple key too (it was refused): resolved in the graph at every call, as TF
    pick_row = tf.function(lambda x, i: x[i, 0])
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert [float(pick_row(m, tf.constant(k))) for k in (0, 1, -1)] == [1.0, 3.0, 3.0]


def _passes_through(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        if args:
            return fn(*args)
        return None
    return wrapper


@_passes_through
def decorated_absolute(x):
    if x > 0:
        return x
    return -x


def test_a_decorated_function_converts_the_wrapper_and_the_function_it_calls():
    assert "if_stmt" in tf.autograph.to_code(decorated_absolute)  # the wrapper's own code
    f = tf.function(decorated_absolute)
    assert [float(f(tf.constant(v))) for v in (-2.0, 3.0)] == [2.0, 3.0]


class _CountingIterable:
    """An iterable that runs converted loops itself, as a dataset does through the protocol."""

    def __init__(self, items):
        self.items, self.loops = items, 0

    def __iter__(self):
        return iter(self.items)

    def _autograph_for_stmt(self, extra_test, body, get_state, set_state, symbol_names, opts, where):
        self.loops += 1
        for item in self.items:
            if extra_test is not None and not extra_test():
                break
            body(item)


def test_an_iterable_can_run_the_loop_itself():
    def total_until(xs, stop):
        s = 0
        for x in xs:
            if x == stop:
                break
            s += x
        return s

    items = _CountingIterable([1, 2, 3, 4])
    assert tf.autograph.to_graph(total_until)(items, 3) == total_until(items, 3) == 3
    assert items.loops == 1  # the converted loop went through the protocol; the plain one iterated


def test_lambdas_are_found_in_their_source_and_converted():
    scale = 3
    f = lambda x: x * scale if x > 0 and x < 10 else -x  # noqa: E731
    assert "ag__.if_exp(" in tf.autograph.to_code(f)
    assert [convert(f)(v) for v in (5, -2, 20)] == [f(v) for v in (5, -2, 20)] == [15, 2, -20]
    pair = (lambda: "first", lambda: "second")  # two lambdas on one line: told apart by their code
    assert (convert(pair[0])(), convert(pair[1])()) == ("first", "second")
    keys = dict(neg=lambda v:
                -v, pos=lambda v: v)  # a lambda's lines end inside the call: cut back until they parse
    assert convert(keys["neg"]) is not keys["neg"] and convert(keys["neg"])(2) == -2
    assert convert(keys["pos"])(2) == 2  # converted or not: never another lambda's code
    g = tf.function(lambda x: x * 2.0 if x > 0 else -x)
    assert [float(g(tf.constant(v))) for v in (-2.0, 3.0)] == [2.0, 6.0]


def test_tf_range_with_a_python_bound_is_one_graph_loop():
    # TF: tf.range is a tensor inside a function, so the loop is a graph loop whatever its bounds
    w = tf.Variable(0.5)

    @tf.function
    def f(x):
        h = tf.zeros([2])
        for t in tf.range(50):
            h = tf.tanh(x * w + h) + tf.cast(t, tf.float32) * 0.0
        return tf.reduce_sum(h)

    x = tf.constant([1.0, -1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    types = [op.type for op in f.get_concrete_function(x).graph.get_operations()]
    assert types.count("While") == 1 and len(types) < 40
    h = tf.zeros([2])
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        for t in range(50):
            h = tf.tanh(x * w + h)
        ye = tf.reduce_sum(h)
    np.testing.assert_allclose(float(y), float(ye), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), tape2.gradient(ye, x).numpy(), rtol=1e-5)
