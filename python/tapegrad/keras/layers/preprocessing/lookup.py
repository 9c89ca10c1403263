"""keras.layers.StringLookup and IntegerLookup: tokens to vocabulary indices (Note [Lookup vocabulary
layout] in _index_lookup.py) and back with invert=True."""
from tapegrad.keras.layers.preprocessing._index_lookup import IndexLookup

__all__ = ["StringLookup", "IntegerLookup"]


class StringLookup(IndexLookup):
    """Strings to indices in a vocabulary given as ``vocabulary`` or learned by ``adapt(data)``.

    Args:
      max_tokens: the largest vocabulary, special tokens included (None: no limit).
      num_oov_indices: buckets for unknown strings (hashed by Fingerprint64 when more than one).
      mask_token: a string mapped to index 0 in "int" mode (None: no mask).
      oov_token: the string ``invert=True`` returns for OOV indices.
      output_mode: "int" (int64 indices), "one_hot", "multi_hot", "count" (int64 vectors) or "tf_idf"
        (float32; needs ``idf_weights`` with a given vocabulary).
      pad_to_max_tokens: vector outputs of length max_tokens, whatever the vocabulary's size.
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, salt=None, **kwargs):
        kwargs.pop("vocabulary_dtype", None)
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary_dtype="string", vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, name=name, salt=salt, **kwargs)

    def get_config(self):
        return {**super().get_config(), "encoding": self.encoding}


class IntegerLookup(IndexLookup):
    """Integers to indices in a vocabulary given as ``vocabulary`` or learned by ``adapt(data)``; the
    arguments are StringLookup's, with integer mask_token and oov_token (-1). Unknown integers fall in
    bucket value mod num_oov_indices (oov_method="floormod") or by the Fingerprint64 of its decimal
    string ("farmhash", keyed by ``salt`` when given)."""

    _is_string = False

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, oov_method="floormod", salt=None, name=None, **kwargs):
        if vocabulary_dtype != "int64":
            raise ValueError(f"Only `vocabulary_dtype='int64'` is supported at this time. Received: "
                             f"vocabulary_dtype={vocabulary_dtype}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary_dtype=vocabulary_dtype, vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, oov_method=oov_method, salt=salt, name=name,
                         **kwargs)

    def get_config(self):
        config = super().get_config()
        keys = list(config)
        config["vocabulary_dtype"] = self.vocabulary_dtype
        ordered = keys[:keys.index("pad_to_max_tokens") + 1] + ["vocabulary_dtype"] + \
            keys[keys.index("pad_to_max_tokens") + 1:]
        return {k: config[k] for k in ordered}
