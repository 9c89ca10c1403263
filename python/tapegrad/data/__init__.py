"""tf.data: input pipelines over in-memory arrays, Python generators, TFRecord and text files, with TF's names
and semantics.

    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(10000).batch(32).prefetch(tf.data.AUTOTUNE)
    for xb, yb in ds: ...
"""
from tapegrad.data import experimental
from tapegrad.data._dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, Iterator, Options
from tapegrad.data._structure import DatasetSpec
from tapegrad.data._file_datasets import TextLineDataset, TFRecordDataset
from tapegrad.data import _save_load  # noqa: F401 -- attaches Dataset.save and Dataset.load
from tapegrad.data import _composite_batching  # noqa: F401 -- attaches Dataset.ragged_batch and sparse_batch

__all__ = ["Dataset", "DatasetSpec", "Iterator", "Options", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY",
           "experimental", "TFRecordDataset", "TextLineDataset"]
