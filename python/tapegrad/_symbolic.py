"""The hook through which keras records ops applied to its symbolic tensors (Note [Symbolic dispatch]
in cpp/bindings/ops.cpp): an op that fails to bind an argument of the registered type calls the hook."""
from tapegrad import _core

__all__ = ["register_symbolic_type", "registry_op"]


def register_symbolic_type(cls, hook):
    """hook(op, args, kwargs) runs in place of an op called with an instance of ``cls`` among its
    arguments (or in a list argument)."""
    if not isinstance(cls, type):
        raise TypeError(f"register_symbolic_type: expected a class, got {type(cls).__name__}")
    _core._set_symbolic_dispatch(cls, hook)


def registry_op(name):
    """The internal handle of registry op ``name`` (inputs positional, attributes by keyword)."""
    return _core.op(str(name))
