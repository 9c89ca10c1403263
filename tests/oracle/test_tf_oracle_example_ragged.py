"""tf.io.RaggedFeature and SparseFeature against TF: parse_single_example and parse_example give the same
RaggedTensors (values, nested row splits, dense inner dimensions) and SparseTensors (indices, values, dense
shape), and the same error classes on bad configs. Where TF, without validate=True, cuts inconsistent
partitions silently, tapegrad raises (Note [Ragged features]): those cases compare against TF's validate=True.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()


def _example(side, **features):
    out = {}
    for key, values in features.items():
        if isinstance(values[0], float):
            out[key] = side.train.Feature(float_list=side.train.FloatList(value=values))
        elif isinstance(values[0], int):
            out[key] = side.train.Feature(int64_list=side.train.Int64List(value=values))
        else:
            out[key] = side.train.Feature(bytes_list=side.train.BytesList(value=values))
    return side.train.Example(features=side.train.Features(feature=out)).SerializeToString(deterministic=True)


RECORDS = [{"v": [1.0, 2.0, 3.0, 4.0, 5.0], "l": [2, 3], "sp": [0, 2, 5], "lim": [2, 5], "st": [0, 2],
            "ids": [0, 0, 2, 2, 2], "l2": [1, 1], "s": [b"a", b"bc"], "i": [3, 1], "j": [0, 2], "x": [10.0, 20.0]},
           {"v": [6.0], "l": [1], "sp": [0, 1], "lim": [1], "st": [0], "ids": [0], "l2": [1], "s": [b"d"], "i": [0],
            "j": [1], "x": [5.0]}]


def _as_plain(x):
    """A parsed value as nested lists and dtype names, the same for both sides."""
    if hasattr(x, "nested_row_splits"):
        return ("ragged", x.dtype.name, x.flat_values.numpy().tolist(),
                [np.asarray(s).tolist() for s in x.nested_row_splits], list(x.flat_values.shape[1:]))
    if hasattr(x, "dense_shape"):
        return ("sparse", x.dtype.name, np.asarray(x.indices).tolist(), np.asarray(x.values.numpy()).tolist(),
                np.asarray(x.dense_shape).tolist())
    return ("dense", x.dtype.name, list(x.shape), np.asarray(x.numpy()).tolist())


def _ragged(side, key, p=(), **kw):
    parts = [getattr(side.io.RaggedFeature, kind)(arg) for kind, arg in p]
    dtype = {"v": side.float32, "s": side.string, "l": side.int64}[key]
    return side.io.RaggedFeature(dtype, value_key=key, partitions=parts, **kw)


RAGGED = {
    "values only": ("v", ()), "strings": ("s", ()), "int64": ("l", ()),
    "row lengths": ("v", [("RowLengths", "l")]), "row splits": ("v", [("RowSplits", "sp")]),
    "row limits": ("v", [("RowLimits", "lim")]), "row starts": ("v", [("RowStarts", "st")]),
    "value row ids": ("v", [("ValueRowIds", "ids")]),
    "nested": ("v", [("RowLengths", "l2"), ("RowLengths", "l")]),
    "uniform inner": ("v", [("UniformRowLength", 1)]),
    "uniform outer": ("v", [("UniformRowLength", 1), ("RowLengths", "l")]),
    "ragged over uniform": ("v", [("RowLengths", "l"), ("UniformRowLength", 1)]),
    "missing values": ("v", [("RowLengths", "zz")]),
}


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("case", sorted(RAGGED))
def test_ragged_features_parse_as_tf(case, batched):
    key, parts = RAGGED[case]
    records = RECORDS if batched else RECORDS[:1]
    if case == "missing values":
        records = [{"q": [1]}] * len(records)
    got = []
    for side in (tg, ref):
        spec = {"r": _ragged(side, key, parts)}
        serialized = [_example(side, **r) for r in records]
        parse = side.io.parse_example if batched else side.io.parse_single_example
        got.append(_as_plain(parse(serialized if batched else serialized[0], spec)["r"]))
    assert got[0] == got[1]


def test_row_splits_dtype_and_shape_as_tf():
    ours = tg.io.parse_example([_example(tg, **r) for r in RECORDS], {"r": _ragged(tg, "v", [("RowLengths", "l")],
                                                                                    row_splits_dtype=tg.int64)})["r"]
    theirs = ref.io.parse_example([_example(ref, **r) for r in RECORDS],
                                  {"r": _ragged(ref, "v", [("RowLengths", "l")], row_splits_dtype=ref.int64)})["r"]
    assert ours.shape.as_list() == theirs.shape.as_list() == [2, None, None]
    assert ours.to_list() == theirs.to_list()


@pytest.mark.parametrize("parts", [[("RowLengths", "l2")], [("RowSplits", "l")], [("UniformRowLength", 2)],
                                   [("RowStarts", "l")]])
def test_inconsistent_partitions_raise_as_tf_validating(parts):
    with pytest.raises(ref.errors.InvalidArgumentError):
        ref.io.parse_single_example(_example(ref, **RECORDS[0]), {"r": _ragged(ref, "v", parts, validate=True)})
    with pytest.raises(tg.errors.InvalidArgumentError):
        tg.io.parse_single_example(_example(tg, **RECORDS[0]), {"r": _ragged(tg, "v", parts)})


SPARSE = {"one dimension": (["i"], [4]), "two dimensions": (["i", "j"], [4, 3])}


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("sort", [False, True])
@pytest.mark.parametrize("case", sorted(SPARSE))
def test_sparse_features_parse_as_tf(case, sort, batched):
    keys, size = SPARSE[case]
    records = RECORDS if batched else RECORDS[:1]
    got = []
    for side in (tg, ref):
        index = keys[0] if len(keys) == 1 else keys
        spec = {"x": side.io.SparseFeature(index, "x", side.float32, size[0] if len(keys) == 1 else size,
                                           already_sorted=sort), "v": side.io.VarLenFeature(side.float32)}
        serialized = [_example(side, **r) for r in records]
        parse = side.io.parse_example if batched else side.io.parse_single_example
        out = parse(serialized if batched else serialized[0], spec)
        got.append({k: _as_plain(v) for k, v in out.items()})
    assert got[0] == got[1]


@pytest.mark.parametrize("spec", [
    lambda s: {"r": s.io.RaggedFeature(s.int64, value_key="v")},  # float values read as int64
    lambda s: {"x": s.io.SparseFeature("v", "x", s.float32, 3)},  # float indices
])
def test_mistyped_features_raise_the_same_class(spec):
    texts = []
    for side in (tg, ref):
        with pytest.raises(side.errors.InvalidArgumentError, match="Data types don't match") as info:
            side.io.parse_example([_example(side, **RECORDS[1]), _example(side, **RECORDS[0])], spec(side))
        texts.append(str(info.value).split("}}")[-1].replace(" [Op:ParseExampleV2]", "").strip())
    assert texts[0] == texts[1]


@pytest.mark.parametrize("spec", [
    lambda s: {"r": s.io.RaggedFeature(s.float32, value_key="v"), "v": s.io.FixedLenFeature([5], s.float32)},
    lambda s: {"r": s.io.RaggedFeature(s.float32, value_key="v"), "v": s.io.VarLenFeature(s.float32)},
    lambda s: {"r": s.io.RaggedFeature(s.float32, value_key="v", partitions=[s.io.RaggedFeature.RowLengths("v")])},
    lambda s: {"r": s.io.RaggedFeature(s.int32)},
    lambda s: {"v": s.io.FixedLenSequenceFeature([], s.float32)},  # parse_example needs allow_missing=True
])
def test_conflicting_configs_raise_value_error_as_tf(spec):
    for side in (tg, ref):
        with pytest.raises(ValueError):
            side.io.parse_example([_example(side, **RECORDS[0])], spec(side))
