"""tf.data pipelines run by TensorFlow and by tapegrad from the same code: the same element_spec,
cardinality and elements (in order), or the same error class.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

X = np.arange(24, dtype=np.float32).reshape(12, 2)
Y = np.arange(12)

# name -> pipeline(tf): the same code for both libraries; no shuffling (the random streams differ)
PIPELINES = {
    "slices_tuple_batch": lambda tf: tf.data.Dataset.from_tensor_slices((X, Y)).batch(5),
    "slices_dict_batch_drop": lambda tf: tf.data.Dataset.from_tensor_slices({"x": X, "y": Y}).batch(5, True),
    "python_lists": lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2, 3], [1.5, 2.5, 3.5])),
    "take_skip_batch": lambda tf: tf.data.Dataset.from_tensor_slices(X).skip(2).take(7).batch(3),
    "repeat_batch": lambda tf: tf.data.Dataset.range(5).repeat(3).batch(4),
    "batch_repeat": lambda tf: tf.data.Dataset.range(5).batch(4).repeat(2),
    "shard_batch": lambda tf: tf.data.Dataset.range(20).shard(4, 3).batch(2),
    "enumerate_batch": lambda tf: tf.data.Dataset.from_tensor_slices(X).enumerate(3).batch(4),
    "zip_nested": lambda tf: tf.data.Dataset.zip((tf.data.Dataset.range(6), (
        tf.data.Dataset.from_tensor_slices(X), tf.data.Dataset.range(3, 100)))).batch(4),
    "concatenate": lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 15)).batch(3),
    "map_batch": lambda tf: tf.data.Dataset.from_tensor_slices((X, Y)).map(lambda a, b: (a * 2.0, b + 1)).batch(5),
    "batch_map_dict": lambda tf: tf.data.Dataset.from_tensor_slices((X, Y)).batch(5).map(
        lambda a, b: {"s": tf.reduce_sum(a, axis=1), "b": b}),
    "map_python_values": lambda tf: tf.data.Dataset.range(4).map(lambda v: (v, 1.5, True)),
    "filter_batch": lambda tf: tf.data.Dataset.range(30).filter(lambda v: v % 3 == 0).batch(4),
    "unbatch": lambda tf: tf.data.Dataset.from_tensor_slices(X).batch(5).unbatch(),
    "padded_batch": lambda tf: tf.data.Dataset.range(1, 6).map(lambda n: tf.fill([n], n)).padded_batch(2),
    "padded_batch_shapes": lambda tf: tf.data.Dataset.range(1, 6).map(lambda n: (tf.fill([n], n), n)).padded_batch(
        2, padded_shapes=([6], []), padding_values=(np.int64(-1), np.int64(0))),
    "flat_map": lambda tf: tf.data.Dataset.range(4).flat_map(lambda n: tf.data.Dataset.range(n)),
    "interleave": lambda tf: tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4),
    "window_flat_map": lambda tf: tf.data.Dataset.range(8).window(3, shift=2, stride=2).flat_map(
        lambda w: w.batch(3)),
    "take_infinite": lambda tf: tf.data.Dataset.range(3).repeat().take(8).batch(3),
    "take_while": lambda tf: tf.data.Dataset.range(10).take_while(lambda x: x < 4),
    "cache_batch": lambda tf: tf.data.Dataset.range(7).cache().batch(3),
    "batch_unbatch_batch": lambda tf: tf.data.Dataset.range(10).batch(3).unbatch().batch(4),
    "generator": lambda tf: tf.data.Dataset.from_generator(
        lambda: ((i, [float(i)] * i) for i in range(4)),
        output_signature=(tf.TensorSpec([], tf.int32), tf.TensorSpec([None], tf.float32))).padded_batch(2),
    "choose": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)],
        tf.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 0], np.int64))),
}

# name -> pipeline(tf) that raises when built or iterated
ERRORS = {
    "batch_zero": lambda tf: tf.data.Dataset.range(3).batch(0),
    "shuffle_zero": lambda tf: tf.data.Dataset.range(3).shuffle(0),
    "shard_index": lambda tf: tf.data.Dataset.range(3).shard(2, 2),
    "unbatch_scalar": lambda tf: tf.data.Dataset.range(3).unbatch(),
    "slices_scalar": lambda tf: tf.data.Dataset.from_tensor_slices(3),
    "slices_lengths": lambda tf: tf.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4))),
    "concatenate_dtypes": lambda tf: tf.data.Dataset.range(2).concatenate(
        tf.data.Dataset.from_tensor_slices([1.0, 2.0])),
    "filter_not_bool": lambda tf: tf.data.Dataset.range(3).filter(lambda x: x),
    "batch_shapes": lambda tf: list(tf.data.Dataset.from_generator(
        lambda: ([1] * i for i in range(1, 4)), output_signature=tf.TensorSpec([None], tf.int32)).batch(2)),
    "generator_shape": lambda tf: list(tf.data.Dataset.from_generator(
        lambda: iter([[1, 2, 3]]), output_signature=tf.TensorSpec([2], tf.float32))),
    "len_infinite": lambda tf: len(tf.data.Dataset.range(3).repeat()),
    "single_element": lambda tf: tf.data.Dataset.range(2).get_single_element(),
    "window_size": lambda tf: tf.data.Dataset.range(3).window(0),
}


def _plain(v):
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    v = np.asarray(v)
    return (v.dtype.name, v.tolist())


def _observed(lib, make):
    ds = make(lib)
    return repr(ds.element_spec), int(ds.cardinality()), [_plain(e) for e in ds.as_numpy_iterator()]


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_matches_tf(name):
    assert _observed(tg, PIPELINES[name]) == _observed(ref, PIPELINES[name])


def _error_class(lib, make):
    try:
        make(lib)
    except Exception as e:  # noqa: BLE001  (the class is what is compared)
        return type(e).__name__
    return None


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_class_matches_tf(name):
    ours, theirs = _error_class(tg, ERRORS[name]), _error_class(ref, ERRORS[name])
    assert theirs is not None and ours == theirs
