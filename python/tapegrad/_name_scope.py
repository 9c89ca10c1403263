"""tf.name_scope: the stack of name scopes that prefixes the names of Variables created inside it.

As in TF's eager mode, scopes are not made unique: two ``name_scope("a")`` blocks both give "a/".
A name ending in "/" is taken as a whole scope ("outer/inner/"), and "" returns to the root.
"""
import threading

__all__ = ["name_scope", "current_scope"]

_LOCAL = threading.local()  # each thread has its own stack of scopes, as in TF


def _stack():
    """This thread's scopes; the current one is the last: "" at the root, else ending in "/"."""
    stack = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = [""]
    return stack


def current_scope():
    """The current scope string ("" or "outer/inner/")."""
    return _stack()[-1]


class name_scope:  # noqa: N801 -- TF's name
    """A context manager that opens a name scope; ``with tf.name_scope("block") as scope:`` gives "block/".

    Variables created inside take the scope as a prefix: ``tf.Variable(1.0, name="v").name == "block/v:0"``.
    """

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string, got {name!r}")
        self._name = name

    @property
    def name(self):
        return self._name

    def __enter__(self):
        name = self._name
        scope = name if (name == "" or name.endswith("/")) else current_scope() + name + "/"
        _stack().append(scope)
        return scope

    def __exit__(self, *exc):
        _stack().pop()
        return False
