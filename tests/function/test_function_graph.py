"""Looking inside a traced function: ConcreteFunction.graph with TF's inspection API."""
import pytest

import tapegrad as tf


def _cf():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        y = x + 1.0
        return y * 2.0 + y

    f(tf.ones([3]))
    f(tf.ones([5]))  # verified for another size: inner dims are unknown too (Note [Verified relaxation])
    return f, f.get_concrete_function()


def test_before_a_second_size_only_the_placeholders_are_unknown():
    f = tf.function(lambda x: x + 1.0, input_signature=[tf.TensorSpec([None], tf.float32)])
    ops = f.get_concrete_function().graph.get_operations()
    assert ops[0].outputs[0].shape == (None,) and ops[2].outputs[0].shape == (2,)


def test_operations_have_tf_names_types_inputs_and_outputs():
    _, cf = _cf()
    ops = cf.graph.get_operations()
    assert [op.name for op in ops] == ["x", "Const", "add", "Const_1", "mul", "add_1", "Identity"]
    assert [op.type for op in ops] == ["Placeholder", "Const", "Add", "Const", "Mul", "Add", "Identity"]
    add = cf.graph.get_operation_by_name("add")
    assert [t.name for t in add.inputs] == ["x:0", "Const:0"]
    assert [t.name for t in add.outputs] == ["add:0"]
    assert add.outputs[0].shape == (None,) and add.outputs[0].dtype == tf.float32
    assert cf.graph.get_tensor_by_name("add_1:0").op.name == "add_1"


def test_unknown_names_raise_key_error():
    _, cf = _cf()
    with pytest.raises(KeyError, match="not in the graph"):
        cf.graph.get_operation_by_name("nope")
    with pytest.raises(KeyError, match="does not exist"):
        cf.graph.get_tensor_by_name("nope:0")
    with pytest.raises(ValueError, match="Tensor names must be"):
        cf.graph.get_tensor_by_name("add")


def test_as_graph_def_lists_nodes_with_inputs():
    _, cf = _cf()
    nodes = [(n.name, n.op, n.input) for n in cf.graph.as_graph_def().node]
    assert nodes[0] == ("x", "Placeholder", [])
    assert ("add", "Add", ["x", "Const"]) in nodes
    assert nodes[-1] == ("Identity", "Identity", ["add_1"])


def test_structured_signature_and_outputs():
    f, cf = _cf()
    assert cf.structured_input_signature == ((tf.TensorSpec([None], tf.float32, name="x"),), {})
    out = cf.structured_outputs
    assert out.name == "Identity:0" and out.shape == (None,)
    assert str(out) == 'Tensor("Identity:0", shape=(None,), dtype=float32)'
    assert f.pretty_printed_concrete_signatures() == (
        "Input Parameters:\n"
        "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None")


def test_nested_outputs_and_python_arguments():
    @tf.function
    def f(x, scale, d):
        return {"a": x * scale, "b": (d["k"], x)}

    cf = f.get_concrete_function(tf.TensorSpec([3], tf.float32), 2.0, {"k": tf.ones([2])})
    args, kwargs = cf.structured_input_signature
    assert args[0] == tf.TensorSpec([3], tf.float32) and args[1] == 2.0 and args[2]["k"].shape == (2,)
    out = cf.structured_outputs
    assert out["a"].name == "Identity:0" and out["a"].op.inputs[0].op.type == "Mul"
    assert [t.name for t in out["b"]] == ["Identity_1:0", "Identity_2:0"]
    assert len(cf.graph.outputs) == 3 and cf.graph.inputs[0].name == "x:0"


def test_inspection_shows_the_traced_graph_while_text_shows_the_optimized_one():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        unused = tf.exp(x)  # noqa: F841 -- traced, then pruned
        v.assign_add(1.0)
        return x * v

    cf = f.get_concrete_function(tf.constant(1.0))
    types = [op.type for op in cf.graph.get_operations()]
    assert "Exp" in types and "AssignAddVariableOp" in types and "ReadVariableOp" in types
    assert "Exp" not in cf.graph.ops and "AssignAddVariable" in cf.graph.to_text()
    assert "Captures:" in f.pretty_printed_concrete_signatures()


def test_a_concrete_function_keeps_no_argument_alive():
    import gc
    import weakref

    f = tf.function(lambda x, n: x * n)
    x = tf.ones([100])
    cf = f.get_concrete_function(x, 3)
    ref = weakref.ref(x)
    del x
    gc.collect()
    assert ref() is None and cf.structured_input_signature[0][1] == 3


def test_node_names_follow_tf():
    @tf.function
    def f(x, w):
        return tf.nn.relu(tf.matmul(x, w)) - 1.0, x[0] / 2.0, tf.concat([x, x], 0), tf.reduce_sum(x)

    cf = f.get_concrete_function(tf.TensorSpec([2, 2]), tf.TensorSpec([2, 2]))
    names = [op.name for op in cf.graph.get_operations() if op.type not in ("Const", "Placeholder")]
    assert names[:7] == ["MatMul", "Relu", "sub", "strided_slice", "truediv", "concat", "Sum"]
    assert names[7:] == ["Identity", "Identity_1", "Identity_2", "Identity_3"]


def test_a_loop_is_one_while_operation_whose_outputs_are_its_results():
    @tf.function
    def total(n):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (tf.constant(0), tf.constant(0)))[1]

    graph = total.get_concrete_function(tf.constant(3)).graph
    loop = graph.get_operation_by_name("while")
    assert loop.type == "While" and [t.name for t in loop.outputs][:2] == ["while:0", "while:1"]
    assert graph.outputs[0].op.inputs[0] is graph.get_tensor_by_name("while:1")
