"""The error contract: every public op refuses bad input with one of TF's classes, naming the op.

Every function of tapegrad's namespaces (tf, math, nn, linalg, random) is called with bad inputs
(None, a string, object(), an empty list, a wrong dtype, mismatched shapes, an out-of-range or
non-integer axis, negative, huge, inf and NaN sizes). An error must be a tapegrad.errors.OpError,
a TypeError or a ValueError (never a bare RuntimeError, IndexError, KeyError, AttributeError,
OverflowError, ZeroDivisionError, NotImplementedError or MemoryError), and its message must name
the op: its Python name, or the TF op name that the engine puts first ("Sum: ...").
The classes themselves (codes, attributes, pickling) are TF's, one set raised by the engine and Python code.
"""
import inspect
import pickle
import re
import types

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import _core, errors

# Functions that are not ops on tensors; each is tested where it lives.
EXCLUDED = {
    "function": "a decorator; tests/function/test_function*.py",
    "custom_gradient": "a decorator; tests/autodiff/test_custom_gradient*.py",
    "recompute_grad": "a decorator taking a function",
    "cond": "takes callables; tests/function/test_control_flow.py",
    "while_loop": "takes callables; tests/function/test_control_flow.py",
    "print": "prints any value",
    "is_tensor": "a predicate: any value is an answer",
    "get_global_generator": "takes no argument",
    "set_seed": "None is a valid seed; tests/ops/test_random.py checks the sequences it sets",
    "gradients": "eagerly TF's RuntimeError whatever the input; tests/autodiff/test_gradients_fn.py",
    **dict.fromkeys(["Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"],
                    "an assertion: raising with TF's own assertion text is its job "
                    "(tests/oracle/test_tf_oracle_asserts.py compares the texts with TF's)"),
}
NAMESPACES = {"tf": tf, "math": tf.math, "nn": tf.nn, "linalg": tf.linalg, "random": tf.random}
ALLOWED = (errors.OpError, TypeError, ValueError)
SIZE_ARGS = {"shape", "dims", "num", "depth", "num_rows", "num_columns", "multiples", "num_or_size_splits",
             "batch_shape", "size", "begin", "end", "strides", "paddings", "num_segments", "limit", "delta"}
SCALARS = {"start": 0, "limit": 10, "delta": 1, "stop": 1.0, "num": 3, "depth": 3, "num_rows": 2,
           "num_segments": 2, "axes": [0], "rate": 0.5, "clip_value_min": 0.0, "clip_value_max": 1.0,
           "clip_norm": 1.0}


def _public_ops():
    seen = {}
    for ns_name, ns in NAMESPACES.items():
        for name in dir(ns):
            fn = getattr(ns, name)
            if name.startswith("_") or name in EXCLUDED or inspect.isclass(fn) or isinstance(fn, types.ModuleType):
                continue
            if callable(fn) and id(fn) not in seen:
                seen[id(fn)] = (f"{ns_name}.{name}", name, fn)
    return sorted(seen.values())


def _required(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ["x"]
    req = [p.name for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        req.append("*")
    return req or ["x"]


def _keywords(fn):
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return set()


def _good(param):
    if param in SCALARS:
        return SCALARS[param]
    if param in SIZE_ARGS:
        return [2, 3]
    if param == "equation":
        return "ij->ji"
    if param in ("axis", "seed"):
        return 0
    if param == "dtype":
        return tf.float32
    if param in ("indices", "labels", "segment_ids"):
        return tf.constant([0, 1])
    if param in ("inputs", "values", "tensors", "t_list"):
        return [tf.ones([2, 3]), tf.ones([2, 3])]
    return tf.ones([2, 3])


BAD_VALUES = [None, "a", object(), [], float("nan"), {"a": 1}]
BAD_SIZES = [-1, 2 ** 70, 2 ** 40, float("inf"), float("nan"), 2.5, [-1], [2 ** 70], [2 ** 40, 2 ** 40], [float("inf")]]
BAD_AXES = [99, -99, float("inf"), float("nan"), 2 ** 40, 2 ** 70, "a", 1.5]


def _cases(fn):
    """(label, args, kwargs) tuples of bad calls of fn."""
    req = _required(fn)
    kw = _keywords(fn)
    good = [_good(p) for p in req]
    out = []

    def with_at(i, v):
        args = list(good)
        args[i] = v
        return args

    for i, p in enumerate(req):
        bads = BAD_VALUES + [tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([True, False]), tf.ones([4, 5]),
                             tf.ones([2, 3], tf.float64)]
        if p in SIZE_ARGS:
            bads = bads + BAD_SIZES
        for v in bads:
            out.append((f"{p}={_short(v)}", with_at(i, v), {}))
    if "axis" in kw:
        for v in BAD_AXES:
            out.append((f"axis={_short(v)}", good, {"axis": v}))
    for k in sorted(kw & SIZE_ARGS - set(req)):
        for v in BAD_SIZES:
            out.append((f"{k}={_short(v)}", good, {k: v}))
    if "dtype" in kw and "dtype" not in req:
        out.append(("dtype='foo'", good, {"dtype": "foo"}))
    return out


def _short(v):
    return v.dtype.name + str(tuple(v.shape)) if isinstance(v, tf.Tensor) else repr(v)[:20]


def _names(name):
    """Names by which a message may name the op: the Python name, its CamelCase, or the engine's op."""
    camel = "".join(w.capitalize() for w in name.split("_"))
    return {name, camel, name.replace("_", " ")}


# A TF op name leading the message, as the engine writes it: "Sum: axis 3 is out of range ...".
_OP_PREFIX = re.compile(r"^([A-Z][A-Za-z0-9]*):")


def _names_op(message, name):
    return any(n.lower() in message.lower() for n in _names(name)) or bool(_OP_PREFIX.match(message))


def _check(fn, name, args, kwargs):
    """None if fn(*args, **kwargs) keeps the contract, else a description of the breach."""
    try:
        fn(*args, **kwargs)
    except ALLOWED as e:
        if not _names_op(str(e), name):
            return f"message: {type(e).__name__}: {str(e)[:150]}"
    except Exception as e:  # noqa: BLE001 -- the point of the test
        return f"class: {type(e).__name__}: {str(e)[:150]}"
    return None


def breaches():
    found = []
    for qual, name, fn in _public_ops():
        for label, args, kwargs in _cases(fn):
            with np.errstate(all="ignore"):
                b = _check(fn, name, list(args), kwargs)
            if b:
                found.append(f"{qual}({label}) -> {b}")
    return found


_BREACHES = []


def _all_breaches():
    if not _BREACHES:
        _BREACHES.append(breaches())
    return _BREACHES[0]


def test_no_error_outside_tf_classes():
    found = [b for b in _all_breaches() if " -> class: " in b]
    assert not found, f"{len(found)} errors outside TF's classes:\n" + "\n".join(found)


def test_messages_name_the_op():
    found = [b for b in _all_breaches() if " -> message: " in b]
    assert not found, f"{len(found)} messages do not name the op:\n" + "\n".join(found)


CLASSES = {
    "CancelledError": 1, "UnknownError": 2, "InvalidArgumentError": 3, "DeadlineExceededError": 4,
    "NotFoundError": 5, "AlreadyExistsError": 6, "PermissionDeniedError": 7, "ResourceExhaustedError": 8,
    "FailedPreconditionError": 9, "AbortedError": 10, "OutOfRangeError": 11, "UnimplementedError": 12,
    "InternalError": 13, "UnavailableError": 14, "DataLossError": 15, "UnauthenticatedError": 16,
}


@pytest.mark.parametrize("name,code", sorted(CLASSES.items()))
def test_each_class_has_tf_code_and_attributes(name, code):
    cls = getattr(tf.errors, name)
    assert issubclass(cls, tf.errors.OpError)
    e = cls(None, None, "it failed")
    assert (e.message, e.op, e.node_def, e.error_code, str(e)) == ("it failed", None, None, code, "it failed")
    assert cls("short form").message == "short form"


def test_error_code_constants_as_tf():
    assert (errors.OK, errors.INVALID_ARGUMENT, errors.RESOURCE_EXHAUSTED, errors.UNAUTHENTICATED) == (0, 3, 8, 16)
    assert errors.OpError(None, None, "m", errors.DATA_LOSS).error_code == 15


def test_invalid_argument_is_also_a_value_error_and_pickles():
    assert issubclass(tf.errors.InvalidArgumentError, ValueError)
    e = pickle.loads(pickle.dumps(tf.errors.InvalidArgumentError(None, None, "bad")))
    assert type(e) is tf.errors.InvalidArgumentError and e.message == "bad"


def test_engine_raises_the_same_classes():
    assert _core.InvalidArgumentError is tf.errors.InvalidArgumentError
    assert _core.TapeError is tf.errors.TapeError
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))
    assert type(info.value) is tf.errors.InvalidArgumentError and info.value.error_code == 3


@pytest.mark.parametrize("dtype", [None, tf.float32, tf.int32])
def test_constant_refuses_none_naming_constant(dtype):
    # np.asarray(None, float32) is NaN: the conversion must refuse None before NumPy sees it.
    with pytest.raises(ValueError, match=r"constant\(\): argument 'value' cannot convert None"):
        tf.constant(None, dtype)


def test_constant_shape_refused_naming_const():
    oom = r"^Const: OOM when allocating tensor with shape\[1099511627776,1024\]"
    with pytest.raises(tf.errors.ResourceExhaustedError, match=oom):
        tf.constant(1.0, shape=[2 ** 40, 2 ** 10])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Const: dimension -1"):
        tf.constant(1.0, shape=[-1])
    with pytest.raises(TypeError, match=r"^Const: shape must be a list of ints, got float inf"):
        tf.constant(1.0, shape=[float("inf")])
    assert tf.constant(1.0, shape=3).shape == (3,)


def test_as_dtype_refuses_none_and_tensors():
    # NumPy reads None as float64 and a Tensor through its .dtype; TF refuses both with a TypeError.
    for bad in (None, tf.ones([2])):
        with pytest.raises(TypeError, match="as_dtype"):
            tf.as_dtype(bad)
    assert tf.float64 != None  # noqa: E711 -- the comparison under test


def test_python_ops_convert_arguments_through_the_doorway():
    # One conversion path: the message names the public function and its argument, not an inner op.
    cases = [(lambda: tf.nn.moments(tf.ones([2]), "a"), "moments(): argument 'axes'"),
             (lambda: tf.math.reduce_std(tf.ones([2]), axis=1.5), "reduce_std(): argument 'axis'"),
             (lambda: tf.clip_by_value(tf.ones([2]), None, 1.0), "clip_by_value(): argument 'clip_value_min'"),
             (lambda: tf.stack([tf.ones([2])], axis="a"), "stack(): argument 'axis'"),
             (lambda: tf.cast(tf.ones([2]), "foo"), "cast(): argument 'dtype'"),
             (lambda: tf.pad(tf.ones([2]), [[0.5, 1]]), "pad(): argument 'paddings'")]
    for call, message in cases:
        with pytest.raises((TypeError, ValueError), match=re.escape(message)):
            call()


def test_the_list_of_ops_is_derived_from_the_namespaces():
    names = {q for q, _, _ in _public_ops()}
    assert {"tf.reduce_sum", "tf.range", "tf.zeros", "tf.matmul", "nn.relu", "random.uniform"} <= names
    assert not any(q.split(".")[1] in EXCLUDED for q in names)


if __name__ == "__main__":
    all_found = breaches()
    for line in all_found:
        print(line)
    print(len(all_found), "breaches;", sum(" -> class:" in b for b in all_found), "class,",
          sum(" -> message:" in b for b in all_found), "message")
