"""tf.train.Example both ways and tf.io.parse_single_example / parse_example against TF: the same bytes
from the same protos, each side's bytes parsed by the other, the same tensors (dtype, shape, values) for
fixed and sequence features with defaults and padding, the same error class on bad input. Skipped when
TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

VALUES = {"f": [1.5, float("nan"), -0.0, 3.0e38], "i": [0, -(2 ** 63), 2 ** 63 - 1, 7], "s": [b"", b"\x00\xff", b"ab",
                                                                                            "é".encode()]}


def _example(side, **features):
    out = {}
    for key, values in features.items():
        kind = {"f": "float_list", "i": "int64_list", "s": "bytes_list"}[key[0]]
        cls = {"f": side.train.FloatList, "i": side.train.Int64List, "s": side.train.BytesList}[key[0]]
        out[key] = side.train.Feature(**{kind: cls(value=values)})
    return side.train.Example(features=side.train.Features(feature=out)).SerializeToString(deterministic=True)


def _spec(side, **configs):
    return {k: getattr(side.io, cls)(*args, **kw) for k, (cls, args, kw) in configs.items()}


def _same(ours, theirs):
    assert set(ours) == set(theirs)
    for k in theirs:
        a, b = ours[k], theirs[k]
        assert a.dtype.name == b.dtype.name and tuple(a.shape) == tuple(b.shape), k
        x, y = np.asarray(a.numpy()), np.asarray(b.numpy())
        if x.dtype.kind == "f":
            np.testing.assert_array_equal(x.view(np.uint32), y.view(np.uint32))  # NaN and -0.0 alike
        else:
            assert x.tolist() == y.tolist(), k


def test_the_same_protos_serialize_to_the_same_bytes():
    features = {"f0": VALUES["f"], "i0": VALUES["i"], "s0": VALUES["s"], "f1": VALUES["f"][:1]}
    assert _example(tg, **features) == _example(ref, **features)
    parsed = tg.train.Example.FromString(_example(ref, **features))
    assert list(parsed.features.feature["i0"].int64_list.value) == VALUES["i"]


CONFIGS = {
    "fixed": dict(f0=("FixedLenFeature", ([4], "float32"), {}), i0=("FixedLenFeature", ([2, 2], "int64"), {}),
                  s0=("FixedLenFeature", ([4], "string"), {})),
    "default": dict(fz=("FixedLenFeature", ([2], "float32"), {"default_value": [1.0, -1.0]}),
                    sz=("FixedLenFeature", ([], "string"), {"default_value": "q"})),
    "sequence": dict(f0=("FixedLenSequenceFeature", ([2], "float32"), {"allow_missing": True}),
                     iz=("FixedLenSequenceFeature", ([], "int64"), {"allow_missing": True, "default_value": 5})),
}


def _configs(side, name):
    dt = {"float32": side.float32, "int64": side.int64, "string": side.string}
    return _spec(side, **{k: (cls, (args[0], dt[args[1]]), kw) for k, (cls, args, kw) in CONFIGS[name].items()})


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("writer", ["tapegrad", "tf"])
def test_parse_single_and_batched_as_tf(config, writer):
    side = tg if writer == "tapegrad" else ref
    records = [_example(side, f0=VALUES["f"], i0=VALUES["i"], s0=VALUES["s"]),
               _example(side, f0=VALUES["f"][:2], i0=VALUES["i"], s0=VALUES["s"], iz=[1, 2, 3])]
    if config != "sequence":
        _same(tg.io.parse_single_example(records[0], _configs(tg, config)),
              ref.io.parse_single_example(records[0], _configs(ref, config)))
    if config != "fixed":
        _same(tg.io.parse_example(records, _configs(tg, config)), ref.io.parse_example(records, _configs(ref, config)))


@pytest.mark.parametrize("case", ["missing", "count", "type", "garbage", "stride"])
def test_errors_are_tfs_classes(case):
    record = _example(ref, f0=[1.0, 2.0, 3.0])
    spec = {"missing": dict(z=("FixedLenFeature", ([], "float32"), {})),
            "count": dict(f0=("FixedLenFeature", ([2], "float32"), {})),
            "type": dict(f0=("FixedLenFeature", ([3], "int64"), {})),
            "garbage": dict(f0=("FixedLenFeature", ([3], "float32"), {})),
            "stride": dict(f0=("FixedLenSequenceFeature", ([2], "float32"), {"allow_missing": True}))}[case]
    CONFIGS["_case"] = spec
    data = [b"garbage" if case == "garbage" else record]
    errors = []
    for side in (tg, ref):
        try:
            side.io.parse_example(data, _configs(side, "_case"))
        except Exception as e:  # noqa: BLE001 -- the classes are compared
            errors.append(type(e).__name__)
    del CONFIGS["_case"]
    assert len(errors) == 2 and errors[0] == errors[1]


TENSORS = [[1.0, float("nan"), -0.0], [[1, 2], [3, 4]], 2 ** 40, [True, False], [b"a", b"", "é".encode()], [[]]]


@pytest.mark.parametrize("value", TENSORS)
@pytest.mark.parametrize("direction", ["tapegrad_to_tf", "tf_to_tapegrad"])
def test_serialized_tensors_cross(value, direction):
    src, dst = (tg, ref) if direction == "tapegrad_to_tf" else (ref, tg)
    dtype = {int: "int64", bool: "bool", bytes: "string"}.get(type(np.asarray(value, dtype=object).flat[0])
                                                                if np.size(value) else float, "float32")
    t = src.constant(value, dtype=getattr(src, dtype))
    data = src.io.serialize_tensor(t).numpy()
    theirs = (ref if src is tg else tg).io.serialize_tensor((ref if src is tg else tg).constant(value, getattr(
        ref if src is tg else tg, dtype))).numpy()
    assert data == theirs  # the same bytes from both
    back = dst.io.parse_tensor(data, getattr(dst, dtype))
    x, y = np.asarray(back.numpy()), np.asarray(t.numpy())
    assert x.shape == y.shape and (x.view(np.uint8).tolist() == y.view(np.uint8).tolist() if x.dtype.kind == "f"
                                   else x.tolist() == y.tolist())
