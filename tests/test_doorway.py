"""The doorway between Python and C++: TF's argument names and keyword forms for every public op,
unknown keywords refused naming the op, arguments converted and validated in one place."""
import inspect

import numpy as np
import pytest

import tapegrad as tf

NAMESPACES = {"tf": tf, "tf.math": tf.math, "tf.nn": tf.nn, "tf.linalg": tf.linalg, "tf.random": tf.random}
# Public callables that are not ops: classes, context managers, decorators and helpers that take
# no `name=` in TF either.
NO_NAME_ARG = {
    "function", "custom_gradient", "recompute_grad", "print", "as_dtype", "is_tensor", "convert_to_tensor",
    "RegisterGradient", "cond", "while_loop", "silu", "swish", "set_seed", "safe_sqrt", "get_global_generator",
    "inside_function", "is_symbolic_tensor", "device", "show_config", "vectorized_map",
    "executing_eagerly", "get_static_value", "no_gradient", "compute_average_loss", "scale_regularization_loss",
    "get_logger", "control_dependencies", "init_scope", "broadcast_dynamic_shape", "broadcast_static_shape",
    "split", "fold_in", "create_rng_state", "set_global_generator", "make_tensor_proto", "make_ndarray",
}


def public_ops():
    seen = {}
    for prefix, ns in NAMESPACES.items():
        for n in sorted(getattr(ns, "__all__", None) or dir(ns)):
            f = getattr(ns, n, None)
            if n.startswith("_") or not callable(f) or inspect.isclass(f) or inspect.ismodule(f):
                continue
            seen.setdefault(id(f), (f"{prefix}.{n}", f))
    return sorted(seen.values())


OPS = public_ops()


@pytest.mark.parametrize("qualname,fn", OPS, ids=[q for q, _ in OPS])
def test_signature_is_inspectable(qualname, fn):
    params = inspect.signature(fn).parameters
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())  # einsum(equation, *inputs, **kwargs)
    if qualname.rsplit(".", 1)[1] not in NO_NAME_ARG:
        assert "name" in params or takes_kwargs, f"{qualname} takes no name= argument"


@pytest.mark.parametrize("qualname,fn", OPS, ids=[q for q, _ in OPS])
def test_unknown_keyword_is_a_type_error_naming_op_and_keyword(qualname, fn):
    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        pytest.skip(f"{qualname} takes **kwargs as TF's does")
    with pytest.raises(TypeError) as e:
        fn(no_such_argument=1)
    msg = str(e.value)
    assert "no_such_argument" in msg
    assert qualname.rsplit(".", 1)[1] in msg


def test_keyword_forms_of_elementwise_ops():
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 5.0])
    np.testing.assert_array_equal(tf.add(x=a, y=b).numpy(), [4.0, 7.0])
    np.testing.assert_array_equal(tf.add(a, y=b, name="sum").numpy(), [4.0, 7.0])
    np.testing.assert_array_equal(tf.exp(x=[0.0]).numpy(), [1.0])
    np.testing.assert_array_equal(tf.nn.relu(features=[-1.0, 2.0]).numpy(), [0.0, 2.0])
    np.testing.assert_allclose(tf.math.softplus(features=[0.0]).numpy(), [np.log(2.0)], rtol=1e-6)


def test_binding_errors_name_the_op():
    a = tf.constant([1.0])
    with pytest.raises(TypeError, match=r"add\(\) got multiple values for argument 'x'"):
        tf.add(a, a, x=a)
    with pytest.raises(TypeError, match=r"add\(\) missing required argument 'y'"):
        tf.add(a)
    with pytest.raises(TypeError, match=r"add\(\) takes 2 positional arguments but 3 were given"):
        tf.add(a, a, a)


def test_reductions_take_axis_as_int_list_tuple_array_or_tensor():
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    want = np.arange(24.0).reshape(2, 3, 4).sum(axis=(0, 2))
    for axis in ([0, 2], (0, 2), np.array([0, 2]), tf.constant([0, 2]), tf.constant([0, 2], tf.int64), [-3, -1]):
        np.testing.assert_array_equal(tf.reduce_sum(input_tensor=x, axis=axis).numpy(), want)
    np.testing.assert_array_equal(tf.reduce_sum(x, axis=np.int64(1)).numpy(), np.arange(24.0).reshape(2, 3, 4).sum(1))
    np.testing.assert_array_equal(tf.reduce_sum(x, axis=np.array(1)).numpy(), np.arange(24.0).reshape(2, 3, 4).sum(1))
    assert tf.reduce_sum(x, axis=tf.constant(0), keepdims=True).shape == (1, 3, 4)
    # An empty list of axes reduces nothing (TF); None reduces every axis.
    np.testing.assert_array_equal(tf.reduce_sum(x, axis=[]).numpy(), np.arange(24.0).reshape(2, 3, 4))
    assert float(tf.reduce_sum(x, axis=None)) == 276.0


@pytest.mark.parametrize("axis", [1.5, float("inf"), float("nan"), "a", [0, 1.0], [None], object(), tf.constant(0.0),
                                  np.array([[0]]), [np.array([0, 1])], np.float32(0.0), [[0]]])
def test_bad_axis_is_an_invalid_argument_naming_op_and_argument(axis):
    with pytest.raises((tf.errors.InvalidArgumentError, TypeError)) as e:
        tf.reduce_sum(tf.ones([2, 2]), axis=axis)
    assert "reduce_sum" in str(e.value) and "axis" in str(e.value)


def test_bad_tensor_argument_names_op_and_argument():
    with pytest.raises(ValueError) as e:
        tf.add(tf.constant(1.0), object())
    assert "add" in str(e.value) and "'y'" in str(e.value)
    with pytest.raises(ValueError) as e:
        tf.exp(None)
    assert "exp" in str(e.value) and "'x'" in str(e.value)


def test_int_attribute_refuses_float_and_huge():
    with pytest.raises(tf.errors.InvalidArgumentError, match="cumsum.*axis"):
        tf.cumsum([1.0, 2.0], axis=0.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="cumsum.*axis"):
        tf.cumsum([1.0, 2.0], axis=2**70)
    np.testing.assert_array_equal(tf.cumsum([1, 2, 3], axis=tf.constant(0), reverse=True).numpy(), [6, 5, 3])


def test_shape_as_list_tuple_array_or_tensor():
    x = tf.range(6)
    for shape in ([2, 3], (2, 3), np.array([2, 3]), tf.constant([2, 3]), tf.TensorShape([2, 3]), [2, -1]):
        assert tf.reshape(tensor=x, shape=shape).shape == (2, 3)
    with pytest.raises((tf.errors.InvalidArgumentError, TypeError)) as e:
        tf.reshape(x, [2.0, 3.0])
    assert "reshape" in str(e.value) and "shape" in str(e.value)


def test_signature_defaults_are_tfs():
    sig = inspect.signature(tf.reduce_sum)
    assert list(sig.parameters) == ["input_tensor", "axis", "keepdims", "name"]
    assert sig.parameters["axis"].default is None and sig.parameters["keepdims"].default is False
    assert list(inspect.signature(tf.cumsum).parameters) == ["x", "axis", "exclusive", "reverse", "name"]
    assert list(inspect.signature(tf.nn.relu).parameters) == ["features", "name"]


def test_einsum_takes_tfs_keywords_only():
    x = tf.ones([2, 2])
    assert tf.einsum("ij->", x, name="e", optimize="greedy").numpy() == 4.0
    with pytest.raises(TypeError, match="einsum.*'transpose'"):
        tf.einsum("ij->", x, transpose=True)


DECLARED = [(q, f) for q, f in OPS if isinstance(f, tf._core.PythonOp) and f._signature_args is not None]


def test_ops_written_in_python_declare_their_arguments():
    assert len(DECLARED) >= 6  # @dispatch("...") in tapegrad/_ops


@pytest.mark.parametrize("qualname,fn", DECLARED, ids=[q for q, _ in DECLARED])
def test_a_declared_argument_list_is_the_functions_own(qualname, fn):
    # The binder calls the function positionally in the declared order: the names must agree.
    declared = [name for name, *_ in fn._signature_args]
    own = [n for n in inspect.signature(fn.__wrapped__).parameters if n != "name"]
    assert declared == own


def declared(signature):
    return tf._core.PythonOp(lambda *args, **kwargs: (args, kwargs), signature)


def test_a_declared_op_converts_its_arguments_in_cpp():
    op = declared("x, labels:tensor_own_dtype=None, axis:axes=None, keep:bool=False, t:dtype='int64', "
                  "*, rate:float=1, how:any=None")
    (x, labels, axis, keep, t), kw = op([1.0, 2.0], [1, 2], 1, keep=1, name="ignored")
    assert (x.dtype, labels.dtype, axis, keep, t, kw) == (tf.float32, tf.int32, [1], True, tf.int64,
                                                          {"rate": 1.0, "how": None})
    first = tf.constant([1.0], tf.float64)
    (x, y), _ = declared("x, y")(2, first)  # a Python value takes the first tensor's dtype
    assert x.dtype == tf.float64 and y is first


@pytest.mark.parametrize("call,error,words", [
    (lambda op: op(), TypeError, "missing required argument 'x'"),
    (lambda op: op(1.0, 2.5), tf.errors.InvalidArgumentError, "argument 'axis' must be an int"),
    (lambda op: op(1.0, 1, 2), TypeError, "takes 2 positional arguments but 3 were given"),
    (lambda op: op(1.0, bogus=1), TypeError, "unexpected keyword argument 'bogus'"),
    (lambda op: op(1.0, 1, axis=2), TypeError, "multiple values for argument 'axis'"),
    (lambda op: op(1.0, rate="a"), TypeError, "argument 'rate' must be a float"),
    (lambda op: op(None), tf.errors.InvalidArgumentError, "argument 'x'"),
])
def test_a_declared_op_refuses_bad_arguments_naming_the_op(call, error, words):
    with pytest.raises(error, match=words):
        call(declared("x, axis:int=0, *, rate:float=1"))


@pytest.mark.parametrize("signature,error", [("x:bogus", tf.errors.InvalidArgumentError),
                                             ("x=[1]", tf.errors.InvalidArgumentError)])
def test_a_malformed_declaration_is_refused(signature, error):
    with pytest.raises(error):
        declared(signature)


def test_declared_ops_take_a_positional_name_and_pack_traced_lists():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert tf.expand_dims(x, 0, "e").shape == (1, 2, 2)  # TF's name follows the positional arguments
    assert tf.math.divide(x, x, "div").numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(TypeError, match="positional"):
        tf.expand_dims(x, 0, 3)  # a name is a string
    assert float(tf.function(tf.math.reduce_logsumexp)(x)) == pytest.approx(np.log(np.exp([1, 2, 3, 4]).sum()))

    @tf.function
    def packed(v):
        return tf.expand_dims([v[0], v[1]], 0), tf.transpose([v[1], v[0]])  # lists of traced tensors, packed
    a, b = packed(x)
    np.testing.assert_array_equal(a.numpy(), x.numpy()[None])
    np.testing.assert_array_equal(b.numpy(), x.numpy()[::-1].T)
