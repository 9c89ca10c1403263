"""tf.function: the book's examples, signatures and retracing, variables, tf.print, errors, inspection."""
import collections
import logging

import numpy as np
import pytest

import tapegrad as tf


def cube(x):
    return x ** 3


# -- the book -------------------------------------------------------------------------------
def test_book_cube_python_int_gives_int32_tensor():
    tf_cube = tf.function(cube)
    r = tf_cube(2)
    assert isinstance(r, tf.Tensor) and r.dtype == tf.int32 and r.numpy() == 8


def test_book_cube_tensor_gives_float32():
    tf_cube = tf.function(cube)
    r = tf_cube(tf.constant(2.0))
    assert r.dtype == tf.float32 and r.numpy() == 8.0
    assert repr(r) == "<tf.Tensor: shape=(), dtype=float32, numpy=8.0>"


def test_book_decorator_and_python_function():
    @tf.function
    def tf_cube(x):
        return x ** 3

    assert tf_cube.python_function(2) == 8
    assert tf_cube(tf.constant(3.0)).numpy() == 27.0
    assert tf_cube.__name__ == "tf_cube"


def test_book_same_shape_reuses_graph_new_shape_traces():
    # The book uses int32 tensors; the engine's Pow takes floats only, so float32 here.
    tf_cube = tf.function(cube)
    tf_cube(tf.constant(10.0))
    tf_cube(tf.constant(20.0))
    assert tf_cube.experimental_get_tracing_count() == 1
    r = tf_cube(tf.constant([10.0, 20.0]))
    assert tf_cube.experimental_get_tracing_count() == 2
    np.testing.assert_array_equal(r.numpy(), [1000, 8000])


def test_book_each_python_value_traces():
    tf_cube = tf.function(cube)
    assert tf_cube(10).numpy() == 1000
    assert tf_cube(20).numpy() == 8000
    assert tf_cube.experimental_get_tracing_count() == 2
    tf_cube(10)
    assert tf_cube.experimental_get_tracing_count() == 2


def test_dtype_change_traces():
    f = tf.function(cube)
    f(tf.constant(1.0))
    f(tf.constant(1.0, dtype=tf.float64))
    assert f.experimental_get_tracing_count() == 2


# -- replay ------------------------------------------------------------------------------------
def test_cached_call_uses_new_values():
    f = tf.function(lambda x, y: x * y + 1.0)
    assert f(tf.constant(2.0), tf.constant(3.0)).numpy() == 7.0
    assert f(tf.constant(4.0), tf.constant(5.0)).numpy() == 21.0
    assert f.experimental_get_tracing_count() == 1


def test_python_side_effects_only_while_tracing():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x + 1

    for _ in range(3):
        f(tf.constant(1.0))
    assert len(calls) == 1


def test_same_tensor_twice_and_captured_constant():
    c = tf.constant(10.0)
    f = tf.function(lambda x, y: x + y + c)
    a = tf.constant(1.0)
    assert f(a, a).numpy() == 12.0
    assert f(tf.constant(1.0), tf.constant(2.0)).numpy() == 13.0
    assert f(c, tf.constant(0.0)).numpy() == 20.0      # an argument that is also the captured tensor
    assert f(tf.constant(0.0), tf.constant(0.0)).numpy() == 10.0


def test_nested_outputs_and_python_numbers():
    @tf.function
    def f(x):
        return {"a": x * 2, "b": (x + 1, 3), "c": None}

    for v in (1.0, 2.0):
        r = f(tf.constant(v))
        assert r["a"].numpy() == 2 * v and r["b"][0].numpy() == v + 1
        assert r["b"][1].numpy() == 3 and r["c"] is None


def test_outputs_keep_their_structure_key_order_and_non_tensor_leaves():
    # dict keys out of sorted order, a namedtuple and None: cached calls return the first
    # call's structure (tensors filled in by the one C++ walker, Note [Nest order])
    Pair = collections.namedtuple("Pair", "lo hi")

    @tf.function
    def f(x):
        return {"z": Pair(x - 1, x + 1), "a": [x * 2, None], "m": (True, 2.5)}

    for v in (1.0, 2.0, 3.0):
        r = f(tf.constant(v))
        assert list(r) == ["z", "a", "m"] and type(r["z"]) is Pair
        assert r["z"].lo.numpy() == v - 1 and r["z"].hi.numpy() == v + 1
        assert r["a"][0].numpy() == 2 * v and r["a"][1] is None
        assert r["m"][0].numpy() and r["m"][1].numpy() == 2.5
    out = f.get_concrete_function(tf.constant(0.0)).structured_outputs
    assert list(out) == ["z", "a", "m"] and type(out["z"]) is Pair and out["a"][1] is None


def test_keyword_and_default_arguments():
    @tf.function
    def f(x, scale=2.0, *, shift=0.0):
        return x * scale + shift

    x = tf.constant(1.0)
    assert f(x).numpy() == 2.0
    assert f(x, shift=1.0).numpy() == 3.0
    assert f(scale=3.0, x=x).numpy() == 3.0
    assert f(x, 3.0).numpy() == 3.0


def test_list_arguments_and_numpy_arrays():
    @tf.function
    def f(xs):
        return tf.add_n(xs)

    r = f([tf.constant(1.0), tf.constant(2.0)])
    assert r.numpy() == 3.0
    assert f([tf.constant(3.0), tf.constant(4.0)]).numpy() == 7.0
    assert f.experimental_get_tracing_count() == 1
    g = tf.function(lambda a: a * 2)
    np.testing.assert_array_equal(g(np.array([1.0, 2.0], np.float32)).numpy(), [2.0, 4.0])


def test_method_traces_per_instance():
    class Scale:
        def __init__(self, k):
            self.k = k

        @tf.function
        def __call__(self, x):
            return x * self.k

    a, b = Scale(2.0), Scale(3.0)
    assert a(tf.constant(1.0)).numpy() == 2.0
    assert b(tf.constant(1.0)).numpy() == 3.0


def test_nested_function_is_inlined():
    inner = tf.function(lambda x: x * 3.0)
    inner(tf.constant(1.0))  # cached before the outer trace

    @tf.function
    def outer(x):
        return inner(x) + 1.0

    assert outer(tf.constant(2.0)).numpy() == 7.0
    assert outer(tf.constant(3.0)).numpy() == 10.0
    assert "Mul" in outer.get_concrete_function(tf.constant(1.0)).graph.ops


def test_a_function_traced_inside_another_takes_its_arguments_from_the_graph():
    # The inner trace's arguments were the outer trace's first values, frozen as constants (5, 5, 5).
    v = tf.Variable(1.0)

    @tf.function
    def inner(a):
        v.assign(a)
        return v * a

    @tf.function
    def outer(a):
        return inner(a) + 1.0

    assert [float(outer(tf.constant(x))) for x in (2.0, 4.0, 7.5)] == [5.0, 17.0, 57.25]  # TF 2.21's


def test_next_of_an_iterator_inside_a_function_runs_at_every_call():
    it = iter(tf.data.Dataset.range(3))
    f = tf.function(lambda it: next(it))
    assert [int(f(it)) for _ in range(3)] == [0, 1, 2]  # TF 2.21's; the trace's element is the first
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        f(it)
    pairs = iter(tf.data.Dataset.from_tensor_slices(([1.0, 2.0], [3, 4])))
    g = tf.function(lambda: pairs.get_next())
    assert g.get_concrete_function() is not None  # a dry trace takes no element
    assert [(float(a), int(b)) for a, b in (g(), g())] == [(1.0, 3), (2.0, 4)]


# -- variables --------------------------------------------------------------------------------
def test_variables_are_read_at_call_time():
    v = tf.Variable(1.0)
    f = tf.function(lambda x: v * x)
    assert f(tf.constant(2.0)).numpy() == 2.0
    v.assign(5.0)
    assert f(tf.constant(2.0)).numpy() == 10.0


def test_assignments_run_at_every_call_in_order():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        before = v * 1.0
        v.assign_add(x)
        after = v * 1.0
        v.assign_sub(1.0)
        return before, after

    for i in range(3):
        b, a = f(tf.constant(2.0))
        assert b.numpy() == i and a.numpy() == i + 2
    assert v.numpy() == 3.0


def test_variable_returned_is_its_value():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        v.assign_add(1.0)
        return v

    r1 = f()
    r2 = f()
    assert r1.numpy() == 2.0 and r2.numpy() == 3.0 and not r2._is_variable


def test_variable_creation_first_trace_only():
    # As TF: a first trace that creates variables is traced again, and the second creating one fails
    @tf.function
    def f(x):
        return tf.Variable(1.0) + x

    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call.*trace #2"):
        f(tf.constant(1.0))


def test_variable_created_once_on_first_trace():
    class Model:
        v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(2.0)
            return self.v * x

    m = Model()
    assert m(tf.constant(3.0)).numpy() == 6.0
    assert m(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]


def test_first_trace_creating_variables_runs_twice_updates_once():
    # TF traces twice when the first trace creates variables (body twice, tracing count 2); the step's
    # assignments and the optimizer's update happen once per call
    v, calls = tf.Variable(1.0), []
    opt = tf.keras.optimizers.SGD(0.25, momentum=0.5)

    @tf.function
    def step():
        calls.append(1)
        with tf.GradientTape() as tape:
            loss = v * v
        opt.apply_gradients([(tape.gradient(loss, v), v)])  # builds the optimizer's momentum
        return loss

    assert step().numpy() == 1.0
    assert (len(calls), step.experimental_get_tracing_count()) == (2, 2)
    assert v.numpy() == 0.5 and int(opt.iterations.numpy()) == 1
    step()
    assert len(calls) == 2 and v.numpy() == 0.0 and int(opt.iterations.numpy()) == 2  # TF's values


def test_get_concrete_function_does_not_assign():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign_add(x)
        return v * 1.0

    cf = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    assert v.numpy() == 1.0
    assert cf(tf.constant(2.0)).numpy() == 3.0 and v.numpy() == 3.0


# -- tf.print -----------------------------------------------------------------------------------
def test_print_runs_every_call(capsys):
    @tf.function
    def f(x):
        tf.print("x =", x)
        print("tracing")  # Python side effect: tracing only
        return x

    f(tf.constant(1))
    f(tf.constant(2))
    f(tf.constant(3))
    out, err = capsys.readouterr()
    assert out.count("tracing") == 1
    assert err.splitlines() == ["x = 1", "x = 2", "x = 3"]


def test_print_eager_and_stream(capsys):
    import sys

    tf.print("v", tf.constant([1.5, 2.0]), output_stream=sys.stdout)
    assert capsys.readouterr().out == "v [1.5 2]\n"


# -- control flow on traced values ------------------------------------------------------------
def test_python_if_on_traced_tensor_names_condition():
    @tf.function(autograph=False)  # with AutoGraph the `if` becomes tf.cond (tests/function/test_autograph.py)
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match=r"`if x > 0:`.*Greater\(x, 0\)"):
        f(tf.constant(1.0))
    assert f.experimental_get_tracing_count() == 0


@pytest.mark.parametrize("use", [float, int, lambda t: t.numpy(), lambda t: range(t)])
def test_concrete_value_of_traced_tensor_raises(use):
    f = tf.function(lambda x: use(x * 2), autograph=False)  # AutoGraph casts in int()/float(), as TF's does
    with pytest.raises(TypeError, match="traced tensor"):
        f(tf.constant(2))


def test_python_control_flow_on_python_values_is_unrolled():
    @tf.function
    def f(x, n):
        for _ in range(n):
            x = x * 2.0
        return x

    assert f(tf.constant(1.0), 3).numpy() == 8.0
    assert f.get_concrete_function(tf.constant(1.0), 3).graph.ops.count("Mul") == 3


def test_constant_only_values_may_be_inspected():
    @tf.function
    def f(x):
        k = tf.constant(3) + 1   # no argument involved: a constant
        return x * float(k)

    assert f(tf.constant(2.0)).numpy() == 8.0


def test_traced_repr_is_symbolic():
    seen = []

    @tf.function
    def f(x):
        seen.append(repr(x * 2))
        return x

    f(tf.constant(1.0))
    assert seen[0] == "<tf.Tensor 'mul:0' shape=() dtype=float32>"  # TF's symbolic repr


# -- signatures -----------------------------------------------------------------------------
def test_input_signature_none_dims_one_graph():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return tf.reduce_sum(x * 2.0)

    for n in (2, 3, 5, 8):
        assert f(tf.constant(np.ones(n, np.float32))).numpy() == 2 * n
    # The graph is relaxed up front: one trace serves every length, as in TF.
    assert f.experimental_get_tracing_count() == 1
    assert f.get_concrete_function().graph.relaxed


def test_input_signature_rejects_mismatch():
    f = tf.function(lambda x: x, input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    with pytest.raises(TypeError):  # TF raises TypeError for a shape that does not fit too
        f(tf.ones([3, 3]))
    with pytest.raises(TypeError):
        f(tf.ones([3, 2], tf.float64))
    assert f([[1.0, 2.0]]).numpy().tolist() == [[1.0, 2.0]]


def test_reduce_retracing_generalizes_shapes():
    f = tf.function(lambda x: tf.reduce_mean(tf.square(x), axis=0), reduce_retracing=True)
    for n in (2, 3, 4, 5):
        x = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
        np.testing.assert_allclose(f(tf.constant(x)).numpy(), (x ** 2).mean(0), rtol=1e-6)
    assert f.experimental_get_tracing_count() == 2
    assert "now serves x: float32(None, 2)" in f.tracing_report()


def test_reduce_retracing_refuses_shape_dependent_graph():
    f = tf.function(lambda x: tf.reshape(x, [x.shape[0] * 2, -1]), reduce_retracing=True)
    for n in (2, 4, 6):
        assert f(tf.ones([n, 4])).shape == (2 * n, 2)
    assert f.experimental_get_tracing_count() == 3
    assert "cannot be shared across shapes" in f.tracing_report()
    assert "Reshape" in f.tracing_report()


def test_concrete_function_checks_arguments():
    f = tf.function(cube)
    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    assert cf(tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 8.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be float32"):
        cf(tf.constant([1.0, 2.0, 3.0]))


# -- retracing explanations -----------------------------------------------------------------
def test_tracing_report_names_changed_argument(caplog):
    f = tf.function(lambda x, n: x * n)
    with caplog.at_level(logging.DEBUG, logger="tapegrad.function"):
        f(tf.constant(1.0), 2)
        f(tf.constant(1.0), 3)
        f(tf.constant([1.0, 2.0]), 3)
        f(tf.constant([1, 2]), 3)
    report = f.tracing_report()
    assert "n: Python value 2 -> 3" in report
    assert "x: shape () -> (2,)" in report
    assert "x: dtype float32 -> int32" in report
    assert any("tracing again" in r.message and "n: Python value 2 -> 3" in r.message for r in caplog.records)


def test_warning_after_five_retraces_names_cause(caplog):
    f = tf.function(lambda x, n: x * n)
    with caplog.at_level(logging.WARNING, logger="tapegrad"):
        for n in range(4):
            f(tf.constant(1.0), n)
        assert not caplog.records
        f(tf.constant(1.0), 4)
    assert "triggered tf.function retracing" in caplog.text and "Python value of n changing" in caplog.text


# -- passes and inspection ------------------------------------------------------------------
def test_products_with_ones_are_simplified():
    v = tf.Variable(np.ones(3))

    @tf.function
    def f(x):
        return tf.sin(x) * 1.0, 1.0 * tf.cos(x), x * tf.ones([3], tf.float64), v * 1.0, x * tf.ones([2, 3], tf.float64)

    x = tf.constant([0.5, 1.0, 2.0], tf.float64)
    cf = f.get_concrete_function(x)
    # the variable's product stays (a read is by reference), as does the one that broadcasts x
    assert cf.graph.ops.count("Mul") == 2 and cf.optimizations["simplified"] == 3
    got = f(x)
    np.testing.assert_array_equal(got[0].numpy(), tf.sin(x).numpy())
    np.testing.assert_array_equal(got[2].numpy(), x.numpy())
    assert got[4].shape == (2, 3)


def test_constant_folding_cse_and_pruning():
    @tf.function
    def f(x):
        k = tf.constant(2.0) * tf.constant(3.0)   # folded
        unused = tf.exp(x)                        # pruned
        a = tf.sin(x) * k
        b = tf.sin(x) * k                         # the same as a
        return a + b

    cf = f.get_concrete_function(tf.constant(1.0))
    ops = cf.graph.ops
    assert ops.count("Sin") == 1 and ops.count("Mul") == 1 and "Exp" not in ops
    assert cf.optimizations["folded"] >= 1 and cf.optimizations["merged"] >= 2
    assert cf.optimizations["pruned"] >= 1
    np.testing.assert_allclose(f(tf.constant(1.0)).numpy(), 12 * np.sin(1.0), rtol=1e-6)


def test_graph_text_and_dot():
    f = tf.function(lambda x: tf.reduce_sum(x ** 2, axis=0))
    g = f.get_concrete_function(tf.TensorSpec([3, 2], tf.float32)).graph
    text = str(g)
    assert "Placeholder x" in text and "float32[3, 2]" in text and "Sum(" in text and "axis=[0]" in text
    dot = g.to_dot()
    assert dot.startswith("digraph") and "Pow" in dot and "->" in dot


def test_errors_inside_function_propagate_and_do_not_cache():
    f = tf.function(lambda x, y: tf.matmul(x, y))
    with pytest.raises(tf.errors.InvalidArgumentError, match="MatMul"):
        f(tf.ones([2, 3]), tf.ones([2, 3]))
    assert f.experimental_get_tracing_count() == 0
    assert f(tf.ones([2, 3]), tf.ones([3, 2])).shape == (2, 2)


def test_optimizer_inside_function_updates_at_every_call():
    from tapegrad import keras

    v = tf.Variable(1.0)
    opt = keras.optimizers.SGD(0.1)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = v * v
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))

    for _ in range(3):
        step()
    np.testing.assert_allclose(v.numpy(), 0.8 ** 3, rtol=1e-6)
    assert int(opt.iterations) == 3
