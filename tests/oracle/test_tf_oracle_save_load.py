"""Dataset.save / Dataset.load against TF: each side saves and loads the same datasets (each in its own
layout: Note [Saved dataset layout]) and gets the same element_spec, cardinality and elements, the
same order for one shard and for shards read by a reader_func, and the same error classes. Skipped when
TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

ROWS = {"a": np.arange(12, dtype=np.float32).reshape(3, 2, 2), "b": (np.array([b"x", b"", b"\x00z"]),
                                                                     np.array([-(2 ** 63), 0, 7])),
        "c": np.array([True, False, True]), "d": np.arange(3, dtype=np.uint8)}


def _plain(x):
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in sorted(x.items())}
    if isinstance(x, tuple):
        return tuple(_plain(v) for v in x)
    a = np.asarray(x)
    return (a.dtype.str, a.shape, a.tolist())


def _spec(spec):
    if isinstance(spec, dict):
        return {k: _spec(v) for k, v in sorted(spec.items())}
    if isinstance(spec, tuple):
        return tuple(_spec(v) for v in spec)
    return (spec.dtype.name, spec.shape.as_list() if spec.shape.rank is not None else None)


DATASETS = {
    "nested slices": lambda s: s.data.Dataset.from_tensor_slices(ROWS),
    "batches": lambda s: s.data.Dataset.range(10).batch(3),
    "filtered": lambda s: s.data.Dataset.range(8).filter(lambda x: x % 3 > 0),
    "empty": lambda s: s.data.Dataset.range(0),
    "tuples": lambda s: s.data.Dataset.from_tensor_slices((np.arange(4.0), np.arange(4))).map(lambda x, y: (y, x)),
}


@pytest.mark.parametrize("compression", [None, "GZIP"])
@pytest.mark.parametrize("case", sorted(DATASETS))
def test_a_saved_dataset_loads_as_tfs(case, compression, tmp_path):
    got = []
    for side in (tg, ref):
        path = str(tmp_path / side.__name__)
        DATASETS[case](side).save(path, compression=compression)
        loaded = side.data.Dataset.load(path, compression=compression)
        got.append((_spec(loaded.element_spec), int(loaded.cardinality()),
                    [_plain(e) for e in loaded.as_numpy_iterator()]))
    assert got[0] == got[1]


def test_shards_read_by_a_reader_func_as_tf(tmp_path):
    got = []
    for side in (tg, ref):
        path = str(tmp_path / side.__name__)
        side.data.Dataset.range(12).save(path, shard_func=lambda x: x % 3)
        loaded = side.data.Dataset.load(path, reader_func=lambda d: d.interleave(lambda shard: shard, cycle_length=1))
        default = side.data.Dataset.load(path)
        got.append(([int(x) for x in loaded], sorted(int(x) for x in default)))
    assert got[0] == got[1]


def test_errors_have_tfs_classes(tmp_path):
    for side in (tg, ref):
        with pytest.raises(side.errors.NotFoundError):
            side.data.Dataset.load(str(tmp_path / "missing"))
        path = str(tmp_path / side.__name__)
        side.data.Dataset.from_tensor_slices(np.arange(3.0, dtype=np.float32)).save(path)
        with pytest.raises(side.errors.InvalidArgumentError):
            list(side.data.Dataset.load(path, element_spec=side.TensorSpec([], side.int64)))
        with pytest.raises(side.errors.InvalidArgumentError):
            side.data.Dataset.range(3).save(path + "x", shard_func=lambda x, s=side: s.cast(x, s.int32))
