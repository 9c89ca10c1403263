"""tf.name_scope: the stack of name scopes that prefixes the names of Variables created inside it.

As in TF's eager mode, scopes are not made unique: two ``name_scope("a")`` blocks both give "a/".
A name ending in "/" is taken as a whole scope ("outer/inner/"), and "" returns to the root.
"""
__all__ = ["name_scope", "current_scope"]

_STACK = [""]  # the current scope is the last entry: "" at the root, else ending in "/"


def current_scope():
    """The current scope string ("" or "outer/inner/")."""
    return _STACK[-1]


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
        _STACK.append(scope)
        return scope

    def __exit__(self, *exc):
        _STACK.pop()
        return False
