"""RaggedTensors and SparseTensors through tf.data against TF: from_tensor_slices / from_tensors, map,
batch, unbatch, ragged_batch, sparse_batch and their experimental forms give the same element_spec
reprs and elements (values, dtypes, row splits and their dtype, indices, dense shapes), and padded_batch
and sparse_batch TF's errors; RaggedFeature parses with TF's row_splits_dtype. Skipped without
TensorFlow, unless TAPEGRAD_REQUIRE_TF=1."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
ROWS = [[1, 2], [3], [4, 5, 6], []]
NESTED = [[[1.0, 2.0], [3.0]], [[4.0]], [], [[5.0], [], [6.0, 7.0]]]


def _sparse(lib):
    return lib.sparse.SparseTensor([[0, 0], [1, 2], [2, 1], [3, 3]], [1.0, 2.0, 3.0, 4.0], [4, 5])


def _varying(lib, shape):
    """range(1, 4) mapped to filled tensors of a shape made of its value (x) and fixed sizes."""
    return lib.data.Dataset.range(1, 4).map(lambda x: lib.fill([x if d == "x" else d for d in shape], x))


PIPELINES = {
    "slices_ragged": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)),
    "slices_ragged_nested": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(NESTED)),
    "slices_ragged_int32_splits": lambda lib: lib.data.Dataset.from_tensor_slices(
        lib.ragged.constant(NESTED, row_splits_dtype=lib.int32)),
    "tensors_ragged": lambda lib: lib.data.Dataset.from_tensors(lib.ragged.constant(ROWS)),
    "slices_sparse": lambda lib: lib.data.Dataset.from_tensor_slices(_sparse(lib)),
    "tensors_sparse": lambda lib: lib.data.Dataset.from_tensors(_sparse(lib)),
    "slices_dict": lambda lib: lib.data.Dataset.from_tensor_slices(
        {"r": lib.ragged.constant(ROWS), "s": _sparse(lib), "y": [1, 2, 3, 4]}),
    "slices_tuple_batch": lambda lib: lib.data.Dataset.from_tensor_slices(
        (lib.ragged.constant(ROWS), [1.0, 2.0, 3.0, 4.0])).batch(3),
    "batch_ragged": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)).batch(3),
    "batch_ragged_drop": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)).batch(
        3, drop_remainder=True),
    "batch_ragged_nested": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(NESTED)).batch(2),
    "batch_unbatch_ragged": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(NESTED)).batch(
        3).unbatch(),
    "batch_sparse": lambda lib: lib.data.Dataset.from_tensor_slices(_sparse(lib)).batch(3),
    "batch_unbatch_sparse": lambda lib: lib.data.Dataset.from_tensor_slices(_sparse(lib)).batch(3).unbatch(),
    "shuffle_take_ragged": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)).shuffle(
        4, seed=3).take(4).batch(4).map(lambda r: lib.reduce_sum(r.flat_values)),
    "map_ragged_rows": lambda lib: lib.data.Dataset.from_tensor_slices(
        {"r": lib.ragged.constant(ROWS), "y": [1, 2, 3, 4]}).map(lambda d: (d["r"] * 2, d["y"])),
    "map_sparse_to_dense": lambda lib: lib.data.Dataset.from_tensor_slices(_sparse(lib)).map(
        lambda s: lib.sparse.to_dense(s)),
    "map_to_sparse_batch": lambda lib: lib.data.Dataset.from_tensor_slices([[1, 0], [0, 2], [3, 4]]).map(
        lambda x: lib.sparse.from_dense(x)).batch(2),
    "ragged_batch_vector": lambda lib: _varying(lib, ["x"]).ragged_batch(2),
    "ragged_batch_int32": lambda lib: _varying(lib, ["x"]).ragged_batch(2, row_splits_dtype=lib.int32),
    "ragged_batch_drop": lambda lib: _varying(lib, ["x"]).ragged_batch(2, drop_remainder=True),
    "ragged_batch_inner": lambda lib: _varying(lib, ["x", 2]).ragged_batch(2),
    "ragged_batch_outer_fixed": lambda lib: _varying(lib, [2, "x"]).ragged_batch(2),
    "ragged_batch_two": lambda lib: _varying(lib, ["x", 2, "x"]).ragged_batch(2),
    "ragged_batch_dense": lambda lib: lib.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]).ragged_batch(2),
    "ragged_batch_of_ragged": lambda lib: lib.data.Dataset.from_tensor_slices(
        (lib.ragged.constant(ROWS), [1, 2, 3, 4])).ragged_batch(3, row_splits_dtype=lib.int32),
    "ragged_batch_of_sparse": lambda lib: lib.data.Dataset.from_tensor_slices(_sparse(lib)).ragged_batch(3),
    "dense_to_ragged_batch": lambda lib: _varying(lib, ["x", 2]).apply(
        lib.data.experimental.dense_to_ragged_batch(2)),
    "sparse_batch": lambda lib: _varying(lib, ["x"]).sparse_batch(2, [5]),
    "sparse_batch_tensor_shape": lambda lib: _varying(lib, ["x", 2]).sparse_batch(2, lib.constant([4, 3])),
    "sparse_batch_scalars": lambda lib: lib.data.Dataset.range(3).sparse_batch(2, []),
    "dense_to_sparse_batch": lambda lib: _varying(lib, ["x", 2]).apply(
        lib.data.experimental.dense_to_sparse_batch(2, [3, 2])),
    "unbatch_rows_to_scalars": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)).unbatch(),
    "unbatch_rows_then_batch": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)).unbatch(
        ).batch(4),
    "unbatch_string_rows": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(
        [["a", "b"], ["c"]])).unbatch().batch(2),
    "filter_ragged": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)).filter(
        lambda r: lib.size(r) > 1),
    "concatenate_ragged": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)).concatenate(
        lib.data.Dataset.from_tensor_slices(lib.ragged.constant([[7], [8, 9]]))),
    "zip_batch": lambda lib: lib.data.Dataset.zip((lib.data.Dataset.from_tensor_slices(_sparse(lib)),
                                                   lib.data.Dataset.range(4))).batch(4),
    "window_flat_map": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)).window(2).flat_map(
        lambda w: w.batch(2)),
    "map_dense_to_ragged": lambda lib: lib.data.Dataset.from_tensor_slices([[1, 2, 3], [4, 5, 6]]).map(
        lambda x: lib.RaggedTensor.from_tensor(lib.reshape(x, [3, 1]), lengths=[1, 0, 1])),
    "generator_ragged": lambda lib: lib.data.Dataset.from_generator(
        lambda: iter([lib.ragged.constant([[1], [2, 3]]), lib.ragged.constant([[4, 5]])]),
        output_signature=lib.RaggedTensorSpec([None, None], lib.int32, 1)).batch(2),
    "generator_sparse": lambda lib: lib.data.Dataset.from_generator(
        lambda: iter([lib.sparse.SparseTensor([[0]], [1.0], [3])]),
        output_signature=lib.SparseTensorSpec([None], lib.float32)).batch(2),
}


def _value(x):
    """A comparable form of one leaf: its kind, dtype and values (row splits with their dtypes)."""
    name = type(x).__name__
    if "Ragged" in name:
        return ("ragged", x.dtype.name, [(s.dtype.name, np.asarray(s).tolist()) for s in x.nested_row_splits],
                _value(x.flat_values))
    if "Sparse" in name:
        return ("sparse", np.asarray(x.indices).tolist(), _value(x.values), np.asarray(x.dense_shape).tolist())
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    return ("tensor", x.dtype.name, a.shape, a.tolist())


def _elements(dataset):
    out = []
    for element in dataset:
        leaves = ref.nest.flatten(element, expand_composites=False) if isinstance(element, (tuple, dict)) else [element]
        out.append([_value(v) for v in leaves])
    return out


@pytest.mark.parametrize("case", sorted(PIPELINES))
def test_pipeline_matches_tf(case):
    ours, theirs = PIPELINES[case](tg), PIPELINES[case](ref)
    assert repr(ours.element_spec) == repr(theirs.element_spec)
    assert _elements(ours) == _elements(theirs)
    assert int(ours.cardinality()) == int(theirs.cardinality())


ERRORS = {
    "padded_batch_ragged": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(ROWS)).padded_batch(2),
    "padded_batch_sparse": lambda lib: lib.data.Dataset.from_tensor_slices(_sparse(lib)).padded_batch(2),
    "sparse_batch_larger": lambda lib: list(_varying(lib, ["x", 2]).sparse_batch(2, [2, 2])),
    "sparse_batch_rank": lambda lib: list(_varying(lib, ["x", 2]).sparse_batch(2, [4])),
    "sparse_batch_negative": lambda lib: _varying(lib, ["x"]).sparse_batch(2, [-1]),
    "sparse_batch_two_components": lambda lib: lib.data.Dataset.range(3).map(lambda x: (x, x)).sparse_batch(2, []),
    "ragged_batch_zero": lambda lib: _varying(lib, ["x"]).ragged_batch(0),
    "concatenate_ragged_dense": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(
        ROWS)).concatenate(lib.data.Dataset.from_tensor_slices([[7, 8]])),
    "concatenate_ragged_ranks": lambda lib: lib.data.Dataset.from_tensor_slices(lib.ragged.constant(
        NESTED)).concatenate(lib.data.Dataset.from_tensor_slices(lib.ragged.constant([[[1.0, 2.0]]], ragged_rank=1))),
    "generator_list_for_ragged": lambda lib: list(lib.data.Dataset.from_generator(
        lambda: iter([[[1], [2, 3]]]), output_signature=lib.RaggedTensorSpec([None, None], lib.int32, 1))),
    "generator_wrong_dtype": lambda lib: list(lib.data.Dataset.from_generator(
        lambda: iter([lib.ragged.constant([[1.5], [2.0]])]),
        output_signature=lib.RaggedTensorSpec([None, None], lib.int32, 1))),
    "generator_dense_for_ragged": lambda lib: list(lib.data.Dataset.from_generator(
        lambda: iter([lib.constant([1, 2])]), output_signature=lib.RaggedTensorSpec([None], lib.int32, 0))),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_error_class_matches_tf(case):
    with pytest.raises(Exception) as theirs:
        ERRORS[case](ref)
    with pytest.raises(Exception) as ours:
        ERRORS[case](tg)
    assert type(ours.value).__name__ == type(theirs.value).__name__


def _example(lib):
    feature = lib.train.Feature
    return lib.train.Example(features=lib.train.Features(feature={
        "v": feature(int64_list=lib.train.Int64List(value=[1, 2, 3])),
        "l": feature(int64_list=lib.train.Int64List(value=[2, 1]))})).SerializeToString()


@pytest.mark.parametrize("splits_dtype", [None, "int32", "int64"])
@pytest.mark.parametrize("single", [True, False])
def test_ragged_feature_row_splits_dtype(splits_dtype, single):
    def parse(lib):
        kw = {} if splits_dtype is None else {"row_splits_dtype": getattr(lib, splits_dtype)}
        features = {"r": lib.io.RaggedFeature(lib.int64, value_key="v", partitions=[
                        lib.io.RaggedFeature.RowLengths("l")], **kw),
                    "p": lib.io.RaggedFeature(lib.int64, value_key="v", **kw)}
        if single:
            return lib.io.parse_single_example(_example(lib), features)
        return lib.io.parse_example([_example(lib), _example(lib)], features)
    ours, theirs = parse(tg), parse(ref)
    for key in ("r", "p"):
        assert _value(ours[key]) == _value(theirs[key])


def _numpy_form(x):
    """A comparable form of an as_numpy_iterator value: nested object arrays as lists, with dtypes."""
    if isinstance(x, (tuple, list)):
        return [_numpy_form(v) for v in x]
    if isinstance(x, dict):
        return {k: _numpy_form(v) for k, v in x.items()}
    a = np.asarray(x)
    if a.dtype == object and a.size and isinstance(a.reshape(-1)[0], np.ndarray):
        return ["rows"] + [_numpy_form(v) for v in a]
    return (a.dtype.name, a.shape, a.tolist())


NUMPY_PIPELINES = ["slices_ragged", "slices_ragged_nested", "tensors_ragged", "tensors_sparse", "slices_dict",
                   "batch_sparse", "batch_ragged_nested", "ragged_batch_inner", "unbatch_rows_to_scalars"]


@pytest.mark.parametrize("case", NUMPY_PIPELINES)
def test_as_numpy_iterator_matches_tf(case):
    ours = [_numpy_form(e) for e in PIPELINES[case](tg).as_numpy_iterator()]
    theirs = [_numpy_form(e) for e in PIPELINES[case](ref).as_numpy_iterator()]
    assert ours == theirs
