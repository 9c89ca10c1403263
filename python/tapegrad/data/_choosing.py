"""Datasets that pick each element from one of several datasets: choose_from_datasets,
sample_from_datasets; and assert_cardinality."""
import numpy as np

from tapegrad import dtypes, errors, random
from tapegrad._tensor.tensor import Tensor, TensorSpec
from tapegrad.data import _structure as st
from tapegrad.data._dataset import Dataset, check_count

__all__ = ["Choose", "Sample", "AssertCardinality"]


def _datasets(datasets, op):
    datasets = list(datasets)
    if not datasets or not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError(f"{op}: Invalid `datasets`. `datasets` must be a non-empty list of tf.data.Dataset objects")
    first = datasets[0]
    for i, d in enumerate(datasets[1:], 1):
        if len(d._specs) != len(first._specs) or not all(
                st.specs_compatible(a, b) for a, b in zip(first._specs, d._specs)):
            raise TypeError(f"{op}: Invalid `datasets`. `datasets` must have compatible element specs. Dataset 0 "
                            f"element_spec={first.element_spec}. Dataset {i} element_spec={d.element_spec}.")
    return datasets


def _merged_spec(datasets):
    specs = datasets[0]._specs
    for d in datasets[1:]:
        specs = [st.merge_specs(a, b) for a, b in zip(specs, d._specs)]
    return st.structure_of(datasets[0].element_spec, specs)


class Choose(Dataset):
    def __init__(self, datasets, choice_dataset, stop_on_empty_dataset):
        self._datasets = _datasets(datasets, "Dataset.choose_from_datasets")
        spec = getattr(choice_dataset, "element_spec", None)
        if not isinstance(choice_dataset, Dataset) or spec != TensorSpec([], dtypes.int64):
            raise TypeError(f"Dataset.choose_from_datasets: Invalid `choice_dataset`. Elements of `choice_dataset` "
                            f"must be scalar `tf.int64` tensors but are {spec}.")
        self._choices, self._stop = choice_dataset, bool(stop_on_empty_dataset)
        super().__init__(_merged_spec(self._datasets))

    def _flat(self):
        sources = [d._flat() for d in self._datasets]
        for (choice,) in self._choices._flat():
            i = int(choice)
            if not 0 <= i < len(sources):
                raise errors.InvalidArgumentError(None, None, f"Dataset.choose_from_datasets: Selector index out "
                                                  f"of range: {i} >= {len(sources)}")
            if sources[i] is None:
                continue
            item = next(sources[i], None)
            if item is None:
                if self._stop:
                    return
                sources[i] = None
                continue
            yield item


class Sample(Dataset):
    def __init__(self, datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration):
        self._datasets = _datasets(datasets, "Dataset.sample_from_datasets")
        n = len(self._datasets)
        if weights is None:
            weights = np.full(n, 1.0 / n)
        else:
            weights = np.asarray(weights.numpy() if isinstance(weights, Tensor) else weights, np.float64)
            if weights.shape != (n,):
                raise ValueError(f"Dataset.sample_from_datasets: Invalid `weights`. `weights` should have the same "
                                 f"length as `datasets` but got `len(weights)={weights.size}` vs. "
                                 f"`len(datasets)={n}`.")
            if not np.isfinite(weights).all() or (weights < 0).any() or weights.sum() <= 0:
                raise errors.InvalidArgumentError(None, None, f"Dataset.sample_from_datasets: `weights` must be "
                                                  f"finite, non-negative and not all zero, got {weights.tolist()}")
        self._weights = weights / weights.sum()
        self._stop = bool(stop_on_empty_dataset)
        self._seed = int(seed) if seed is not None else int(random._numpy_generator().integers(1 << 62))
        self._rerandomize, self._epoch = bool(rerandomize_each_iteration), 0
        super().__init__(_merged_spec(self._datasets))

    def _flat(self):
        rng = np.random.default_rng([self._seed, self._epoch])
        self._epoch += self._rerandomize
        sources = [d._flat() for d in self._datasets]
        weights = self._weights.copy()
        while weights.sum() > 0:
            i = int(rng.choice(len(sources), p=weights / weights.sum()))
            item = next(sources[i], None)
            if item is None:
                if self._stop:
                    return
                weights[i] = 0.0
                continue
            yield item


class AssertCardinality(Dataset):
    def __init__(self, dataset, expected):
        self._input = dataset
        self._expected = check_count(expected, "expected_cardinality", "assert_cardinality")
        super().__init__(dataset.element_spec)

    def _card(self):
        return self._expected

    def _flat(self):
        seen = 0
        for item in self._input._flat():
            seen += 1
            if self._expected >= 0 and seen > self._expected:
                raise errors.FailedPreconditionError(
                    None, None, f"assert_cardinality: Input dataset was expected to contain {self._expected} "
                    f"elements but contained at least {seen} elements.")
            yield item
        if self._expected >= 0 and seen < self._expected:
            raise errors.FailedPreconditionError(
                None, None, f"assert_cardinality: Input dataset was expected to contain {self._expected} elements "
                f"but contained only {seen} elements.")
