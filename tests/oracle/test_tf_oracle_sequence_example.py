"""tf.io.parse_single_sequence_example and parse_sequence_example against TF: the same SequenceExample
bytes from the same protos, the same (context, feature_lists[, lengths]) for context and sequence features
of every kind (dense, VarLen, Ragged, with partitions), missing lists, a scalar record, and the same error
classes on bad input. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()


def _feature(side, values):
    if not values:
        return side.train.Feature()
    if isinstance(values[0], float):
        return side.train.Feature(float_list=side.train.FloatList(value=values))
    if isinstance(values[0], int):
        return side.train.Feature(int64_list=side.train.Int64List(value=values))
    return side.train.Feature(bytes_list=side.train.BytesList(value=values))


def _sequence_example(side, context, lists):
    return side.train.SequenceExample(
        context=side.train.Features(feature={k: _feature(side, v) for k, v in context.items()}),
        feature_lists=side.train.FeatureLists(feature_list={
            k: side.train.FeatureList(feature=[_feature(side, s) for s in steps]) for k, steps in lists.items()}),
    ).SerializeToString(deterministic=True)


RECORDS = [({"len": [3], "name": [b"a"], "rag": [1, 2]},
            {"tok": [[1], [2], [3]], "emb": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "var": [[1, 2], [], [3]],
             "rv": [[1, 2], [], [3]], "w": [[b"x"], [b"y", b"z"], []], "pl": [[1, 1], [], [1]]}),
           ({"len": [1], "name": [b"b"], "rag": [5]},
            {"tok": [[7]], "emb": [[9.0, 9.0]], "var": [[4, 4, 4]], "rv": [[4, 4, 4]], "w": [[b"q"]], "pl": [[2, 1]]})]


def _context(side):
    return {"len": side.io.FixedLenFeature([], side.int64), "name": side.io.FixedLenFeature([], side.string),
            "rag": side.io.RaggedFeature(side.int64), "missing": side.io.FixedLenFeature([2], side.float32, [1.0, 2.0]),
            "vl": side.io.VarLenFeature(side.int64)}


def _sequence(side):
    part = side.io.RaggedFeature
    return {"tok": side.io.FixedLenSequenceFeature([], side.int64),
            "emb": side.io.FixedLenSequenceFeature([2], side.float32),
            "var": side.io.VarLenFeature(side.int64), "w": side.io.VarLenFeature(side.string),
            "rv": side.io.RaggedFeature(side.int64),
            "rp": side.io.RaggedFeature(side.int64, value_key="rv", partitions=[part.RowLengths("pl")]),
            "ru": side.io.RaggedFeature(side.int64, value_key="rv", partitions=[part.UniformRowLength(1)]),
            "absent": side.io.FixedLenSequenceFeature([], side.float32, allow_missing=True),
            "absent_var": side.io.VarLenFeature(side.float32), "absent_rag": side.io.RaggedFeature(side.float32)}


def _plain(x):
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in sorted(x.items())}
    if hasattr(x, "nested_row_splits"):
        return ("ragged", x.dtype.name, np.asarray(x.flat_values.numpy()).tolist(),
                [np.asarray(s).tolist() for s in x.nested_row_splits], list(x.flat_values.shape[1:]))
    if hasattr(x, "dense_shape"):
        return ("sparse", x.dtype.name, np.asarray(x.indices).tolist(), np.asarray(x.values.numpy()).tolist(),
                np.asarray(x.dense_shape).tolist())
    return ("dense", x.dtype.name, list(x.shape), np.asarray(x.numpy()).tolist())


def test_the_same_protos_serialize_to_the_same_bytes():
    assert [_sequence_example(tg, *r) for r in RECORDS] == [_sequence_example(ref, *r) for r in RECORDS]


@pytest.mark.parametrize("parts", ["both", "context", "sequence"])
@pytest.mark.parametrize("batched", [False, True, "scalar"])
def test_sequence_examples_parse_as_tf(batched, parts):
    got = []
    for side in (tg, ref):
        serialized = [_sequence_example(side, *r) for r in RECORDS]
        context = _context(side) if parts != "sequence" else None
        sequence = _sequence(side) if parts != "context" else None
        if batched is True:
            out = side.io.parse_sequence_example(serialized, context, sequence)
        elif batched == "scalar":
            out = side.io.parse_sequence_example(serialized[0], context, sequence)
        else:
            out = side.io.parse_single_sequence_example(serialized[0], context, sequence)
        got.append([_plain(part) for part in out])
    assert got[0] == got[1]


BAD = {
    "no features": (lambda s: ([], None, None), ValueError),
    "missing list": (lambda s: ([], None, {"zz": s.io.FixedLenSequenceFeature([], s.int64)}),
                     "InvalidArgumentError"),
    "wrong count": (lambda s: ([], None, {"emb": s.io.FixedLenSequenceFeature([3], s.float32)}),
                    "InvalidArgumentError"),
    "wrong type": (lambda s: ([], None, {"tok": s.io.FixedLenSequenceFeature([], s.float32)}),
                   "InvalidArgumentError"),
    "missing context": (lambda s: ([], {"zz": s.io.FixedLenFeature([], s.int64)}, None), "InvalidArgumentError"),
    "fixed in sequence": (lambda s: ([], None, {"emb": s.io.FixedLenFeature([2], s.float32)}), ValueError),
    "sequence in context": (lambda s: ([], {"len": s.io.FixedLenSequenceFeature([], s.int64)}, None), ValueError),
    "sparse in context": (lambda s: ([], {"x": s.io.SparseFeature("len", "len", s.int64, 3)}, None), ValueError),
    "sequence default": (lambda s: ([], None, {"tok": s.io.FixedLenSequenceFeature([], s.int64, default_value=1)}),
                         ValueError),
    "not a proto": (lambda s: ([b"\xff\xff"], {"len": s.io.FixedLenFeature([], s.int64)}, None),
                    "InvalidArgumentError"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("single", [False, True])
def test_bad_input_raises_the_same_class(case, single):
    make, error = BAD[case]
    for side in (tg, ref):
        records, context, sequence = make(side)
        serialized = records or [_sequence_example(side, *RECORDS[0])]
        cls = getattr(side.errors, error) if isinstance(error, str) else error
        with pytest.raises(cls):
            if single:
                side.io.parse_single_sequence_example(serialized[0], context, sequence)
            else:
                side.io.parse_sequence_example(serialized, context, sequence)
