"""tf.RaggedTensor and tf.ragged against TF: the same calls give the same rows, splits, dtypes and dense
results, and gradients reach the flat values. Skipped without TensorFlow, unless TAPEGRAD_REQUIRE_TF=1."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
ROWS = [[1.0, 2.0, 3.0], [], [4.0, 5.0]]
NESTED = [[[1, 2], [3]], [], [[4], [5, 6, 7]]]

CASES = {
    "constant": lambda lib: lib.ragged.constant(ROWS),
    "constant_int": lambda lib: lib.ragged.constant([[1, 2], [3]]),
    "constant_nested": lambda lib: lib.ragged.constant(NESTED),
    "constant_inner": lambda lib: lib.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1),
    "constant_strings": lambda lib: lib.ragged.constant([["a", "bb"], ["c"]]),
    "from_row_lengths": lambda lib: lib.RaggedTensor.from_row_lengths([1, 2, 3, 4], [2, 0, 2]),
    "from_row_splits": lambda lib: lib.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 1, 1, 4]),
    "from_value_rowids": lambda lib: lib.RaggedTensor.from_value_rowids([1, 2, 3], [0, 0, 2], nrows=4),
    "from_row_starts": lambda lib: lib.RaggedTensor.from_row_starts([1, 2, 3], [0, 2]),
    "from_row_limits": lambda lib: lib.RaggedTensor.from_row_limits([1, 2, 3], [1, 3]),
    "from_nested_row_lengths": lambda lib: lib.RaggedTensor.from_nested_row_lengths([1, 2, 3], [[2, 1], [1, 1, 1]]),
    "from_tensor": lambda lib: lib.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]]),
    "from_tensor_padding": lambda lib: lib.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], padding=0),
    "from_tensor_lengths": lambda lib: lib.RaggedTensor.from_tensor([[1, 2, 9], [3, 8, 7]], lengths=[1, 3]),
    "to_tensor": lambda lib: lib.ragged.constant(ROWS).to_tensor(),
    "to_tensor_default": lambda lib: lib.ragged.constant(ROWS).to_tensor(default_value=-1.0),
    "to_tensor_shape": lambda lib: lib.ragged.constant(ROWS).to_tensor(shape=[2, 2]),
    "to_tensor_nested": lambda lib: lib.ragged.constant(NESTED).to_tensor(),
    "to_tensor_strings": lambda lib: lib.ragged.constant([["a", "bb"], ["c"]]).to_tensor(),
    "row_lengths": lambda lib: lib.ragged.constant(ROWS).row_lengths(),
    "value_rowids": lambda lib: lib.ragged.constant(ROWS).value_rowids(),
    "bounding_shape": lambda lib: lib.ragged.constant(NESTED).bounding_shape(),
    "row_index": lambda lib: lib.ragged.constant(ROWS)[2],
    "row_slice": lambda lib: lib.ragged.constant(ROWS)[1:],
    "nested_row": lambda lib: lib.ragged.constant(NESTED)[2],
    "add_scalar": lambda lib: lib.ragged.constant(ROWS) + 1.0,
    "mul_ragged": lambda lib: lib.ragged.constant(ROWS) * lib.ragged.constant(ROWS),
    "neg": lambda lib: -lib.ragged.constant(ROWS),
    "map_flat_values": lambda lib: lib.ragged.map_flat_values(lib.math.square, lib.ragged.constant(ROWS)),
    "range": lambda lib: lib.ragged.range([3, 0, 2]),
    "range_starts": lambda lib: lib.ragged.range([1, 2], [4, 3], [2, 1]),
    "row_splits_to_segment_ids": lambda lib: lib.ragged.row_splits_to_segment_ids([0, 2, 2, 5]),
    "segment_ids_to_row_splits": lambda lib: lib.ragged.segment_ids_to_row_splits([0, 0, 2]),
    "stack": lambda lib: lib.ragged.stack([lib.ragged.constant(ROWS), lib.ragged.constant([[7.0]])]),
    "boolean_mask": lambda lib: lib.ragged.boolean_mask(lib.constant([[1, 2, 3], [4, 5, 6]]),
                                                      lib.constant([[True, False, True], [False, False, True]])),
}


def _plain(x, lib):
    if isinstance(x, lib.RaggedTensor):
        return ("ragged", x.to_list(), [np.asarray(s) for s in x.nested_row_splits], x.dtype.name, x.shape.as_list())
    return ("dense", np.asarray(x).tolist(), np.asarray(x).dtype.kind)


@pytest.mark.parametrize("name", CASES)
def test_ragged_as_tf(name):
    ours, theirs = _plain(CASES[name](tg), tg), _plain(CASES[name](ref), ref)
    assert ours[0] == theirs[0] and ours[1] == theirs[1]
    if ours[0] == "ragged":
        for a, b in zip(ours[2], theirs[2]):
            np.testing.assert_array_equal(a, b)
        assert ours[3:] == theirs[3:]
    else:
        assert ours[2] == theirs[2]


def test_gradients_reach_the_flat_values():
    grads = []
    for lib in (tg, ref):
        v = lib.Variable([1.0, 2.0, 3.0, 4.0])
        with lib.GradientTape() as tape:
            rt = lib.RaggedTensor.from_row_lengths(v * 1.0, [3, 0, 1])
            y = lib.reduce_sum(lib.ragged.map_flat_values(lib.math.square, rt).to_tensor(default_value=0.0) * 2.0)
        grads.append(tape.gradient(y, v).numpy())
    np.testing.assert_allclose(*grads)


def test_errors_as_tf():
    for lib in (tg, ref):
        with pytest.raises(ValueError, match="RaggedTensor constructor is private"):
            lib.RaggedTensor([1], [0, 1])
        with pytest.raises((lib.errors.InvalidArgumentError, ValueError)):
            lib.RaggedTensor.from_row_splits([1, 2], [0, 1, 5])
        with pytest.raises((lib.errors.InvalidArgumentError, ValueError)):
            lib.ragged.constant(ROWS) + lib.ragged.constant([[1.0], [2.0], [3.0]])


STRING_CASES = {
    "split": lambda lib: lib.strings.split(lib.constant(["a b c", "d", ""])),
    "split_sep": lambda lib: lib.strings.split(lib.constant(["a,b,,c", "d"]), sep=","),
    "split_2d": lambda lib: lib.strings.split(lib.constant([["a b", "c"], ["d e f", ""]])),
    "bytes_split": lambda lib: lib.strings.bytes_split(lib.constant(["ab", "", "c"])),
    "unicode_decode": lambda lib: lib.strings.unicode_decode(lib.constant(["h\u00e9", "x", ""]), "UTF-8"),
    "unicode_split": lambda lib: lib.strings.unicode_split(lib.constant(["h\u00e9", "x"]), "UTF-8"),
}


@pytest.mark.parametrize("name", STRING_CASES)
def test_string_batches_give_tfs_ragged_tensors(name):
    ours, theirs = _plain(STRING_CASES[name](tg), tg), _plain(STRING_CASES[name](ref), ref)
    assert ours[1] == theirs[1] and ours[3:] == theirs[3:]
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("make", [
    lambda lib: lib.ragged.constant(ROWS).nrows(),
    lambda lib: lib.ragged.constant(ROWS).nrows(out_type=lib.int32),
    lambda lib: lib.ragged.constant([[1], [2, 3]], row_splits_dtype=lib.int32).nrows(),
    lambda lib: lib.ragged.constant(NESTED).values.nrows(),
])
def test_nrows_is_a_tensor_of_tfs_dtype(make):
    ours, theirs = make(tg), make(ref)
    assert isinstance(ours, tg.Tensor) and ours.dtype.name == theirs.dtype.name and ours.numpy() == theirs.numpy()
