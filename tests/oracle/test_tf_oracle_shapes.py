"""TensorShape and TensorSpec run by TensorFlow and by tapegrad from the same code: the same result
(compared by repr) or the same error class. Skipped when TensorFlow does not import, unless
TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import pickle

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

# name -> expression(tf): the same code for both libraries
EXPRESSIONS = {
    "bool_scalar": lambda tf: bool(tf.TensorShape([])),
    "bool_unknown": lambda tf: bool(tf.TensorShape(None)),
    "eq_list": lambda tf: tf.TensorShape([1, 2]) == [1, 2],
    "eq_tuple": lambda tf: tf.TensorShape([1, 2]) == (1, 2),
    "eq_unknown_dims": lambda tf: tf.TensorShape([None, 2]) == tf.TensorShape([None, 2]),
    "ne_list": lambda tf: tf.TensorShape([1, 2]) != [1, 3],
    "eq_unknown_rank": lambda tf: tf.TensorShape(None) == tf.TensorShape(None),
    "eq_unknown_vs_scalar": lambda tf: tf.TensorShape(None) == tf.TensorShape([]),
    "eq_int": lambda tf: tf.TensorShape([1]) == 1,
    "eq_none": lambda tf: tf.TensorShape([1]) == None,  # noqa: E711 (TF's __eq__ on None)
    "slice": lambda tf: tf.TensorShape([1, 2, 3])[1:],
    "index": lambda tf: tf.TensorShape([1, None])[1],
    "index_out_of_range": lambda tf: tf.TensorShape([1])[3],
    "add": lambda tf: tf.TensorShape([1]) + tf.TensorShape([2, None]),
    "add_list": lambda tf: tf.TensorShape([1]) + [2],
    "radd_list": lambda tf: [2] + tf.TensorShape([1]),
    "concatenate": lambda tf: tf.TensorShape([1]).concatenate([3]),
    "concatenate_unknown": lambda tf: tf.TensorShape([1]).concatenate(None),
    "merge_with": lambda tf: tf.TensorShape([None, 2]).merge_with([3, None]),
    "merge_with_conflict": lambda tf: tf.TensorShape([1, 2]).merge_with([3, 2]),
    "merge_unknown": lambda tf: tf.TensorShape(None).merge_with([1]),
    "is_fully_defined": lambda tf: [tf.TensorShape(s).is_fully_defined() for s in ([1, 2], [None], None, [])],
    "dims": lambda tf: (tf.TensorShape([1, None]).dims, tf.TensorShape(None).dims),
    "dims_value": lambda tf: tf.TensorShape([3, None]).dims[0].value,
    "with_rank": lambda tf: tf.TensorShape(None).with_rank(2),
    "with_rank_wrong": lambda tf: tf.TensorShape([1]).with_rank(2),
    "with_rank_at_least": lambda tf: tf.TensorShape([1, 2]).with_rank_at_least(1),
    "with_rank_at_most_wrong": lambda tf: tf.TensorShape([1, 2]).with_rank_at_most(1),
    "assert_is_compatible_with": lambda tf: tf.TensorShape([1, 2]).assert_is_compatible_with([1, 3]),
    "assert_has_rank": lambda tf: tf.TensorShape([1, 2]).assert_has_rank(3),
    "assert_same_rank": lambda tf: tf.TensorShape([1, 2]).assert_same_rank(tf.TensorShape([1])),
    "most_specific": lambda tf: tf.TensorShape([1, 2]).most_specific_compatible_shape([1, 3]),
    "num_elements": lambda tf: [tf.TensorShape(s).num_elements() for s in ([2, 3], None, [], [None, 2])],
    "len_unknown": lambda tf: len(tf.TensorShape(None)),
    "iter_unknown": lambda tf: list(tf.TensorShape(None)),
    "str": lambda tf: [str(tf.TensorShape(s)) for s in ([1, None], None, [], [3])],
    "as_list_unknown": lambda tf: tf.TensorShape(None).as_list(),
    "rank_unknown": lambda tf: (tf.TensorShape(None).rank, tf.TensorShape(None).ndims),
    "compatible_unknown": lambda tf: (tf.TensorShape(None).is_compatible_with([1, 2]),
                                      tf.TensorShape([1]).is_compatible_with(tf.TensorShape(None))),
    "compatible_list": lambda tf: tf.TensorShape([None, 2]).is_compatible_with([5, 2]),
    "from_int": lambda tf: tf.TensorShape(3),
    "from_numpy_int": lambda tf: tf.TensorShape(np.int64(3)),
    "from_shape": lambda tf: tf.TensorShape(tf.TensorShape([1, 2])),
    "from_string": lambda tf: tf.TensorShape("a"),
    "from_float": lambda tf: tf.TensorShape([1.5]),
    "negative": lambda tf: tf.TensorShape([-1]),
    "dict_key": lambda tf: {tf.TensorShape([1]): 1}[tf.TensorShape([1])],
    "unknown_index": lambda tf: tf.TensorShape(None)[0],
    "unknown_slice": lambda tf: tf.TensorShape(None)[1:],
    "pickle": lambda tf: pickle.loads(pickle.dumps(tf.TensorShape([1, None]))),
    "pickle_unknown": lambda tf: pickle.loads(pickle.dumps(tf.TensorShape(None))),
    "tensor_shape_eq_list": lambda tf: tf.zeros([2, 3]).shape == [2, 3],
    "tensor_shape_slice": lambda tf: tf.zeros([2, 3]).shape[1:],
    "tensor_shape_add": lambda tf: tf.zeros([2, 3]).shape + [4],
    "scalar_tensor_shape_bool": lambda tf: bool(tf.zeros([]).shape),
    "spec_unknown_shape": lambda tf: tf.TensorSpec(None).shape,
    "spec_unknown_repr": lambda tf: tf.TensorSpec(None),
    "spec_from_unknown_shape": lambda tf: tf.TensorSpec(tf.TensorShape(None)).shape,
    "spec_eq_unknown": lambda tf: tf.TensorSpec(None) == tf.TensorSpec(None),
    "spec_compatible_unknown": lambda tf: tf.TensorSpec(None).is_compatible_with(tf.constant([[1.0]])),
    "spec_hash": lambda tf: hash(tf.TensorSpec([1])) == hash(tf.TensorSpec((1,))),
    "tensor_array_element_shape": lambda tf: (tf.TensorArray(tf.float32, size=1).element_shape,
                                              tf.TensorArray(tf.float32, size=1, element_shape=[2]).element_shape),
}


def _observed(lib, expression):
    try:
        return "value", repr(expression(lib))
    except Exception as e:  # noqa: BLE001 (the error class is what is compared)
        return "error", type(e).__name__


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_shape_semantics_match_tf(name):
    assert _observed(tg, EXPRESSIONS[name]) == _observed(ref, EXPRESSIONS[name])
