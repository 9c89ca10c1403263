"""tf.string tensors and tf.strings ops, against TF 2.21's results."""
import copy
import pickle

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import errors


def _value(t):
    return t.numpy().tolist() if isinstance(t.numpy(), np.ndarray) else t.numpy()


def test_constants_print_as_tf():
    s = tf.constant(["a", "bc"])
    assert repr(s) == "<tf.Tensor: shape=(2,), dtype=string, numpy=array([b'a', b'bc'], dtype=object)>"
    assert str(s) == "tf.Tensor([b'a' b'bc'], shape=(2,), dtype=string)"
    x = tf.constant("x")
    assert repr(x) == "<tf.Tensor: shape=(), dtype=string, numpy=b'x'>" and x.numpy() == b"x"
    assert type(x.numpy()) is bytes
    assert repr(tf.constant([["a"], ["é"]])) == ("<tf.Tensor: shape=(2, 1), dtype=string, numpy=\n"
                                                "array([[b'a'],\n       [b'\\xc3\\xa9']], dtype=object)>")


def test_dtype_shape_and_conversions():
    s = tf.constant(["a", "bc"])
    assert s.dtype == tf.string and str(tf.string) == "<dtype: 'string'>" and repr(tf.string) == "tf.string"
    assert tf.as_dtype("string") is tf.string and tf.as_dtype(np.object_) is tf.string
    assert s.shape == (2,) and not s.dtype.is_floating and tf.is_tensor(s)
    assert tf.convert_to_tensor("q").numpy() == b"q"
    assert _value(tf.constant("a", shape=[2])) == [b"a", b"a"]
    assert _value(tf.constant(np.array(["ab", "c"]))) == [b"ab", b"c"]
    assert tf.constant(b"\xff").numpy() == b"\xff"
    assert _value(tf.zeros_like(s)) == [b"", b""]
    assert _value(tf.shape(s)) == [2] and int(tf.size(s)) == 2 and int(tf.rank(s)) == 1


def test_equality_indexing_iteration():
    s = tf.constant(["a", "bc"])
    assert _value(s == "a") == [True, False] and _value(s != "a") == [False, True]
    assert _value(s == tf.constant(["a", "x"])) == [True, False]
    assert bool(tf.reduce_all(s == s))
    assert s[0].numpy() == b"a" and len(s) == 2 and [t.numpy() for t in s] == [b"a", b"bc"]
    assert _value(s + "x") == [b"ax", b"bcx"]


def test_pickle_and_copy():
    s = tf.constant(["a", "bc"])
    assert copy.deepcopy(s) is s
    back = pickle.loads(pickle.dumps(s))
    assert back.dtype == tf.string and _value(back) == [b"a", b"bc"]


@pytest.mark.parametrize("call, expected", [
    (lambda: tf.strings.join(["a", tf.constant(["a", "bc"])], separator="-"), [b"a-a", b"a-bc"]),
    (lambda: tf.strings.join([tf.constant(["a", "bc"])] * 2), [b"aa", b"bcbc"]),
    (lambda: tf.strings.length(tf.constant(["a", "bc"])), [1, 2]),
    (lambda: tf.strings.length("é"), 2),
    (lambda: tf.strings.length(["ab", "é"], unit="UTF8_CHAR"), [2, 1]),
    (lambda: tf.strings.format("x={} y={}", [tf.constant([1, 2]), tf.constant(1.5)]), b"x=[1 2] y=1.5"),
    (lambda: tf.strings.format("{}", tf.constant("a")), b'"a"'),
    (lambda: tf.strings.format("{}", tf.constant(["a", "b"])), b'["a" "b"]'),
    (lambda: tf.strings.format("{}", tf.range(10)), b"[0 1 2 ... 7 8 9]"),
    (lambda: tf.strings.format("{}", tf.range(7), summarize=2), b"[0 1 ... 5 6]"),
    (lambda: tf.strings.format("{}", tf.range(7), summarize=-1), b"[0 1 2 3 4 5 6]"),
    (lambda: tf.strings.format("{}", tf.constant([[1.0, 2.0], [3.0, 4.0]])), b"[[1 2]\n [3 4]]"),
    (lambda: tf.strings.format("{}", tf.constant([True, False])), b"[1 0]"),
    (lambda: tf.strings.format("{} {}", [tf.constant(0.1), tf.constant(123456789.0)]), b"0.1 123456792"),
    (lambda: tf.strings.format("{}", tf.constant(1 / 3, tf.float64)), b"0.33333333333333331"),
    (lambda: tf.strings.format("a {} b {}", [3, "x"]), b'a 3 b "x"'),
    (lambda: tf.strings.as_string(tf.constant([3.5, 1e-9])), [b"3.500000", b"0.000000"]),
    (lambda: tf.strings.as_string(tf.constant([3, -4])), [b"3", b"-4"]),
    (lambda: tf.strings.as_string(3.5, precision=2), b"3.50"),
    (lambda: tf.strings.as_string(True), b"true"),
    (lambda: tf.strings.as_string(tf.constant(1.5), scientific=True), b"1.500000e+00"),
    (lambda: tf.strings.as_string(tf.constant(1.5), shortest=True), b"1.5"),
    (lambda: tf.strings.as_string(tf.constant(15), width=4), b"  15"),
    (lambda: tf.strings.as_string(tf.constant(np.nan)), b"nan"),
    (lambda: tf.strings.split("a b  c"), [b"a", b"b", b"c"]),
    (lambda: tf.strings.split("a,b,,c", sep=","), [b"a", b"b", b"", b"c"]),
    (lambda: tf.strings.split("a b c", maxsplit=1), [b"a", b"b c"]),
    (lambda: tf.strings.split(""), []),
    (lambda: tf.strings.upper(tf.constant(["a", "bc"])), [b"A", b"BC"]),
    (lambda: tf.strings.lower(tf.constant("AbC")), b"abc"),
    (lambda: tf.strings.upper("é"), "é".encode()),
    (lambda: tf.strings.to_number(tf.constant(["1.5", "2"])), [1.5, 2.0]),
    (lambda: tf.strings.to_number("3", out_type=tf.int32), 3),
    (lambda: tf.strings.to_number(["0x10", "-0X1p4", " 0x1.8p1 "]), [16.0, -16.0, 3.0]),
    (lambda: tf.strings.strip("  a "), b"a"),
    (lambda: tf.strings.regex_replace("a1b22", r"\d+", "#"), b"a#b#"),
    (lambda: tf.strings.reduce_join(tf.constant([["ab", "cd"], ["ef", "g"]])), b"abcdefg"),
    (lambda: tf.strings.reduce_join(tf.constant([["ab", "cd"], ["ef", "g"]]), axis=0), [b"abef", b"cdg"]),
    (lambda: tf.strings.reduce_join(tf.constant([["ab", "cd"], ["ef", "g"]]), axis=1, separator="-"),
     [b"ab-cd", b"ef-g"]),
    (lambda: tf.strings.reduce_join(tf.constant([["ab", "cd"], ["ef", "g"]]), axis=-1, keepdims=True),
     [[b"abcd"], [b"efg"]]),
    (lambda: tf.strings.substr(["hello", "ab"], 1, 3), [b"ell", b"b"]),
    (lambda: tf.strings.substr("héllo", 1, 2, unit="UTF8_CHAR"), "él".encode()),
    (lambda: tf.strings.substr("hello", -3, 2), b"ll"),
    (lambda: tf.strings.substr("hello", 1, -1), b"ello"),
    (lambda: tf.strings.substr(["hello", "world"], [0, 1], [1, 2]), [b"h", b"or"]),
    (lambda: tf.strings.substr("hello", tf.constant([0, 1]), tf.constant([1, 2])), [b"h", b"el"]),
    (lambda: tf.strings.upper(["straße", "é"]), [b"STRA\xc3\x9fE", "é".encode()]),
    (lambda: tf.strings.upper(["straße", "é", b"\xff"], encoding="utf-8"), [b"STRASSE", "É".encode(), "\ufffd".encode()]),
    (lambda: tf.strings.lower(["ΑΣ", "É"], encoding="utf-8"), ["ας".encode(), "é".encode()]),
    (lambda: tf.strings.regex_full_match(["abc", "ab1"], "[a-z]+"), [True, False]),
    (lambda: tf.strings.bytes_split("abc"), [b"a", b"b", b"c"]),
    (lambda: tf.strings.unicode_split("hé", "UTF-8"), [b"h", "é".encode()]),
])
def test_strings_ops_match_tf(call, expected):
    assert _value(call()) == expected


@pytest.mark.parametrize("call, error, match", [
    (lambda: tf.cast(tf.constant(["a"]), tf.float32), errors.UnimplementedError, "Cast string to float32"),
    (lambda: tf.cast(1.0, tf.string), errors.UnimplementedError, "Cast float32 to string"),
    (lambda: tf.strings.to_number("abc"), errors.InvalidArgumentError, "abc"),
    (lambda: tf.strings.join([tf.constant(["a", "b"]), tf.constant(["a", "b", "c"])]), errors.InvalidArgumentError,
     "Input shapes do not match"),
    (lambda: tf.strings.length(tf.constant(1)), errors.InvalidArgumentError, "expected to be a string tensor"),
    (lambda: tf.strings.length("a", unit="X"), errors.InvalidArgumentError, "unit"),
    (lambda: tf.strings.format("{} {}", [1]), ValueError, "template expects 2"),
    (lambda: tf.strings.as_string(tf.constant("a")), errors.InvalidArgumentError, "string"),
    (lambda: tf.constant([["a"], ["b", "c"]]), ValueError, "non-rectangular"),
    (lambda: tf.constant(["a", 1]), TypeError, "str or bytes"),
    (lambda: tf.ones([2], tf.string), errors.InvalidArgumentError, "dtype"),
    (lambda: tf.constant(["a"]) + 1, errors.InvalidArgumentError, "string tensor"),
    (lambda: bool(tf.constant("a")), TypeError, "truth value"),
    (lambda: tf.strings.substr("hello", 9, 2), errors.InvalidArgumentError, "out of range"),
    (lambda: tf.strings.reduce_join([1.0]), errors.InvalidArgumentError, "string tensor"),
    (lambda: tf.strings.substr(["ab", "cd"], [0, 1], 1), errors.InvalidArgumentError, "same shape"),
    (lambda: tf.strings.to_number("0xg"), errors.InvalidArgumentError, "0xg"),
    (lambda: tf.strings.to_number("1_0"), errors.InvalidArgumentError, "1_0"),
    (lambda: tf.strings.to_number("1_0", out_type=tf.int32), errors.InvalidArgumentError, "1_0"),
    (lambda: tf.strings.upper("a", encoding="latin1"), errors.InvalidArgumentError, "only utf-8"),
    (lambda: tf.strings.regex_replace("ab", "(", "x"), errors.InvalidArgumentError, "RegexReplace"),
    (lambda: tf.strings.regex_full_match("ab", "("), errors.InvalidArgumentError, "RegexFullMatch"),
    (lambda: tf.strings.to_number("99999999999", out_type=tf.int32), errors.InvalidArgumentError, "99999999999"),
    (lambda: tf.strings.as_string(tf.constant([3]), precision=2), errors.InvalidArgumentError, "precision"),
])
def test_bad_inputs_raise_tf_classes(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_tf_print_shows_strings_as_tf():
    import io
    out = io.StringIO()
    tf.print("a", tf.constant("x"), tf.constant(["a", "b"]), tf.constant([1, 2]), output_stream=out, summarize=None)
    assert out.getvalue() == 'a "x" ["a" "b"] [1 2]\n'


def test_an_empty_string_constant_as_tf():
    assert tf.constant([], tf.string).shape == (0,) and tf.constant([], tf.string).dtype == tf.string
    assert tf.constant([[], []], dtype=tf.string).shape == (2, 0)
