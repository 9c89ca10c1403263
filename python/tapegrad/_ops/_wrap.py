"""Builders for public ops: a registry op plus TF's argument list, bound in C++ (Note [Op signatures])."""
import inspect

from tapegrad import _core, dtypes


def _signature(handle):
    """inspect.signature() of a public op: TF's argument names and defaults, and name=None."""
    args = handle._signature_args
    if args is None:
        return None
    P = inspect.Parameter
    params = [P(name, P.POSITIONAL_OR_KEYWORD if positional else P.KEYWORD_ONLY, default=P.empty if required else default)
              for name, positional, required, default in args]
    keyword_only = not all(positional for _, positional, _, _ in args)
    params.append(P("name", P.KEYWORD_ONLY if keyword_only else P.POSITIONAL_OR_KEYWORD, default=None))
    return inspect.Signature(params)


_core.OpHandle.__signature__ = property(_signature)


# A public op that maps onto one registry op is the op handle itself, bound to TF's signature: the
# C++ doorway binds positional and keyword arguments (and `name=`), converts and validates them and
# runs the op. A Python function around the handle would double the cost of a small op.
# ``traced_fallback`` builds the op another way for an attribute given as a tensor computed inside a
# tf.function (Note [Op dispatch] in _dispatch.py).
def public_op(op_name, py_name, signature, doc=None, traced_fallback=None):
    handle = _core.op(op_name, py_name, signature)
    handle.__name__ = handle.__qualname__ = py_name
    handle.__doc__ = doc or f"{py_name}({signature}, name=None): registry op ``{op_name}``."
    if traced_fallback is not None:
        handle.traced_fallback = traced_fallback
    return handle


def unary(op_name, py_name, doc=None, arg="x"):
    return public_op(op_name, py_name, arg, doc or f"{py_name}({arg}, name=None): elementwise, registry op ``{op_name}``.")


def binary(op_name, py_name, doc=None):
    return public_op(op_name, py_name, "x, y",
                     doc or f"{py_name}(x, y, name=None): elementwise with broadcasting, registry op ``{op_name}``.")


def export(namespace, table, builder):
    """Defines one public op per (python name -> op name) row of ``table`` in ``namespace``."""
    for py_name, op_name in table.items():
        namespace[py_name] = builder(op_name, py_name)
    return list(table)


def convert_arg(value, kind, fn, arg, dtype_hint=None):
    """One argument of a Python-composed op converted by the doorway's rules: kind is tensor, tensors,
    int, ints, axes, float, bool, str or dtype (a DType is returned); a tensor kind takes ``dtype_hint``
    for Python values. Errors name ``fn`` and ``arg``."""
    if kind == "dtype":
        return value if type(value) is dtypes.DType else dtypes.from_code(_core._convert_arg(value, kind, fn, arg))
    return _core._convert_arg(value, kind, fn, arg, -1 if dtype_hint is None else dtypes.as_dtype(dtype_hint).code)
