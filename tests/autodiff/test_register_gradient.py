"""RegisterGradient replaces a primitive's rule for every tape, and restore() undoes it."""
import numpy as np
import pytest

import tapegrad as tf


@pytest.fixture
def restore_exp():
    yield
    tf.RegisterGradient.restore("Exp")


def test_replaces_rule_everywhere(restore_exp):
    @tf.RegisterGradient("Exp")
    def _exp_grad(op, grad):
        assert op.type == "Exp" and len(op.inputs) == 1
        return grad * 3.0

    x = tf.Variable(0.7)
    with tf.GradientTape() as tape:
        y = tf.exp(x)
    assert float(tape.gradient(y, x)) == pytest.approx(3.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.exp(x) * x
        g = inner.gradient(y, x)
    assert float(g) == pytest.approx(3.0 * 0.7 + float(tf.exp(x)))


def test_restore_brings_back_builtin(restore_exp):
    tf.RegisterGradient("Exp")(lambda op, grad: grad * 0.0)
    tf.RegisterGradient.restore("Exp")
    x = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        y = tf.exp(x)
    assert float(tape.gradient(y, x)) == 1.0


def test_rule_sees_attributes():
    seen = {}

    @tf.RegisterGradient("LeakyRelu")
    def _leaky(op, grad):
        seen["alpha"] = op.get_attr("alpha")
        return grad

    try:
        x = tf.Variable([-1.0])
        with tf.GradientTape() as tape:
            y = tf.nn.leaky_relu(x, alpha=0.3)
        tape.gradient(y, x)
        assert seen["alpha"] == pytest.approx(0.3)
    finally:
        tf.RegisterGradient.restore("LeakyRelu")


def test_name_no_op_has_registers():
    # TF registers a rule under any name; it leaves the built-in rules alone.
    def rule(op, grad):
        return grad

    try:
        assert tf.RegisterGradient("NotAnOp")(rule) is rule
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.exp(x)
        assert float(tape.gradient(y, x)) == pytest.approx(np.exp(2.0), rel=1e-6)
    finally:
        tf.RegisterGradient.restore("NotAnOp")


def test_op_type_must_be_a_string():
    with pytest.raises(TypeError, match="string"):
        tf.RegisterGradient(3)


def test_restore_puts_back_an_op_tapes_do_not_record():
    # Equal has no gradient, so tapes do not record it; a rule registered and then restored
    # leaves it that way.
    x = tf.constant([1.0, 2.0])
    tf.RegisterGradient("Equal")(lambda op, grad: (None, None))
    tf.RegisterGradient.restore("Equal")
    with tf.GradientTape() as tape:
        tape.watch(x)
        tf.equal(x, 1.0)
    assert tape._num_entries == 0
