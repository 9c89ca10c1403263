"""The hook through which ops on keras's symbolic tensors are recorded (Note [Op dispatch])."""
import pytest

import tapegrad as tf
from tapegrad._ops import _dispatch
from tapegrad.keras import _functional


def test_registration_refuses_what_is_not_a_class_or_callable():
    with pytest.raises(TypeError, match="must be callable"):
        _dispatch.register_symbolic_type(int, 1)
    with pytest.raises(TypeError, match="expected a class"):
        _dispatch.register_symbolic_type("KerasTensor", print)


def test_an_op_failing_on_other_arguments_keeps_its_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot convert"):
        tf.add(object(), 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot convert"):
        tf.expand_dims(object(), 0)


def test_the_hook_receives_the_public_op_and_its_arguments():
    calls = []
    previous = list(_dispatch._SYMBOLIC)

    class Marker:
        pass

    def hook(op, args, kwargs):
        calls.append((op, args, kwargs))
        return "recorded"
    try:
        _dispatch.register_symbolic_type(Marker, hook)
        m = Marker()
        assert tf.reshape(m, [2]) == "recorded" and calls[-1][0] is tf.reshape
        assert tf.expand_dims(m, axis=0) == "recorded" and calls[-1][0] is tf.expand_dims
        assert calls[-1][2] == {"axis": 0}
        assert tf.concat([tf.ones([1]), m], axis=0) == "recorded"
    finally:
        _dispatch.register_symbolic_type(*previous)
    assert _dispatch._SYMBOLIC[0] is _functional.KerasTensor


def test_every_public_op_written_in_python_is_declared_with_dispatch():
    # the declaration at the definition is the only way a Python op reaches keras's hook
    import types
    missing = []
    for space in (tf, tf.math, tf.nn, tf.linalg, tf.image):
        for name, fn in vars(space).items():
            if isinstance(fn, types.FunctionType) and fn.__module__.startswith("tapegrad._ops.") \
                    and not name.startswith("_"):
                missing.append(f"{space.__name__}.{name}")  # a declared op is a _core.PythonOp
    assert isinstance(tf.concat, tf._core.PythonOp) and tf.concat.__wrapped__.__name__ == "concat"
    assert not missing, f"public ops without @dispatch: {missing}"


def test_declared_ops_copy_and_pickle_by_reference_as_functions_do():
    import copy
    import pickle
    for op in (tf.concat, tf.cast, tf.nn.softmax, tf.math.reduce_std):
        assert copy.deepcopy(op) is op and copy.copy(op) is op
        assert pickle.loads(pickle.dumps(op)) is op
