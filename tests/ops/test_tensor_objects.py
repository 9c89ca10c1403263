"""Tensor, Variable and GradientTape are plain CPython types (Note [Tensor objects], Note [Tape
objects]): an object whose __init__ has not run, weak references, cycles through a Variable's
attributes, and the operators' slots behave as Python objects should, and none crashes."""
import gc
import sys
import weakref

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import _core


class Unset(tf.Variable):
    def __init__(self):  # never calls Variable.__init__
        pass


@pytest.mark.parametrize("use", [
    lambda v: v + 1.0, lambda v: 1.0 + v, lambda v: -v, lambda v: v / 2.0, lambda v: 2.0 / v,
    lambda v: v < 1.0, lambda v: v == tf.constant(1.0), lambda v: v._shape, lambda v: v._dtype,
    lambda v: v.trainable, lambda v: v.numpy(), lambda v: len(v), lambda v: tf.add(v, 1.0),
    lambda v: v._assign(1.0), lambda v: tf.constant(1.0) * v,
])
def test_a_variable_without_init_raises(use):
    with pytest.raises((TypeError, ValueError, AttributeError)):  # (AttributeError: its repr has no name)
        use(Unset())


def test_a_variable_without_init_is_no_tensor_for_a_tape():
    v = Unset()
    with tf.GradientTape() as tape:
        with pytest.raises((TypeError, ValueError)):
            tape.watch(v)


def test_init_twice_gives_a_new_value():
    v = _core.Variable(1.0)
    v.__init__(2.0)
    assert float(v.numpy()) == 2.0
    assert (v + 0.0).numpy() == 2.0


def test_weak_references():
    for make in (lambda: tf.constant([1.0]), lambda: tf.Variable(1.0), tf.GradientTape):
        obj = make()
        ref = weakref.ref(obj)
        assert ref() is obj
        del obj
        gc.collect()
        assert ref() is None


def test_a_cycle_through_a_variables_attributes_is_collected():
    v = tf.Variable(1.0)
    v.me = v
    ref = weakref.ref(v)
    del v
    gc.collect()
    assert ref() is None


def test_same_object_back_for_a_tensor():
    x = tf.constant([1.0, 2.0])
    assert tf.identity(x) is not x
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    assert tape.gradient(y, x) is not None
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        (v * v)
    assert tape.watched_variables()[0] is v  # the variable's own object, not a new one


def test_operators_reflected_and_explicit():
    x = tf.constant(4.0)
    assert float(x.__add__(1.0)) == 5.0 and float(x.__radd__(1.0)) == 5.0
    assert float(x.__rsub__(1.0)) == -3.0 and float(x.__rtruediv__(8.0)) == 2.0
    assert float(x.__rpow__(2.0)) == 16.0
    assert bool(x.__lt__(5.0)) and not bool(x.__ge__(5.0))
    assert (x == None) is False and (x != None) is True  # noqa: E711
    with pytest.raises(TypeError):
        pow(x, 2.0, 3)
    assert isinstance(np.float32(1.0) + x, tf.Tensor)  # NumPy defers to the tensor


def test_unequal_shapes_compare_as_tf():
    a, b = tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])
    assert (a == b).shape == () and not bool(a == b)
    assert bool(a != b)
    np.testing.assert_array_equal((a == tf.constant(1.0)).numpy(), [True, False])


def test_tensor_is_not_constructible():
    with pytest.raises(TypeError):
        _core.Tensor()


def test_hash_is_identity():
    x = tf.constant(1.0)
    assert hash(x) == hash(x) and {x: 1}[x] == 1


def test_python_subclasses_of_the_tape_and_variable():
    class Tape(tf.GradientTape):
        def __init__(self, **extra):
            super().__init__(persistent=True)
            self.extra = extra

    x = tf.constant(2.0)
    with Tape(a=1) as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 4.0 and float(tape.gradient(y, x)) == 4.0  # persistent
    tape.me = tape
    ref = weakref.ref(tape)
    del tape
    gc.collect()
    assert ref() is None

    class Slotted(tf.Variable):
        __slots__ = ("q",)

    v = Slotted(1.0)
    v.q = 3
    assert v.q == 3 and float(v * 2.0) == 2.0


def test_tape_init_arguments():
    assert tf.GradientTape(True).persistent and tf.GradientTape(persistent=1).persistent
    with pytest.raises(TypeError):
        tf.GradientTape(persistent=True, colour="red")
    with pytest.raises(TypeError):
        tf.GradientTape(False, True, 3)


class _WatchedVariablesOnDelete:
    """Reads the tape's watched variables from a destructor that runs while a Variable is being freed."""

    def __init__(self, tape, got):
        self.tape, self.got = tape, got

    def __del__(self):
        self.got.append(self.tape.watched_variables())


class _SlottedVariable(tf.Variable):
    __slots__ = ("spy",)


@pytest.mark.parametrize("how", ["weakref callback", "attribute", "slot of a subclass"])
def test_a_variable_being_freed_is_never_handed_out(how):
    # Python code run while a Variable object dies (a weakref callback, the destructor of what its
    # __dict__ or a subclass's __slots__ hold) that reaches its tensor gets a live object, not the
    # dying one (which crashed the interpreter once freed)
    tape, got = tf.GradientTape(persistent=True), []
    with tape:
        v = _SlottedVariable(1.0) if how == "slot of a subclass" else tf.Variable(1.0)
        tape.watch(v)
    if how == "weakref callback":
        ref = weakref.ref(v, lambda r: got.append(tape.watched_variables()))  # noqa: F841 (kept alive)
    else:
        v.spy = _WatchedVariablesOnDelete(tape, got)
    del v
    gc.collect()
    [bytearray(64) for _ in range(1000)]  # reuse what was freed
    (w,) = got[0]
    assert sys.getrefcount(w) >= 2 and isinstance(w, _core.Variable)
    assert float(w + 1) == 2.0 and w.numpy() == 1.0


def test_an_op_handle_made_by_new_alone_raises():
    h = _core.OpHandle.__new__(_core.OpHandle)
    with pytest.raises(TypeError, match="not initialised"):
        h(1.0)


def test_an_error_from_the_failure_hook_keeps_the_ops_error_as_its_context():
    # Note [When an op call fails]: the hook runs inside the failed call, as an `except` block would
    from tapegrad._ops import _dispatch

    def failing_hook(error, op, args, kwargs):
        raise RuntimeError("hook failed")

    _core._set_failure_hook(failing_hook)
    try:
        with pytest.raises(RuntimeError, match="hook failed") as info:
            tf.reshape(tf.constant([1.0, 2.0]), [3])
    finally:
        _core._set_failure_hook(_dispatch.on_failure)
    assert isinstance(info.value.__context__, tf.errors.InvalidArgumentError)
    assert "reshape" in str(info.value.__context__).lower()


def test_a_tape_is_exited_and_dropped_on_its_own_thread_only():
    # a tape sits on the stack of the thread that entered it: __exit__ on another thread raises, and a
    # tape dropped on another thread while recording stays allocated (it crashed the interpreter the
    # next time the first thread recorded an op)
    import threading

    tape = tf.GradientTape()
    tape.__enter__()
    errors = []

    def elsewhere(t):
        try:
            t.__exit__(None, None, None)
        except RuntimeError as e:
            errors.append(e)

    worker = threading.Thread(target=elsewhere, args=(tape,))
    worker.start()
    worker.join()
    assert len(errors) == 1 and "other than the one that entered it" in str(errors[0])
    x = tf.constant(2.0)
    tape.watch(x)
    y = x * x
    tape.__exit__(None, None, None)
    assert tape.gradient(y, x).numpy() == 4.0

    # (on a thread of its own, so that the tape left on its stack goes with it, not into later tests)
    results = []

    def owner():
        box = [tf.GradientTape()]
        box[0].__enter__()
        worker = threading.Thread(target=box.clear)  # the last reference goes on the other thread
        worker.start()
        worker.join()
        gc.collect()
        [bytearray(256) for _ in range(1000)]
        for _ in range(3):
            with tf.GradientTape() as t2:
                t2.watch(x)
                y = x * x + tf.sin(x)  # records on every tape of this thread's stack
            results.append(float(t2.gradient(y, x).numpy()))

    thread = threading.Thread(target=owner)
    thread.start()
    thread.join()
    assert np.allclose(results, [4.0 + np.cos(2.0)] * 3)
