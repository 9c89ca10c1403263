"""tf.strings' hashes, joins, Unicode and regex ops against values TF 2.21 gave (no TensorFlow needed:
tests/oracle/test_tf_oracle_strings_more.py compares with TF itself)."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import errors
from tapegrad._tensor import string_hashes

SIP_KEY = [0x0706050403020100, 0x0F0E0D0C0B0A0908]  # SipHash's reference key, bytes 00..0f
# (length or text, Fingerprint64, legacy Hash64, SipHash-2-4 under SIP_KEY) as TF computes them, each
# 64-bit value read back from TF's buckets modulo 2**63 - 1 and 2**62; a length n stands for the bytes
# (37 * i + 11) % 256, i < n, so every code path of each hash (0-3, 4-7, 8-16, 17-32, 33-64, > 64 bytes
# and the 8-byte tails) is covered, with non-ASCII bytes.
HASHES = [
    (0, 0x9ae16a3b2f90404f, 0x81769421199f9e3b, 0x726fdb47dd0e0e31),
    (1, 0x4271b80e2915c76a, 0xe75cae62b24d9706, 0x74d1ec64b8ead515),
    (2, 0xae88b935147a3473, 0xd54746e79b246aa0, 0x1ac7c267ebbd0394),
    (3, 0x373a2b2a12e0c581, 0x3dc658ceab678357, 0xe68b65d140b07dae),
    (4, 0xcc1e778137ae6d69, 0xa271f2f387363c75, 0x1ecd3f63c39493ad),
    (7, 0x960838fbc6d9c975, 0xb8330d2a840df02d, 0x55396715723f817c),
    (8, 0x7d507025ed4eecfd, 0xeff0e8fbeed289d1, 0xd61ec048049d9ed4),
    (9, 0xdaebbbb958304dde, 0x9d3b4651429e998f, 0x5cdba49105ae787b),
    (15, 0x834f200cfa7ed95f, 0x4221e58bced6dc4f, 0x25c857fbec204397),
    (16, 0xd836480326a974d6, 0x002b439a0eb2b9f3, 0xa86d431428ebef15),
    (17, 0x5cded6cb65c9dac6, 0xe105a31fba389e56, 0xce9a4679e9b5cf6b),
    (31, 0x52a467e87c92d522, 0xba90034273be0537, 0xf5b322c5b9815a92),
    (32, 0xa03300e1b2be6da7, 0xf362f51fb2d15ab0, 0xdc6a98d31f7e5ddc),
    (33, 0x839154ca67815696, 0x9da04fde44959fdb, 0xf03d492f45bb9631),
    (63, 0x7cf64a4bd1b2b67e, 0xeed5c0a9b89d1111, 0x929031104e205ae9),
    (64, 0x000f03eac52d3535, 0x32ff10a00e266a76, 0x9d9a47203001b8e3),
    (65, 0xfb360c5023f60db6, 0xe7e88186c7daa56f, 0x1a84fd330c01fa94),
    (127, 0xd70e348fcbf64d04, 0xde325ec5ae26b2ac, 0x3c046118abe01476),
    (128, 0x33ef435f17af1739, 0x931f0542da875912, 0x2c7eec25ba6c3e9a),
    (129, 0xc30a81b637d2e4dd, 0x641a9316d4cbe746, 0xd27284187f3e707e),
    (200, 0x51320a19a60cbd6e, 0xe982ee8f4878ea73, 0xa9beb39f8b9a7d10),
    ("hello", 0xb48be5a931380ce8, 0x527bb8b9ebaa7d4a, 0x004fb3985767df81),
    ("héllo wörld", 0x7ced6d0a96714893, 0xc98adbafba6a2b12, 0x2e78a58f81b1dd7f),
]
TEXTS = [bytes((37 * i + 11) % 256 for i in range(n)) if isinstance(n, int) else n.encode() for n, *_ in HASHES]


@pytest.mark.parametrize("column, hash_fn", [
    (1, string_hashes.fingerprint64), (2, string_hashes.murmur64),
    (3, lambda v: string_hashes.siphash24(v, *SIP_KEY))], ids=["fingerprint64", "legacy_hash64", "siphash24"])
def test_hashes_are_tfs(column, hash_fn):
    expected = np.array([row[column] for row in HASHES], dtype=np.uint64)
    np.testing.assert_array_equal(hash_fn(TEXTS), expected)
    np.testing.assert_array_equal(hash_fn(TEXTS[::-1]), expected[::-1])  # grouping by length keeps the order


@pytest.mark.parametrize("num_buckets", [2 ** 63 - 1, 1000, 1])
def test_buckets_are_the_hashes_modulo_num_buckets(num_buckets):
    for op, column, extra in (("to_hash_bucket_fast", 1, ()), ("to_hash_bucket", 2, ()),
                              ("to_hash_bucket_strong", 3, (SIP_KEY,))):
        out = getattr(tf.strings, op)(tf.constant(TEXTS), num_buckets, *extra)
        assert out.dtype == tf.int64 and out.shape == (len(TEXTS),)
        assert out.numpy().tolist() == [row[column] % num_buckets for row in HASHES], op


@pytest.mark.parametrize("call, expected", [
    (lambda: tf.strings.to_hash_bucket_fast(["", "a", "hello", "x" * 100], 2 ** 63 - 1),
     [1936946117179621456, 3694432073954588132, 3786372426573024489, 6590480085648050719]),
    (lambda: tf.strings.to_hash_bucket(["", "a", "hello", "x" * 100], 2 ** 63 - 1),
     [105434511174508092, 2996632905371535868, 5943547241907780938, 6094197843925237000]),
    (lambda: tf.strings.to_hash_bucket_strong(["", "a", "hello"], 2 ** 63 - 1, [1, 2]),
     [443797209252341628, 5158252350249958646, 2957200328589801622]),
    (lambda: tf.strings.to_hash_bucket_strong(["a"], 2 ** 63 - 1, [-1, 5]), [2168736044485945031]),
    (lambda: tf.strings.to_hash_bucket_fast([["a", "b"]], 3), [[0, 1]]),
    (lambda: tf.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 3], 4, separator="-"),
     [b"b", b"a-c", b"", b"d"]),
    (lambda: tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [1, 1], 2, separator="-"),
     [[b"", b""], [b"a-c", b"b-d"]]),
    (lambda: tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [[0, 1], [1, 1]], 2), [b"a", b"bcd"]),
    (lambda: tf.strings.unicode_transcode(["héllo", b"a\xffb", ""], "UTF-8", "UTF-16-BE"),
     [b"\x00h\x00\xe9\x00l\x00l\x00o", b"\x00a\xff\xfd\x00b", b""]),
    (lambda: tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8", errors="ignore"), [b"ab"]),
    (lambda: tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8", replacement_char=63), [b"a?b"]),
    (lambda: tf.strings.unicode_transcode(["a\x01b\x7f\u0085\t\n"], "UTF-8", "UTF-8", replace_control_characters=True),
     [b"a\xef\xbf\xbdb\x7f\xc2\x85\xef\xbf\xbd\xef\xbf\xbd"]),
    (lambda: tf.strings.unicode_transcode([b"\xc0\x80", b"\xe0\x80\x80x", b"\xc3"], "UTF-8", "UTF-8"),
     ["\ufffd\ufffd".encode(), "\ufffd\ufffd\ufffdx".encode(), "\ufffd".encode()]),
    (lambda: tf.strings.unicode_transcode([b"\x00a\x00", b"\xdc\x00\x00a"], "UTF-16-BE", "UTF-8"),
     ["a\ufffd".encode(), "\ufffda".encode()]),
    (lambda: tf.strings.unicode_transcode(["\U0001F600"], "UTF-8", "UTF-32-BE"), [b"\x00\x01\xf6\x00"]),
    (lambda: tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-16-BE", replacement_char=0x1F600),
     [b"\x00a\xd8=\xde\x00\x00b"]),
    (lambda: tf.strings.unicode_decode(b"a\xffb", "UTF-8"), [97, 65533, 98]),
    (lambda: tf.strings.unicode_encode([[104, 233], [65, 66]], "UTF-16-BE"), [b"\x00h\x00\xe9", b"\x00A\x00B"]),
    (lambda: tf.strings.unicode_encode([104, 0xD800, -1, 0x110000], "UTF-8"), "h\ufffd\ufffd\ufffd".encode()),
    (lambda: tf.strings.unicode_split(b"\x00a\xd8\x00", "UTF-16-BE"), [b"\x00a", b"\xff\xfd"]),
    (lambda: tf.strings.ngrams(["a", "b", "c", "d"], 2), [b"a b", b"b c", b"c d"]),
    (lambda: tf.strings.ngrams([["a", "b", "c"], ["d", "e", "f"]], (2, 3)),
     [[b"a b", b"b c", b"a b c"], [b"d e", b"e f", b"d e f"]]),
    (lambda: tf.strings.ngrams(["a", "b", "c"], 3, pad_values=("<", ">")),
     [b"< < a", b"< a b", b"a b c", b"b c >", b"c > >"]),
    (lambda: tf.strings.ngrams(["a", "b"], 3, pad_values="#", padding_width=3),
     [b"# # a", b"# a b", b"a b #", b"b # #"]),
    (lambda: tf.strings.ngrams(["a", "b"], [3, 4], pad_values="#", padding_width=1, preserve_short_sequences=True),
     [b"# a b", b"a b #", b"# a b #"]),
    (lambda: tf.strings.ngrams(["a", "b"], 3, preserve_short_sequences=True), [b"a b"]),
    (lambda: tf.strings.ngrams([["a", "b"]], 3), [[]]),
    (lambda: tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=[0, 1], separator="-"), b"a-c-b-d"),
    (lambda: tf.strings.reduce_join([[["a", "b"], ["c", "d"]], [["e", "f"], ["g", "h"]]], axis=[2, 0], separator="-"),
     [b"a-b-e-f", b"c-d-g-h"]),
    (lambda: tf.strings.length([b"\xe2\xef\xff\x80\x01", b"\x80ab"], unit="UTF8_CHAR"), [4, 2]),
    (lambda: tf.strings.substr([b"a\xffbc", b"\xc3x"], 1, 2, unit="UTF8_CHAR"), [b"\xffb", b"x"]),
    (lambda: tf.strings.substr([b"\x80ab"] * 3, [0, 1, 2], [1, 1, 1], unit="UTF8_CHAR"), [b"\x80", b"a", b"b"]),
    (lambda: tf.strings.lower([b"A\x00B", b"a\xff\x11"], encoding="utf-8"), [b"a", b"a\xef\xbf\xbd\x11"]),
    (lambda: tf.strings.as_string([3, -4], width=5, fill="0"), [b"00003", b"-0004"]),
    (lambda: tf.strings.as_string([-1.5, float("inf")], width=10, fill="0"), [b"-01.500000", b"       inf"]),
    (lambda: tf.strings.as_string([True], width=6), [b"true"]),
    (lambda: tf.strings.regex_replace("abxd", "x*", "-"), b"-a-b-d-"),
    (lambda: tf.strings.regex_replace(["a", "ab"], "(a|b)*", r"<\0>"), [b"<a>", b"<ab>"]),
    (lambda: tf.strings.regex_replace([b"a\xffb", b"\xc3"], ".", "_"), [b"_\xff_", b"\xc3"]),
    (lambda: tf.strings.regex_replace("abc", "b", r"x\y"), b"axc"),
    (lambda: tf.strings.regex_replace("abc", "b", r"\1"), b"abc"),
    (lambda: tf.strings.regex_full_match(["١٢", "12", "é", "\u00a0"], r"\d+|\w|\s"), [False, True, False, False]),
    (lambda: tf.strings.regex_full_match(["aé", "1"], r"\p{L}+"), [True, False]),
    (lambda: tf.strings.regex_full_match(["a{,2}", "aa"], r"a{,2}"), [True, False]),
    (lambda: tf.strings.regex_full_match([b"\xed\xa0\x80", b"\xff"], "."), [True, False]),
])
def test_values_are_tfs(call, expected):
    out = call().numpy()
    assert (out.tolist() if isinstance(out, np.ndarray) else out) == expected


@pytest.mark.parametrize("call, error, match", [
    (lambda: tf.strings.to_hash_bucket_fast(["a"], 0), errors.InvalidArgumentError, "num_buckets"),
    (lambda: tf.strings.to_hash_bucket_strong(["a"], 10, [1]), errors.InvalidArgumentError, "Key must have 2"),
    (lambda: tf.strings.to_hash_bucket_strong(["a"], 10, [2 ** 64, 1]), OverflowError, "int64"),
    (lambda: tf.strings.to_hash_bucket_fast(tf.constant([1]), 3), errors.InvalidArgumentError, "HashBucketFast"),
    (lambda: tf.strings.to_hash_bucket_fast([1], 3), TypeError, "StringToHashBucketFast"),
    (lambda: tf.strings.unsorted_segment_join(["a", "b"], [-1, 0], 2), errors.InvalidArgumentError, "negative"),
    (lambda: tf.strings.unsorted_segment_join(["a", "b"], [0], 2), errors.InvalidArgumentError, "prefix"),
    (lambda: tf.strings.unsorted_segment_join("a", 0, 2), errors.InvalidArgumentError, "rank 0"),
    (lambda: tf.strings.unsorted_segment_join(["a"], [0.0], 1), errors.InvalidArgumentError, "int32 or int64"),
    (lambda: tf.strings.unicode_transcode([b"a\xff"], "UTF-8", "UTF-8", errors="strict"), errors.InvalidArgumentError,
     "Invalid formatting"),
    (lambda: tf.strings.unicode_transcode(["a"], "UTF-8", "latin1"), errors.InvalidArgumentError, "output_encoding"),
    (lambda: tf.strings.unicode_transcode(["a"], "nonsense", "UTF-8"), errors.InvalidArgumentError, "converter"),
    (lambda: tf.strings.unicode_transcode(["a"], "latin1", "UTF-8"), errors.UnimplementedError, "input_encoding"),
    (lambda: tf.strings.unicode_transcode(["a"], "UTF-8", "UTF-8", replacement_char=0x110000),
     errors.InvalidArgumentError, "replacement_char"),
    (lambda: tf.strings.unicode_encode(104, "UTF-8"), ValueError, "rank"),
    (lambda: tf.strings.ngrams("a", 1), ValueError, "rank>0"),
    (lambda: tf.strings.ngrams(["a"], 0), ValueError, "greater than 0"),
    (lambda: tf.strings.ngrams(["a"], 2, padding_width=1), ValueError, "pad_values"),
    (lambda: tf.strings.ngrams(["a"], 2, pad_values=1), TypeError, "pad_values"),
    (lambda: tf.strings.reduce_join(["a"], axis=1), errors.OutOfRangeError, "reduction dimension 1"),
    (lambda: tf.strings.reduce_join([["a"]], axis=[0, -2]), errors.InvalidArgumentError, "Duplicate"),
    (lambda: tf.strings.as_string([3], width=3, fill="x"), errors.InvalidArgumentError, "Fill"),
    (lambda: tf.strings.to_number(["1"], out_type=tf.bool), errors.InvalidArgumentError, "out_type"),
    (lambda: tf.strings.to_number(["١٢"], out_type=tf.int32), errors.InvalidArgumentError, "convert"),
    (lambda: tf.strings.length([1]), TypeError, "StringLength"),
    (lambda: tf.strings.regex_full_match("abc", r"a(?=b)bc"), errors.InvalidArgumentError, "RegexFullMatch"),
    (lambda: tf.strings.regex_full_match("abab", r"(ab)\1"), errors.InvalidArgumentError, "escape"),
    (lambda: tf.strings.regex_full_match("a", r"\Z"), errors.InvalidArgumentError, "escape"),
    (lambda: tf.strings.regex_full_match("a", r"(?U)a"), errors.UnimplementedError, "ungreedy"),
    (lambda: tf.strings.regex_full_match("a", r"a(?i)b"), errors.UnimplementedError, "flags"),
])
def test_bad_inputs_raise_tfs_classes(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_the_namespace_holds_only_tf_names():
    public = {n for n in dir(tf.strings) if not n.startswith("_")}
    assert public == set(tf.strings.__all__)
    assert not public & {"np", "re", "dtypes", "errors", "StringTensor", "constant", "convert_to_tensor",
                         "string_constant", "is_text", "builtins_format"}
