"""Where a public op's call goes when its own code cannot take it: Note [Op dispatch].

Note [Op dispatch]: two kinds of argument a public op cannot compute with reach it, and this module is
the one place that hands such a call elsewhere (as TF's ``add_dispatch_support``):
  * a Keras symbolic tensor (keras.Input) has a shape and a dtype but no values. A public op called
    on one (``tf.concat([x, y], 1)``, ``tf.expand_dims(x, 1)`` in a functional model) goes to the hook
    keras registers with ``register_symbolic_type``, which makes the call a layer of the model.
    An op written in Python is declared with ``@dispatch`` where it is defined; its wrapper (a C++
    callable) checks the arguments (one level into lists) only once a symbolic type is registered,
    so a program that never builds a functional model pays one comparison. An op bound in C++ (a handle) checks
    nothing on the success path: the binding fails to convert the Keras tensor and only then calls
    ``on_failure`` (Note [When an op call fails] in cpp/bindings/ops.cpp), which hands it to the hook.
  * inside a tf.function, a tensor computed there where a C++-bound op takes an attribute (a shape
    or a count: ``tf.reshape(x, [tf.shape(x)[0], -1])``, Note [Attributes computed in a trace])
    makes the binding raise TypeError. ``on_failure`` then runs the ``traced_fallback`` the op was
    declared with (``public_op(..., traced_fallback=...)`` in _wrap.py), which builds the op from
    ops that read the value at every call, or returns NotImplemented and the TypeError stands.

Note [Attributes computed in a trace]: an attribute fixes a result's structure when the op runs; a
value computed inside a trace has no value then. TF accepts such tensors for shapes and counts (its
kernels read them at run time), so the ops that take one here have a fallback composed of ops whose
inputs are those tensors (DynamicReshape, DynamicBroadcastTo, gathers): one trace serves every value.
"""
import functools

from tapegrad import _core

__all__ = ["dispatch", "register_symbolic_type", "on_failure"]

_SYMBOLIC = [None, None]  # the registered type, the hook


def register_symbolic_type(cls, hook):
    """hook(op, args, kwargs) runs in place of a public op called with an instance of ``cls`` among its
    arguments (or in a list argument)."""
    if not isinstance(cls, type):
        raise TypeError(f"register_symbolic_type: expected a class, got {type(cls).__name__}")
    if not callable(hook):
        raise TypeError(f"register_symbolic_type: hook must be callable, got {type(hook).__name__}")
    _SYMBOLIC[:] = [cls, hook]
    _core._set_symbolic_type(cls, hook)  # what the ops declared with @dispatch check (cpp/bindings/dispatch.cpp)


def _holds_instance(values, cls, depth=0):
    return any(isinstance(v, cls) or depth < 1 and isinstance(v, (list, tuple)) and _holds_instance(v, cls, depth + 1)
               for v in values)


def dispatch(fn_or_signature):
    """Declares a public op written in Python: ``@dispatch`` or ``@dispatch("x, axis:int=-1, ...")``.

    A call with a Keras symbolic tensor among its arguments goes to the registered hook (Note [Op
    dispatch]). The op is a ``_core.PythonOp``. With TF's argument list (Note [Op signatures] in
    cpp/bindings/signature.h) it binds and converts the arguments in C++ as a registry op's handle does
    (errors name the op and the argument) and calls the function with the converted values in the
    list's order; without one, it calls the function with the arguments as they came."""
    if isinstance(fn_or_signature, str):
        return lambda fn: functools.update_wrapper(_core.PythonOp(fn, fn_or_signature), fn)
    return functools.update_wrapper(_core.PythonOp(fn_or_signature), fn_or_signature)


def on_failure(error, op, args, kwargs):
    """The result of ``op(*args, **kwargs)``, a C++-bound op whose call raised ``error``, or
    NotImplemented (the error stands). Set as the binding's failure hook by the install step."""
    if isinstance(error, TypeError) and _core._tracing():
        fallback = getattr(op, "traced_fallback", None)
        if fallback is not None:
            result = fallback(*args, **kwargs)
            if result is not NotImplemented:
                return result
    cls = _SYMBOLIC[0]
    if cls is not None and (_holds_instance(args, cls) or _holds_instance(kwargs.values(), cls)):
        return _SYMBOLIC[1](op, args, kwargs)
    return NotImplemented
