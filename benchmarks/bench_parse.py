"""Parsing tf.train.Examples: one epoch over a TFRecord file of 100,000 serialized Examples (tf.data beside tapegrad).

Each Example holds a float vector of 16 ("x"), an int64 label ("y") and a bytes field ("id"); the file
is written once (the same bytes for both frameworks) to a temporary folder.
Workloads:
  batch -> parse_example     TFRecordDataset(file).batch(256).map(lambda s: tf.io.parse_example(s, spec)):
                             391 batches a call, one parse of 256 records each
  parse_single_example -> batch
                             TFRecordDataset(file).map(lambda s: tf.io.parse_single_example(s, spec))
                             .batch(256): every record parsed alone, then the parsed tensors batched
tapegrad and TensorFlow run the same code; each call returns the sum of the labels of the epoch
(compared across frameworks).
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_parse.py
"""

import os
import sys
import tempfile

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_parse.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "parse"
RECORDS, WIDTH, BATCH = 100_000, 16, 256
_FILE = []  # the TFRecord file, written on first use


def _path(tf):
    """The records' file, written once by the first framework's own writer (both write the same bytes)."""
    if not _FILE:
        rng = np.random.default_rng(11)
        feats, labels = rng.standard_normal((RECORDS, WIDTH)).astype(np.float32), rng.integers(0, 10, RECORDS)
        path = os.path.join(tempfile.mkdtemp(prefix="bench_parse_"), "examples.tfrecord")
        with tf.io.TFRecordWriter(path) as writer:
            for i, (f, label) in enumerate(zip(feats, labels)):
                writer.write(tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=f)),
                    "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(label)])),
                    "id": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"row-%d" % i]))})
                ).SerializeToString())
        _FILE.append(path)
    return _FILE[0]


def _spec(tf):
    return {"x": tf.io.FixedLenFeature([WIDTH], tf.float32), "y": tf.io.FixedLenFeature([], tf.int64),
            "id": tf.io.FixedLenFeature([], tf.string)}


def _label_sum(dataset):
    total = 0
    for batch in dataset:
        total += int(np.asarray(batch["y"]).sum())
    return np.asarray(total)


NOTE = "391 batches of 256 a call; returns the epoch's label sum"
batch_first = h.Workload(GROUP, "one epoch, TFRecordDataset of 100,000 Examples -> batch(256) -> map(parse_example)",
                         note=NOTE)
parse_first = h.Workload(GROUP, "one epoch, the same file -> map(parse_single_example) -> batch(256)", note=NOTE)


@batch_first.case("tensorflow", "tapegrad")
def _(tf):
    spec = _spec(tf)
    ds = tf.data.TFRecordDataset(_path(tf)).batch(BATCH).map(lambda s: tf.io.parse_example(s, spec))
    return lambda: _label_sum(ds)


@parse_first.case("tensorflow", "tapegrad")
def _(tf):
    spec = _spec(tf)
    ds = tf.data.TFRecordDataset(_path(tf)).map(lambda s: tf.io.parse_single_example(s, spec)).batch(BATCH)
    return lambda: _label_sum(ds)


WORKLOADS = [batch_first, parse_first]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
