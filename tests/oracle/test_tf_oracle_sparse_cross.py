"""tf.sparse.cross and tf.sparse.cross_hashed against TF: the same indices, values (hashes bit for bit),
dense shapes and error classes. Skipped without TensorFlow, unless TAPEGRAD_REQUIRE_TF=1."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()


def _a(lib):
    return lib.sparse.SparseTensor([[0, 0], [1, 0], [1, 1], [2, 0]], [b"a", b"b", b"c", b"d"], [3, 2])


def _ints(lib):
    return lib.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], lib.constant([5, -6, 1 << 40], lib.int64), [3, 4])


INPUTS = {
    "one_sparse": lambda lib: [_a(lib)],
    "two_sparse": lambda lib: [_a(lib), _ints(lib)],
    "dense_strings": lambda lib: [lib.constant([["u", "v"], ["w", "q"], ["", "z"]]), _a(lib)],
    "dense_ints": lambda lib: [_a(lib), lib.constant([[7, -1], [8, 0], [9, 2]], lib.int64)],
    "dense_int32": lambda lib: [lib.constant([[3], [4], [5]], lib.int32), _ints(lib)],
    "dense_floats": lambda lib: [_a(lib), lib.constant([[1.5], [-2.5], [3.0]])],
    "empty_rows": lambda lib: [_ints(lib), _a(lib), lib.constant([["p"], ["q"], ["r"]])],
}


def _parts(sp):
    values = sp.values
    values = np.asarray(values._value if hasattr(values, "_value") else values.numpy()).tolist()
    return np.asarray(sp.indices).tolist(), values, np.asarray(sp.dense_shape).tolist()


@pytest.mark.parametrize("case", sorted(INPUTS))
@pytest.mark.parametrize("kw", [{}, {"separator": "--"}])
def test_cross_matches_tf(case, kw):
    assert _parts(tg.sparse.cross(INPUTS[case](tg), **kw)) == _parts(ref.sparse.cross(INPUTS[case](ref), **kw))


@pytest.mark.parametrize("case", sorted(INPUTS))
@pytest.mark.parametrize("kw", [{}, {"num_buckets": 1000}, {"num_buckets": 7, "hash_key": 99}, {"hash_key": 1}])
def test_cross_hashed_matches_tf(case, kw):
    ours = tg.sparse.cross_hashed(INPUTS[case](tg), **kw)
    theirs = ref.sparse.cross_hashed(INPUTS[case](ref), **kw)
    assert _parts(ours) == _parts(theirs)
    assert ours.values.dtype.name == theirs.values.dtype.name == "int64"


ERRORS = {
    "batch_size": lambda lib: lib.sparse.cross([_a(lib), lib.constant([[1], [2]], lib.int64)]),
    "dense_vector": lambda lib: lib.sparse.cross([_a(lib), lib.constant([1, 2, 3], lib.int64)]),
    "sparse_rank3": lambda lib: lib.sparse.cross([_a(lib), lib.sparse.SparseTensor([[0, 0, 0]], [b"q"], [3, 1, 1])]),
    "sparse_batch": lambda lib: lib.sparse.cross([_a(lib), lib.sparse.SparseTensor([[0, 0]], [b"q"], [2, 1])]),
    "python_list": lambda lib: lib.sparse.cross([_a(lib), [[b"p"], [b"q"], [b"r"]]]),
    "python_int": lambda lib: lib.sparse.cross_hashed([_a(lib), 5]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_error_class_matches_tf(case):
    with pytest.raises(Exception) as theirs:
        ERRORS[case](ref)
    with pytest.raises(Exception) as ours:
        ERRORS[case](tg)
    assert type(ours.value).__name__ == type(theirs.value).__name__
