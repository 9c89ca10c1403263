"""TF's regular expressions (RE2's syntax over UTF-8) on Python's ``re``: a pattern is translated to the
Python one that matches the same strings, and refused where RE2 refuses it.

Strings are matched as text (see the comment on invalid UTF-8 below).
"""
import codecs
import functools
import re
import warnings
import unicodedata

from tapegrad import errors

# Invalid UTF-8 in regexes: valid UTF-8 decodes to characters, and so does a surrogate's 3-byte
# encoding (ED A0..BF 80..BF), which RE2 takes for one character; every other invalid byte b decodes to
# the lone surrogate U+DC00 + b, which no "." or negated class matches (RE2 never matches an invalid byte
# with them), and encodes back to b. Surrogates U+DC80..U+DCFF are kept for those bytes: their own 3-byte
# encodings (ED B2..B3 xx) decode byte by byte.


def _decode_error(e):
    b = e.object[e.start:e.start + 3]
    if len(b) == 3 and b[0] == 0xED and 0xA0 <= b[1] <= 0xBF and b[1] not in (0xB2, 0xB3) and 0x80 <= b[2] <= 0xBF:
        return b.decode("utf-8", errors="surrogatepass"), e.start + 3
    return chr(0xDC00 + e.object[e.start]), e.start + 1


def _encode_error(e):
    c = ord(e.object[e.start])
    out = bytes([c - 0xDC00]) if 0xDC80 <= c <= 0xDCFF else chr(c).encode("utf-8", errors="surrogatepass")
    return out, e.start + 1


codecs.register_error("tapegrad_re2_decode", _decode_error)
codecs.register_error("tapegrad_re2_encode", _encode_error)

_INVALID = "\udc80-\udcff"  # where as_text puts invalid bytes
_GUARD = f"(?![{_INVALID}])"  # before every "." and class: they never match an invalid byte
_WORD = "0-9A-Za-z_"
# RE2's Perl classes and \b are ASCII; Python's are Unicode on text.
_PERL = {"d": "0-9", "s": "\\t\\n\\f\\r ", "w": _WORD}
_BOUNDARY = {"b": f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))",
             "B": f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))"}
_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ", "cntrl": "\\x00-\\x1f\\x7f",
          "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~",
          "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": _WORD, "xdigit": "0-9A-Fa-f"}
# What Python's re has and RE2 does not (RE2 matches in linear time: no lookaround, no backreferences).
_REFUSED = [(re.compile(r"\(\?(=|!|<=|<!|P?=|\(|>)"), "invalid perl operator"),
            (re.compile(r"\\[1-9ZuUN]"), "invalid escape sequence")]
# What RE2 has and this translation does not.
_UNSUPPORTED = [(re.compile(r"\(\?[a-zA-Z]*U"), "the U (ungreedy) flag"), (re.compile(r"\\C"), r"\C (any byte)")]


def _ranges(inside):
    """Class text for the code points c where inside[c] holds."""
    out, c = [], 0
    while c < len(inside):
        if inside[c]:
            first = c
            while c + 1 < len(inside) and inside[c + 1]:
                c += 1
            out.append(f"\\U{first:08x}-\\U{c:08x}")
        c += 1
    return "".join(out)


@functools.lru_cache(maxsize=None)
def _category_ranges(name, negated):
    """Class text for Unicode general category ``name`` ("L", "Lu", ...), or all but it."""
    return _ranges([unicodedata.category(chr(c)).startswith(name) != negated for c in range(0x110000)])


@functools.lru_cache(maxsize=None)
def _complement(ascii_class):
    """Class text for every code point outside ``ascii_class`` (class text naming ASCII characters only)."""
    return _ranges([re.fullmatch(f"[{ascii_class}]", chr(c)) is None for c in range(128)]) + "\\x80-\\U0010ffff"


def _property(pattern, i, op):
    r"""\pL, \p{Lu}, \PL ...: (the category's name, negated, the index after it)."""
    negated, c = pattern[i + 1] == "P", pattern[i + 2:i + 3]
    name, after = (pattern[i + 3:pattern.index("}", i)], pattern.index("}", i) + 1) if c == "{" else (c, i + 3)
    if name.startswith("^"):
        name, negated = name[1:], not negated
    if name not in ("L", "M", "N", "P", "S", "Z", "C") and not (len(name) == 2 and name[0] in "LMNPSZC"):
        raise errors.UnimplementedError(f"{op}: the Unicode class \\p{{{name}}} is not supported by tapegrad "
                                        "(general categories such as L or Lu are)")
    return name, negated, after


def _escape(pattern, i, in_class, op):
    """The Python text for the escape at pattern[i] (a backslash) and the index after it."""
    c = pattern[i + 1:i + 2]
    if c in _PERL:
        return (_PERL[c] if in_class else f"[{_PERL[c]}]"), i + 2
    if c.lower() in _PERL:
        return (_complement(_PERL[c.lower()]) if in_class else f"(?:{_GUARD}[^{_PERL[c.lower()]}])"), i + 2
    if c in _BOUNDARY and not in_class:
        return _BOUNDARY[c], i + 2
    if c in "pP" and c:
        name, negated, after = _property(pattern, i, op)
        ranges = _category_ranges(name, negated)
        return (ranges if in_class else f"(?:{_GUARD}[{ranges}])"), after
    if c == "x" and pattern[i + 2:i + 3] == "{":  # \x{10FFFF}
        end = pattern.index("}", i)
        return f"\\U{int(pattern[i + 3:end], 16):08x}", end + 1
    if c == "Q":  # \Q...\E: literal text
        end = pattern.find("\\E", i)
        end = len(pattern) if end < 0 else end
        return re.escape(pattern[i + 2:end]), end + 2
    return {"z": "\\Z", "C": "(?s:.)"}.get(c, pattern[i:i + 2]), i + 2


def translate(pattern, op):
    """The Python pattern matching what the RE2 ``pattern`` (str) matches; InvalidArgumentError naming the
    op where RE2 does not parse it, UnimplementedError for RE2 syntax not translated."""
    plain = pattern.replace("\\\\", "")
    for refused, why in _REFUSED:
        if refused.search(plain):
            raise errors.InvalidArgumentError(f"{op}: Invalid pattern: {pattern}, error: {why}")
    for unsupported, what in _UNSUPPORTED:
        if unsupported.search(plain):
            raise errors.UnimplementedError(f"{op}: {what} in pattern {pattern!r} are not supported by tapegrad")
    out, i = [], 0
    class_start = None  # inside a class: where its items start (a "]" there is literal)
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            piece, i = _escape(pattern, i, class_start is not None, op)
            out.append(piece)
            continue
        if class_start is not None:
            posix = re.match(r"\[:(\^?)(\w+):\]", pattern[i:])
            if posix and posix.group(2) in _POSIX:
                ascii_class = _POSIX[posix.group(2)]
                out.append(_complement(ascii_class) if posix.group(1) else ascii_class)
                i += posix.end()
                continue
            if c == "]" and i != class_start:
                out.append("])")
                class_start = None
            else:
                out.append("\\[" if c == "[" else c)
        elif c == "[":
            negated = pattern[i + 1:i + 2] == "^"
            out.append(f"(?:{_GUARD}[" + "^" * negated)
            class_start = i + 1 + negated
            i = class_start
            continue
        elif c == "{" and pattern[i + 1:i + 2] == ",":  # RE2 reads "{,n}" literally, Python as {0,n}
            out.append("\\{")
        else:
            out.append(f"(?:{_GUARD}.)" if c == "." else c)
        i += 1
    return "".join(out)


def compile_pattern(pattern, op):
    """The compiled Python pattern for RE2 ``pattern`` (str or UTF-8 bytes)."""
    text = pattern.decode("utf-8") if isinstance(pattern, bytes) else str(pattern)
    try:
        with warnings.catch_warnings():  # Python 3.10 only warns of late flags, which 3.11 refuses
            warnings.simplefilter("error", DeprecationWarning)
            return re.compile(translate(text, op))
    except (re.error, ValueError, IndexError, DeprecationWarning) as e:
        if "flags not at the start" in str(e).lower():
            raise errors.UnimplementedError(f"{op}: flags after the start of pattern {text!r} are not supported by "
                                            "tapegrad; scope them, (?i:...)") from None
        raise errors.InvalidArgumentError(f"{op}: Invalid pattern: {text}, error: {e}") from None


def substitute(compiled, replace, text, count):
    """compiled.sub(replace, text, count) with RE2's rule for empty matches: none right where the previous
    match ended (Python's re allows one there: "x*" on "ax" gives "-a--" in Python, "-a-" in RE2)."""
    out, at, last_end, done = [], 0, -1, 0
    for m in compiled.finditer(text):
        if count and done == count:
            break
        if m.start() == m.end() == last_end:
            continue
        out += [text[at:m.start()], replace(m)]
        at = last_end = m.end()
        done += 1
    return "".join(out) + text[at:]


def as_text(s):
    return s.decode("utf-8", errors="tapegrad_re2_decode")


def as_bytes(text):
    return text.encode("utf-8", errors="tapegrad_re2_encode")


def rewriter(rewrite, groups):
    """The replacement function for RE2's ``rewrite``: \\0..\\9 a group, \\\\ a backslash. As RE2: a group
    past the pattern's own leaves the string unchanged (None is returned), and an invalid escape ends the
    replacement text there."""
    text = rewrite.decode("utf-8", errors="surrogateescape") if isinstance(rewrite, bytes) else str(rewrite)
    pieces, i = [], 0  # str pieces and int group numbers
    while i < len(text):
        if text[i] != "\\":
            pieces.append(text[i])
        elif text[i + 1:i + 2].isdigit() and text[i + 1:i + 2].isascii():
            pieces.append(int(text[i + 1]))
        elif text[i + 1:i + 2] == "\\":
            pieces.append("\\")
        else:
            break
        i += 1 if text[i] != "\\" else 2
    if any(isinstance(p, int) and p > groups for p in pieces):
        return None
    return lambda m: "".join(m.group(p) or "" if isinstance(p, int) else p for p in pieces)
