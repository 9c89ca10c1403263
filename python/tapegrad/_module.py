"""tf.Module: a named container whose variables and sub-modules are found by walking its attributes.

Note [Module traversal]: as TF's ``tf.Module``, ``variables``, ``trainable_variables`` and ``submodules``
walk ``vars(module)`` in sorted attribute order, looking inside lists, tuples and dicts (dict keys sorted),
each object once; the module's own attributes come first, then each sub-module's, depth first. Keras
layers are Modules but keep Keras's weight order (see keras/layers/base.py).
"""
import functools
import re

from tapegrad._name_scope import name_scope
from tapegrad._tensor.tensor import Variable

__all__ = ["Module"]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def camel_to_snake(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _leaves(value, seen_containers):
    """The leaves of nested lists, tuples and dicts (dict values in sorted key order)."""
    if isinstance(value, (list, tuple)):
        if id(value) in seen_containers:
            return
        seen_containers.add(id(value))
        for item in value:
            yield from _leaves(item, seen_containers)
    elif isinstance(value, dict):
        if id(value) in seen_containers:
            return
        seen_containers.add(id(value))
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        for key in keys:
            yield from _leaves(value[key], seen_containers)
    else:
        yield value


def _flatten(module, predicate, seen):
    """Objects matching predicate reachable from module; see Note [Module traversal]."""
    submodules = []
    for key in sorted(vars(module)):
        if key in module._MODULE_IGNORED:
            continue
        for leaf in _leaves(vars(module)[key], set()):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                yield leaf
            if isinstance(leaf, Module):
                submodules.append(leaf)
    for sub in submodules:
        yield from _flatten(sub, predicate, seen)


class Module:
    """A named container of Variables and other Modules (TF's ``tf.Module``).

    Args:
      name: the module's name, a Python identifier (default: the class name in snake_case).

    >>> class Scale(tf.Module):
    ...     def __init__(self, name=None):
    ...         super().__init__(name=name)
    ...         with self.name_scope:
    ...             self.w = tf.Variable(2.0, name="w")
    ...     def __call__(self, x):
    ...         return x * self.w
    >>> Scale().w.name
    'scale/w:0'
    """

    _MODULE_IGNORED = frozenset(("_deferred_restorations",))

    def __init__(self, name=None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python "
                             "identifiers (e.g. a valid class name).")
        self._init_module_name(name)

    def _init_module_name(self, name):
        object.__setattr__(self, "_name", name)
        with name_scope(name) as scope:
            object.__setattr__(self, "_scope_name", scope)

    @property
    def name(self):
        """The module's name (as given, without the enclosing scopes)."""
        return self._name

    @property
    def name_scope(self):
        """A name_scope for this module: the scope open when it was created, then its name."""
        return name_scope(self._scope_name)

    @property
    def variables(self):
        """Every Variable of this module and its sub-modules (a tuple, each once)."""
        return tuple(_flatten(self, lambda x: isinstance(x, Variable), {id(self)}))

    @property
    def trainable_variables(self):
        """The variables with ``trainable=True``."""
        return tuple(_flatten(self, lambda x: isinstance(x, Variable) and x.trainable, {id(self)}))

    @property
    def non_trainable_variables(self):
        return tuple(_flatten(self, lambda x: isinstance(x, Variable) and not x.trainable, {id(self)}))

    @property
    def submodules(self):
        """Every Module reachable from this one (not itself), each once."""
        return tuple(_flatten(self, lambda x: isinstance(x, Module), {id(self)}))

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if "_deferred_restorations" in self.__dict__:
            self._restore_child(name, value)

    def _restore_child(self, name, value):
        """Gives value (just made a child under name) the checkpoint values waiting for it, if any;
        see Note [Deferred restoration] in train/_restore.py."""
        if "_deferred_restorations" in self.__dict__:
            from tapegrad.train._restore import deliver
            deliver(self, name, value)

    def _checkpoint_children(self):
        """(name, value) pairs a checkpoint walks: every attribute, sorted (Note [Checkpoint keys] in
        train/_graph.py)."""
        return [(k, v) for k, v in sorted(vars(self).items()) if k not in self._MODULE_IGNORED]

    @classmethod
    def with_name_scope(cls, method):
        """Decorates a method so that it runs inside its module's name_scope."""
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapper

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object name={self._name}>"
