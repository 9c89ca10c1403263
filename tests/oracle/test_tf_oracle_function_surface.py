"""tf.function's tracing surface against TF: ConcreteFunction.function_type, pretty_printed_signature,
structured_outputs, function_def (parsed and run by TF), graph.as_graph_def(), inference_fn,
tf.types.experimental and the __tf_tracing_type__ protocol. The same code runs on both libraries.
Skipped without TensorFlow, unless TAPEGRAD_REQUIRE_TF=1."""
import collections
import re

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
from tensorflow.core.framework import function_pb2, graph_pb2  # noqa: E402
from tensorflow.python.framework import function_def_to_graph  # noqa: E402

Pair = collections.namedtuple("Pair", "a b")


def _nested(x, y, n=2):
    return {"a": x + y, "b": (x * n, [y])}


def _lists(xs, d, flag=True, *rest, **kw):
    return xs[0] * 2.0 + d["k"]


def _pair(p):
    return p.b * p.a


def _none(x):
    return None


def _two(x, y):
    return x * y, x - y


# name -> (function, arguments built from the library)
CASES = {
    "tensors_and_python": (_nested, lambda lib: (lib.TensorSpec([2, 3], lib.float32), lib.constant([1., 2, 3]), 3)),
    "default_python_arg": (_nested, lambda lib: (lib.ones([2]), lib.ones([2]))),
    "lists_dicts_varargs": (_lists, lambda lib: ([lib.constant(1.0), lib.constant(2.0)], {"k": lib.constant(3.0)},
                                                 False, 5)),
    "namedtuple": (_pair, lambda lib: (Pair(2, lib.constant([1.0, 2.0])),)),
    "none_output": (_none, lambda lib: (lib.constant(1),)),
    "int_tensor": (_two, lambda lib: (lib.constant([1, 2]), lib.constant([3, 4]))),
    "python_float": (_two, lambda lib: (lib.constant(1.5), 2.5)),
}


def _concrete(lib, case):
    fn, make = CASES[case]
    return lib.function(fn).get_concrete_function(*make(lib))


def _no_ids(text):
    return re.sub(r"\d{6,}", "ID", text)


@pytest.mark.parametrize("case", list(CASES))
def test_function_type_and_pretty_printed_signature_are_tfs(case):
    ours, theirs = _concrete(tg, case), _concrete(ref, case)
    assert str(ours.function_type) == str(theirs.function_type)
    assert repr(ours.function_type) == repr(theirs.function_type)
    assert ours.pretty_printed_signature() == theirs.pretty_printed_signature()
    assert ours.pretty_printed_signature(verbose=False) == theirs.pretty_printed_signature(verbose=False)
    assert [repr(p) for p in ours.function_type.parameters.values()] == [
        repr(p) for p in theirs.function_type.parameters.values()]


def test_captured_variable_is_listed_as_tf_lists_it():
    def run(lib):
        v = lib.Variable(2.0)

        @lib.function
        def f(x):
            v.assign_add(1.0)
            return x * v + v
        cf = f.get_concrete_function(lib.constant(1.0))
        return _no_ids(cf.pretty_printed_signature()), len(cf.function_type.captures)
    assert run(tg) == run(ref)


@pytest.mark.parametrize("case", ["tensors_and_python", "lists_dicts_varargs", "namedtuple", "int_tensor"])
def test_structured_outputs_are_tfs(case):
    def shown(lib):
        return str(lib.nest.map_structure(lambda t: (t.name, t.shape.as_list(), t.dtype.name),
                                          _concrete(lib, case).structured_outputs))
    assert shown(tg) == shown(ref)


@pytest.mark.parametrize("case", ["tensors_and_python", "lists_dicts_varargs", "int_tensor", "python_float"])
def test_function_def_parses_in_tf_with_tfs_signature(case):
    ours, theirs = _concrete(tg, case).function_def, _concrete(ref, case).function_def
    parsed = function_pb2.FunctionDef.FromString(ours.SerializeToString())
    args = [(a.name, a.type) for a in parsed.signature.input_arg]
    assert args == [(a.name, a.type) for a in theirs.signature.input_arg]
    assert [(a.name, a.type) for a in parsed.signature.output_arg] == [
        (a.name, a.type) for a in theirs.signature.output_arg]
    assert parsed.signature.name.startswith("__inference_") and sorted(parsed.ret) == sorted(theirs.ret)
    assert {k: v.attr["_user_specified_name"].s for k, v in parsed.arg_attr.items()} == {
        k: v.attr["_user_specified_name"].s for k, v in theirs.arg_attr.items()}


def _run_in_tf(fdef, feeds):
    graph = function_def_to_graph.function_def_to_graph(function_pb2.FunctionDef.FromString(fdef.SerializeToString()))
    with ref.compat.v1.Session(graph=graph) as session:
        return session.run([t.name for t in graph.outputs], feed_dict={t.name: v for t, v in zip(graph.inputs, feeds)})


def test_function_def_runs_in_tf_and_gives_the_functions_results():
    def f(x, y):
        return {"s": tg.nn.relu(x) @ y, "m": tg.reduce_sum(x * 3.0, axis=1)}
    x, y = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32), np.array([[1.0], [2.0]], np.float32)
    cf = tg.function(f).get_concrete_function(tg.constant(x), tg.constant(y))
    got = _run_in_tf(cf.function_def, [x, y])
    expected = cf(tg.constant(x), tg.constant(y))
    np.testing.assert_allclose(got[0], expected["m"].numpy(), rtol=1e-6)  # outputs in flat order: m, s
    np.testing.assert_allclose(got[1], expected["s"].numpy(), rtol=1e-6)


@pytest.mark.parametrize("body, expected", [(lambda x: tg.reshape(x, [-1]) * 2.0, lambda x: x.reshape(-1) * 2.0),
                                            (lambda x: x[:-1], lambda x: x[:-1])], ids=["reshape", "slice"])
def test_function_def_of_an_unknown_batch_runs_in_tf_at_other_sizes(body, expected):
    f = tg.function(body, input_signature=[tg.TensorSpec([None, 2], tg.float32)], autograph=False)
    cf = f.get_concrete_function()
    count = f.experimental_get_tracing_count()
    fdef = cf.function_def
    assert f.experimental_get_tracing_count() == count  # as TF: giving the FunctionDef traces nothing
    assert [d.size for d in fdef.arg_attr[0].attr["_output_shapes"].list.shape[0].dim] == [-1, 2]
    for rows in (1, 4, 7):
        x = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)
        np.testing.assert_allclose(_run_in_tf(fdef, [x])[0], expected(x))


def test_as_graph_def_is_a_graph_def_tf_parses_with_tfs_placeholders():
    def build(lib):
        return lib.function(_two).get_concrete_function(lib.TensorSpec([3], lib.float32), lib.TensorSpec([3],
                                                                                                         lib.float32))
    ours, theirs = build(tg).graph, build(ref).graph
    parsed = graph_pb2.GraphDef.FromString(ours.as_graph_def().SerializeToString())
    assert [n.name for n in parsed.node] == [op.name for op in ours.get_operations()]
    placeholders = [n for n in parsed.node if n.op == "Placeholder"]
    tf_placeholders = [n for n in theirs.as_graph_def().node if n.op == "Placeholder"]
    assert [(n.name, dict(n.attr)) for n in placeholders] == [(n.name, dict(n.attr)) for n in tf_placeholders]
    assert [n.name for n in parsed.node if n.op == "Identity"] == ["Identity", "Identity_1"]
    assert parsed.versions.producer == theirs.as_graph_def().versions.producer


def test_inference_fn_takes_every_parameter_as_tf():
    def run(lib):
        cf = _concrete(lib, "tensors_and_python")
        out = cf.inference_fn(lib.ones([2, 3]), lib.constant([1., 2, 3]), 3)
        with pytest.raises(TypeError, match="missing a required argument: 'n'"):
            cf.inference_fn(lib.ones([2, 3]), lib.constant([1., 2, 3]))
        return out["b"][0].numpy().tolist(), str(cf.inference_fn.function_type)
    assert run(tg) == run(ref)


def test_tf_types_experimental_has_tfs_names_and_trace_type_methods():
    ours, theirs = tg.types.experimental, ref.types.experimental
    missing = {n for n in dir(theirs) if not n.startswith("_")} - {n for n in dir(ours) if not n.startswith("_")}
    assert missing <= {"Callable", "distributed"}
    assert ours.TraceType.__abstractmethods__ == theirs.TraceType.__abstractmethods__
    for name in ("to_tensors", "from_tensors", "flatten", "cast"):
        assert hasattr(ours.TraceType, name)
    assert ours.GenericFunction is ours.PolymorphicFunction
    assert isinstance(tg.function(_none), ours.PolymorphicFunction)
    assert isinstance(_concrete(tg, "int_tensor"), ours.ConcreteFunction)


def _fruit_run(lib):
    """TF's guide example of a custom TraceType: equal types share a trace run on the placeholder value."""
    class Fruit:
        def __init__(self, kind, weight):
            self.kind, self.weight = kind, weight

        def __tf_tracing_type__(self, context):
            return FruitType(self.kind)

    class FruitType(lib.types.experimental.TraceType):
        def __init__(self, kind):
            self.kind = kind

        def is_subtype_of(self, other):
            return self == other

        def most_specific_common_supertype(self, others):
            return self if all(self == o for o in others) else None

        def placeholder_value(self, placeholder_context):
            return Fruit(self.kind, 100.0)

        def __eq__(self, other):
            return type(other) is FruitType and other.kind == self.kind

        def __hash__(self):
            return hash(self.kind)

        def __repr__(self):
            return f"FruitType({self.kind})"

    traced = []

    @lib.function
    def eat(fruit, x):
        traced.append((fruit.kind, fruit.weight))
        return x * fruit.weight

    values = [float(eat(Fruit(kind, w), lib.constant(1.0))) for kind, w in [("apple", 1), ("apple", 2), ("pear", 3)]]
    cf = eat.get_concrete_function(Fruit("apple", 5), lib.constant(1.0))

    class Bad:
        def __tf_tracing_type__(self, context):
            return 3
    with pytest.raises(TypeError) as e:
        eat(Bad(), lib.constant(1.0))
    return values, traced, eat.experimental_get_tracing_count(), str(cf.function_type), re.sub(
        r"0x[0-9a-f]+", "ADDR", str(e.value))


def test_tf_tracing_type_keys_the_trace_as_tf():
    assert _fruit_run(tg) == _fruit_run(ref)


def test_string_arguments_give_tfs_results():
    def run(lib):
        f = lib.function(lambda s, n: lib.strings.length(s) + n)
        return [int(f(lib.constant(s), lib.constant(1))) for s in ["ab", "abc", "ab", ""]]
    assert run(tg) == run(ref)


def test_concrete_signatures_of_a_function_and_a_relaxed_trace_are_tfs():
    def run(lib):
        f = lib.function(lambda x, n=1: x * n, autograph=False)
        f(lib.ones([2]))
        f(lib.ones([3]), 2)
        g = lib.function(lambda x: x + 1.0, reduce_retracing=True, autograph=False)
        for n in (2, 3, 4):
            g(lib.ones([n]))
        return (f.pretty_printed_concrete_signatures(), f.pretty_printed_concrete_signatures(verbose=False),
                str(g.get_concrete_function(lib.ones([5])).function_type))
    assert run(tg) == run(ref)


def _array_of_squares(lib):
    def squares(n):
        ta = lib.TensorArray(lib.float32, size=n)
        for i in lib.range(n):
            ta = ta.write(i, lib.cast(i, lib.float32) ** 2)
        return ta.stack(), ta.size()
    return lib.function(squares)


def test_an_array_sized_by_an_argument_gives_tfs_values_and_trace_count():
    ours, theirs = _array_of_squares(tg), _array_of_squares(ref)
    for n in [3, 1, 0, 5]:
        for a, b in zip(ours(tg.constant(n)), theirs(ref.constant(n))):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
            assert a.dtype.name == b.dtype.name
    assert ours.experimental_get_tracing_count() == theirs.experimental_get_tracing_count() == 1


def test_a_concrete_function_of_a_none_spec_takes_every_length_as_tf():
    def make(lib):
        return lib.function(lambda x, d: lib.reduce_sum(x) * 2.0 + d["a"])
    ours, theirs = make(tg), make(ref)
    cf_ours = ours.get_concrete_function(tg.TensorSpec([None]), {"a": tg.TensorSpec([None, 2])})
    cf_theirs = theirs.get_concrete_function(ref.TensorSpec([None]), {"a": ref.TensorSpec([None, 2])})
    for n, m in [(1, 1), (3, 4), (2, 2)]:
        x, a = np.arange(n, dtype=np.float32), np.ones([m, 2], np.float32)
        np.testing.assert_array_equal(cf_ours(tg.constant(x), tg.constant(a)).numpy(),
                                      cf_theirs(ref.constant(x), ref.constant(a)).numpy())
    assert ours.experimental_get_tracing_count() == theirs.experimental_get_tracing_count() == 1
