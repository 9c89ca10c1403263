"""How a table of keras.ops functions becomes a namespace: each function gets its Keras name and, called
with a Keras symbolic tensor (keras.Input) among its arguments, records itself as one layer of the
functional model (it runs on the real tensors when the model runs), as a Keras 3 op does."""
import functools

import tapegrad as tf
import tapegrad.keras.layers  # noqa: F401 -- _functional needs the layers first
from tapegrad.keras._functional import TFOpLambda, is_symbolic


def _holds_symbolic(values):
    return any(is_symbolic(v) or isinstance(v, (list, tuple)) and any(is_symbolic(i) for i in v) for v in values)


# ops a symbolic tensor answers itself (Keras gives a Python value, not a Keras tensor)
_STATIC_ANSWERS = {"shape": lambda x: tuple(x.shape), "ndim": lambda x: len(x.shape),
                   "dtype": lambda x: tf.as_dtype(x.dtype).name, "is_tensor": lambda x: False}


def keras_op(name, fn):
    """fn as the keras.ops function ``name``."""
    static = _STATIC_ANSWERS.get(name)

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if _holds_symbolic(args) or _holds_symbolic(kwargs.values()):
            if static is not None:
                return static(*args, **kwargs)
            return TFOpLambda(op)(*args, **kwargs)
        return fn(*args, **kwargs)
    op.__name__ = op.__qualname__ = name
    op.__module__ = "tapegrad.keras.ops"
    op.__doc__ = fn.__doc__ or f"keras.ops.{name}, with Keras 3's arguments and dtype rules, over tapegrad's ops."
    op.__code__ = op.__code__.replace(co_name=name)  # errors raised below name the Keras op
    return op


def unimplemented(name, why):
    """A keras.ops name tapegrad has no op for: calling it raises UnimplementedError naming it."""
    def op(*args, **kwargs):
        raise tf.errors.UnimplementedError(None, None, f"keras.ops.{name} is not implemented in tapegrad: {why}")
    op.__name__ = op.__qualname__ = name
    op.__module__ = "tapegrad.keras.ops"
    return op


def fill(namespace, table, names):
    """Binds ``names`` of ``table`` in the module dict ``namespace``; returns them sorted (its __all__)."""
    for name in names:
        namespace[name] = table[name]
    return sorted(names)
