"""Unicode kernels of tf.strings: TF's UTF-8 character positions (length, substr) and decoding with TF's
(ICU's) error handling (unicode_transcode, unicode_split)."""
import codecs

import numpy as np

from tapegrad import errors

# Python's decoders report each ill-formed subsequence as ICU reports it (Unicode's "maximal subpart"
# practice), so one marker per reported span gives ICU's count of replacement characters. The marker is a
# lone surrogate, which no decoder below can produce from well-formed input.
_MARK = "\udfff"
codecs.register_error("tapegrad_mark", lambda e: (_MARK, e.end))

_ENCODINGS = {"UTF8": "utf-8", "UTF16BE": "utf-16-be", "UTF32BE": "utf-32-be"}  # ICU matches names loosely
OUTPUT_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}  # TF's attr: exactly
ERROR_MODES = ("strict", "replace", "ignore")


def is_continuation(byte):
    return byte & 0xC0 == 0x80


def utf8_char_count(s):
    """TF's UTF8_CHAR length: the bytes that do not continue a UTF-8 sequence (valid or not)."""
    return int(np.count_nonzero((np.frombuffer(s, dtype=np.uint8) & 0xC0) != 0x80))


def utf8_char_starts(s):
    """Where each character starts as TF's Substr counts them: the first byte, then every byte that does
    not continue a sequence."""
    return [i for i in range(len(s)) if i == 0 or not is_continuation(s[i])]


def codec(op, encoding):
    """The Python codec of an input_encoding TF accepts; InvalidArgumentError for one no codec knows."""
    name = _ENCODINGS.get(str(encoding).upper().replace("-", "").replace("_", ""))
    if name is not None:
        return name
    try:
        codecs.lookup(str(encoding))
    except LookupError:
        raise errors.InvalidArgumentError(f"{op}: Could not create converter for input encoding: {encoding}") from None
    raise errors.UnimplementedError(f"{op}: input_encoding {encoding!r} is not supported by tapegrad (TF accepts any "
                                    "ICU converter); use 'UTF-8', 'UTF-16-BE' or 'UTF-32-BE'")


def output_codec(op, encoding):
    if encoding not in OUTPUT_ENCODINGS:
        raise errors.InvalidArgumentError(f"{op}: Value for attr 'output_encoding' of {encoding!r} is not in the list "
                                          f"of allowed values: {', '.join(OUTPUT_ENCODINGS)}")
    return OUTPUT_ENCODINGS[encoding]


def check_options(op, errors_mode, replacement_char):
    if errors_mode not in ERROR_MODES:
        raise errors.InvalidArgumentError(f"{op}: Value for attr 'errors' of {errors_mode!r} is not in the list of "
                                          f"allowed values: {', '.join(ERROR_MODES)}")
    if not 0 <= int(replacement_char) <= 0x10FFFF:
        raise errors.InvalidArgumentError(f"{op}: replacement_char out of unicode codepoint range")


def decode(s, op, name, errors_mode, replacement_char, replace_control=False):
    """The characters of ``s`` (bytes in codec ``name``), each ill-formed sequence (and, with
    ``replace_control``, each C0 control character) replaced by ``replacement_char``, dropped, or refused
    with InvalidArgumentError as ``errors_mode`` says."""
    text = s.decode(name, errors="tapegrad_mark")
    if replace_control:
        text = "".join(_MARK if c < " " else c for c in text)
    if _MARK not in text:
        return text
    if errors_mode == "strict":
        raise errors.InvalidArgumentError(f"{op}: Invalid formatting on input string")
    return text.replace(_MARK, "" if errors_mode == "ignore" else replacement(replacement_char))


def replacement(replacement_char):
    """The replacement character; a surrogate is U+FFFD, as ICU's."""
    return "\ufffd" if 0xD800 <= int(replacement_char) <= 0xDFFF else chr(int(replacement_char))


def encode_points(points, op, name, errors_mode, replacement_char):
    """The code points (ints) as bytes in codec ``name``; a surrogate or a value outside 0..0x10FFFF is
    replaced, dropped or refused (InvalidArgumentError) as ``errors_mode`` says."""
    chars = []
    for p in (int(p) for p in points):
        if 0 <= p <= 0x10FFFF and not 0xD800 <= p <= 0xDFFF:
            chars.append(chr(p))
        elif errors_mode == "strict":
            raise errors.InvalidArgumentError(f"{op}: Code point is out of range for Unicode, or is a surrogate.")
        elif errors_mode == "replace":
            chars.append(replacement(replacement_char))
    return "".join(chars).encode(name)
