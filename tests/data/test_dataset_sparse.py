"""SparseTensors through tf.data (slices, batch, unbatch, map) and Dataset.sparse_batch, checked by
indices, values and dense shapes."""
import numpy as np
import pytest

import tapegrad as tf


def _sparse():
    return tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1], [2, 3]], [1.0, 2.0, 3.0, 4.0], [3, 4])


def _parts(sp):
    return np.asarray(sp.indices).tolist(), np.asarray(sp.values).tolist(), np.asarray(sp.dense_shape).tolist()


def test_slices_of_a_sparse_tensor_rebase_each_rows_indices():
    ds = tf.data.Dataset.from_tensor_slices(_sparse())
    assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([4]), tf.float32)"
    assert [_parts(s) for s in ds] == [([[0]], [1.0], [4]), ([[2]], [2.0], [4]), ([[1], [3]], [3.0, 4.0], [4])]
    assert repr(tf.data.Dataset.from_tensors(_sparse()).element_spec) == \
        "SparseTensorSpec(TensorShape([3, 4]), tf.float32)"


def test_batch_adds_a_leading_dimension_and_unbatch_removes_it():
    batched = tf.data.Dataset.from_tensor_slices(_sparse()).batch(2)
    assert repr(batched.element_spec) == "SparseTensorSpec(TensorShape([None, 4]), tf.float32)"
    assert [_parts(s) for s in batched] == [([[0, 0], [1, 2]], [1.0, 2.0], [2, 4]),
                                           ([[0, 1], [0, 3]], [3.0, 4.0], [1, 4])]
    assert [_parts(s) for s in batched.unbatch()][2] == ([[1], [3]], [3.0, 4.0], [4])


def test_map_to_and_from_sparse():
    dense = tf.data.Dataset.from_tensor_slices(_sparse()).map(lambda s: tf.sparse.to_dense(s))
    assert [np.asarray(x).tolist() for x in dense][2] == [0.0, 3.0, 0.0, 4.0]
    made = tf.data.Dataset.from_tensor_slices([[1, 0], [0, 2]]).map(lambda x: tf.sparse.from_dense(x))
    assert repr(made.element_spec) == "SparseTensorSpec(TensorShape([2]), tf.int32)"
    (batch,) = list(made.batch(2))
    assert _parts(batch) == ([[0, 0], [1, 1]], [1, 2], [2, 2])
    with pytest.raises(TypeError, match="padded_batch"):
        made.padded_batch(2)


def test_sparse_batch_keeps_every_entry_of_each_element():
    ds = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x))
    batched = ds.sparse_batch(2, [5])
    assert repr(batched.element_spec) == "SparseTensorSpec(TensorShape([None, 5]), tf.int64)"
    assert [_parts(s) for s in batched] == [([[0, 0], [1, 0], [1, 1]], [1, 2, 2], [2, 5]),
                                           ([[0, 0], [0, 1], [0, 2]], [3, 3, 3], [1, 5])]
    experimental = ds.apply(tf.data.experimental.dense_to_sparse_batch(3, [3]))
    assert _parts(next(iter(experimental)))[2] == [3, 3]


def test_sparse_batch_errors():
    ds = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x, 2], x))
    with pytest.raises(tf.errors.DataLossError, match="larger than the row shape"):
        list(ds.sparse_batch(2, [2, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="incompatible with the row shape"):
        list(ds.sparse_batch(2, [4]))
    with pytest.raises(ValueError, match="must be >= 0"):
        ds.sparse_batch(2, [-1, 2])
    with pytest.raises(TypeError, match="single"):
        tf.data.Dataset.range(3).map(lambda x: (x, x)).sparse_batch(2, [])


def test_sparse_tensor_spec_from_value_hashes_and_compares():
    spec = tf.SparseTensorSpec.from_value(_sparse())
    assert repr(spec) == "SparseTensorSpec(TensorShape([3, 4]), tf.float32)"
    assert {spec: 1}[tf.SparseTensorSpec([3, 4], tf.float32)] == 1
    assert spec.is_compatible_with(tf.SparseTensorSpec([None, 4], tf.float32))
    assert not spec.is_compatible_with(tf.SparseTensorSpec([None, 4], tf.int32))


def test_as_numpy_iterator_gives_sparse_elements_dense():
    (dense,) = list(tf.data.Dataset.from_tensors(_sparse()).as_numpy_iterator())
    assert dense.dtype == np.float32
    assert dense.tolist() == [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 3.0, 0.0, 4.0]]
