"""parse_example's one-pass reader of a batch of FixedLenFeatures (Note [Parsing a batch in one pass]):
for what protobuf writes it gives exactly what decoding each record with protobuf gives (extreme int64s
of ten-byte varints, NaN and -0.0, empty and binary bytes, keys in any order, extra keys, long values);
what it leaves to protobuf (unpacked lists, repeated or missing keys, other kinds, malformed bytes) it
declines, and parse_example's answer (or TF's error) is protobuf's."""
import struct

import numpy as np
import pytest

import tapegrad as tf
from example_records import example, feature  # noqa: F401
from tapegrad.io import _example, _wire_batch


SPEC = {"x": tf.io.FixedLenFeature([2, 2], tf.float32), "y": tf.io.FixedLenFeature([], tf.int64),
        "ids": tf.io.FixedLenFeature([3], tf.int64), "s": tf.io.FixedLenFeature([2], tf.string),
        "é": tf.io.FixedLenFeature([], tf.float32)}
RNG = np.random.default_rng(3)
RECORDS = [example(x=[float("nan"), -0.0, 3.0e38, 1e-45], y=[-(2 ** 63)], ids=[2 ** 63 - 1, -1, 300],
                   s=[b"", b"\x00\xff" * 100], é=[1.5], extra=[1, 2]),
           example(s=[b"a", b"b" * 200], ids=[0, 127, 128], y=[2 ** 40], x=[1.0, 2.0, 3.0, 4.0], é=[-2.0])]
RECORDS += [example(x=RNG.standard_normal(4).tolist(), y=[int(RNG.integers(-2 ** 62, 2 ** 62))],
                    ids=RNG.integers(-2 ** 63, 2 ** 63 - 1, 3).tolist(), s=[b"r%d" % i, b"q"], é=[0.25])
            for i in range(50)]


def protobuf_parse(records, spec, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(_example, "fixed_features", lambda *a: None)
        return tf.io.parse_example(records, spec)


def same(a, b):
    assert set(a) == set(b)
    for k in a:
        x, y = np.asarray(a[k].numpy()), np.asarray(b[k].numpy())
        assert a[k].dtype == b[k].dtype and x.shape == y.shape, k
        if x.dtype.kind == "f":
            np.testing.assert_array_equal(x.view(np.uint32), y.view(np.uint32))
        else:
            assert x.tolist() == y.tolist(), k


def test_the_one_pass_reader_reads_what_protobuf_writes(monkeypatch):
    configs = {k: (d, dims) for k, (_, d, dims) in _example.check_features(SPEC).items()}
    arrays = _wire_batch.fixed_features(RECORDS, configs)
    assert arrays is not None and arrays["ids"].tolist()[0] == [2 ** 63 - 1, -1, 300]
    assert arrays["y"].tolist()[:2] == [-(2 ** 63), 2 ** 40] and arrays["s"][1].tolist() == [b"a", b"b" * 200]
    same(tf.io.parse_example(RECORDS, SPEC), protobuf_parse(RECORDS, SPEC, monkeypatch))


def _unpacked_floats(key, values):
    """An Example whose float_list is written unpacked (tag 0x0D per value): valid, but not protobuf's way."""
    floats = b"".join(b"\x0d" + struct.pack("<f", v) for v in values)
    feat = b"\x12" + bytes([len(floats)]) + floats
    entry = b"\x0a" + bytes([len(key)]) + key.encode() + b"\x12" + bytes([len(feat)]) + feat
    features = b"\x0a" + bytes([len(entry)]) + entry
    return b"\x0a" + bytes([len(features)]) + features


@pytest.mark.parametrize("records,spec", [
    ([_unpacked_floats("f", [1.0, 2.0]), example(f=[3.0, 4.0])], {"f": tf.io.FixedLenFeature([2], tf.float32)}),
    ([example(f=[1.0]) + example(f=[2.0]), example(f=[3.0])], {"f": tf.io.FixedLenFeature([], tf.float32)}),
    ([example(f=[1.0]), example(g=[1.0])], {"f": tf.io.FixedLenFeature([], tf.float32, default_value=9.0)}),
    ([example(f=[1.0]), b""], {"f": tf.io.FixedLenFeature([], tf.float32, default_value=9.0)}),
])
def test_what_it_declines_parses_as_protobuf_does(records, spec, monkeypatch):
    configs = {k: (d, dims) for k, (_, d, dims) in _example.check_features(spec).items()}
    assert _wire_batch.fixed_features(records, configs) is None
    same(tf.io.parse_example(records, spec), protobuf_parse(records, spec, monkeypatch))


@pytest.mark.parametrize("records,spec,error,text", [
    ([example(f=[1.0]), example(f=[1])], {"f": tf.io.FixedLenFeature([], tf.float32)}, tf.errors.InvalidArgumentError,
     r"^Name: <unknown>, Key: f, Index: 1\.  Data types don't match\. Data type: int64 but expected type: float$"),
    ([example(f=[1.0]), example(f=[1.0, 2.0])], {"f": tf.io.FixedLenFeature([], tf.float32)},
     tf.errors.InvalidArgumentError, r"Key: f, Index: 1\.  Number of float values != expected"),
    ([example(f=[1.0]), example(g=[1.0])], {"f": tf.io.FixedLenFeature([], tf.float32)},
     tf.errors.InvalidArgumentError, r"Feature: f \(data type: float\) is required but could not be found"),
    ([example(f=[1.0]), example(f=[1.0])[:-2]], {"f": tf.io.FixedLenFeature([], tf.float32)},
     tf.errors.InvalidArgumentError, r"Could not parse example input"),
])
def test_bad_batches_raise_tfs_errors(records, spec, error, text):
    with pytest.raises(error, match=text):
        tf.io.parse_example(records, spec)


def _random_feature(rng, kind, n):
    if kind == "f":
        return feature([float(np.float32(rng.uniform(-1e30, 1e30))) for _ in range(n)] or [0.0])
    if kind == "i":
        return feature([int(rng.integers(-2 ** 63, 2 ** 63 - 1)) if rng.random() < 0.5 else int(rng.integers(-5, 300))
                        for _ in range(n)] or [0])
    return feature([bytes(rng.integers(0, 256, int(rng.choice([0, 1, 5, 200]))).astype(np.uint8)) for _ in range(n)])


def test_random_batches_parse_as_protobuf_does(monkeypatch):
    """Random batches, now and then with a missing key, a count or kind off, an extra key, a record
    written as merged Examples or cut short: the same tensors, or the same error, either way."""
    rng = np.random.default_rng(12)
    layout = {"a": ("f", [3]), "bb": ("i", []), "c": ("s", [2]), "dé": ("i", [2, 2])}
    spec = {k: tf.io.FixedLenFeature(dims, {"f": tf.float32, "i": tf.int64, "s": tf.string}[kind])
            for k, (kind, dims) in layout.items()}
    configs = {k: (d, dims) for k, (_, d, dims) in _example.check_features(spec).items()}
    used = 0
    for _ in range(60):
        records = []
        for _ in range(int(rng.choice([1, 2, 7, 40]))):
            items = []
            for key, (kind, dims) in layout.items():
                n, roll = int(np.prod(dims)), rng.random()
                if roll < 0.02:
                    continue
                items.append((key, _random_feature(rng, ("f" if kind != "f" else "i") if roll < 0.05 else kind,
                                                   n + (roll < 0.04))))
            if rng.random() < 0.3:
                items.append(("extra" * int(rng.integers(1, 40)), _random_feature(rng, "s", 2)))
            items = [items[i] for i in rng.permutation(len(items))]
            if rng.random() < 0.05:
                data = b"".join(tf.train.Example(features=tf.train.Features(feature={k: v})).SerializeToString()
                                for k, v in items)
            else:
                data = tf.train.Example(features=tf.train.Features(feature=dict(items))).SerializeToString()
            records.append(data[:-1] if rng.random() < 0.01 else data)
        used += _wire_batch.fixed_features(records, configs) is not None
        outcomes = []
        for fast in (True, False):
            try:
                out = tf.io.parse_example(records, spec) if fast else protobuf_parse(records, spec, monkeypatch)
                outcomes.append({k: np.asarray(v.numpy()).view(np.uint32).tolist() if v.dtype == tf.float32
                                 else np.asarray(v.numpy()).tolist() for k, v in out.items()})
            except tf.errors.InvalidArgumentError as e:
                outcomes.append(str(e))
        assert outcomes[0] == outcomes[1]
    assert used > 10  # the one-pass reader took part
