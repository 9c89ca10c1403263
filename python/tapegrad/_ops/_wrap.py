"""Builders for wrapper functions: TF signature in, one registry call out."""
from tapegrad import _core


# The wrappers of elementwise ops are the op handles themselves: a Python function around the
# handle would double the cost of a small op. A handle takes the op's inputs positionally and
# ignores TF's `name=` keyword.
def unary(op_name, py_name, doc=None):
    handle = _core.op(op_name)
    handle.__name__ = handle.__qualname__ = py_name
    handle.__doc__ = doc or f"{py_name}(x, name=None): elementwise, registry op ``{op_name}``."
    return handle


def binary(op_name, py_name, doc=None):
    handle = _core.op(op_name)
    handle.__name__ = handle.__qualname__ = py_name
    handle.__doc__ = doc or f"{py_name}(x, y, name=None): elementwise with broadcasting, registry op ``{op_name}``."
    return handle


def export(namespace, table, builder):
    """Defines one wrapper per (python name -> op name) row of ``table`` in ``namespace``."""
    for py_name, op_name in table.items():
        namespace[py_name] = builder(op_name, py_name)
    return list(table)
