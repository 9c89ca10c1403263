"""tf.debugging's assertions against TensorFlow: the same error class and text for eager failures.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

CASES = {
    "equal": lambda tf: tf.debugging.assert_equal(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 5.0, 3.0]), message="m"),
    "less_2d": lambda tf: tf.debugging.assert_less(tf.reshape(tf.range(6), [2, 3]), tf.ones([2, 3], tf.int32)),
    "none_equal_bcast": lambda tf: tf.debugging.assert_none_equal(tf.constant([1.0, 2.0]), 1.0),
    "positive": lambda tf: tf.debugging.assert_positive(tf.range(20), summarize=4, message="p"),
    "non_positive": lambda tf: tf.debugging.assert_non_positive(tf.constant([1.0, 2.0])),
    "near": lambda tf: tf.debugging.assert_near(tf.constant([1.0], tf.float64), tf.constant([1.1], tf.float64),
                                                rtol=0.01, atol=0.01),
    "Assert": lambda tf: tf.debugging.Assert(False, [tf.range(10), "text", 1.5, True]),
    "rank": lambda tf: tf.debugging.assert_rank(tf.zeros([3]), 2, message="r"),
    "rank_in": lambda tf: tf.debugging.assert_rank_in(tf.zeros([3]), (0, 2)),
    "scalar": lambda tf: tf.debugging.assert_scalar(tf.zeros([3])),
    "type": lambda tf: tf.debugging.assert_type(tf.zeros([3]), tf.int32),
    "integer": lambda tf: tf.debugging.assert_integer(tf.zeros([3])),
    "same_float": lambda tf: tf.debugging.assert_same_float_dtype([tf.constant(1)]),
    "shapes": lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "D")), (tf.zeros([4]), ("D",))]),
    "shapes_star": lambda tf: tf.debugging.assert_shapes([(tf.zeros([5, 4]), ("*", "D")), (tf.zeros([3]), ("D",))]),
    "all_finite": lambda tf: tf.debugging.assert_all_finite(tf.constant([1.0, np.nan]), "bad"),
}


def _outcome(tf, case):
    try:
        CASES[case](tf)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None, None


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_error_and_text_as_tensorflow(case):
    ours, theirs = _outcome(tg, case), _outcome(ref, case)
    assert ours[0] == theirs[0]
    assert ours[1] in theirs[1]  # TF's op errors add a node prefix and suffix
