"""How keras records ops applied to its symbolic tensors (keras.Input): Note [Symbolic dispatch].

Note [Symbolic dispatch]: a functional model's Keras tensors have a shape and dtype but no values. A
public op called on one is handed to the hook keras registers (which makes the call a layer of the
model) instead of running:
  * an op bound in C++ fails to convert the Keras tensor; only then (the success path pays nothing)
    ``dispatch_failed_call`` checks the arguments for the registered type and calls the hook
    (Note [When an op call fails] in cpp/bindings/ops.cpp);
  * a public op written in Python (tf.expand_dims, tf.cast, tf.stack, ...) would convert the argument
    itself first, so ``install`` wraps those functions in the public namespaces with a check of the
    arguments (one level into lists) before they run. The wrapping waits for the first symbolic
    tensor (``activate``): a program that never builds a functional model keeps the plain functions
    (the check costs ~0.7 us a call).
"""
import functools
import types

from tapegrad import _core

__all__ = ["register_symbolic_type", "registry_op", "install", "activate"]

_STATE = [None, None]  # the registered type, the hook


def register_symbolic_type(cls, hook):
    """hook(op, args, kwargs) runs in place of a public op called with an instance of ``cls`` among its
    arguments (or in a list argument)."""
    if not isinstance(cls, type):
        raise TypeError(f"register_symbolic_type: expected a class, got {type(cls).__name__}")
    if not callable(hook):
        raise TypeError(f"register_symbolic_type: hook must be callable, got {type(hook).__name__}")
    _STATE[:] = [cls, hook]


def _holds_instance(values, cls, depth=0):
    return any(isinstance(v, cls) or depth < 1 and isinstance(v, (list, tuple)) and _holds_instance(v, cls, depth + 1)
               for v in values)


def dispatch_failed_call(op, args, kwargs):
    """The hook's result for a call of a C++-bound op that failed on an argument of the registered type
    (or one in a list, or a list of lists), else NotImplemented."""
    cls = _STATE[0]
    if cls is not None and (_holds_instance(args, cls) or _holds_instance(kwargs.values(), cls)):
        return _STATE[1](op, args, kwargs)
    return NotImplemented


def registry_op(name):
    """The internal handle of registry op ``name`` (inputs positional, attributes by keyword)."""
    return _core.op(str(name))


def _holds(values, cls):
    for v in values:  # type identity, not isinstance: this runs at every call of the op
        t = type(v)
        if t is cls:
            return True
        if t is list or t is tuple:
            for item in v:
                if type(item) is cls:
                    return True
    return False


def _dispatching(fn):
    @functools.wraps(fn)
    def op(*args, **kwargs):
        cls = _STATE[0]
        if cls is not None and (_holds(args, cls) or kwargs and _holds(kwargs.values(), cls)):
            return _STATE[1](op, args, kwargs)
        return fn(*args, **kwargs)
    # errors name the public function from the outermost frame in the package: this one, so it takes fn's name
    op.__code__ = op.__code__.replace(co_name=fn.__name__)
    return op


_PENDING = []  # install's requests until activate


def install(namespaces, modules, names=()):
    """Wraps, once ``activate`` runs, every public Python function of ``namespaces`` defined in one of
    ``modules`` (module name prefixes), or named in ``names``, with the same wrapper wherever a
    function is exported."""
    _PENDING.append((namespaces, modules, names))


def activate():
    """Installs the wrappers asked for (called as the first symbolic tensor is made)."""
    while _PENDING:
        _wrap_namespaces(*_PENDING.pop(0))


def _wrap_namespaces(namespaces, modules, names):
    wrapped = {}
    for space in namespaces:
        for name in [n for n in vars(space) if not n.startswith("_")]:
            fn = getattr(space, name, None)
            if isinstance(fn, types.FunctionType) and (fn.__module__.startswith(modules) or name in names):
                if id(fn) not in wrapped:
                    wrapped[id(fn)] = _dispatching(fn)
                setattr(space, name, wrapped[id(fn)])
