"""The rest of tf.function's tracing surface: function_type, pretty_printed_signature, function_def,
graph.as_graph_def(), inference_fn, tf.types.experimental.TraceType and __tf_tracing_type__, and string
tensor arguments. (tests/oracle/test_tf_oracle_function_surface.py compares the same with TF.)"""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import _protos
from tapegrad._function.trace_type import Dict, List, Literal, Tuple

TraceType = tf.types.experimental.TraceType
SPEC = "TensorSpec(shape=(2, 3), dtype=tf.float32, name=None)"


def _nested_cf():
    @tf.function
    def f(x, y, n=2):
        return {"a": x + y, "b": (x * n, [y])}
    return f.get_concrete_function(tf.TensorSpec([2, 3], tf.float32), tf.constant([1., 2, 3]), 3)


def test_function_type_shows_each_parameter_and_the_output_as_tf():
    ft = _nested_cf().function_type
    y = "TensorSpec(shape=(3,), dtype=tf.float32, name=None)"
    assert str(ft) == (f"(x: {SPEC}, y: {y}, n: Literal[3]) -> Dict[['a', {SPEC}], ['b', Tuple[{SPEC}, List[{y}]]]]")
    n = ft.parameters["n"]
    assert (n.kind.name, n.optional, n.type_constraint) == ("POSITIONAL_OR_KEYWORD", False, Literal(3))
    assert repr(n) == "Parameter(name=n, kind=POSITIONAL_OR_KEYWORD, optional=False, type_constraint=Literal[3])"
    assert ft.parameters["x"].type_constraint == tf.TensorSpec([2, 3], tf.float32)
    assert ft.output == Dict({"a": tf.TensorSpec([2, 3]), "b": Tuple(tf.TensorSpec([2, 3]), List(tf.TensorSpec([3])))})
    assert ft.captures == {}


def test_pretty_printed_signature_verbose_and_short():
    cf = _nested_cf()
    text = cf.pretty_printed_signature()
    assert text.splitlines()[:4] == ["Input Parameters:", f"  x (POSITIONAL_OR_KEYWORD): {SPEC}",
                                     "  y (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(3,), dtype=tf.float32, name=None)",
                                     "  n (POSITIONAL_OR_KEYWORD): Literal[3]"]
    assert text.endswith("Captures:\n  None") and text == repr(cf.function_type)
    assert cf.pretty_printed_signature(verbose=False) == str(cf.function_type)


def test_var_args_become_positional_only_and_keywords_keyword_only():
    @tf.function
    def g(a, *rest, **kw):
        return a
    ft = g.get_concrete_function(tf.constant(1.0), 5, "s", name=None).function_type
    assert [(p.name, p.kind.name) for p in ft.parameters.values()] == [("a", "POSITIONAL_ONLY"), (
        "rest_0", "POSITIONAL_ONLY"), ("rest_1", "POSITIONAL_ONLY"), ("name", "KEYWORD_ONLY")]
    assert str(ft).startswith("(a: TensorSpec(shape=(), dtype=tf.float32, name=None), rest_0: Literal[5], "
                              "rest_1: Literal['s'], /, *, name: Literal[None])")


def test_captures_list_each_variable_once():
    v, w = tf.Variable(1.0), tf.Variable(2.0)

    @tf.function
    def f(x):
        v.assign_add(1.0)
        return x * v + v * w
    cf = f.get_concrete_function(tf.constant(1.0))
    assert list(cf.function_type.captures) == [id(v), id(w)]
    lines = cf.pretty_printed_signature().splitlines()
    assert lines[-2:] == [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)",
                          f"  {id(w)}: TensorSpec(shape=(), dtype=tf.resource, name=None)"]


def test_function_def_is_a_function_def_message_with_tfs_argument_names():
    v = tf.Variable(2.0, name="v")

    @tf.function
    def g(xs, d):
        v.assign_add(1.0)
        return xs[0] * v + d["k"], xs[1]
    cf = g.get_concrete_function([tf.constant(1.0), tf.constant(2)], {"k": tf.constant(3.0)})
    fdef = cf.function_def
    assert isinstance(fdef, _protos.FunctionDef) and fdef is cf.function_def
    assert fdef.signature.name.startswith("__inference_g_")
    assert [(a.name, a.type) for a in fdef.signature.input_arg] == [
        ("xs", 1), ("xs_1", 3), ("d", 1), ("v_resource", 20)]  # DT_FLOAT, DT_INT32, DT_RESOURCE
    assert [(a.name, a.type) for a in fdef.signature.output_arg] == [("identity", 1), ("identity_1", 3)]
    assert fdef.signature.is_stateful and "AssignAddVariableOp" in [n.op for n in fdef.node_def]
    assert _protos.FunctionDef.FromString(fdef.SerializeToString()) == fdef


def test_function_def_of_an_unknown_dimension_reads_the_size_and_traces_nothing():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x[:-1]
    cf = f.get_concrete_function()
    count = f.experimental_get_tracing_count()
    fdef = cf.function_def
    assert f.experimental_get_tracing_count() == count
    assert "Shape" in [n.op for n in fdef.node_def]  # the slice's end is read from the size, not baked in
    assert [d.size for d in fdef.arg_attr[0].attr["_output_shapes"].list.shape[0].dim] == [-1]


def test_function_def_refuses_a_host_call_naming_it():
    f = tf.function(lambda x: tf.py_function(lambda a: a * 2.0, [x], tf.float32))
    with pytest.raises(tf.errors.UnimplementedError, match="function_def of"):
        _ = f.get_concrete_function(tf.constant(1.0)).function_def


def test_as_graph_def_is_a_graph_def_message_of_the_operations():
    cf = _nested_cf()
    gd = cf.graph.as_graph_def()
    assert isinstance(gd, _protos.GraphDef) and _protos.GraphDef.FromString(gd.SerializeToString()) == gd
    assert [n.name for n in gd.node] == [op.name for op in cf.graph.get_operations()]
    x = gd.node[0]
    assert (x.op, x.attr["dtype"].type, [d.size for d in x.attr["shape"].shape.dim]) == ("Placeholder", 1, [2, 3])
    assert x.attr["_user_specified_name"].s == b"x"
    const = next(n for n in gd.node if n.op == "Const")
    assert tf.make_ndarray(const.attr["value"].tensor) == 3.0
    add = cf.graph.get_operation_by_name("add")
    assert list(add.node_def.input) == ["x", "y"] and add.node_def.op == "Add"


def test_inference_fn_takes_every_parameter_and_checks_python_values():
    cf = _nested_cf()
    fn = cf.inference_fn
    out = fn(tf.ones([2, 3]), tf.constant([1., 2, 3]), 3)
    np.testing.assert_allclose(out["b"][0].numpy(), np.full([2, 3], 3.0))
    with pytest.raises(TypeError, match="missing a required argument: 'n'"):
        fn(tf.ones([2, 3]), tf.constant([1., 2, 3]))
    with pytest.raises(TypeError, match=r"n: expected Literal\[3\], got 4"):
        fn(tf.ones([2, 3]), tf.constant([1., 2, 3]), 4)
    flat = fn.call_flat(tf.ones([2, 3]), tf.constant([1., 2, 3]))
    np.testing.assert_allclose(flat["a"].numpy(), [[2., 3., 4.]] * 2)
    assert fn.name.startswith(b"__inference_f_") and str(fn.function_type) == str(cf.function_type)


class Fruit:
    def __init__(self, kind, weight):
        self.kind, self.weight = kind, weight

    def __tf_tracing_type__(self, context):
        return FruitType(self.kind)


class FruitType(TraceType):
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


def test_tf_tracing_type_keys_the_trace_and_the_trace_runs_on_the_placeholder():
    traced = []

    @tf.function
    def eat(fruit, x):
        traced.append((fruit.kind, fruit.weight))
        return x * fruit.weight
    assert [float(eat(Fruit(k, w), tf.constant(1.0))) for k, w in [("apple", 1), ("apple", 2), ("pear", 3)]] == [
        100.0, 100.0, 100.0]
    assert traced == [("apple", 100.0), ("pear", 100.0)] and eat.experimental_get_tracing_count() == 2
    assert "f: TraceType FruitType(apple) -> FruitType(pear)" in eat.tracing_report().replace("fruit:", "f:")
    cf = eat.get_concrete_function(Fruit("apple", 7), tf.constant(1.0))
    assert str(cf.function_type).startswith("(fruit: FruitType(apple), x: ")
    assert cf.structured_input_signature[0][0] == FruitType("apple")
    assert float(cf.inference_fn(Fruit("apple", 1), tf.constant(2.0))) == 200.0
    with pytest.raises(TypeError, match="expected a value of FruitType"):
        cf.inference_fn(Fruit("pear", 1), tf.constant(2.0))


def test_a_tracing_type_that_is_no_trace_type_raises_tfs_type_error():
    class Bad:
        def __tf_tracing_type__(self, context):
            return 3
    with pytest.raises(TypeError, match="Expected an instance of TraceType for Tracing Protocol call to .* but got 3"):
        tf.function(lambda b: tf.constant(1.0))(Bad())


def test_trace_type_is_abstract_with_tfs_defaults():
    with pytest.raises(TypeError, match="abstract"):
        type("Partial", (TraceType,), {"is_subtype_of": lambda s, o: True})()
    t = FruitType("fig")
    assert t.to_tensors(Fruit("fig", 1)) == [] and t.flatten() == []
    assert t.from_tensors(iter([])).weight == 100.0
    with pytest.raises(AssertionError, match="Can not cast"):
        t.cast(5, None)
    assert isinstance(Fruit("fig", 1), tf.types.experimental.SupportsTracingProtocol)


def test_default_trace_types_compare_by_value():
    assert Literal(1) == Literal(1) and Literal(1) != Literal(1.0) and Literal(True) != Literal(1)
    assert hash(List(Literal(1))) == hash(List(Literal(1))) and List(Literal(1)) != Tuple(Literal(1))
    assert Dict({"a": Literal(1), "b": Literal(2)}) == Dict({"b": Literal(2), "a": Literal(1)})
    assert Literal(2).most_specific_common_supertype([Literal(2)]) == Literal(2)
    assert Literal(2).most_specific_common_supertype([Literal(3)]) is None
    assert repr(Dict({"b": Literal(None)})) == "Dict[['b', Literal[None]]]"


def test_string_arguments_trace_by_value_and_never_serve_another_string():
    calls = []

    @tf.function
    def f(s):
        calls.append(1)
        return tf.strings.length(s)
    assert [int(f(tf.constant(s))) for s in ["ab", "ab", "abc", "ab"]] == [2, 2, 3, 2]
    assert f.experimental_get_tracing_count() == 2 and len(calls) == 2  # an equal string: no new trace
    assert "s: string value b'ab' -> b'abc'" in f.tracing_report()
    cf = f.get_concrete_function(tf.constant("ab"))
    assert "s (POSITIONAL_OR_KEYWORD): Literal[<tf.Tensor: shape=(), dtype=string, numpy=b'ab'>]" in (
        cf.pretty_printed_signature())


def test_tf_types_experimental_names():
    exp = tf.types.experimental
    assert exp.GenericFunction is exp.PolymorphicFunction and isinstance(tf.function(abs), exp.PolymorphicFunction)
    assert isinstance(_nested_cf(), exp.ConcreteFunction) and isinstance(_nested_cf().inference_fn, exp.AtomicFunction)
    assert isinstance(_nested_cf().function_type, exp.FunctionType)


def test_a_string_tensor_spec_is_refused_rather_than_traced_for_one_string():
    f = tf.function(lambda s: tf.strings.length(s), input_signature=[tf.TensorSpec([], tf.string)])
    assert int(f(tf.constant("abc"))) == 3 and int(f("ab")) == 2
    with pytest.raises(tf.errors.UnimplementedError, match="traced with its value"):
        f.get_concrete_function()
    with pytest.raises(tf.errors.UnimplementedError, match="string tensor argument"):
        tf.function(lambda s: s).get_concrete_function(tf.TensorSpec([2], tf.string))
