"""keras.layers.Discretization: values to the index of their bin, from given or adapted bin boundaries."""
import numpy as np

import tapegrad as tf

from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.preprocessing._adapt import batches
from tapegrad.keras.layers.preprocessing._encoding import encode_ids

__all__ = ["Discretization"]


def _summary(values):
    """A batch's quantile summary before compression: its sorted values, each of weight 1. Rows:
    values, weights."""
    values = np.sort(np.reshape(values, [-1]))
    return np.stack([values, np.ones_like(values)])


def _compress(summary, epsilon):
    """The summary re-sampled at the quantiles epsilon, 2 epsilon, ..., 1 (interpolated in its
    cumulative weights); left as it is when it is already that small."""
    if summary.shape[1] * epsilon < 1:
        return summary
    quantiles = epsilon + np.arange(0.0, 1.0, epsilon)
    cumulative = summary[1].cumsum()
    fractions = cumulative / cumulative[-1]
    values = np.interp(quantiles, fractions, summary[0])
    at = np.interp(quantiles, fractions, cumulative)
    weights = at - np.concatenate(([0.0], at[:-1]))
    return np.stack([values, weights]).astype("float32")


def _merge(a, b, epsilon):
    both = np.concatenate([a, b], axis=1)
    return _compress(both[:, np.argsort(both[0], kind="stable")], epsilon)


class Discretization(Layer):
    """Buckets values: output i when bin_boundaries[i - 1] <= x < bin_boundaries[i].

    Args:
      bin_boundaries: the sorted boundaries; or None with ``num_bins`` and ``adapt(data)``, which sets
        them at the data's approximate quantiles 1/num_bins, ..., (num_bins - 1)/num_bins.
      epsilon: the error tolerance of those quantiles.
      output_mode: "int" (int32 bin indices), "one_hot", "multi_hot" or "count" (over len(bins) + 1).
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int", sparse=False,
                 dtype=None, name=None):
        super().__init__(name=name, dtype=dtype)
        if sparse:
            raise NotImplementedError("Discretization(sparse=True): tapegrad has no sparse outputs here")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{('int', 'one_hot', 'multi_hot', 'count')}. Received: output_mode={output_mode}")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. Received: `num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            if len(bin_boundaries) != num_bins - 1:
                raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. Received: "
                                 f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`")
        self.bin_boundaries = None if bin_boundaries is None else [float(b) for b in bin_boundaries]
        self.num_bins, self.epsilon, self.output_mode, self.sparse = num_bins, epsilon, output_mode, sparse
        self._quantile_summary = None

    def get_config(self):
        return {"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": self.sparse, "name": self.name, "dtype": self.dtype.name}

    def adapt(self, data, steps=None):
        """Sets bin_boundaries from the data (an array or a Dataset of batches): a quantile summary
        per batch, merged, read at the num_bins quantiles."""
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized with "
                             "`bin_boundaries`, use `num_bins` instead.")
        summary = np.zeros((2, 0), "float32")
        for batch in batches(data, None, steps):  # each batch merged into the running summary, compressed
            summary = _merge(summary, _summary(np.asarray(batch, "float32")), self.epsilon)
        if not summary.size:
            raise ValueError("Discretization.adapt: the data holds no batch")
        self.bin_boundaries = _compress(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at construction time or "
                             "call `adapt(dataset)` before you can start using the `Discretization` layer.")
        x = tf.cast(inputs, tf.float32)
        bins = tf.constant(np.asarray(self.bin_boundaries, "float32").reshape([1] * len(x.shape) + [-1]))
        ids = tf.reduce_sum(tf.cast(tf.expand_dims(x, -1) >= bins, tf.int32), axis=-1)
        if self.output_mode == "int":
            return ids
        return encode_ids(ids, len(self.bin_boundaries) + 1, self.output_mode, self.dtype)
