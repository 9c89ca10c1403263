"""TensorShape as TF defines it (tests/oracle/test_tf_oracle_shapes.py compares the same and more with TF
itself when it is installed): == converts the other side, slices and sums are shapes, a scalar's
shape is true, TensorShape(None) has unknown rank."""
import pytest

import tapegrad as tf


def test_a_shape_equals_a_list_or_tuple_of_its_dimensions():
    x = tf.zeros([2, 3])
    assert x.shape == [2, 3] and x.shape == (2, 3) and x.shape != [2, 4]
    assert tf.TensorShape([None, 2]) == tf.TensorShape([None, 2])
    assert tf.TensorShape([]) != tf.TensorShape(None)


def test_slices_and_sums_are_shapes():
    s = tf.TensorShape([1, 2, 3])
    assert isinstance(s[1:], tf.TensorShape) and s[1:] == [2, 3]
    assert repr(s[:1] + [4]) == "TensorShape([1, 4])"
    assert repr([4] + s[:1]) == "TensorShape([4, 1])"


def test_truth_is_known_rank():
    assert bool(tf.zeros([]).shape) is True
    assert bool(tf.TensorShape(None)) is False


def test_unknown_rank():
    s = tf.TensorShape(None)
    assert s.rank is None and s.dims is None and s.num_elements() is None
    assert str(s) == "<unknown>" and repr(s) == "TensorShape(None)"
    assert s.is_compatible_with([1, 2]) and not s.is_fully_defined()
    for fn in (len, list, lambda v: v.as_list()):
        with pytest.raises(ValueError, match="unknown"):
            fn(s)
    assert repr(s.with_rank(2)) == "TensorShape([None, None])"
    assert repr(tf.TensorSpec(None)) == "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)"
    assert tf.TensorSpec(None).shape.rank is None


def test_merging_and_rank_checks():
    assert tf.TensorShape([None, 2]).merge_with([3, None]) == [3, 2]
    with pytest.raises(ValueError, match=r"Shapes \(1, 2\) and \(3, 2\) are not compatible"):
        tf.TensorShape([1, 2]).merge_with([3, 2])
    assert repr(tf.TensorShape([1, 2]).most_specific_compatible_shape([1, 3])) == "TensorShape([1, None])"
    with pytest.raises(ValueError, match=r"Shape \(1,\) must have rank 2"):
        tf.TensorShape([1]).with_rank(2)
    with pytest.raises(ValueError, match="must have rank at most 1"):
        tf.TensorShape([1, 2]).with_rank_at_most(1)
    assert [d.value for d in tf.TensorShape([3, None]).dims] == [3, None]


@pytest.mark.parametrize("dims, error", [("a", TypeError), ([1.5], TypeError), ([-1], ValueError), (object(), TypeError)])
def test_bad_dimensions_raise(dims, error):
    with pytest.raises(error):
        tf.TensorShape(dims)


def test_an_unknown_rank_gives_no_tuple_answers():
    s = tf.TensorShape(None)
    for fn in (lambda: None in s, lambda: s * 2, lambda: s.count(None), lambda: s < (1,)):
        with pytest.raises(ValueError, match="unknown"):
            fn()


def test_shapes_are_nest_leaves_and_unknown_shapes_are_accepted_where_tf_accepts_them():
    assert tf.nest.flatten([tf.TensorShape(None), tf.TensorShape([2, 3])]) == [tf.TensorShape(None), tf.TensorShape([2, 3])]
    assert tf.TensorArray(tf.float32, size=1, element_shape=tf.TensorShape(None)).element_shape.rank is None
    with pytest.raises(ValueError, match="rank >= 1"):
        tf.TensorArray(tf.float32, size=1).unstack(tf.constant(1.0))
