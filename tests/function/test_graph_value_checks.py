"""Checks on tensor values (indices in range, no negative integer exponents, no integer division by
zero) run at every call of a traced graph, not only while tracing: a graph runs its shape rules once,
and an index out of range must never reach a kernel's memory access."""
import pytest

import tapegrad as tf
from tapegrad.errors import InvalidArgumentError


@pytest.mark.parametrize("fn, good, bad, words", [
    (lambda p, i: tf.gather(p, i), (tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 2])),
     (tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 7])), ["GatherV2", "index 7", "out of range"]),
    (lambda p, i: tf.gather(p, i) * 2.0, (tf.constant([1.0, 2.0, 3.0]), tf.constant([1])),
     (tf.constant([1.0, 2.0, 3.0]), tf.constant([-1])), ["GatherV2", "index -1"]),
    (lambda d, s: tf.math.unsorted_segment_sum(d, s, 3), (tf.ones([2]), tf.constant([0, 1])),
     (tf.ones([2]), tf.constant([0, 5])), ["UnsortedSegmentSum", "segment_ids[1] = 5"]),
    (lambda a, b: a ** b + 1, (tf.constant([2, 3]), tf.constant([1, 2])),
     (tf.constant([2, 3]), tf.constant([1, -2])), ["Pow", "negative integer powers"]),
    (lambda a, b: a // b + 1, (tf.constant([2, 3]), tf.constant([1, 2])),
     (tf.constant([2, 3]), tf.constant([1, 0])), ["FloorDiv", "division by zero"]),
])
def test_a_traced_graph_checks_values_at_every_call(fn, good, bad, words):
    f = tf.function(fn)
    f(*good)  # traced here, with values that pass
    with pytest.raises(InvalidArgumentError) as e:
        f(*bad)  # the same graph, run again
    for w in words:
        assert w in str(e.value)
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("fn, args, words", [
    (lambda x, a: tf.concat([x, x], a), (tf.constant([1.0, 5.0, 3.0]), tf.constant(0)), ["concat", "'axis'"]),
    (lambda x, a: tf.reduce_sum(x, axis=a), (tf.ones([2, 3]), tf.constant(1)), ["reduce_sum", "'axis'"]),
    (lambda x, p: tf.transpose(x, p), (tf.ones([2, 3]), tf.constant([1, 0])), ["transpose", "'perm'"]),
])
def test_an_attribute_from_a_traced_tensor_raises_instead_of_keeping_the_first_value(fn, args, words):
    # The value would be read once, while tracing, and silently reused by every later call.
    with pytest.raises(TypeError) as e:
        tf.function(fn)(*args)
    for w in words:
        assert w in str(e.value)
    # A constant made inside the function is fine: it is the same at every call.
    assert float(tf.function(lambda x: tf.reduce_sum(tf.reduce_sum(x, axis=tf.constant(1))))(tf.ones([2, 3]))) == 6.0
