"""tf.data.Dataset: each transformation against the element orders, structures, cardinalities and
error classes TensorFlow 2.21 gives (asked of TF; the expected values are written out here)."""
import gc
import threading
import time

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import errors

D = tf.data.Dataset


def values(ds):
    """The elements as plain Python/NumPy values, nested as TF's as_numpy_iterator gives them."""
    def plain(v):
        if isinstance(v, tuple):
            return tuple(plain(x) for x in v)
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v.tolist()
    return [plain(v) for v in ds.as_numpy_iterator()]


def card(ds):
    return int(ds.cardinality())


UNKNOWN = D.range(5).filter(lambda x: True)


# ---- sources and element_spec
@pytest.mark.parametrize("value, shape, dtype", [
    ([1, 2, 3], (), tf.int32),
    ([1.0, 2.0], (), tf.float32),
    (np.zeros((3, 2)), (2,), tf.float64),
    ([np.zeros(2), np.ones(2)], (2,), tf.float64),  # a list is a tensor, not a structure
    (np.zeros((3, 2), np.uint8), (2,), tf.uint8),    # a NumPy array keeps its dtype, as in TF
])
def test_from_tensor_slices_spec(value, shape, dtype):
    spec = D.from_tensor_slices(value).element_spec
    assert spec == tf.TensorSpec(shape, dtype)


def test_from_tensor_slices_structures_keep_their_nesting_and_dict_order():
    ds = D.from_tensor_slices({"b": [1, 2], "a": (np.zeros((2, 3)), [True, False])})
    spec = ds.element_spec
    assert list(spec) == ["b", "a"] and isinstance(spec["a"], tuple)
    assert spec["a"] == (tf.TensorSpec([3], tf.float64), tf.TensorSpec([], tf.bool))
    first = next(iter(ds))
    assert list(first) == ["b", "a"] and isinstance(first["a"], tuple)
    assert isinstance(first["b"], tf.Tensor) and first["b"].dtype == tf.int32
    assert values(ds)[1] == {"b": 2, "a": ([0.0, 0.0, 0.0], False)}


def test_from_tensor_slices_of_strings():
    ds = D.from_tensor_slices(["a", "bc"])
    assert ds.element_spec == tf.TensorSpec([], tf.string)
    assert list(ds.as_numpy_iterator()) == [b"a", b"bc"]


def test_from_tensor_slices_tuple_iterates_as_tuples_of_tensors():
    elements = list(D.from_tensor_slices(([1, 2], [3.0, 4.0])))
    assert all(type(e) is tuple and len(e) == 2 for e in elements)
    assert [(int(a), float(b)) for a, b in elements] == [(1, 3.0), (2, 4.0)]
    assert elements[0][1].dtype == tf.float32


@pytest.mark.parametrize("value, error", [(3, ValueError), ((np.zeros(3), np.zeros(4)), ValueError), ((), ValueError),
                                          (None, ValueError)])
def test_from_tensor_slices_errors(value, error):
    with pytest.raises(error):
        D.from_tensor_slices(value)


def test_from_tensor_slices_of_empty_arrays():
    ds = D.from_tensor_slices(np.zeros((0, 3)))
    assert card(ds) == 0 and values(ds) == [] and ds.element_spec == tf.TensorSpec([3], tf.float64)


def test_from_tensors():
    ds = D.from_tensors((np.zeros((3, 2)), 1))
    assert ds.element_spec == (tf.TensorSpec([3, 2], tf.float64), tf.TensorSpec([], tf.int32))
    assert card(ds) == 1 and len(values(ds)) == 1


def test_range():
    assert values(D.range(5)) == [0, 1, 2, 3, 4]
    assert values(D.range(2, 10, 3)) == [2, 5, 8]
    assert values(D.range(5, 0, -2)) == [5, 3, 1]
    assert D.range(3).element_spec == tf.TensorSpec([], tf.int64)
    assert D.range(3, output_type=tf.int32).element_spec == tf.TensorSpec([], tf.int32)
    assert type(next(D.range(2).as_numpy_iterator())) is np.int64
    it = D.range(3).as_numpy_iterator()  # TF's iterator has next() too
    assert it.next() == 0 and next(it) == 1 and list(it) == [2] and iter(it) is it
    with pytest.raises(errors.InvalidArgumentError):
        D.range(1, 5, 0)


def test_from_generator_signature_and_conversion():
    sig = tf.TensorSpec([2], tf.float32)
    assert values(D.from_generator(lambda: iter([[1, 2], [3, 4]]), output_signature=sig)) == [[1.0, 2.0], [3.0, 4.0]]
    ds = D.from_generator(lambda: iter([(1, [2.0])]), output_types=(tf.int64, tf.float32), output_shapes=((), (None,)))
    assert ds.element_spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec([None], tf.float32))
    assert D.from_generator(lambda: iter([1]), output_types=tf.int32).element_spec.shape.rank is None
    assert values(D.from_generator(lambda a, b: iter([a, b]), args=(1, 2),
                                   output_signature=tf.TensorSpec([], tf.int32))) == [1, 2]
    assert card(D.from_generator(lambda: iter([1]), output_signature=tf.TensorSpec([], tf.int32))) == -2


def test_from_generator_calls_the_generator_again_each_iteration():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    ds = D.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64))
    assert values(ds) == values(ds) == [0, 1, 2] and len(calls) == 2


@pytest.mark.parametrize("kwargs, error", [
    (dict(), TypeError),
    (dict(output_types=tf.int32, output_signature=tf.TensorSpec([], tf.int32)), TypeError),
])
def test_from_generator_signature_errors(kwargs, error):
    with pytest.raises(error):
        D.from_generator(lambda: iter([1]), **kwargs)
    with pytest.raises(TypeError):
        D.from_generator(iter([1]), output_signature=tf.TensorSpec([], tf.int32))


@pytest.mark.parametrize("items, sig", [
    ([[1, 2, 3]], tf.TensorSpec([2], tf.float32)),     # shape
    ([["a", "b"]], tf.TensorSpec([2], tf.float32)),   # type
    ([(1, 2)], (tf.TensorSpec([], tf.float32),)),      # structure
])
def test_from_generator_bad_elements_raise_invalid_argument(items, sig):
    with pytest.raises(errors.InvalidArgumentError, match="generator"):
        list(D.from_generator(lambda: iter(items), output_signature=sig))


def test_zip_structures_and_cardinality():
    assert values(D.zip((D.range(3), D.range(5, 7)))) == [(0, 5), (1, 6)]
    nested = D.zip((D.range(3), (D.range(2), D.range(4))))
    assert values(nested) == [(0, (0, 0)), (1, (1, 1))]
    assert list(D.zip({"a": D.range(3), "b": D.range(2)}).element_spec) == ["a", "b"]
    assert D.zip(D.range(3), D.range(2)).element_spec == (tf.TensorSpec([], tf.int64),) * 2
    assert card(D.zip((D.range(3), D.range(2).repeat()))) == 3
    assert card(D.zip((UNKNOWN, D.range(3)))) == -2
    assert card(D.zip((D.range(3).repeat(), D.range(3).repeat()))) == -1
    with pytest.raises(TypeError):
        D.zip((D.range(3), 5))
    with pytest.raises(TypeError):
        D.zip([D.range(2), D.range(3)])
    with pytest.raises(TypeError):
        D.zip()
    with pytest.raises(errors.InvalidArgumentError):
        D.zip(())


def test_concatenate():
    assert values(D.range(2).concatenate(D.range(5, 7))) == [0, 1, 5, 6]
    assert card(D.range(2).concatenate(D.range(5, 7))) == 4
    assert card(D.range(3).repeat().concatenate(UNKNOWN)) == -1
    assert card(D.range(2).concatenate(UNKNOWN)) == -2
    with pytest.raises(TypeError):
        D.range(2).concatenate(D.from_tensor_slices([1.0, 2.0]))


# ---- batching
def test_batch():
    assert values(D.range(7).batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert values(D.range(7).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert D.range(7).batch(3).element_spec == tf.TensorSpec([None], tf.int64)
    assert D.range(7).batch(3, drop_remainder=True).element_spec == tf.TensorSpec([3], tf.int64)
    assert [card(D.range(7).batch(3)), card(D.range(7).batch(3, True))] == [3, 2]
    assert [card(D.range(3).repeat().batch(2)), card(UNKNOWN.batch(2))] == [-1, -2]


def test_batch_of_elements_and_rows_agree():
    x = np.arange(20.0, dtype=np.float32).reshape(10, 2)
    rows = values(D.from_tensor_slices((x, np.arange(10))).batch(4))
    elements = values(D.from_tensor_slices((x, np.arange(10))).map(lambda a, b: (a, b)).batch(4))
    assert rows == elements and len(rows) == 3 and rows[2][1] == [8, 9]


@pytest.mark.parametrize("size", [0, -1])
def test_batch_size_must_be_positive(size):
    with pytest.raises(errors.InvalidArgumentError):
        D.range(7).batch(size)
    with pytest.raises(errors.InvalidArgumentError):
        D.range(7).padded_batch(size)


def test_batch_of_different_shapes_raises():
    ds = D.from_generator(lambda: ([1] * i for i in range(1, 4)), output_signature=tf.TensorSpec([None], tf.int32))
    with pytest.raises(errors.InvalidArgumentError, match="different shapes in component 0"):
        list(ds.batch(2))


def test_batch_size_must_be_an_integer():
    with pytest.raises(TypeError):
        D.range(3).batch(1.5)
    with pytest.raises(TypeError):
        D.range(3).take(1.5)


def test_unbatch():
    ds = D.from_tensor_slices(np.arange(6).reshape(3, 2)).batch(2).unbatch()
    assert values(ds) == [[0, 1], [2, 3], [4, 5]]
    assert D.range(3).batch(2).unbatch().element_spec == tf.TensorSpec([], tf.int64)
    assert card(D.range(6).batch(2).unbatch()) == -2
    assert card(D.range(3).batch(2, True).unbatch()) == 2
    with pytest.raises(ValueError):
        D.range(3).unbatch()


def _ragged():
    return D.from_generator(lambda: ([1] * i for i in range(1, 4)), output_signature=tf.TensorSpec([None], tf.int32))


def test_padded_batch():
    assert values(_ragged().padded_batch(2)) == [[[1, 0], [1, 1]], [[1, 1, 1]]]
    assert values(_ragged().padded_batch(2, padded_shapes=[4], padding_values=-1)) == [
        [[1, -1, -1, -1], [1, 1, -1, -1]], [[1, 1, 1, -1]]]
    assert _ragged().padded_batch(2, padded_shapes=[4]).element_spec == tf.TensorSpec([None, 4], tf.int32)
    assert values(D.range(3).padded_batch(2)) == [[0, 1], [2]]
    tup = D.from_tensor_slices(([[1], [2]], [[3.0], [4.0]])).padded_batch(2, padded_shapes=([2], [3]),
                                                                          padding_values=(-1, 9.0))
    assert values(tup) == [([[1, -1], [2, -1]], [[3.0, 9.0, 9.0], [4.0, 9.0, 9.0]])]


def test_padded_batch_errors():
    with pytest.raises(errors.DataLossError):
        list(_ragged().padded_batch(2, padded_shapes=[2]))
    with pytest.raises(TypeError):
        D.from_tensor_slices(([[1], [2]],)).padded_batch(2, padding_values=(1.5,))
    with pytest.raises(ValueError):
        D.from_tensor_slices([[1], [2]]).padded_batch(2, padded_shapes=[2, 2])


# ---- order and selection
def test_take_skip_repeat():
    assert values(D.range(4).take(-1)) == [0, 1, 2, 3] == values(D.range(4).take(-5))
    assert values(D.range(4).skip(-1)) == [] and values(D.range(4).skip(2)) == [2, 3]
    assert values(D.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2] and values(D.range(3).repeat(0)) == []
    assert values(D.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0] == values(D.range(3).repeat(-3).take(7))
    assert values(D.range(0).repeat()) == []
    assert [card(D.range(3).repeat()), card(D.range(3).repeat(0)), card(D.range(0).repeat())] == [-1, 0, 0]
    assert [card(UNKNOWN.repeat()), card(UNKNOWN.repeat(2))] == [-1, -2]
    assert [card(D.range(3).repeat().take(5)), card(UNKNOWN.take(5)), card(D.range(3).take(5))] == [5, -2, 3]
    assert [card(D.range(3).skip(-1)), card(D.range(3).repeat().skip(5)), card(D.range(3).skip(5))] == [0, -1, 0]


def test_take_skip_on_elements_match_rows():
    mapped = D.range(10).map(lambda x: x)
    assert values(mapped.skip(3).take(4)) == values(D.range(10).skip(3).take(4)) == [3, 4, 5, 6]


def test_shard():
    assert [values(D.range(10).shard(3, i)) for i in range(3)] == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]
    assert [card(D.range(10).shard(3, i)) for i in range(3)] == [4, 3, 3]
    assert values(D.range(10).map(lambda x: x).shard(3, 1)) == [1, 4, 7]
    for num, index in [(3, 3), (0, 0), (3, -1)]:
        with pytest.raises(errors.InvalidArgumentError):
            D.range(10).shard(num, index)


def test_enumerate():
    ds = D.from_tensor_slices([7, 8]).enumerate(3)
    assert values(ds) == [(3, 7), (4, 8)]
    assert ds.element_spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.int32))
    assert [card(D.range(3).enumerate()), card(UNKNOWN.enumerate())] == [3, -2]


def test_shuffle_is_a_seeded_permutation_reshuffled_each_iteration():
    ds = D.range(100).shuffle(100, seed=7)
    first, second = values(ds), values(ds)
    assert sorted(first) == sorted(second) == list(range(100))
    assert first != second and first != list(range(100))
    assert values(D.range(100).shuffle(100, seed=7)) == first  # the same seed, the same order
    fixed = D.range(100).shuffle(100, seed=7, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)


@pytest.mark.parametrize("mapped", [False, True])
def test_shuffle_buffer_semantics(mapped):
    # with a buffer of b an element leaves at most b - 1 places before its input position, and the
    # first output is one of the first b inputs
    n, b = 2000, 50
    ds = D.range(n).map(lambda x: x) if mapped else D.range(n)
    for seed in range(3):
        out = np.array(values(ds.shuffle(b, seed=seed)))
        assert sorted(out.tolist()) == list(range(n))
        assert (out - np.arange(n) <= b - 1).all() and out[0] < b
        assert (np.abs(out - np.arange(n)) > b).any()  # late elements drift far: not a local swap


def test_shuffle_buffer_draws_uniformly():
    # the first output is uniform over the first buffer_size inputs
    counts = np.bincount([values(D.range(40).shuffle(4, seed=s))[0] for s in range(400)], minlength=40)
    assert counts[4:].sum() == 0 and counts[:4].min() > 60


def test_shuffle_across_repeat_and_after():
    both = values(D.range(10).shuffle(10, seed=1).repeat(2))
    assert sorted(both[:10]) == sorted(both[10:]) == list(range(10)) and both[:10] != both[10:]
    mixed = values(D.range(10).repeat(2).shuffle(20, seed=1))
    assert sorted(mixed) == sorted(list(range(10)) * 2)


def test_shuffle_arguments():
    assert card(UNKNOWN.shuffle(3)) == -2
    with pytest.raises(errors.InvalidArgumentError):
        D.range(3).shuffle(0)
    with pytest.raises(TypeError):
        D.range(3).shuffle()
    tf.random.set_seed(3)
    a = values(D.range(50).shuffle(50))
    tf.random.set_seed(3)
    assert values(D.range(50).shuffle(50)) == a


def test_cache_replays_the_first_complete_pass():
    ds = D.range(20).shuffle(20, seed=2).cache()
    assert values(ds) == values(ds)
    calls = []
    gen = D.from_generator(lambda: calls.append(1) or iter([1, 2]), output_signature=tf.TensorSpec([], tf.int32))
    cached = gen.cache()
    assert values(cached) == values(cached) == [1, 2] and len(calls) == 1


# ---- functions of elements
def test_map_spreads_tuples_and_passes_dicts():
    assert values(D.from_tensor_slices(([1, 2], [3, 4])).map(lambda a, b: a * b)) == [3, 8]
    assert values(D.from_tensor_slices({"a": [1, 2]}).map(lambda d: d["a"] + 1)) == [2, 3]
    parallel = D.range(4).map(lambda x: x * 3, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    assert values(parallel) == [0, 3, 6, 9]


def test_map_element_spec():
    assert D.range(3).map(lambda x: [x, x]).element_spec == (tf.TensorSpec([], tf.int64),) * 2  # a list: a tuple
    assert D.range(3).map(lambda x: 1).element_spec == tf.TensorSpec([], tf.int32)
    assert D.range(3).map(lambda x: (x, 2.5)).element_spec == (tf.TensorSpec([], tf.int64),
                                                                 tf.TensorSpec([], tf.float32))
    spec = D.from_tensor_slices(np.zeros((4, 3))).batch(2).map(lambda x: tf.reduce_sum(x, axis=1)).element_spec
    assert spec == tf.TensorSpec([None], tf.float64)
    with pytest.raises(TypeError):
        D.range(3).map(lambda x: None)


def test_map_is_traced_once():
    traces = []

    def f(x):
        traces.append(1)
        return x * 2

    ds = D.from_tensor_slices(np.arange(5.0, dtype=np.float32)).map(f)
    assert len(traces) == 1
    assert values(ds) == [0.0, 2.0, 4.0, 6.0, 8.0] and values(ds) == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert len(traces) == 1


def test_map_over_batches_of_varying_size():
    ds = D.from_tensor_slices(np.arange(10.0, dtype=np.float32)).batch(4).map(lambda x: x + 1)
    assert values(ds) == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]]


def test_map_whose_shapes_depend_on_values_runs_eagerly():
    ds = D.range(1, 6).map(lambda n: tf.fill([n], n))
    assert ds.element_spec == tf.TensorSpec([None], tf.int64)
    assert values(ds.padded_batch(2)) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]], [[5, 5, 5, 5, 5]]]


def test_filter():
    assert values(D.range(6).filter(lambda x: x % 2 == 0)) == [0, 2, 4]
    assert values(D.range(3).filter(lambda x: True)) == [0, 1, 2]
    assert card(D.range(3).filter(lambda x: x > 1)) == -2
    with pytest.raises(ValueError, match="tf.bool"):
        D.range(3).filter(lambda x: x)
    with pytest.raises(ValueError, match="tf.bool"):
        D.range(3).filter(lambda x: tf.constant([True, False]))


def test_flat_map_and_reduce():
    assert values(D.range(4).flat_map(lambda x: D.range(x))) == [0, 0, 1, 0, 1, 2]
    assert int(D.range(5).reduce(np.int64(0), lambda s, x: s + x)) == 10
    total, product = D.range(4).reduce((np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * (x + 1)))
    assert (int(total), int(product)) == (6, 24)


def _windows(ds):
    return [values(w) for w in ds]


def test_window():
    assert D.range(7).window(3).element_spec == tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
    assert _windows(D.range(7).window(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert _windows(D.range(7).window(3, shift=1))[4:] == [[4, 5, 6], [5, 6], [6]]
    assert _windows(D.range(7).window(3, shift=2, drop_remainder=True)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    strided = D.range(10).window(3, shift=2, stride=3)
    assert _windows(strided) == [[0, 3, 6], [2, 5, 8], [4, 7], [6, 9], [8]]
    assert _windows(D.range(10).window(3, shift=2, stride=3, drop_remainder=True)) == [[0, 3, 6], [2, 5, 8]]
    assert [card(D.range(7).window(3)), card(D.range(7).window(3, 1)), card(D.range(7).window(3, 2, drop_remainder=True)),
            card(D.range(10).window(3, 2, 3, True)), card(D.range(10).window(3, 2, 3))] == [3, 7, 3, 2, 5]
    assert [card(UNKNOWN.window(3)), card(D.range(7).repeat().window(3))] == [-2, -1]
    for args in [(0,), (2, 0), (2, 1, 0)]:
        with pytest.raises(errors.InvalidArgumentError):
            D.range(3).window(*args)


def test_window_flat_map_batches_sliding_windows():
    ds = D.range(6).window(3, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(3))
    assert ds.element_spec == tf.TensorSpec([None], tf.int64)
    assert values(ds) == [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]]
    pairs = D.zip((D.range(5), D.range(10, 15))).window(2, drop_remainder=True)
    assert values(pairs.flat_map(lambda a, b: D.zip((a.batch(2), b.batch(2))))) == [([0, 1], [10, 11]),
                                                                                  ([2, 3], [12, 13])]
    mapped = D.range(7).window(3).map(lambda w: w.batch(3))
    assert mapped.element_spec == tf.data.DatasetSpec(tf.TensorSpec([None], tf.int64))
    with pytest.raises(TypeError):
        D.range(7).window(3).batch(2)
    with pytest.raises(TypeError):
        D.range(7).window(3).as_numpy_iterator()


def test_interleave():
    ds = D.range(1, 6).interleave(lambda x: D.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
    assert values(ds) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5]
    uneven = D.range(1, 5).interleave(lambda x: D.range(x), cycle_length=3)
    assert values(uneven) == [0, 0, 0, 1, 1, 0, 2, 1, 2, 3] and card(uneven) == -2
    for kwargs in [dict(cycle_length=0), dict(cycle_length=2, block_length=0)]:
        with pytest.raises(errors.InvalidArgumentError):
            D.range(3).interleave(lambda x: D.range(x), **kwargs)


def test_take_while_and_get_single_element():
    assert values(D.range(10).take_while(lambda x: x < 4)) == [0, 1, 2, 3]
    assert card(D.range(10).take_while(lambda x: x < 4)) == -2
    assert int(D.range(1).get_single_element()) == 0
    assert int(tf.data.experimental.get_single_element(D.range(3, 4))) == 3
    for n in (0, 2):
        with pytest.raises(errors.InvalidArgumentError):
            D.range(n).get_single_element()


def test_choose_from_datasets():
    def choices(*c):
        return D.from_tensor_slices(np.array(c, np.int64))

    assert values(D.choose_from_datasets([D.range(3), D.range(10, 13)], choices(0, 1, 1, 0, 0))) == [0, 10, 11, 1, 2]
    assert values(D.choose_from_datasets([D.range(1), D.range(10, 13)], choices(0, 0, 1))) == [0]
    assert values(D.choose_from_datasets([D.range(1), D.range(10, 13)], choices(0, 0, 1),
                                         stop_on_empty_dataset=False)) == [0, 10]
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        list(D.choose_from_datasets([D.range(3), D.range(10, 13)], choices(0, 2)))
    with pytest.raises(TypeError):
        D.choose_from_datasets([D.range(3)], D.from_tensor_slices(np.array([0], np.int32)))


def test_sample_from_datasets():
    ds = D.sample_from_datasets([D.range(3), D.range(10, 13)], seed=1)
    assert sorted(values(ds)) == [0, 1, 2, 10, 11, 12] and card(ds) == -2
    only_first = values(D.sample_from_datasets([D.range(3), D.range(10, 13)], weights=[1.0, 0.0], seed=2,
                                               stop_on_empty_dataset=True))
    assert only_first == [0, 1, 2]
    with pytest.raises(TypeError):
        D.sample_from_datasets([D.range(3), D.from_tensor_slices([1.0])])
    with pytest.raises(ValueError):
        D.sample_from_datasets([D.range(3), D.range(3)], weights=[1.0])
    assert tf.data.experimental.sample_from_datasets is D.sample_from_datasets


def test_assert_cardinality():
    ds = UNKNOWN.apply(tf.data.experimental.assert_cardinality(5))
    assert card(ds) == 5 and len(ds) == 5 and values(ds) == [0, 1, 2, 3, 4]
    with pytest.raises(errors.FailedPreconditionError):
        list(UNKNOWN.apply(tf.data.experimental.assert_cardinality(3)))
    with pytest.raises(errors.FailedPreconditionError):
        list(UNKNOWN.apply(tf.data.experimental.assert_cardinality(7)))


def test_options_are_accepted():
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    options.deterministic = True
    ds = D.range(3).with_options(options)
    assert ds.options().experimental_distribute.auto_shard_policy == tf.data.experimental.AutoShardPolicy.OFF
    assert values(ds) == [0, 1, 2]
    with pytest.raises(TypeError):
        D.range(3).with_options({"deterministic": True})


def test_unique_and_counter():
    assert values(D.from_tensor_slices([1, 3, 1, 2, 3, 5]).unique()) == [1, 3, 2, 5]
    assert card(D.from_tensor_slices([1, 3]).unique()) == -2
    with pytest.raises(TypeError):
        D.from_tensor_slices([1.0, 2.0]).unique()
    counter = D.counter(3, 2)
    assert counter.element_spec == tf.TensorSpec([], tf.int64) and card(counter) == -1
    assert values(counter.take(3)) == [3, 5, 7] and values(D.counter(step=-1).take(2)) == [0, -1]
    assert D.counter(dtype=tf.int32).element_spec == tf.TensorSpec([], tf.int32)


def test_apply():
    assert values(D.range(5).apply(lambda ds: ds.skip(3))) == [3, 4]
    with pytest.raises(TypeError):
        D.range(5).apply(lambda ds: 3)


# ---- inspection and iteration
def test_cardinality_and_len():
    assert card(D.range(5)) == 5 and len(D.range(5)) == 5
    assert D.range(5).cardinality().dtype == tf.int64
    assert int(tf.data.experimental.cardinality(D.range(5))) == 5
    assert (tf.data.AUTOTUNE, tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY) == (-1, -1, -2)
    assert tf.data.experimental.AUTOTUNE == -1
    with pytest.raises(TypeError, match="infinite"):
        len(D.range(5).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(UNKNOWN)


def test_iterator_get_next_and_end():
    it = iter(D.range(2))
    assert int(it.get_next()) == 0 and int(next(it)) == 1
    with pytest.raises(errors.OutOfRangeError):
        it.get_next()
    assert it.element_spec == tf.TensorSpec([], tf.int64)


def test_an_iterator_shared_by_threads_serves_them_all():
    # A generator's __next__ raised "generator already executing" in 3 of 4 threads.
    import threading
    import time

    def slow():
        for i in range(200):
            time.sleep(0.0002)  # long enough for the threads to meet inside the generator
            yield i

    it = iter(D.from_generator(slow, output_signature=tf.TensorSpec([], tf.int32)).map(lambda x: x * 2))
    got, failures = [], []

    def work():
        try:
            for x in it:
                got.append(int(x))
        except Exception as e:  # noqa: BLE001 -- reported below
            failures.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and sorted(got) == list(range(0, 400, 2))


def test_iterating_inside_a_function_is_a_graph_loop_not_unrolled():
    ds = D.range(3)

    @tf.function
    def total():
        s = tf.constant(0, tf.int64)
        for v in ds:
            s += v
        return s

    assert int(total()) == 3 and int(total()) == 3  # tests/data/test_dataset_graph_loop.py has the rest
    assert "While" in list(total._concrete.values())[0].pretty_printed_graph()


# ---- prefetch
def test_prefetch_keeps_order_and_errors():
    assert values(D.range(6).map(lambda x: x + 1).prefetch(2)) == [1, 2, 3, 4, 5, 6]
    assert values(D.range(3).prefetch(0)) == [0, 1, 2] == values(D.range(3).prefetch(tf.data.AUTOTUNE))
    with pytest.raises(errors.InvalidArgumentError):
        D.range(3).prefetch(-5)

    def failing():
        yield 1
        raise RuntimeError("boom")

    ds = D.from_generator(failing, output_signature=tf.TensorSpec([], tf.int32)).prefetch(2)
    with pytest.raises(RuntimeError, match="boom"):
        list(ds)


def _prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "tapegrad.data.prefetch"]


def test_prefetch_thread_stops_when_the_iterator_is_dropped():
    ds = D.range(10 ** 6).map(lambda x: x * 2).prefetch(3)
    it = iter(ds)
    assert int(next(it)) == 0 and _prefetch_threads()
    del it
    gc.collect()
    assert _threads_end()
    it = iter(ds)
    next(it)
    it.close()
    assert _threads_end()


def _threads_end(seconds=10):
    deadline = time.monotonic() + seconds  # generous: the machine may be busy
    while _prefetch_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    return not _prefetch_threads()


# ---- the in-memory fast path gives the same elements as the general one
def test_rows_and_elements_agree_through_a_pipeline():
    x = np.arange(50, dtype=np.float32)

    def pipeline(ds):
        return ds.repeat(2).skip(3).take(80).shard(2, 1).batch(5)

    rows = values(pipeline(D.from_tensor_slices(x)))
    elements = values(pipeline(D.from_tensor_slices(x).map(lambda v: v)))
    assert rows == elements and len(rows) == 8 and rows[0] == [4.0, 6.0, 8.0, 10.0, 12.0]


@pytest.mark.parametrize("make", [
    lambda ds: ds.batch(5).repeat(2).skip(1).take(4).shard(2, 1),
    lambda ds: ds.batch(5).cache().repeat(2),
    lambda ds: ds.batch(5).shuffle(3, seed=1, reshuffle_each_iteration=False).prefetch(2),
    lambda ds: ds.map(lambda v: v + 1).batch(5).repeat(2).take(3),
])
def test_iteration_as_tensors_gives_the_numpy_values(make):
    ds = make(D.from_tensor_slices(np.arange(23, dtype=np.float32)))
    as_tensors = [e.numpy().tolist() for e in ds]
    assert as_tensors == values(ds) and all(isinstance(e, tf.Tensor) for e in ds)


def test_shuffled_rows_through_repeat_and_batch():
    x = np.arange(50, dtype=np.float32)
    got = np.concatenate(values(D.from_tensor_slices(x).shuffle(8, seed=4).repeat(2).batch(7)))
    assert sorted(got[:50].tolist()) == sorted(got[50:].tolist()) == x.tolist()


# TF 2.21's parameter names of each Dataset method (inspect.signature of tf.data.Dataset)
TF_PARAMETERS = {
    "from_tensor_slices": "tensors name", "from_tensors": "tensors name",
    "from_generator": "generator output_types output_shapes args output_signature name",
    "zip": "args datasets name", "concatenate": "self dataset name",
    "batch": "self batch_size drop_remainder num_parallel_calls deterministic name", "unbatch": "self name",
    "padded_batch": "self batch_size padded_shapes padding_values drop_remainder name",
    "shuffle": "self buffer_size seed reshuffle_each_iteration name", "repeat": "self count name",
    "take": "self count name", "skip": "self count name", "shard": "self num_shards index name",
    "cache": "self filename name", "enumerate": "self start name",
    "map": "self map_func num_parallel_calls deterministic synchronous use_unbounded_threadpool name",
    "filter": "self predicate name", "flat_map": "self map_func name", "apply": "self transformation_func",
    "prefetch": "self buffer_size name", "with_options": "self options name",
    "window": "self size shift stride drop_remainder name",
    "interleave": "self map_func cycle_length block_length num_parallel_calls deterministic name",
    "take_while": "self predicate name", "get_single_element": "self name",
    "sample_from_datasets": "datasets weights seed stop_on_empty_dataset rerandomize_each_iteration",
    "choose_from_datasets": "datasets choice_dataset stop_on_empty_dataset",
    "counter": "start step dtype name", "unique": "self name",
}


@pytest.mark.parametrize("method", sorted(TF_PARAMETERS))
def test_dataset_methods_take_tf_parameter_names(method):
    import inspect
    assert " ".join(inspect.signature(getattr(D, method)).parameters) == TF_PARAMETERS[method]


@pytest.mark.parametrize("make, message", [
    (lambda d: d.window(0), "Dataset.window: Window size must be greater than zero, got 0."),
    (lambda d: d.window(2, shift=-1), "Dataset.window: Window shift must be greater than zero, got -1."),
    (lambda d: d.interleave(lambda x: tf.data.Dataset.range(1), cycle_length=0),
     "Dataset.interleave: cycle_length must be greater than zero, got 0."),
    (lambda d: d.interleave(lambda x: tf.data.Dataset.range(1), cycle_length=1, block_length=0),
     "Dataset.interleave: block_length must be greater than zero, got 0."),
])
def test_window_and_interleave_counts_must_be_positive(make, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        make(tf.data.Dataset.range(3))
    assert message in str(info.value)


@pytest.mark.parametrize("make, message", [
    (lambda d: d.filter(lambda x: x), "Dataset.filter: Invalid `predicate`. `predicate` must return a `tf.bool` "
     "scalar tensor, but its return type is TensorSpec(shape=(), dtype=tf.int64, name=None)."),
    (lambda d: d.take_while(lambda x: tf.stack([x < 1, x < 2])), "Dataset.take_while: Invalid `predicate`."),
])
def test_filter_and_take_while_predicates_must_be_bool_scalars(make, message):
    with pytest.raises(ValueError) as info:
        make(tf.data.Dataset.range(3))
    assert message in str(info.value)


def test_an_element_whose_map_function_raises_is_reported_and_iteration_goes_on():
    # TF 2.21: [0, InvalidArgumentError, 20, 30] and, batched by 2, [error, [2, 3], [4]] (the batch holding
    # the bad element is dropped). The generator chain ended at the first error before.
    def f(x):
        if int(x) == 1:
            raise ValueError("bad element")
        return x * 10

    def pull(it, n):
        out = []
        for _ in range(n):
            try:
                out.append(next(it).numpy().tolist())
            except StopIteration:
                out.append("stop")
                break
            except errors.InvalidArgumentError:
                out.append("error")
        return out

    mapped = D.range(4).map(lambda x: tf.py_function(f, [x], tf.int64))
    assert pull(iter(mapped), 6) == [0, "error", 20, 30, "stop"]
    batched = D.range(5).map(lambda x: tf.py_function(lambda v: v if int(v) != 1 else f(v), [x], tf.int64)).batch(2)
    assert pull(iter(batched), 6) == ["error", [2, 3], [4], "stop"]
    assert pull(iter(D.range(5).batch(2, drop_remainder=True)), 4) == [[0, 1], [2, 3], "stop"]
