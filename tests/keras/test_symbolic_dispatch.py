"""The hook through which ops on keras's symbolic tensors are recorded (Note [Symbolic dispatch])."""
import pytest

import tapegrad as tf
from tapegrad._ops import _symbolic
from tapegrad.keras import _functional


def test_registration_refuses_what_is_not_a_class_or_callable():
    with pytest.raises(TypeError, match="must be callable"):
        _symbolic.register_symbolic_type(int, 1)
    with pytest.raises(TypeError, match="expected a class"):
        _symbolic.register_symbolic_type("KerasTensor", print)


def test_an_op_failing_on_other_arguments_keeps_its_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot convert"):
        tf.add(object(), 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot convert"):
        tf.expand_dims(object(), 0)


def test_the_hook_receives_the_public_op_and_its_arguments():
    calls = []
    previous = list(_symbolic._STATE)

    class Marker:
        pass

    def hook(op, args, kwargs):
        calls.append((op, args, kwargs))
        return "recorded"
    try:
        _symbolic.register_symbolic_type(Marker, hook)
        _symbolic.activate()  # as making the first Keras tensor does: Python ops are wrapped from now on
        m = Marker()
        assert tf.reshape(m, [2]) == "recorded" and calls[-1][0] is tf.reshape
        assert tf.expand_dims(m, axis=0) == "recorded" and calls[-1][0] is tf.expand_dims
        assert calls[-1][2] == {"axis": 0}
        assert tf.concat([tf.ones([1]), m], axis=0) == "recorded"
    finally:
        _symbolic.register_symbolic_type(*previous)
    assert _symbolic._STATE[0] is _functional.KerasTensor
