"""Builders for wrapper functions: TF signature in, one registry call out."""
from tapegrad import _core


def unary(op_name, py_name, doc=None):
    handle = _core.op(op_name)

    def fn(x, name=None):
        return handle(x)

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc or f"Elementwise ``{py_name}`` (registry op ``{op_name}``)."
    return fn


def binary(op_name, py_name, doc=None):
    handle = _core.op(op_name)

    def fn(x, y, name=None):
        return handle(x, y)

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc or f"Elementwise ``{py_name}`` with broadcasting (registry op ``{op_name}``)."
    return fn


def export(namespace, table, builder):
    """Defines one wrapper per (python name -> op name) row of ``table`` in ``namespace``."""
    for py_name, op_name in table.items():
        namespace[py_name] = builder(op_name, py_name)
    return list(table)
