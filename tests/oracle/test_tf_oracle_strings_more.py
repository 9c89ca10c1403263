"""tf.strings against TF 2.21: each case runs on both sides and gives the same values, dtype and shape, or
the same error class; the three string hashes agree bit for bit on a few thousand random byte strings.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

EDGE = ["", "a", "héllo", " \t x \n", "ÀÉ straße ΣΑΣ", b"a\xffb", b"\xc3", b"\xed\xa0\x80", b"\xf0\x9f\x98\x80z"]


def _outcome(fn):
    """(dtype, shape, values) of the result (floats as text, so NaN equals NaN), or the error class's name."""
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 -- the classes are compared
        return type(e).__name__
    value = np.asarray(out.numpy())
    return out.dtype.name, value.shape, (value.astype(str) if value.dtype.kind == "f" else value).tolist()


CASES = {
    # existing ops on edge inputs
    "lower": lambda s: s.strings.lower(EDGE),
    "upper": lambda s: s.strings.upper(EDGE),
    "lower_utf8": lambda s: s.strings.lower(EDGE, encoding="utf-8"),
    "upper_utf8": lambda s: s.strings.upper(EDGE, encoding="utf-8"),
    "upper_empty": lambda s: s.strings.upper(s.constant([], s.string)),
    "upper_bad_encoding": lambda s: s.strings.upper("a", encoding="latin1"),
    "strip": lambda s: s.strings.strip(EDGE + ["\x0b\x0cx\r", "\xa0x"]),
    "strip_2d": lambda s: s.strings.strip([[" a", "b "]]),
    "length": lambda s: s.strings.length(EDGE),
    "length_utf8": lambda s: s.strings.length(EDGE, unit="UTF8_CHAR"),
    "length_empty": lambda s: s.strings.length(s.constant([[]], s.string)),
    "length_bad_unit": lambda s: s.strings.length("a", unit="CHAR"),
    "length_number": lambda s: s.strings.length(s.constant([1])),
    "length_list_of_numbers": lambda s: s.strings.length([1]),
    "substr": lambda s: s.strings.substr(EDGE, 0, 2),
    "substr_utf8": lambda s: s.strings.substr(["héllo", "ab"], 1, 2, unit="UTF8_CHAR"),
    "substr_utf8_invalid": lambda s: s.strings.substr([b"a\xffbc", b"\xc3x"], 1, 2, unit="UTF8_CHAR"),
    "substr_negative_pos": lambda s: s.strings.substr("héllo", -2, 5, unit="UTF8_CHAR"),
    "substr_pos_at_end": lambda s: s.strings.substr("abc", 3, 1),
    "substr_pos_past_end": lambda s: s.strings.substr("abc", 4, 1),
    "substr_negative_past": lambda s: s.strings.substr("abc", -4, 1),
    "substr_bad_unit": lambda s: s.strings.substr("abc", 0, 1, unit="CHAR"),
    "substr_empty": lambda s: s.strings.substr(s.constant([], s.string), 0, 1),
    "regex_replace": lambda s: s.strings.regex_replace(EDGE, "[aé]", "_"),
    "regex_replace_first": lambda s: s.strings.regex_replace(["aaa", "bab"], "a", "x", replace_global=False),
    "regex_replace_group": lambda s: s.strings.regex_replace("ab12", r"(\d)", r"<\1>"),
    "regex_replace_empty_match": lambda s: s.strings.regex_replace("abc", "x*", "-"),
    "regex_replace_bad": lambda s: s.strings.regex_replace("ab", "(", "x"),
    "regex_full_match": lambda s: s.strings.regex_full_match(EDGE, ".*"),
    "regex_full_match_dot": lambda s: s.strings.regex_full_match(["é", "a", ""], "."),
    "regex_full_match_bad": lambda s: s.strings.regex_full_match("ab", "[a"),
    "regex_full_match_empty": lambda s: s.strings.regex_full_match(s.constant([], s.string), "a"),
    "to_number_float": lambda s: s.strings.to_number(["1.5", " 2 ", "-0", "1e3", "inf", "-inf"]),
    "to_number_float64": lambda s: s.strings.to_number(["0.1", "1e300"], out_type=s.float64),
    "to_number_int32": lambda s: s.strings.to_number(["7", "-12", "+3"], out_type=s.int32),
    "to_number_int64": lambda s: s.strings.to_number(["9223372036854775807"], out_type=s.int64),
    "to_number_int_of_float": lambda s: s.strings.to_number(["1.5"], out_type=s.int32),
    "to_number_empty_string": lambda s: s.strings.to_number([""]),
    "to_number_empty": lambda s: s.strings.to_number(s.constant([], s.string)),
    "to_number_bad_type": lambda s: s.strings.to_number(["1"], out_type=s.string),
    "to_number_overflow": lambda s: s.strings.to_number(["2147483648"], out_type=s.int32),
    "reduce_join": lambda s: s.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator="é"),
    "reduce_join_axis0_keep": lambda s: s.strings.reduce_join([["a", "b"], ["c", "d"]], axis=0, keepdims=True),
    "reduce_join_all_keep": lambda s: s.strings.reduce_join([["a", "b"], ["c", "d"]], keepdims=True),
    "reduce_join_axes": lambda s: s.strings.reduce_join([["a", "b"], ["c", "d"]], axis=[0, 1], separator="-"),
    "reduce_join_empty": lambda s: s.strings.reduce_join(s.constant([], s.string)),
    "reduce_join_empty_rows": lambda s: s.strings.reduce_join(s.constant([[], []], s.string), axis=1),
    "reduce_join_scalar": lambda s: s.strings.reduce_join("ab"),
    "reduce_join_bad_axis": lambda s: s.strings.reduce_join(["a"], axis=1),
    "join": lambda s: s.strings.join([EDGE, EDGE], separator="|"),
    "join_empty_list": lambda s: s.strings.join([]),
    "join_empty_tensors": lambda s: s.strings.join([s.constant([], s.string), "x"]),
    "join_scalars": lambda s: s.strings.join(["a", "b"]),
    "as_string_float": lambda s: s.strings.as_string(s.constant([0.5, -1e-7, 1e20, float("nan"), float("inf")])),
    "as_string_width_fill": lambda s: s.strings.as_string(s.constant([3, -4]), width=5, fill="0"),
    "as_string_precision_sci": lambda s: s.strings.as_string(s.constant([12345.678]), precision=2, scientific=True),
    "as_string_shortest": lambda s: s.strings.as_string(s.constant([0.1, 1e-10, 123456789.0]), shortest=True),
    "as_string_int64": lambda s: s.strings.as_string(s.constant([-9223372036854775808], s.int64)),
    "as_string_bool": lambda s: s.strings.as_string(s.constant([True, False])),
    "as_string_empty": lambda s: s.strings.as_string(s.constant([], s.float32)),
    "as_string_long_fill": lambda s: s.strings.as_string(s.constant([1]), width=3, fill="ab"),
    "format_empty": lambda s: s.strings.format("x{}y", s.constant([], s.float32)),
    "format_non_ascii": lambda s: s.strings.format("é{}", s.constant(["ß"])),
    "format_no_inputs": lambda s: s.strings.format("plain", []),
    "format_2d_summarize": lambda s: s.strings.format("{}", s.reshape(s.range(36), [6, 6]), summarize=1),
    "reduce_join_axes_reversed": lambda s: s.strings.reduce_join([["a", "b"], ["c", "d"]], axis=[1, 0], separator="-"),
    "reduce_join_3d_axes": lambda s: s.strings.reduce_join([[["a", "b"], ["c", "d"]], [["e", "f"], ["g", "h"]]],
                                                           axis=[0, 2], separator="-"),
    "reduce_join_none_separator": lambda s: s.strings.reduce_join([["a", "b"], ["c", "d"]], separator="-"),
    "reduce_join_duplicate_axis": lambda s: s.strings.reduce_join([["a", "b"]], axis=[0, -2]),
    "reduce_join_no_axes": lambda s: s.strings.reduce_join([["a", "b"]], axis=[]),
    "reduce_join_scalar_axis": lambda s: s.strings.reduce_join("a", axis=0),
    "regex_rewrite_whole_match": lambda s: s.strings.regex_replace("abc", "b", r"<\0>"),
    "regex_rewrite_bad_escape": lambda s: s.strings.regex_replace("abc", "b", r"x\y"),
    "regex_rewrite_missing_group": lambda s: s.strings.regex_replace("abc", "b", r"\1"),
    "regex_rewrite_backslash": lambda s: s.strings.regex_replace("abc", "b", r"\\"),
    "regex_rewrite_dollar": lambda s: s.strings.regex_replace("abc", "(b)", "$1"),
    "regex_lookahead": lambda s: s.strings.regex_full_match("abc", r"a(?=b)bc"),
    "regex_backreference": lambda s: s.strings.regex_full_match("abab", r"(ab)\1"),
    "regex_ascii_classes": lambda s: s.strings.regex_full_match(["١٢", "12", "é", "a", "\u00a0", " "],
                                                                r"\d+|\w|\s"),
    "regex_negated_perl": lambda s: s.strings.regex_replace([b"a\xffb", "é1 "], r"\D", "_"),
    "regex_case_folding": lambda s: s.strings.regex_full_match(["É", "ß", "K"], r"(?i)(?:é|ss|\x{212A})"),
    "regex_dot_invalid_bytes": lambda s: s.strings.regex_replace([b"a\xffb", b"\xc3", b"\xed\xa0\x80"], ".", "_"),
    "regex_negated_class_invalid": lambda s: s.strings.regex_replace([b"a\xffb", b"]x"], "[^a]", "_"),
    "regex_class_bracket": lambda s: s.strings.regex_replace(["a]b[c"], "[]a[]", "_"),
    "regex_posix_class": lambda s: s.strings.regex_replace(["aB1 é"], "[[:alpha:][:space:]]", "_"),
    "regex_end_of_text": lambda s: s.strings.regex_full_match(["ab", "ab\n"], r"ab\z"),
    "regex_named_group": lambda s: s.strings.regex_replace("ab", r"(?P<x>a)", r"<\1>"),
    "substr_leading_continuation": lambda s: s.strings.substr([b"\x80ab"] * 3, [0, 1, 2], [1, 1, 1], unit="UTF8_CHAR"),
    "substr_utf8_at_end": lambda s: s.strings.substr([b"\x80\x80", b"ab"], [1, 2], [1, 1], unit="UTF8_CHAR"),
    "substr_utf8_negative": lambda s: s.strings.substr([b"a\xffb"], [-1], [5], unit="UTF8_CHAR"),
    "length_leading_continuation": lambda s: s.strings.length([b"\x80ab", b"\x80\x80"], unit="UTF8_CHAR"),
    "lower_nul": lambda s: s.strings.lower([b"A\x00B", b"\x00a"], encoding="utf-8"),
    "upper_nul_ascii": lambda s: s.strings.upper([b"a\x00b"]),
    "strip_whitespace_kinds": lambda s: s.strings.strip(["\xa0x\u3000", "\x00x\x00", "\x0bx\x0c", "\x1cx"]),
    "to_number_hex_int": lambda s: s.strings.to_number(["0x10"], out_type=s.int32),
    "to_number_spaces_int": lambda s: s.strings.to_number([" 5 "], out_type=s.int32),
    "to_number_special_floats": lambda s: s.strings.to_number(["nan", "-nan", "infinity", "+Inf", "1e40", "1e-50"]),
    "to_number_float_forms": lambda s: s.strings.to_number(["+1.5", ".5", "5.", "-0x1p-2"]),
    "to_number_bad_exponent": lambda s: s.strings.to_number(["1e"]),
    "to_number_bool": lambda s: s.strings.to_number(["5"], out_type=s.bool),
    "to_number_arabic_digits": lambda s: s.strings.to_number(["١٢"], out_type=s.int32),
    "as_string_zero_fill_float": lambda s: s.strings.as_string([-1.5, float("inf"), float("nan")], width=10, fill="0"),
    "as_string_fill_x": lambda s: s.strings.as_string([3], width=3, fill="x"),
    "as_string_narrow_width": lambda s: s.strings.as_string([12345], width=2),
    "as_string_bool_width": lambda s: s.strings.as_string([True], width=6),
    "as_string_negative_precision": lambda s: s.strings.as_string([1.5], precision=-2),
    "as_string_float64_shortest": lambda s: s.strings.as_string(s.constant([0.1], s.float64), shortest=True),
    "as_string_negative_zero": lambda s: s.strings.as_string([-0.0]),
    "as_string_scientific_inf": lambda s: s.strings.as_string([float("inf"), float("nan")], scientific=True, width=6),
    "as_string_both_notations": lambda s: s.strings.as_string([1.5], scientific=True, shortest=True),
    "unicode_split_utf16": lambda s: s.strings.unicode_split(b"\x00a\xd8\x00", "UTF-16-BE"),
    "unicode_split_ignore": lambda s: s.strings.unicode_split(b"a\xffb", "UTF-8", errors="ignore"),
    "unicode_split_strict": lambda s: s.strings.unicode_split(b"a\xffb", "UTF-8", errors="strict"),
    # the ops added here
    "to_hash_bucket_fast": lambda s: s.strings.to_hash_bucket_fast(EDGE, 1000),
    "to_hash_bucket_fast_2d": lambda s: s.strings.to_hash_bucket_fast([["a", "b"], ["c", ""]], 7),
    "to_hash_bucket_fast_zero_buckets": lambda s: s.strings.to_hash_bucket_fast(["a"], 0),
    "to_hash_bucket_fast_number": lambda s: s.strings.to_hash_bucket_fast(s.constant([1]), 3),
    "to_hash_bucket_fast_empty": lambda s: s.strings.to_hash_bucket_fast(s.constant([], s.string), 3),
    "to_hash_bucket": lambda s: s.strings.to_hash_bucket(EDGE, 2 ** 63 - 1),
    "to_hash_bucket_scalar": lambda s: s.strings.to_hash_bucket("hello", 10),
    "to_hash_bucket_negative_buckets": lambda s: s.strings.to_hash_bucket(["a"], -3),
    "to_hash_bucket_strong": lambda s: s.strings.to_hash_bucket_strong(EDGE, 2 ** 40, [7, -9]),
    "to_hash_bucket_strong_short_key": lambda s: s.strings.to_hash_bucket_strong(["a"], 10, [1]),
    "to_hash_bucket_strong_long_key": lambda s: s.strings.to_hash_bucket_strong(["a"], 10, [1, 2, 3]),
    "to_hash_bucket_strong_big_key": lambda s: s.strings.to_hash_bucket_strong(["a"], 10, [2 ** 64, 1]),
    "unsorted_segment_join": lambda s: s.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 3], 4,
                                                                       separator="-"),
    "unsorted_segment_join_2d": lambda s: s.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [1, 1], 2),
    "unsorted_segment_join_2d_ids": lambda s: s.strings.unsorted_segment_join([["a", "b"], ["c", "d"]],
                                                                              [[0, 1], [1, 1]], 2, "+"),
    "unsorted_segment_join_int64": lambda s: s.strings.unsorted_segment_join(
        ["a", "b"], s.constant([0, 1], s.int64), s.constant(3, s.int64)),
    "unsorted_segment_join_empty": lambda s: s.strings.unsorted_segment_join(
        s.constant([], s.string), s.constant([], s.int32), 2),
    "unsorted_segment_join_negative_id": lambda s: s.strings.unsorted_segment_join(["a", "b"], [-1, 0], 2),
    "unsorted_segment_join_id_too_big": lambda s: s.strings.unsorted_segment_join(["a", "b"], [2, 0], 2),
    "unsorted_segment_join_bad_shape": lambda s: s.strings.unsorted_segment_join(["a", "b"], [0], 2),
    "unsorted_segment_join_scalar_ids": lambda s: s.strings.unsorted_segment_join("a", 0, 2),
    "unsorted_segment_join_negative_count": lambda s: s.strings.unsorted_segment_join(["a"], [0], -1),
    "unsorted_segment_join_float_ids": lambda s: s.strings.unsorted_segment_join(["a"], [0.0], 1),
    "transcode_utf16": lambda s: s.strings.unicode_transcode(EDGE, "UTF-8", "UTF-16-BE"),
    "transcode_utf32": lambda s: s.strings.unicode_transcode(EDGE, "UTF-8", "UTF-32-BE"),
    "transcode_ignore": lambda s: s.strings.unicode_transcode(EDGE, "UTF-8", "UTF-8", errors="ignore"),
    "transcode_strict": lambda s: s.strings.unicode_transcode([b"a\xff"], "UTF-8", "UTF-8", errors="strict"),
    "transcode_strict_valid": lambda s: s.strings.unicode_transcode(["é"], "UTF-8", "UTF-16-BE", errors="strict"),
    "transcode_replacement": lambda s: s.strings.unicode_transcode(EDGE, "UTF-8", "UTF-16-BE",
                                                                   replacement_char=0x1F600),
    "transcode_control": lambda s: s.strings.unicode_transcode(["\x00a\x1f\x7f\u0085\t"], "UTF-8", "UTF-8",
                                                               replace_control_characters=True),
    "transcode_control_ignore": lambda s: s.strings.unicode_transcode(["\x01a"], "UTF-8", "UTF-8", errors="ignore",
                                                                      replace_control_characters=True),
    "transcode_from_utf16": lambda s: s.strings.unicode_transcode(
        [b"\x00a\xd8\x00", b"\xdc\x00\x00a", b"\x00a\x00", b"\xd8\x3d\xde\x00", b"\xfe\xff\x00a"],
        "UTF-16-BE", "UTF-8"),
    "transcode_from_utf32": lambda s: s.strings.unicode_transcode(
        [b"\x00\x00\x00a\x00\x00\xd8\x00", b"\x00\x11\x00\x00", b"\x00\x00\x00a\x00", b"\x00\x01\xf6\x00"],
        "UTF-32-BE", "UTF-8"),
    "transcode_scalar": lambda s: s.strings.unicode_transcode("abc", "UTF-8", "UTF-16-BE"),
    "transcode_bad_output": lambda s: s.strings.unicode_transcode(["a"], "UTF-8", "latin1"),
    "transcode_bad_errors": lambda s: s.strings.unicode_transcode(["a"], "UTF-8", "UTF-8", errors="bad"),
    "transcode_bad_replacement": lambda s: s.strings.unicode_transcode(["a"], "UTF-8", "UTF-8",
                                                                       replacement_char=0x110000),
    "transcode_surrogate_replacement": lambda s: s.strings.unicode_transcode([b"\xff"], "UTF-8", "UTF-8",
                                                                             replacement_char=0xD800),
    "transcode_unknown_input": lambda s: s.strings.unicode_transcode(["a"], "nonsense", "UTF-8"),
    "unicode_decode": lambda s: s.strings.unicode_decode("héllo\U0001F600", "UTF-8"),
    "unicode_decode_invalid": lambda s: s.strings.unicode_decode(b"a\xffb\x01", "UTF-8", replacement_char=63,
                                                                 replace_control_characters=True),
    "unicode_decode_utf16": lambda s: s.strings.unicode_decode(b"\x00a\xd8\x3d\xde\x00\xdc\x00", "UTF-16-BE"),
    "unicode_decode_strict": lambda s: s.strings.unicode_decode(b"a\xff", "UTF-8", errors="strict"),
    "unicode_decode_empty": lambda s: s.strings.unicode_decode("", "UTF-8"),
    "unicode_encode": lambda s: s.strings.unicode_encode([104, 233, 0x1F600], "UTF-8"),
    "unicode_encode_2d": lambda s: s.strings.unicode_encode([[104, 233], [65, 66]], "UTF-16-BE"),
    "unicode_encode_3d": lambda s: s.strings.unicode_encode([[[65, 0x10FFFF]]], "UTF-32-BE"),
    "unicode_encode_invalid": lambda s: s.strings.unicode_encode([104, 0xD800, -1, 0x110000], "UTF-8"),
    "unicode_encode_ignore": lambda s: s.strings.unicode_encode([104, 0xD800, -1], "UTF-8", errors="ignore"),
    "unicode_encode_strict": lambda s: s.strings.unicode_encode([104, 0xD800], "UTF-8", errors="strict"),
    "unicode_encode_replacement": lambda s: s.strings.unicode_encode([104, -1], "UTF-8", replacement_char=63),
    "unicode_encode_surrogate_replacement": lambda s: s.strings.unicode_encode([-1], "UTF-8", replacement_char=0xD800),
    "unicode_encode_bad_replacement": lambda s: s.strings.unicode_encode([65], "UTF-8", replacement_char=-2),
    "unicode_encode_empty": lambda s: s.strings.unicode_encode(s.constant([], s.int32), "UTF-8"),
    "unicode_encode_empty_rows": lambda s: s.strings.unicode_encode(s.zeros([2, 0], s.int32), "UTF-8"),
    "unicode_encode_scalar": lambda s: s.strings.unicode_encode(104, "UTF-8"),
    "unicode_encode_int64": lambda s: s.strings.unicode_encode(s.constant([65], s.int64), "UTF-8"),
    "unicode_encode_float": lambda s: s.strings.unicode_encode([65.0], "UTF-8"),
    "unicode_encode_bad_encoding": lambda s: s.strings.unicode_encode([65], "latin1"),
    "ngrams": lambda s: s.strings.ngrams(["a", "b", "c", "d"], 2),
    "ngrams_2d_widths": lambda s: s.strings.ngrams([["a", "b", "c"], ["d", "e", "f"]], (2, 3), separator="-"),
    "ngrams_3d": lambda s: s.strings.ngrams([[["a", "b"]]], 1),
    "ngrams_too_short": lambda s: s.strings.ngrams([["a", "b"]], 3),
    "ngrams_preserve": lambda s: s.strings.ngrams(["a", "b"], [3, 4], preserve_short_sequences=True),
    "ngrams_preserve_padded": lambda s: s.strings.ngrams(["a"], 4, pad_values="#", padding_width=1,
                                                         preserve_short_sequences=True),
    "ngrams_preserve_empty": lambda s: s.strings.ngrams(s.constant([[]], s.string), 2, preserve_short_sequences=True),
    "ngrams_pad": lambda s: s.strings.ngrams(["a", "b", "c"], 3, pad_values=("<", ">")),
    "ngrams_pad_width": lambda s: s.strings.ngrams(["a", "b", "c"], 3, pad_values=("<", ">"), padding_width=1),
    "ngrams_pad_width_clipped": lambda s: s.strings.ngrams(["a", "b"], 3, pad_values="#", padding_width=3),
    "ngrams_pad_empty_string": lambda s: s.strings.ngrams(["a", "b"], 2, pad_values=""),
    "ngrams_pad_list": lambda s: s.strings.ngrams(["a", "b"], 2, pad_values=["<", ">"]),
    "ngrams_empty": lambda s: s.strings.ngrams(s.constant([], s.string), 2),
    "ngrams_no_widths": lambda s: s.strings.ngrams(["a"], []),
    "ngrams_width_tensor": lambda s: s.strings.ngrams(["a", "b", "c"], s.constant(2)),
    "ngrams_scalar": lambda s: s.strings.ngrams("a", 1),
    "ngrams_zero_width": lambda s: s.strings.ngrams(["a"], 0),
    "ngrams_padding_width_no_pad": lambda s: s.strings.ngrams(["a"], 2, padding_width=1),
    "ngrams_padding_width_zero": lambda s: s.strings.ngrams(["a"], 2, pad_values="#", padding_width=0),
    "ngrams_pad_not_string": lambda s: s.strings.ngrams(["a"], 2, pad_values=1),
    "ngrams_separator_none": lambda s: s.strings.ngrams(["a", "b"], 2, separator=None),
}


ONE_INPUT = {
    "length": lambda s, x: s.strings.length(x), "lower": lambda s, x: s.strings.lower(x),
    "strip": lambda s, x: s.strings.strip(x), "substr": lambda s, x: s.strings.substr(x, 0, 1),
    "regex_replace": lambda s, x: s.strings.regex_replace(x, "a", "b"),
    "regex_full_match": lambda s, x: s.strings.regex_full_match(x, "a"),
    "to_number": lambda s, x: s.strings.to_number(x),
    "reduce_join": lambda s, x: s.strings.reduce_join(x),  # join left out: strings.py's _NON_STRING says why
    "split": lambda s, x: s.strings.split(x), "bytes_split": lambda s, x: s.strings.bytes_split(x),
    "unicode_split": lambda s, x: s.strings.unicode_split(x, "UTF-8"),
    "unicode_decode": lambda s, x: s.strings.unicode_decode(x, "UTF-8"),
    "to_hash_bucket_fast": lambda s, x: s.strings.to_hash_bucket_fast(x, 3),
    "to_hash_bucket": lambda s, x: s.strings.to_hash_bucket(x, 3),
    "to_hash_bucket_strong": lambda s, x: s.strings.to_hash_bucket_strong(x, 3, [1, 2]),
    "unsorted_segment_join": lambda s, x: s.strings.unsorted_segment_join(x, [0], 1),
    "unicode_transcode": lambda s, x: s.strings.unicode_transcode(x, "UTF-8", "UTF-8"),
    "ngrams": lambda s, x: s.strings.ngrams(x, 1),
}


@pytest.mark.parametrize("op", sorted(ONE_INPUT))
@pytest.mark.parametrize("as_tensor", [False, True])
def test_numbers_are_refused_with_tfs_class(op, as_tensor):
    """A list of numbers or a numeric tensor is refused with the class TF's wrapper or kernel raises."""
    def call(side):
        return ONE_INPUT[op](side, side.constant([1]) if as_tensor else [1])
    assert _outcome(lambda: call(tg)) == _outcome(lambda: call(ref))


@pytest.mark.parametrize("case", sorted(CASES))
def test_strings_case_as_tf(case):
    assert _outcome(lambda: CASES[case](tg)) == _outcome(lambda: CASES[case](ref))


PATTERNS = [r"\d+", r"[a-z]+", r"^a", r"a$", r"(a|b)*", r"a{2,3}", r"[^\s]+", r"\bfoo\b", r"(?i)abc", r"\.", r"[\d.]+",
            r"a+?", r"(?:ab)+", r"[\w-]+", r"\S+@\S+", r"^$", r"\p{L}+", r"\pL", r"\PL", r"[\p{Lu}\d]", r"[[:digit:]]+",
            r"\Qa.b\E", r"(?s).", r"(?m)^a", r"\Aa", r"[\x00-\x7f]", r"\x41", r"\t", r"[^[:alpha:]]", r"[^]a]",
            r"[a\]]",
            r"\W", r"[\W]", r"[^\d]", r"[[:^alpha:]]", r"[\s\S]", r"a**", r"(?P<n>a)", r"\Z", r"a{,2}", r"a{2}", r"é+",
            r"[é-ü]", r"\u00e9", r"\N{LATIN SMALL LETTER E}", r"\n", r"x*", r"\b", r"(a)(b)?", r"[", r"(", r")",
            r"a{3,1}",
            r"\8", r"(?i:A)b", r"(?=a)", r"(a)\1"]
SUBJECTS = EDGE + ["foo bar", "a.b", "aaa", "ab ab", "x@y.z", "12.5", "AbC", "a\nb", "a-b_c", "]]a", "\x00\x7f", "aA"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_regex_pattern_as_tf(pattern):
    for call in (lambda s: s.strings.regex_full_match(SUBJECTS, pattern),
                 lambda s: s.strings.regex_replace(SUBJECTS, pattern, r"<\0>"),
                 lambda s: s.strings.regex_replace(SUBJECTS, pattern, "#", replace_global=False)):
        assert _outcome(lambda: call(tg)) == _outcome(lambda: call(ref))


@pytest.mark.parametrize("pattern", [r"\C", r"(?U)a+", r"a(?i)b", r"\p{Greek}"])
def test_untranslated_re2_syntax_is_unimplemented(pattern):
    assert _outcome(lambda: ref.strings.regex_full_match(["a"], pattern))[0] == "bool"  # TF reads it
    with pytest.raises(tg.errors.UnimplementedError):
        tg.strings.regex_full_match(["a"], pattern)


def _random_strings(rng, count, longest=200):
    """Byte strings of every length 0..longest, random bytes (many not UTF-8) and random text."""
    out = [bytes(rng.integers(0, 256, rng.integers(0, longest + 1), dtype=np.uint8)) for _ in range(count)]
    return out + [bytes(rng.integers(0, 256, n, dtype=np.uint8)) for n in range(longest + 1)]


@pytest.mark.parametrize("num_buckets", [2 ** 63 - 1, 2 ** 62, 1000003, 1])
def test_hash_buckets_bit_equal_to_tf(num_buckets):
    values = _random_strings(np.random.default_rng(num_buckets % 1000), 3000)
    for op in ("to_hash_bucket_fast", "to_hash_bucket"):
        np.testing.assert_array_equal(getattr(tg.strings, op)(values, num_buckets).numpy(),
                                      getattr(ref.strings, op)(values, num_buckets).numpy(), err_msg=op)
    for key in ([0, 0], [1, 2], [-1, 2 ** 63 - 1], [12345678901234, -987654321]):
        np.testing.assert_array_equal(tg.strings.to_hash_bucket_strong(values, num_buckets, key).numpy(),
                                      ref.strings.to_hash_bucket_strong(values, num_buckets, key).numpy())


def _unicode_soup(rng, count):
    """Short byte strings drawn from bytes that make valid, truncated and invalid UTF-8, UTF-16 and UTF-32."""
    alphabet = np.array([0x00, 0x01, 0x1f, 0x41, 0x7f, 0x80, 0x85, 0xbf, 0xc0, 0xc2, 0xc3, 0xd8, 0xdc, 0xdf, 0xe0,
                         0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xfe, 0xff, 0x10, 0x11], dtype=np.uint8)
    return [bytes(rng.choice(alphabet, rng.integers(0, 13))) for _ in range(count)]


@pytest.mark.parametrize("source", ["UTF-8", "UTF-16-BE", "UTF-32-BE"])
@pytest.mark.parametrize("errors", ["replace", "ignore"])
@pytest.mark.parametrize("control", [False, True])
def test_transcode_random_bytes_as_tf(source, errors, control):
    values = _unicode_soup(np.random.default_rng(len(source)), 2000)
    kwargs = dict(errors=errors, replace_control_characters=control, replacement_char=0x2022)
    for target in ("UTF-8", "UTF-16-BE"):
        ours = tg.strings.unicode_transcode(values, source, target, **kwargs).numpy().tolist()
        theirs = ref.strings.unicode_transcode(values, source, target, **kwargs).numpy().tolist()
        assert ours == theirs


@pytest.mark.parametrize("unit", ["BYTE", "UTF8_CHAR"])
def test_length_and_case_of_random_bytes_as_tf(unit):
    values = _unicode_soup(np.random.default_rng(7), 2000) + EDGE
    ours, theirs = (side.strings.length(values, unit=unit).numpy().tolist() for side in (tg, ref))
    assert ours == theirs
    for op in ("lower", "upper"):
        assert (getattr(tg.strings, op)(values, encoding="utf-8").numpy().tolist() ==
                getattr(ref.strings, op)(values, encoding="utf-8").numpy().tolist()), op


@pytest.mark.parametrize("call", [lambda s: s.strings.split(["a b"]), lambda s: s.strings.bytes_split(["ab"]),
                                  lambda s: s.strings.unicode_split(["ab"], "UTF-8"),
                                  lambda s: s.strings.unicode_decode(["ab"], "UTF-8")])
def test_ragged_results_are_ragged_tensors(call):
    assert isinstance(call(ref), ref.RaggedTensor) and isinstance(call(tg), tg.RaggedTensor)
    assert call(tg).to_list() == call(ref).to_list()


def test_public_names_are_tfs():
    ours = {n for n in dir(tg.strings) if not n.startswith("_")}
    assert ours <= {n for n in dir(ref.strings) if not n.startswith("_")}


_JOIN_REFUSED = {"a number": lambda tf: ["a", 1], "a float alone": lambda tf: [1.5],
                 "a numeric tensor alone": lambda tf: [tf.constant([1, 2])],
                 "tensors, the second numeric": lambda tf: [tf.constant(["a"]), tf.constant([1])],
                 "a numeric tensor after text": lambda tf: ["a", tf.constant(1)],
                 "a NumPy integer": lambda tf: ["a", np.int32(1)], "None": lambda tf: ["a", None]}


@pytest.mark.parametrize("case", list(_JOIN_REFUSED))
def test_join_refuses_what_is_not_text_with_tfs_class(case):
    # TF's classes differ by path: tensors alone reach the kernel (InvalidArgumentError naming the input),
    # Python values among them are converted first (TypeError for a number, ValueError for the rest)
    classes = []
    for tf in (ref, tg):
        with pytest.raises(Exception) as info:
            tf.strings.join(_JOIN_REFUSED[case](tf))
        classes.append(type(info.value).__name__)
    assert classes[1] == classes[0]
