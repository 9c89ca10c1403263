"""tf.data.experimental: the names TF still keeps here (AUTOTUNE, cardinality and its constants, CSV files:
CsvDataset and make_csv_dataset, and the older homes of sampling, choosing, get_single_element, save, load,
ragged_batch and sparse_batch)."""
import enum

from tapegrad.data import _choosing
from tapegrad.data._composite_batching import dense_to_ragged_batch, dense_to_sparse_batch
from tapegrad.data._csv_datasets import CsvDataset, make_csv_dataset
from tapegrad.data._dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from tapegrad.data._save_load import load, save

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality", "assert_cardinality",
           "sample_from_datasets", "choose_from_datasets", "get_single_element", "AutoShardPolicy",
           "enable_debug_mode", "CsvDataset", "make_csv_dataset", "save", "load", "dense_to_ragged_batch",
           "dense_to_sparse_batch"]


def cardinality(dataset):
    """``dataset.cardinality()``: an int64 scalar, -1 for infinite, -2 for unknown."""
    return dataset.cardinality()


def assert_cardinality(expected_cardinality):
    """For ``dataset.apply``: the dataset with cardinality ``expected_cardinality``; iterating it raises
    FailedPreconditionError if it holds another number of elements."""
    return lambda dataset: _choosing.AssertCardinality(dataset, expected_cardinality)


sample_from_datasets = Dataset.sample_from_datasets
choose_from_datasets = Dataset.choose_from_datasets


def get_single_element(dataset):
    return dataset.get_single_element()


class AutoShardPolicy(enum.IntEnum):
    """For ``options.experimental_distribute.auto_shard_policy`` (accepted; one process reads all data)."""
    AUTO = 0
    FILE = 1
    DATA = 2
    OFF = -1
    HINT = 3


def enable_debug_mode():
    """Accepted: pipelines here already run in Python, element by element, in order."""
