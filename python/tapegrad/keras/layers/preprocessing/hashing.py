"""keras.layers.Hashing: strings and integers to bins by FarmHash Fingerprint64 (bit-equal with Keras on TF)."""
import numpy as np

import tapegrad as tf

from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.preprocessing._encoding import encode_ids

__all__ = ["Hashing"]


def _keyed_salt(salt):
    """The two 64-bit keys of tf.strings.to_hash_bucket_strong: an int repeats, a pair is as given."""
    if salt is None:
        return None
    if isinstance(salt, (list, tuple)):
        if len(salt) != 2:
            raise ValueError(f"The `salt` argument for `Hashing` can only be a tuple of size 2 integers, "
                             f"or a single integer. Received: salt={salt}.")
        return [int(s) for s in salt]
    return [int(salt), int(salt)]


class Hashing(Layer):
    """Hashes each value into [0, num_bins): tf.strings.to_hash_bucket_fast (FarmHash Fingerprint64 mod
    num_bins), or to_hash_bucket_strong keyed by ``salt``. Integers are hashed as their decimal strings.

    mask_value: values equal to it go to bin 0 and the others to [1, num_bins) (hashed into num_bins - 1).
    output_mode: "int" (int64 bins), "one_hot", "multi_hot" or "count" vectors of length num_bins.
    """

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        kwargs.setdefault("dtype", "int64" if output_mode == "int" else None)
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. "
                             f"Received: num_bins={num_bins}.")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{('int', 'one_hot', 'multi_hot', 'count')}. Received: output_mode={output_mode}")
        if sparse:
            raise NotImplementedError("Hashing(sparse=True): tapegrad has no sparse outputs here")
        self.num_bins, self.mask_value, self.output_mode, self.sparse = num_bins, mask_value, output_mode, sparse
        self.salt = _keyed_salt(salt)

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name, "num_bins": self.num_bins,
                "salt": self.salt, "mask_value": self.mask_value, "output_mode": self.output_mode,
                "sparse": self.sparse}

    def _as_strings(self, inputs):
        if inputs.dtype == tf.string:
            return inputs
        return tf.strings.as_string(tf.cast(inputs, tf.int64) if inputs.dtype.is_integer else inputs)

    def call(self, inputs):
        strings = self._as_strings(inputs)
        bins = self.num_bins - (self.mask_value is not None)
        if self.salt is None:
            hashed = tf.strings.to_hash_bucket_fast(strings, bins)
        else:
            hashed = tf.strings.to_hash_bucket_strong(strings, bins, self.salt)
        if self.mask_value is not None:
            mask = np.asarray(self._as_strings(tf.constant(self.mask_value)).numpy())
            masked = np.asarray(strings.numpy()) == mask
            hashed = tf.constant(np.where(masked, 0, hashed.numpy() + 1).astype("int64"))
        if self.output_mode == "int":
            return hashed
        return encode_ids(hashed, self.num_bins, self.output_mode, self.dtype)
