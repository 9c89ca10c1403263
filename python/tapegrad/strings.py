"""tf.strings: elementwise operations on string tensors (simple NumPy kernels: strings are not on the
hot path), with TF's names, arguments and results.

    tf.strings.join(["loss=", tf.strings.as_string(loss, precision=3)])
"""
import re

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._tensor.string_tensor import StringTensor, is_text, string_constant
from tapegrad._tensor.tensor import constant, convert_to_tensor

__all__ = ["as_string", "bytes_split", "format", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "split", "strip", "substr", "to_number", "unicode_split", "upper"]


def _strings(x, op):
    """``x`` as a string tensor; a numeric tensor is refused naming the op, as TF's kernels refuse it."""
    if isinstance(x, StringTensor):
        return x
    if is_text(x):
        return string_constant(x)
    t = convert_to_tensor(x)
    raise errors.InvalidArgumentError(f"cannot compute {op} as input #0(zero-based) was expected to be a string "
                                      f"tensor but is a {t.dtype.name} tensor")


def _map(fn, x, op, out=object):
    """fn over every element of the string tensor ``x``: a string tensor, or a numeric one of dtype ``out``."""
    values = _strings(x, op)._value
    with np.errstate(invalid="ignore"):  # (NumPy 2.5 reports NaN compared inside fn, as for a float loop)
        result = np.asarray(np.frompyfunc(fn, 1, 1)(values)).reshape(values.shape)
    return StringTensor(result.astype(object)) if out is object else constant(result.astype(out))


def join(inputs, separator="", name=None):
    """Elementwise concatenation of the tensors in ``inputs`` (same shapes, or scalars), ``separator``
    between them."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"StringJoin: inputs must be a list of string tensors, got {type(inputs).__name__}")
    values = [_strings(x, "StringJoin")._value for x in inputs]
    shapes = {v.shape for v in values if v.ndim}
    if len(shapes) > 1:
        raise errors.InvalidArgumentError("StringJoin: Input shapes do not match: " +
                                          " vs. ".join(str(list(s)) for s in shapes))
    shape = shapes.pop() if shapes else ()
    sep = separator.encode("utf-8") if isinstance(separator, str) else bytes(separator)
    joined = np.empty(shape, dtype=object)
    for index in np.ndindex(shape):
        joined[index] = sep.join(v[index] if v.ndim else v[()] for v in values)
    return StringTensor(joined)


def length(input, unit="BYTE", name=None):
    """The length of each string in bytes (``unit="BYTE"``) or Unicode characters (``"UTF8_CHAR"``)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise errors.InvalidArgumentError(f"StringLength: unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    count = len if unit == "BYTE" else (lambda s: len(s.decode("utf-8", errors="replace")))
    return _map(count, input, "StringLength", out=np.int32)


def _case_map(input, encoding, op, ascii_fn, text_fn):
    """``ascii_fn`` on the bytes with encoding="" (ASCII letters only); with "utf-8" ``text_fn`` on the decoded
    text (full Unicode case mapping, invalid bytes as U+FFFD), as TF."""
    if encoding == "":
        return _map(ascii_fn, input, op)
    if encoding != "utf-8":
        raise errors.InvalidArgumentError(f"{op}: only utf-8 or '' (no encoding) is supported, got {encoding!r}")
    return _map(lambda s: text_fn(s.decode("utf-8", errors="replace")).encode("utf-8"), input, op)


def upper(input, encoding="", name=None):
    """Letters to upper case: ASCII ones with encoding="" (other bytes unchanged), all with "utf-8"."""
    return _case_map(input, encoding, "StringUpper", bytes.upper, str.upper)


def lower(input, encoding="", name=None):
    """Letters to lower case: ASCII ones with encoding="" (other bytes unchanged), all with "utf-8"."""
    return _case_map(input, encoding, "StringLower", bytes.lower, str.lower)


def strip(input, name=None):
    """Leading and trailing whitespace removed."""
    return _map(bytes.strip, input, "StringStrip")


def _compile(pattern, op):
    """The compiled regular expression; InvalidArgumentError naming ``op`` when it does not parse, as in TF."""
    try:
        return re.compile(pattern)
    except re.error as e:
        raise errors.InvalidArgumentError(f"{op}: invalid pattern {pattern!r}: {e}") from None


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Matches of ``pattern`` replaced by ``rewrite`` (\\1 for groups); only the first when not global."""
    def as_bytes(s):
        return s.encode("utf-8") if isinstance(s, str) else bytes(s)
    compiled = _compile(as_bytes(pattern), "RegexReplace")
    rewrite, count = as_bytes(rewrite), 0 if replace_global else 1
    return _map(lambda s: compiled.sub(rewrite, s, count=count), input, "RegexReplace")


def split(input, sep=None, maxsplit=-1, name=None):
    """Splits a scalar string at ``sep`` (runs of whitespace when None) into a 1-d string tensor.

    A string tensor of rank >= 1 splits into a RaggedTensor in TF, which tapegrad does not have:
    UnimplementedError (split each element: ``[tf.strings.split(s) for s in t]``)."""
    x = _strings(input, "StringSplit")
    if x.ndim:
        raise errors.UnimplementedError(f"tf.strings.split of a rank-{x.ndim} tensor gives a RaggedTensor, which "
                                        "tapegrad does not have; split each scalar element instead")
    if sep == "" or sep == b"":
        raise errors.InvalidArgumentError("StringSplit: sep must not be empty")
    s = x._value[()]
    sep = sep.encode("utf-8") if isinstance(sep, str) else sep
    parts = s.split(sep, maxsplit)
    return StringTensor(np.array(parts, dtype=object).reshape(len(parts)))


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Joins the strings along ``axis`` (all axes when None), ``separator`` between them."""
    values = _strings(inputs, "ReduceJoin")._value
    sep = separator.encode("utf-8") if isinstance(separator, str) else bytes(separator)
    axes = tuple(range(values.ndim)) if axis is None else tuple(a % max(values.ndim, 1) for a in
                                                                 ([axis] if isinstance(axis, int) else axis))
    kept = [a for a in range(values.ndim) if a not in axes]
    moved = np.transpose(values, kept + list(axes)).reshape([values.shape[a] for a in kept] + [-1])
    joined = np.empty(moved.shape[:-1], dtype=object)
    for index in np.ndindex(joined.shape):
        joined[index] = sep.join(moved[index])
    if keepdims:
        joined = joined.reshape([1 if a in axes else values.shape[a] for a in range(values.ndim)])
    return StringTensor(joined)


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 -- TF's names
    """``len`` bytes (or UTF-8 characters) of each string from ``pos`` (negative: from the end);
    InvalidArgumentError when ``pos`` is past a string's end."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise errors.InvalidArgumentError(f"Substr: unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    values = _strings(input, "Substr")._value
    starts, counts = (np.asarray(convert_to_tensor(v).numpy()) for v in (pos, len))
    if starts.shape != counts.shape:
        raise errors.InvalidArgumentError(f"Substr: pos and len must have the same shape, got {starts.shape} "
                                          f"and {counts.shape}")

    def cut(s, start, count):
        start, count = int(start), int(count)
        text = s if unit == "BYTE" else s.decode("utf-8", errors="replace")
        size = text.__len__()
        first = start + size if start < 0 else start
        if not 0 <= first <= size:
            raise errors.InvalidArgumentError(f"Substr: pos {start} out of range for string {s!r} of length {size}")
        piece = text[first:] if count < 0 else text[first:first + count]  # negative len: to the end, as TF
        return piece if unit == "BYTE" else piece.encode("utf-8")
    try:  # pos and len broadcast against the strings, as in TF
        cuts = np.frompyfunc(cut, 3, 1)(values, starts, counts)
    except ValueError as e:
        if isinstance(e, errors.InvalidArgumentError):
            raise
        raise errors.InvalidArgumentError(f"Substr: pos/len of shape {starts.shape} do not broadcast against "
                                          f"input of shape {values.shape}") from None
    return StringTensor(np.asarray(cuts, dtype=object).reshape(np.broadcast_shapes(values.shape, starts.shape)))


def regex_full_match(input, pattern, name=None):
    """Whether each whole string matches ``pattern``."""
    compiled = _compile(pattern.encode("utf-8") if isinstance(pattern, str) else pattern, "RegexFullMatch")
    return _map(lambda s: compiled.fullmatch(s) is not None, input, "RegexFullMatch", out=np.bool_)


def _split_scalar(input, op, parts):
    x = _strings(input, op)
    if x.ndim:
        raise errors.UnimplementedError(f"{op} of a rank-{x.ndim} tensor gives a RaggedTensor, which tapegrad does "
                                        "not have; split each scalar element instead")
    pieces = parts(x._value[()])
    return StringTensor(np.array(pieces, dtype=object).reshape(pieces.__len__()))


def bytes_split(input, name=None):
    """A scalar string's bytes as a 1-d string tensor (b"abc" -> [b"a", b"b", b"c"])."""
    return _split_scalar(input, "BytesSplit", lambda s: [s[i:i + 1] for i in range(s.__len__())])


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """A scalar string's characters (each as UTF-8 bytes) as a 1-d string tensor."""
    def chars(s):
        text = s.decode(input_encoding, errors="replace" if errors != "strict" else "strict")
        return [c.encode("utf-8") for c in text]
    return _split_scalar(input, "UnicodeSplit", chars)


_FLOAT_DIGITS = {"float32": (6, 9), "float64": (15, 17)}


def _float_text(v, name):
    """A float as TF's string formatting writes it: the shorter precision if it reads back exactly."""
    short, full = _FLOAT_DIGITS[name]
    text = "%.*g" % (short, v)
    kind = np.float32 if name == "float32" else np.float64
    return text if kind(float(text)) == v or v != v else "%.*g" % (full, v)


def _element_text(v, dtype):
    if dtype == dtypes.string:
        return '"' + v.decode("utf-8", errors="replace") + '"'
    if dtype == dtypes.bool:
        return "1" if v else "0"
    if dtype.is_floating:
        return _float_text(v, dtype.name)
    return str(int(v))


def _tensor_text(t, summarize):
    """A tensor as tf.strings.format and tf.print write it: nested brackets, elements separated by
    spaces, each axis longer than 2 * summarize shortened to its first and last ``summarize`` entries."""
    a = t._value if isinstance(t, StringTensor) else np.asarray(t)
    return _nested_text(a, 0, -1 if summarize is None else summarize, t.dtype)


def _nested_text(x, depth, summarize, dtype):
    """One level of _tensor_text (a module function: Note [No closures that recurse] in _nest.py)."""
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


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 -- TF's name
    """``template`` with each ``placeholder`` replaced by one of ``inputs`` (a tensor or a list), written
    as TF prints tensors; a scalar string tensor."""
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise ValueError(f"The template expects {len(pieces) - 1} tensors, but the inputs only has {len(inputs)}. "
                         "Please ensure the number of placeholders in template matches inputs length.")
    texts = [_tensor_text(x if isinstance(x, StringTensor) else constant(x), summarize) for x in inputs]
    out = pieces[0] + "".join(text + piece for text, piece in zip(texts, pieces[1:]))
    return StringTensor(np.array(out.encode("utf-8"), dtype=object))


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):
    """Each number as a string: floats as "%f" (``precision`` digits, or "%e" if ``scientific``, "%g" if
    ``shortest``), integers as "%d", booleans as "true"/"false"; padded to ``width`` with ``fill``."""
    if isinstance(input, StringTensor) or is_text(input):
        raise errors.InvalidArgumentError("AsString: the input is already a string tensor")
    t = convert_to_tensor(input)
    if scientific and shortest:
        raise errors.InvalidArgumentError("AsString: cannot select both scientific and shortest notation")
    if fill not in ("", " ", "0") and len(fill) != 1:
        raise errors.InvalidArgumentError(f"AsString: fill must be one character, got {fill!r}")
    if precision >= 0 and not t.dtype.is_floating:
        raise errors.InvalidArgumentError(f"AsString: precision is only for floating types, got {t.dtype.name}")
    if t.dtype.is_floating:
        kind = "e" if scientific else "g" if shortest else "f"
        spec = f".{precision}{kind}" if precision >= 0 else kind
        text = lambda v: builtins_format(float(v), spec)  # noqa: E731
    elif t.dtype == dtypes.bool:
        text = lambda v: "true" if v else "false"  # noqa: E731
    else:
        text = lambda v: str(int(v))  # noqa: E731
    pad = fill or " "
    return _map(lambda v: text(v).rjust(width, pad).encode() if width > 0 else text(v).encode(),
                StringTensor(np.asarray(t.numpy(), dtype=object)), "AsString")


def builtins_format(value, spec):
    """Python's format() (this module's own ``format`` is tf.strings.format); nan and inf as TF writes them."""
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return value.__format__(spec)


def _parse_float(text):
    """float(text), also reading C's hexadecimal floats ("0x10", "-0x1.8p1") as TF does."""
    try:
        return float(text)
    except ValueError:
        if text.lstrip("+-")[:2].lower() != "0x":
            raise
        return float.fromhex(text)


def to_number(input, out_type=dtypes.float32, name=None):
    """Parses each string as a number of ``out_type``; InvalidArgumentError for one that is not."""
    dt = dtypes.as_dtype(out_type)
    if not (dt.is_floating or dt.is_integer):
        raise TypeError(f"StringToNumber: out_type must be a float or int type, got {dt.name}")
    parse = _parse_float if dt.is_floating else int

    def number(s):
        try:
            text = s.decode("utf-8").strip()
            if "_" in text:  # Python's digit separators are not numbers to TF
                raise ValueError(text)
            return parse(text)
        except ValueError:
            raise errors.InvalidArgumentError(f"StringToNumber: {s!r} is not a valid {dt.name}") from None
    if dt.is_integer:
        info = np.iinfo(dt.as_numpy_dtype)

        def number(s, parse_int=number):  # noqa: F811 -- out of the type's range is invalid, as in TF
            v = parse_int(s)
            if not info.min <= v <= info.max:
                raise errors.InvalidArgumentError(f"StringToNumber: {s!r} is out of range for {dt.name}")
            return v
    return _map(number, input, "StringToNumber", out=dt.as_numpy_dtype)
