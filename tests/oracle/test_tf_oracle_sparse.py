"""tf.SparseTensor and tf.sparse against TF: the same calls on the same inputs give the same indices, values,
dense shapes (or dense results), and gradients to the values and dense operands. Skipped when TensorFlow
does not import, unless TAPEGRAD_REQUIRE_TF=1."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
A = ([[0, 1], [1, 0], [1, 2], [3, 3]], [1.0, -2.0, 3.0, 4.0], [4, 5])
B = ([[0, 1], [1, 1], [3, 3]], [10.0, 20.0, -30.0], [4, 5])
UNORDERED = ([[1, 2], [0, 1], [1, 0]], [3.0, 1.0, 2.0], [2, 3])
R3 = ([[0, 0, 1], [0, 2, 0], [1, 1, 1]], [1.0, 2.0, 3.0], [2, 3, 2])
DENSE = np.arange(20, dtype=np.float32).reshape(5, 4) / 10


def sp(lib, spec):
    return lib.sparse.SparseTensor(spec[0], np.asarray(spec[1], np.float32), spec[2])


CASES = {
    "to_dense": lambda lib: lib.sparse.to_dense(sp(lib, A)),
    "to_dense_default": lambda lib: lib.sparse.to_dense(sp(lib, A), default_value=-1.0),
    "from_dense": lambda lib: lib.sparse.from_dense(lib.constant([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]])),
    "reorder": lambda lib: lib.sparse.reorder(sp(lib, UNORDERED)),
    "reshape": lambda lib: lib.sparse.reshape(sp(lib, A), [2, -1]),
    "reshape_3d": lambda lib: lib.sparse.reshape(sp(lib, R3), [3, 4]),
    "slice": lambda lib: lib.sparse.slice(sp(lib, A), [1, 0], [3, 2]),
    "concat_0": lambda lib: lib.sparse.concat(0, [sp(lib, A), sp(lib, B)]),
    "concat_1": lambda lib: lib.sparse.concat(1, [sp(lib, A), sp(lib, B)]),
    "add_sparse": lambda lib: lib.sparse.add(sp(lib, A), sp(lib, B)),
    "add_threshold": lambda lib: lib.sparse.add(sp(lib, A), sp(lib, B), threshold=3.5),
    "add_dense": lambda lib: lib.sparse.add(sp(lib, A), lib.ones((4, 5))),
    "reduce_sum_all": lambda lib: lib.sparse.reduce_sum(sp(lib, A)),
    "reduce_sum_1": lambda lib: lib.sparse.reduce_sum(sp(lib, A), axis=1),
    "reduce_sum_0_keep": lambda lib: lib.sparse.reduce_sum(sp(lib, A), axis=0, keepdims=True),
    "reduce_sum_sparse": lambda lib: lib.sparse.reduce_sum(sp(lib, R3), axis=1, output_is_sparse=True),
    "reduce_max_1": lambda lib: lib.sparse.reduce_max(sp(lib, A), axis=1),
    "reduce_max_neg": lambda lib: lib.sparse.reduce_max(lib.sparse.SparseTensor([[0, 1], [1, 0]], [-1.0, -2.0],
                                                                                 [3, 3]), axis=1),
    "matmul": lambda lib: lib.sparse.sparse_dense_matmul(sp(lib, A), DENSE),
    "matmul_adjoint": lambda lib: lib.sparse.sparse_dense_matmul(sp(lib, A), DENSE[:4].T.copy(), adjoint_a=True,
                                                                 adjoint_b=True),
    "retain": lambda lib: lib.sparse.retain(sp(lib, A), [True, False, True, False]),
    "fill_empty_rows": lambda lib: lib.sparse.fill_empty_rows(sp(lib, A), 7.0),
    "transpose": lambda lib: lib.sparse.transpose(sp(lib, A)),
    "transpose_perm": lambda lib: lib.sparse.transpose(sp(lib, R3), [2, 0, 1]),
    "to_indicator": lambda lib: lib.sparse.to_indicator(
        lib.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([2, 0, 3], np.int64), [2, 2]), 4),
    "expand_dims": lambda lib: lib.sparse.expand_dims(sp(lib, A), 1),
    "eye": lambda lib: lib.sparse.eye(3, 4),
    "maximum": lambda lib: lib.sparse.maximum(sp(lib, A), sp(lib, B)),
    "minimum": lambda lib: lib.sparse.minimum(sp(lib, A), sp(lib, B)),
    "softmax": lambda lib: lib.sparse.softmax(sp(lib, A)),
    "split": lambda lib: lib.sparse.split(sp_input=sp(lib, A), num_split=2, axis=1),
    "segment_sum": lambda lib: lib.sparse.segment_sum(DENSE, [0, 2, 2, 4], [0, 0, 1, 2]),
    "segment_mean": lambda lib: lib.sparse.segment_mean(DENSE, [0, 2, 2, 4], [0, 0, 1, 3], num_segments=5),
    "segment_sqrt_n": lambda lib: lib.sparse.segment_sqrt_n(DENSE, [0, 2, 2, 4], [0, 0, 1, 2]),
    "map_values": lambda lib: lib.sparse.map_values(lambda v: v * 3.0 + 1.0, sp(lib, A)),
    "mul_dense": lambda lib: sp(lib, A) * lib.constant([1.0, 2.0, 3.0, 4.0, 5.0]),
    "div_dense": lambda lib: sp(lib, A) / 2.0,
    "reset_shape": lambda lib: lib.sparse.reset_shape(sp(lib, A)),
    "empty_to_dense": lambda lib: lib.sparse.to_dense(sp(lib, (np.zeros((0, 2), np.int64), [], [2, 3]))),
    "empty_reduce_sum": lambda lib: lib.sparse.reduce_sum(sp(lib, (np.zeros((0, 2), np.int64), [], [2, 3])), axis=1),
    "nan_values": lambda lib: lib.sparse.reduce_sum(sp(lib, ([[0, 0], [0, 1]], [np.nan, 1.0], [1, 2])), axis=1),
}


def _plain(value, lib):
    if isinstance(value, (list, tuple)):
        return [_plain(v, lib) for v in value]
    if isinstance(value, lib.sparse.SparseTensor):
        return ("sparse", np.asarray(value.indices), np.asarray(value.values), np.asarray(value.dense_shape))
    return ("dense", np.asarray(value))


def _same(ours, theirs):
    if isinstance(theirs, list):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
        return
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("name", CASES)
def test_sparse_op_as_tf(name):
    _same(_plain(CASES[name](tg), tg), _plain(CASES[name](ref), ref))


@pytest.mark.parametrize("name", ["to_dense", "reduce_sum_1", "matmul", "softmax", "add_sparse", "segment_mean"])
def test_gradients_reach_values_and_dense_operands(name):
    grads = []
    for lib in (tg, ref):
        values, dense = lib.Variable(np.asarray(A[1], np.float32)), lib.Variable(DENSE)
        with lib.GradientTape() as tape:
            a = lib.sparse.SparseTensor(A[0], values * 1.0, A[2])
            out = {"to_dense": lambda: lib.sparse.to_dense(a), "reduce_sum_1": lambda: lib.sparse.reduce_sum(a, 1),
                   "matmul": lambda: lib.sparse.sparse_dense_matmul(a, dense),
                   "softmax": lambda: lib.sparse.softmax(a).values,
                   "add_sparse": lambda: lib.sparse.add(a, a).values,
                   "segment_mean": lambda: lib.sparse.segment_mean(dense, [0, 2, 2], [0, 0, 1])}[name]()
            y = lib.reduce_sum(out * out)
        grads.append([lib.convert_to_tensor(g).numpy() if g is not None else None
                      for g in tape.gradient(y, [values, dense])])
    for a, b in zip(*grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_errors_as_tf():
    bad = ([[0, 1], [0, 1]], [1.0, 2.0], [2, 2])
    for lib, cls in ((tg, tg.errors.InvalidArgumentError), (ref, ref.errors.InvalidArgumentError)):
        with pytest.raises(cls, match="repeated"):
            lib.sparse.to_dense(sp(lib, bad))
        with pytest.raises(cls, match="out of order"):
            lib.sparse.to_dense(sp(lib, UNORDERED))
        with pytest.raises(ValueError):
            lib.sparse.SparseTensor([[0, 1]], [1.0, 2.0], [2, 2])
        with pytest.raises((TypeError, ValueError)):
            lib.convert_to_tensor(sp(lib, A))
        with pytest.raises(cls):
            lib.sparse.reshape(sp(lib, A), [3, 3])


def _examples(lib):
    def example(ids, words):
        return lib.train.Example(features=lib.train.Features(feature={
            "ids": lib.train.Feature(int64_list=lib.train.Int64List(value=ids)),
            "words": lib.train.Feature(bytes_list=lib.train.BytesList(value=words))})).SerializeToString()
    return [example([3, 1, 4], [b"a"]), example([], [b"b", b"c"]), example([5], [])]


@pytest.mark.parametrize("single", [False, True])
def test_var_len_features_are_tfs_sparse_tensors(single):
    out = []
    for lib in (tg, ref):
        features = {"ids": lib.io.VarLenFeature(lib.int64), "words": lib.io.VarLenFeature(lib.string)}
        records = _examples(lib)
        parsed = (lib.io.parse_single_example(records[0], features) if single
                  else lib.io.parse_example(lib.constant(records), features))
        out.append({k: (np.asarray(v.indices), np.asarray(v.values).tolist(), np.asarray(v.dense_shape))
                    for k, v in parsed.items()})
    ours, theirs = out
    for key in ("ids", "words"):
        np.testing.assert_array_equal(ours[key][0], theirs[key][0])
        assert ours[key][1] == theirs[key][1]
        np.testing.assert_array_equal(ours[key][2], theirs[key][2])


SET_A = np.array([[1, 2, 2, 3], [4, 4, 5, 6], [7, 7, 7, 7]], np.int64)
SET_B = np.array([[2, 3, 9, 9], [5, 1, 1, 1], [8, 8, 8, 8]], np.int64)


@pytest.mark.parametrize("op", ["intersection", "union", "difference", "difference_b", "size", "sparse_b"])
def test_sets_as_tf(op):
    out = []
    for lib in (tg, ref):
        a, b = lib.constant(SET_A), lib.constant(SET_B)
        result = {"intersection": lambda: lib.sets.intersection(a, b), "union": lambda: lib.sets.union(a, b),
                  "difference": lambda: lib.sets.difference(a, b),
                  "difference_b": lambda: lib.sets.difference(a, b, aminusb=False),
                  "size": lambda: lib.sets.size(lib.sparse.from_dense(a)),
                  "sparse_b": lambda: lib.sets.intersection(lib.sparse.from_dense(a), lib.sparse.from_dense(b))}[op]()
        out.append(_plain(result, lib))
    _same(*out)
    for lib, cls in ((tg, TypeError), (ref, TypeError)):
        with pytest.raises(cls, match="Expected `SparseTensor`"):
            lib.sets.size(lib.constant(SET_A))
