"""Numbers and tensors as text, as TF writes them: tf.strings.as_string (C's printf formats) and
tf.strings.format / tf.print (TF's tensor summaries)."""
import numpy as np

from tapegrad import dtypes, errors
from tapegrad._tensor.string_tensor import StringTensor

_FLOAT_DIGITS = {"float32": (6, 9), "float64": (15, 17)}


def _float_text(v, name):
    """A float as TF's string formatting writes it: the shorter precision if it reads back exactly."""
    short, full = _FLOAT_DIGITS.get(name, _FLOAT_DIGITS["float32"])
    text = "%.*g" % (short, v)
    kind = np.float64 if name == "float64" else np.float32
    return text if kind(float(text)) == v or v != v else "%.*g" % (full, v)


def _element_text(v, dtype):
    if dtype == dtypes.string:
        return '"' + v.decode("utf-8", errors="replace") + '"'
    if dtype == dtypes.bool:
        return "1" if v else "0"
    if dtype.is_floating:
        return _float_text(v, dtype.name)
    return str(int(v))


def tensor_text(t, summarize):
    """A tensor as tf.strings.format and tf.print write it: nested brackets, elements separated by
    spaces, each axis longer than 2 * summarize shortened to its first and last ``summarize`` entries."""
    a = t._value if isinstance(t, StringTensor) else np.asarray(t)
    return _nested_text(a, 0, -1 if summarize is None else summarize, t.dtype)


def _nested_text(x, depth, summarize, dtype):
    """One level of tensor_text (a module function: Note [No closures that recurse] in _nest.py)."""
    if not isinstance(x, np.ndarray) or x.ndim == 0:  # an element (object arrays index to bytes)
        return _element_text(x[()] if isinstance(x, np.ndarray) else x, dtype)
    n = len(x)
    cut = summarize >= 0 and n > 2 * summarize
    items = [_nested_text(x[i], depth + 1, summarize, dtype)
             for i in (list(range(summarize)) + list(range(n - summarize, n)) if cut else range(n))]
    if cut:
        items.insert(summarize, "...")
    glue = " " if x.ndim == 1 else "\n" + " " * (depth + 1)
    return "[" + glue.join(items) + "]"


def _printf_float(value, spec, width, zero_fill):
    """value.__format__(spec) padded as C's printf pads it: zeros after the sign with the 0 flag, except
    for nan and inf, which are padded with spaces."""
    if value != value or value in (float("inf"), float("-inf")):
        text = "nan" if value != value else ("inf" if value > 0 else "-inf")
        return text.rjust(width)
    return value.__format__(("0" if zero_fill else "") + (str(width) if width > 0 else "") + spec)


def number_formatter(dtype, precision, scientific, shortest, width, fill):
    """element -> str for tf.strings.as_string of a ``dtype`` tensor, after TF's argument checks; numbers
    padded to ``width``, booleans never (as TF)."""
    if scientific and shortest:
        raise errors.InvalidArgumentError("AsString: Cannot select both scientific and shortest notation")
    if fill not in ("", " ", "0"):
        raise errors.InvalidArgumentError(f'AsString: Fill argument not supported: "{fill}"')
    if precision >= 0 and not dtype.is_floating:
        raise errors.InvalidArgumentError(f"AsString: precision not supported for datatype {dtype.name}")
    zero = fill == "0"
    if dtype.is_floating:
        kind = "e" if scientific else "g" if shortest else "f"
        spec = f".{precision}{kind}" if precision >= 0 else kind
        return lambda v: _printf_float(float(v), spec, width, zero)
    if dtype == dtypes.bool:  # TF writes booleans unpadded
        return lambda v: "true" if v else "false"
    return lambda v: format(int(v), ("0" if zero else "") + (str(width) if width > 0 else "") + "d")
