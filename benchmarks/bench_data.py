"""Input pipelines: one epoch of a shuffled, batched in-memory dataset (tf.data beside NumPy and PyTorch).

Workload: 100,000 rows of 8 float32 features and a float32 label, shuffle(10000) then batch(32),
one full epoch (3,125 batches) per call, each batch delivered as the framework's tensors.
  tapegrad, tensorflow  the same code: tf.data.Dataset.from_tensor_slices((x, y)).shuffle(10000)
                        .batch(32), iterated in a Python loop (a new shuffle order each epoch)
  numpy                 np.random.permutation, then x[idx], y[idx] per batch: the floor a Python
                        loop over in-memory batches can reach (a full permutation, no buffer)
  torch                 DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True), the usual
                        set-up (rows fetched one by one, then collated)
A second workload maps a function over each element before batching, a third parses 100,000 serialized
tf.train.Examples in batches (tapegrad and TF only).
Each call returns the number of batches, compared across frameworks.
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_data.py
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_data.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "data"
ROWS, FEATURES, BUFFER, BATCH = 100_000, 8, 10_000, 32


def _data():
    rng = np.random.default_rng(5)
    return (rng.standard_normal((ROWS, FEATURES)).astype(np.float32),
            rng.standard_normal(ROWS).astype(np.float32))


X, Y = _data()

epoch = h.Workload(GROUP, "one epoch, 100,000 x 8 float32 + labels, shuffle(10000) -> batch(32)",
                   note="3,125 batches a call, each as the framework's tensors; returns the batch count")


def _count(batches):
    n = 0
    for _ in batches:
        n += 1
    return np.asarray(n)


@epoch.case("tensorflow", "tapegrad")
def _(tf):
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(BUFFER).batch(BATCH)
    return lambda: _count(ds)


@epoch.case("numpy")
def _(np):
    def step():
        order = np.random.permutation(ROWS)
        n = 0
        for start in range(0, ROWS, BATCH):
            idx = order[start:start + BATCH]
            X[idx], Y[idx]
            n += 1
        return np.asarray(n)
    return step


@epoch.case("torch")
def _(torch):
    from torch.utils.data import DataLoader, TensorDataset
    loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=BATCH, shuffle=True)
    return lambda: _count(loader)


mapped = h.Workload(GROUP, "one epoch, the same rows, shuffle(10000) -> map(x * 2) -> batch(32)",
                    note="a map function per element (tf.data runs it in C++, tapegrad as a traced graph); "
                         "tapegrad and TF only")


@mapped.case("tensorflow", "tapegrad")
def _(tf):
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(BUFFER).map(lambda x, y: (x * 2.0, y)).batch(BATCH)
    return lambda: _count(ds)


parsed = h.Workload(GROUP, "one epoch of 100,000 serialized tf.train.Examples -> batch(32) -> parse_example",
                    note="each Example holds 8 floats, an int64 label and a bytes field; returns the batch count; "
                         "tapegrad and TF only (the records are the same bytes)")


def _records(tf):
    rng = np.random.default_rng(7)
    feats, labels = rng.standard_normal((ROWS, FEATURES)).astype(np.float32), rng.integers(0, 10, ROWS)
    return [tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=f)),
        "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(l)])),
        "id": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"row-%d" % i]))})).SerializeToString()
        for i, (f, l) in enumerate(zip(feats, labels))]


@parsed.case("tensorflow", "tapegrad")
def _(tf):
    spec = {"x": tf.io.FixedLenFeature([FEATURES], tf.float32), "y": tf.io.FixedLenFeature([], tf.int64),
            "id": tf.io.FixedLenFeature([], tf.string)}
    ds = tf.data.Dataset.from_tensor_slices(_records(tf)).batch(BATCH).map(lambda s: tf.io.parse_example(s, spec))
    return lambda: _count(ds)


WORKLOADS = [epoch, mapped, parsed]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
