"""What a public op bound in C++ does when its call fails (Note [When an op call fails] in
cpp/bindings/ops.cpp): two kinds of argument the binding cannot take get a result another way.

Note [Attributes computed in a trace]: a public op given a tensor computed inside a tf.function where
it takes an attribute (tf.reshape(x, [tf.shape(x)[0], -1]) in a trace serving every batch size)
raises TypeError. Then the handle's ``traced_fallback`` (tapegrad/_ops/array/computed_attrs.py) builds the
op from ops that read the value at every call, or returns NotImplemented and the TypeError stands.

Keras's symbolic tensors (keras.Input) are not tensors: an op given one goes to the hook keras
registered (Note [Symbolic dispatch] in _symbolic.py).
"""
from tapegrad import _core
from tapegrad._ops import _symbolic


def on_failure(error, op, args, kwargs):
    """The result of ``op(*args, **kwargs)`` after it raised ``error``, or NotImplemented (the error stands)."""
    if isinstance(error, TypeError) and _core._tracing():
        fallback = getattr(op, "traced_fallback", None)
        if fallback is not None:
            result = fallback(*args, **kwargs)
            if result is not NotImplemented:
                return result
    return _symbolic.dispatch_failed_call(op, args, kwargs)


def install():
    """Sets the binding's failure hook (run by the package's install step)."""
    _core._set_failure_hook(on_failure)
