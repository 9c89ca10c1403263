"""tf.strings: elementwise operations on string tensors (simple NumPy kernels: strings are not on the
hot path), with TF's names, arguments and results.

    tf.strings.join(["loss=", tf.strings.as_string(loss, precision=3)])

The kernels live beside the string tensor: _tensor/string_hashes.py (FarmHash, SipHash, MurmurHash),
string_unicode.py, string_regex.py (RE2 on Python's re), string_joins.py and string_text.py. Ops whose
TF result is a RaggedTensor (split of a batch, unicode_decode, ...) give tapegrad's RaggedTensor.
"""
import numpy as _np

from tapegrad import dtypes as _dtypes, errors as _errors
from tapegrad._tensor import string_hashes as _hashes, string_joins as _joins, string_regex as _regex
from tapegrad._tensor import string_unicode as _unicode
from tapegrad._tensor.string_tensor import (StringTensor as _StringTensor, empty_nest as _empty_nest,
                                            is_text as _is_text, string_constant as _string_constant)
from tapegrad._tensor.string_text import number_formatter as _number_formatter, tensor_text as _tensor_text
from tapegrad._ops.composite.ragged_tensor import RaggedTensor as _RaggedTensor
from tapegrad._tensor.tensor import Tensor as _Tensor, constant as _constant, convert_to_tensor as _convert

__all__ = ["as_string", "bytes_split", "format", "join", "length", "lower", "ngrams", "reduce_join",
           "regex_full_match", "regex_replace", "split", "strip", "substr", "to_hash_bucket", "to_hash_bucket_fast",
           "to_hash_bucket_strong", "to_number", "unicode_decode", "unicode_encode", "unicode_split",
           "unicode_transcode", "unsorted_segment_join", "upper"]


# The error TF raises for non-string input, by op: (for Python or NumPy data, for a numeric tensor).
# Most wrappers convert Python data to a string tensor (TypeError) and leave a tensor to the kernel's
# dtype check (InvalidArgumentError); these convert first, or check in Python. StringJoin refuses as TF's
# Add does, since string tensors' + is join here (TF's join raises TypeError, or ValueError for a tensor).
_BOTH_INVALID = (_errors.InvalidArgumentError, _errors.InvalidArgumentError)
_NON_STRING = {"StringJoin": _BOTH_INVALID, "ReduceJoin": _BOTH_INVALID, "UnicodeSplit": _BOTH_INVALID,
               "UnicodeDecode": _BOTH_INVALID, "BytesSplit": (ValueError, ValueError),
               "StringSplit": (TypeError, ValueError), "UnsortedSegmentJoin": (TypeError, ValueError),
               "StringNGrams": (TypeError, ValueError)}


def _strings(x, op):
    """``x`` as a string tensor; other values are refused naming the op, with TF's class (_NON_STRING)."""
    if isinstance(x, _StringTensor):
        return x
    if _is_text(x) or _empty_nest(x):
        return _string_constant(x)
    error = _NON_STRING.get(op, (TypeError, _errors.InvalidArgumentError))[isinstance(x, _Tensor)]
    what = f"a {x.dtype.name} tensor" if isinstance(x, _Tensor) else repr(x)
    if error is _errors.InvalidArgumentError:
        raise error(f"cannot compute {op} as input #0(zero-based) was expected to be a string tensor but is {what}")
    raise error(f"{op}: Cannot convert {what} to EagerTensor of dtype string")


def _map(fn, x, op, out=object):
    """fn over every element of the string tensor ``x``: a string tensor, or a numeric one of dtype ``out``."""
    values = _strings(x, op)._value
    with _np.errstate(invalid="ignore", over="ignore"):  # NaN compared inside fn, float32 overflow to inf
        result = _np.asarray(_np.frompyfunc(fn, 1, 1)(values)).reshape(values.shape).astype(out)
    return _StringTensor(result) if out is object else _constant(result)


def _bytes(s):
    return s.encode("utf-8") if isinstance(s, str) else bytes(s)


def join(inputs, separator="", name=None):
    """Elementwise concatenation of the tensors in ``inputs`` (same shapes, or scalars), ``separator``
    between them."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"StringJoin: inputs must be a list of string tensors, got {type(inputs).__name__}")
    values = [_join_input(x, i, inputs)._value for i, x in enumerate(inputs)]
    shapes = {v.shape for v in values if v.ndim}
    if len(shapes) > 1:
        raise _errors.InvalidArgumentError("StringJoin: Input shapes do not match: " +
                                           " vs. ".join(str(list(s)) for s in shapes))
    shape = shapes.pop() if shapes else ()
    sep, joined = _bytes(separator), _np.empty(shape, dtype=object)
    for index in _np.ndindex(shape):
        joined[index] = sep.join(v[index] if v.ndim else v[()] for v in values)
    return _StringTensor(joined)


def _join_input(x, i, inputs):
    if isinstance(x, _StringTensor) or _is_text(x) or _empty_nest(x):
        return _strings(x, "StringJoin")
    _joins.refuse_join_input(x, i, inputs)


def _check_unit(op, unit):
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise _errors.InvalidArgumentError(f"{op}: unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")


def length(input, unit="BYTE", name=None):
    """The length of each string in bytes (``unit="BYTE"``) or UTF-8 characters (``"UTF8_CHAR"``: as TF,
    the bytes that do not continue a sequence, so each invalid byte counts as one)."""
    _check_unit("StringLength", unit)
    return _map(len if unit == "BYTE" else _unicode.utf8_char_count, input, "StringLength", out=_np.int32)


def _case_map(input, encoding, op, ascii_fn, text_fn):
    """``ascii_fn`` on the bytes with encoding="" (ASCII letters only); with "utf-8" ``text_fn`` on the decoded
    text (full Unicode case mapping, invalid bytes as U+FFFD). TF's ICU call reads each string only up to its
    first NUL byte, so the result ends there too."""
    if encoding == "":
        return _map(ascii_fn, input, op)
    if encoding != "utf-8":
        raise _errors.InvalidArgumentError(f"{op}: only utf-8 or '' (no encoding) is supported, got {encoding!r}")
    return _map(lambda s: text_fn(s.split(b"\0", 1)[0].decode("utf-8", errors="replace")).encode("utf-8"),
                input, op)


def upper(input, encoding="", name=None):
    """Letters to upper case: ASCII ones with encoding="" (other bytes unchanged), all with "utf-8"."""
    return _case_map(input, encoding, "StringUpper", bytes.upper, str.upper)


def lower(input, encoding="", name=None):
    """Letters to lower case: ASCII ones with encoding="" (other bytes unchanged), all with "utf-8"."""
    return _case_map(input, encoding, "StringLower", bytes.lower, str.lower)


def strip(input, name=None):
    """Leading and trailing ASCII whitespace removed."""
    return _map(bytes.strip, input, "StringStrip")


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Matches of the RE2 ``pattern`` replaced by ``rewrite`` (\\0 the match, \\1 a group, \\\\ a
    backslash); only the first match when not ``replace_global``."""
    compiled = _regex.compile_pattern(pattern, "RegexReplace")
    replace = _regex.rewriter(rewrite, compiled.groups)
    if replace is None:  # RE2 leaves the strings alone when rewrite names a group the pattern lacks
        return _map(lambda s: s, input, "RegexReplace")
    count = 0 if replace_global else 1
    return _map(lambda s: _regex.as_bytes(_regex.substitute(compiled, replace, _regex.as_text(s), count)), input,
                "RegexReplace")


def regex_full_match(input, pattern, name=None):
    """Whether each whole string matches the RE2 ``pattern``."""
    compiled = _regex.compile_pattern(pattern, "RegexFullMatch")
    return _map(lambda s: compiled.fullmatch(_regex.as_text(s)) is not None, input, "RegexFullMatch",
                out=_np.bool_)


def _scalar_to_1d(input, op, parts, as_tensor=None):
    """``parts(bytes)`` of each string: of a scalar a 1-d tensor, of a batch a RaggedTensor with one ragged
    row per string (the batch's dimensions uniform before it), as TF gives them. as_tensor makes a row's
    tensor from its parts (a string tensor when None)."""
    x = _strings(input, op)
    as_tensor = as_tensor or (lambda pieces: _StringTensor(_np.array(pieces, dtype=object).reshape(len(pieces))))
    if not x.ndim:
        return as_tensor(list(parts(x._value[()])))
    rows = [list(parts(v)) for v in _np.asarray(x._value, dtype=object).reshape(-1)]
    result = _RaggedTensor.from_row_lengths(as_tensor([p for r in rows for p in r]), [len(r) for r in rows])
    for size in reversed(x.shape[1:]):  # the batch's own dimensions, each of uniform length
        result = _RaggedTensor.from_row_lengths(result, [size] * (result._nrows() // size if size else 0))
        result._uniform = size
    return result


def split(input, sep=None, maxsplit=-1, name=None):
    """Splits each string at ``sep`` (runs of whitespace when None): a scalar's pieces as a 1-d string
    tensor, a batch's as a RaggedTensor."""
    if sep == "" or sep == b"":
        raise _errors.InvalidArgumentError("StringSplit: sep must not be empty")
    sep = None if sep is None else _bytes(sep)
    return _scalar_to_1d(input, "StringSplit", lambda s: s.split(sep, maxsplit))


def bytes_split(input, name=None):
    """A scalar string's bytes as a 1-d string tensor (b"abc" -> [b"a", b"b", b"c"])."""
    return _scalar_to_1d(input, "BytesSplit", lambda s: [s[i:i + 1] for i in range(s.__len__())])


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """A scalar string's characters, each encoded in ``input_encoding``, as a 1-d string tensor."""
    codec = _unicode.codec("UnicodeDecode", input_encoding)
    _unicode.check_options("UnicodeDecode", errors, replacement_char)
    return _scalar_to_1d(input, "UnicodeSplit", lambda s: [c.encode(codec) for c in _unicode.decode(
        s, "UnicodeDecode", codec, errors, replacement_char)])


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,
                   replace_control_characters=False, name=None):
    """A scalar string's code points as a 1-d int32 tensor; a batch's as a RaggedTensor."""
    codec = _unicode.codec("UnicodeDecode", input_encoding)
    _unicode.check_options("UnicodeDecode", errors, replacement_char)
    return _scalar_to_1d(input, "UnicodeDecode", lambda s: [ord(c) for c in _unicode.decode(
        s, "UnicodeDecode", codec, errors, replacement_char, replace_control_characters)],
        lambda points: _constant(_np.array(points, dtype=_np.int32).reshape(len(points)), dtype=_dtypes.int32))


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):
    """Each row (the last axis) of an int32 tensor of code points as one string in ``output_encoding``;
    surrogates and values outside 0..0x10FFFF replaced, dropped or refused as ``errors`` says."""
    op = "UnicodeEncode"
    target = _unicode.output_codec(op, output_encoding)
    _unicode.check_options(op, errors, replacement_char)
    points = _convert(input)
    if points.dtype != _dtypes.int32:
        raise _errors.InvalidArgumentError(f"cannot compute {op} as input #0(zero-based) was expected to be a int32 "
                                           f"tensor but is a {points.dtype.name} tensor")
    values = _np.asarray(points.numpy())
    if values.ndim == 0:
        raise ValueError("input_tensor's rank must be at least 1.")
    rows = values.reshape(int(_np.prod(values.shape[:-1])), values.shape[-1])
    out = [_unicode.encode_points(r, op, target, errors, replacement_char) for r in rows]
    return _StringTensor(_np.array(out + [None], dtype=object)[:-1].reshape(values.shape[:-1]))


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Joins the strings along ``axis`` (all axes when None), ``separator`` between them; with several
    axes the first listed varies fastest, as in TF."""
    values = _strings(inputs, "ReduceJoin")._value
    return _StringTensor(_joins.reduce_join(values, axis, keepdims, _bytes(separator)))


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 -- TF's names
    """``len`` bytes (or UTF-8 characters) of each string from ``pos`` (negative: from the end);
    InvalidArgumentError when ``pos`` is past a string's end. UTF-8 characters are cut as TF cuts them:
    at the first byte and each byte that does not continue a sequence, keeping the bytes as they are."""
    _check_unit("Substr", unit)
    values = _strings(input, "Substr")._value
    starts, counts = (_np.asarray(_convert(v).numpy()) for v in (pos, len))
    if starts.shape != counts.shape:
        raise _errors.InvalidArgumentError(f"Substr: pos and len must have the same shape, got {starts.shape} "
                                           f"and {counts.shape}")

    def cut(s, start, count):
        start, count = int(start), int(count)
        bounds = list(range(s.__len__())) if unit == "BYTE" else _unicode.utf8_char_starts(s)
        size = bounds.__len__()
        first = start + size if start < 0 else start
        if not 0 <= first <= size:
            raise _errors.InvalidArgumentError(f"Substr: pos {start} out of range for string {s!r} at index 0")
        last = size if count < 0 else min(first + count, size)  # negative len: to the end, as TF
        bounds.append(s.__len__())
        return s[bounds[first]:bounds[last]]
    try:  # pos and len broadcast against the strings, as in TF
        cuts = _np.frompyfunc(cut, 3, 1)(values, starts, counts)
    except ValueError as e:
        if isinstance(e, _errors.InvalidArgumentError):
            raise
        raise _errors.InvalidArgumentError(f"Substr: pos/len of shape {starts.shape} do not broadcast against "
                                           f"input of shape {values.shape}") from None
    return _StringTensor(_np.asarray(cuts, dtype=object).reshape(_np.broadcast_shapes(values.shape, starts.shape)))


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 -- TF's name
    """``template`` with each ``placeholder`` replaced by one of ``inputs`` (a tensor or a list), written
    as TF prints tensors; a scalar string tensor."""
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise ValueError(f"The template expects {len(pieces) - 1} tensors, but the inputs only has {len(inputs)}. "
                         "Please ensure the number of placeholders in template matches inputs length.")
    texts = [_tensor_text(x if isinstance(x, _StringTensor) else _constant(x), summarize) for x in inputs]
    out = pieces[0] + "".join(text + piece for text, piece in zip(texts, pieces[1:]))
    return _StringTensor(_np.array(out.encode("utf-8"), dtype=object))


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):
    """Each number as a string: floats as "%f" (``precision`` digits, or "%e" if ``scientific``, "%g" if
    ``shortest``), integers as "%d", booleans as "true"/"false"; padded to ``width`` with spaces, or
    zeros after the sign with fill="0"."""
    if isinstance(input, _StringTensor) or _is_text(input):
        raise _errors.InvalidArgumentError("AsString: Value for attr 'T' of string is not in the list of allowed "
                                           "values (the input is already a string tensor)")
    t = _convert(input)
    text = _number_formatter(t.dtype, precision, scientific, shortest, width, fill)
    return _map(lambda v: text(v).encode(), _StringTensor(_np.asarray(t.numpy(), dtype=object)), "AsString")


def _parse_float(text):
    """float(text), also reading C's hexadecimal floats ("0x10", "-0x1.8p1") as TF does."""
    try:
        return float(text)
    except ValueError:
        if text.lstrip("+-")[:2].lower() != "0x":
            raise
        return float.fromhex(text)


_NUMBER_TYPES = ("float32", "float64", "int32", "int64", "uint32", "uint64")  # StringToNumber's out_type


def to_number(input, out_type=_dtypes.float32, name=None):
    """Parses each string (ASCII, surrounding whitespace allowed) as a number of ``out_type``;
    InvalidArgumentError for one that is not, or an integer out of the type's range."""
    dt = _dtypes.as_dtype(out_type)
    if dt.name not in _NUMBER_TYPES:
        raise _errors.InvalidArgumentError(f"StringToNumber: Value for attr 'out_type' of {dt.name} is not in the "
                                           f"list of allowed values: {', '.join(_NUMBER_TYPES)}")
    parse = _parse_float if dt.is_floating else int
    info = None if dt.is_floating else _np.iinfo(dt.as_numpy_dtype)

    def number(s):
        try:
            text = s.decode("ascii").strip()
            if "_" in text:  # Python's digit separators are not numbers to TF
                raise ValueError(text)
            v = parse(text)
        except ValueError:
            raise _errors.InvalidArgumentError(f"StringToNumber: StringToNumberOp could not correctly convert "
                                               f"string: {s!r}") from None
        if info is not None and not info.min <= v <= info.max:
            raise _errors.InvalidArgumentError(f"StringToNumber: {s!r} is out of range for {dt.name}")
        return v
    return _map(number, input, "StringToNumber", out=dt.as_numpy_dtype)


def _buckets(op, input, num_buckets, hash_fn):
    if int(num_buckets) < 1:
        raise _errors.InvalidArgumentError(f"{op}: Value for attr 'num_buckets' of {num_buckets} must be at least "
                                           "minimum 1")
    values = _strings(input, op)._value
    hashed = hash_fn(list(values.ravel())) % _np.uint64(int(num_buckets))
    return _constant(hashed.astype(_np.int64).reshape(values.shape))


def to_hash_bucket_fast(input, num_buckets, name=None):
    """Each string's FarmHash Fingerprint64 modulo ``num_buckets`` (int64), as TF computes it."""
    return _buckets("StringToHashBucketFast", input, num_buckets, _hashes.fingerprint64)


def to_hash_bucket(input, num_buckets, name=None):
    """Each string's TF legacy Hash64 (MurmurHash64A, seed 0xDECAFCAFFE) modulo ``num_buckets``; prefer
    to_hash_bucket_fast, as TF says."""
    return _buckets("StringToHashBucket", input, num_buckets, _hashes.murmur64)


def to_hash_bucket_strong(input, num_buckets, key, name=None):
    """Each string's SipHash-2-4 under ``key`` (two int64s, read as uint64) modulo ``num_buckets``."""
    key = list(key)
    for k in key:
        if not -2 ** 63 <= int(k) < 2 ** 63:
            raise OverflowError(f"StringToHashBucketStrong: key value {k} is out of int64's range")
    if len(key) != 2:
        raise _errors.InvalidArgumentError("StringToHashBucketStrong: Key must have 2 elements")
    k0, k1 = (int(k) % 2 ** 64 for k in key)
    return _buckets("StringToHashBucketStrong", input, num_buckets, lambda v: _hashes.siphash24(v, k0, k1))


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """out[j] is the strings of ``inputs`` whose ``segment_ids`` is j joined in order with ``separator``
    ("" for none); segment_ids index the leading axes of inputs."""
    values = _strings(inputs, "UnsortedSegmentJoin")._value
    ids, count = _convert(segment_ids), _convert(num_segments)
    for arg, t in (("segment_ids", ids), ("num_segments", count)):
        if t.dtype not in (_dtypes.int32, _dtypes.int64):
            raise _errors.InvalidArgumentError(f"UnsortedSegmentJoin: {arg} must be int32 or int64, got "
                                               f"{t.dtype.name}")
    joined = _joins.unsorted_segment_join(values, _np.asarray(ids.numpy()), int(count.numpy()), _bytes(separator))
    return _StringTensor(joined)


def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,
                      replace_control_characters=False, name=None):
    """Each string decoded from ``input_encoding`` and encoded to ``output_encoding`` ("UTF-8", "UTF-16-BE"
    or "UTF-32-BE"); ill-formed sequences (and C0 controls with ``replace_control_characters``) replaced by
    ``replacement_char``, dropped (errors="ignore") or refused (errors="strict": InvalidArgumentError)."""
    op = "UnicodeTranscode"
    target = _unicode.output_codec(op, output_encoding)
    _unicode.check_options(op, errors, replacement_char)
    source = _unicode.codec(op, input_encoding)
    return _map(lambda s: _unicode.decode(s, op, source, errors, replacement_char,
                                          replace_control_characters).encode(target), input, op)


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """The ngrams of each row (the last axis) of a dense string tensor, for each width in ``ngram_width`` in
    turn, pieces joined by ``separator``; ``pad_values`` (one string, or (left, right)) pads each side with
    ``padding_width`` strings (width - 1 when None). A RaggedTensor ``data`` does not exist in tapegrad."""
    if separator is None:
        raise TypeError("ngrams: Expected string for argument 'separator' not None.")
    widths = [int(w) for w in _np.ravel(_np.asarray(ngram_width.numpy() if isinstance(ngram_width, _Tensor)
                                                    else ngram_width))]
    if any(w <= 0 for w in widths):
        raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    if padding_width is not None and padding_width <= 0:
        raise ValueError("padding_width must be greater than 0.")
    if pad_values is None:
        if padding_width is not None:
            raise ValueError("pad_values must be provided if padding_width is set.")
        left = right = b""
        padding_width = 0
    elif isinstance(pad_values, (str, bytes)):
        left = right = _bytes(pad_values)
    elif isinstance(pad_values, (list, tuple)) and all(isinstance(p, (str, bytes)) for p in pad_values[:2]):
        left, right = _bytes(pad_values[0]), _bytes(pad_values[1])
    else:
        raise TypeError("pad_values must be a string, tuple of strings, or None.")
    values = _strings(data, "StringNGrams")._value
    if values.ndim == 0:
        raise ValueError("Data must have rank>0")
    grams = _joins.ngrams(values, widths, _bytes(separator), left, right,
                          -1 if padding_width is None else int(padding_width), preserve_short_sequences)
    return _StringTensor(grams)
