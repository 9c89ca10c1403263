"""The shared machinery of StringLookup and IntegerLookup (and TextVectorization's vocabulary).

Note [Lookup vocabulary layout]: in "int" mode with a mask token, index 0 is the mask token,
indices 1 .. num_oov_indices are the out-of-vocabulary (OOV) buckets and the tokens follow; without
a mask token (or in the vector modes, where the mask token has no index and masked inputs count
nowhere) the OOV buckets start at 0. An unknown token falls in bucket Fingerprint64(token) mod
num_oov_indices (strings) or token mod num_oov_indices (integers), as Keras's lookup tables do.
Note [Saved vocabularies]: Keras keeps an adapted vocabulary in the .keras file's assets; tapegrad's
model files hold configs and weights only, so get_config() lists the current vocabulary (and idf
weights) whenever the layer has one, and from_config() sets it again. Keras reads such configs too.
"""
import numpy as np

import tapegrad as tf

from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.preprocessing import _vocabulary
from tapegrad.keras.layers.preprocessing._adapt import as_numpy, batches
from tapegrad.keras.layers.preprocessing._encoding import OUTPUT_MODES, encode_ids

__all__ = ["IndexLookup"]


class IndexLookup(Layer):
    """Maps tokens to indices (or, with invert=True, indices to tokens); see Note [Lookup vocabulary layout]."""

    _is_string = True

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype, vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, **kwargs):
        kwargs.pop("vocabulary_size", None)  # in Keras's configs; the vocabulary fixes it
        super().__init__(**kwargs)
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"Unknown value for `oov_method` argument of {type(self).__name__}. Allowed values "
                             f"are: ('floormod', 'farmhash'). Received: oov_method={oov_method}")
        self.oov_method = oov_method
        # the two keys of tf.strings.to_hash_bucket_strong for OOV buckets (an int repeats)
        self.salt = None if salt is None else [int(v) for v in (salt if isinstance(salt, (list, tuple)) else
                                                               (salt, salt))]
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. Received: max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"If pad_to_max_tokens is True, must set `max_tokens`. Received: "
                             f"max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. Received: "
                             f"num_oov_indices={num_oov_indices}")
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in OUTPUT_MODES:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {OUTPUT_MODES}. "
                             f"Received: output_mode={output_mode}")
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. Received: "
                             f"output_mode={output_mode}")
        if sparse:
            raise NotImplementedError(f"{type(self).__name__}(sparse=True): tapegrad has no sparse outputs here")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError("`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: "
                             f"idf_weights={idf_weights} and output_mode={output_mode}")
        self.max_tokens, self.num_oov_indices, self.mask_token, self.oov_token = \
            max_tokens, num_oov_indices, mask_token, oov_token
        self.vocabulary_dtype, self.invert, self.output_mode = vocabulary_dtype, invert, output_mode
        self.sparse, self.pad_to_max_tokens = sparse, pad_to_max_tokens
        self._tokens, self._idf = None, None  # the vocabulary without special tokens; its idf weights
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        elif idf_weights is not None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf' and a vocabulary is given")

    # ---- the vocabulary
    def _token(self, value):
        return str(value) if self._is_string else int(value)

    def _specials(self):
        """The special tokens before the vocabulary: [mask] (int mode) and the OOV token per bucket."""
        mask = [self.mask_token] if self.mask_token is not None and self.output_mode == "int" else []
        return mask + [self.oov_token] * self.num_oov_indices

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Sets the vocabulary (a list, array or text file of one token a line when a str path ends in
        .txt) and, in tf_idf mode, one idf weight per token. Leading special tokens are accepted."""
        if isinstance(vocabulary, str):
            with open(vocabulary, encoding="utf-8") as f:
                vocabulary = [line.rstrip("\n") for line in f]
        tokens = [self._token(t) for t in np.asarray(as_numpy(vocabulary)).reshape(-1).tolist()]
        specials = self._specials()
        if tokens[:len(specials)] == specials and specials:
            tokens = tokens[len(specials):]
        if len(set(tokens)) != len(tokens):
            repeated = sorted({t for t in tokens if tokens.count(t) > 1}, key=str)
            raise ValueError(f"The passed vocabulary has at least one repeated term. Please uniquify your "
                             f"dataset. The repeated terms are: {repeated}")
        for special in (self.mask_token, self.oov_token):
            if special is not None and special in tokens and not (special == self.mask_token
                                                                 and self.output_mode != "int"):
                raise ValueError(f"Found reserved token {special!r} at index {tokens.index(special)} of the "
                                 "vocabulary; reserved tokens may only appear at the start of the vocabulary")
        if self.max_tokens is not None and len(tokens) + len(specials) > self.max_tokens:
            raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab size. Received "
                             f"vocabulary size is {len(tokens) + len(specials)}; `max_tokens` is {self.max_tokens}.")
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
            given = np.asarray(idf_weights).reshape(-1)
            if len(given) == len(tokens) + len(specials):
                given = given[len(specials):]
            self._idf_config = [float(v) for v in given]  # as given: get_config returns them so
            idf = given.astype("float32")
            if len(idf) != len(tokens):
                raise ValueError(f"`idf_weights` must be the same length as vocabulary. len(idf_weights) is "
                                 f"{len(idf)}; len(vocabulary) is {len(tokens)}")
            self._idf = idf
        self._tokens = tokens
        self._index = {t: i + len(specials) for i, t in enumerate(tokens)}

    def get_vocabulary(self, include_special_tokens=True):
        tokens = list(self._tokens or [])
        return (self._specials() + tokens) if include_special_tokens else tokens

    def vocabulary_size(self):
        return len(self._specials()) + len(self._tokens or [])

    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name, "invert": self.invert,
                  "max_tokens": self.max_tokens, "num_oov_indices": self.num_oov_indices,
                  "oov_token": self.oov_token, "mask_token": self.mask_token, "output_mode": self.output_mode,
                  "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                  "idf_weights": None if self._idf is None else self._idf_config,
                  "vocabulary": None if self._tokens is None else list(self._tokens),  # Note [Saved vocabularies]
                  "vocabulary_size": None if self._tokens is None else self.vocabulary_size(),
                  "oov_method": self.oov_method, "salt": self.salt}
        return config

    # ---- adapt
    def _rows(self, batch, whole=False):
        """A batch as documents of tokens: each row of a rank-2 batch, each element of a rank-1 one
        (the whole batch when ``whole``: Keras's reading of a Dataset's rank-1 batches)."""
        batch = np.asarray(batch)
        if batch.ndim == 0:
            return [[self._token(batch)]]
        if batch.ndim == 1 and whole:
            return [[self._token(t) for t in batch.tolist()]]
        if batch.ndim == 1:
            return [[self._token(t)] for t in batch.tolist()]
        return [[self._token(t) for t in row] for row in batch.reshape(batch.shape[0], -1).tolist()]

    def adapt(self, data, steps=None):
        """Learns the vocabulary of ``data`` (an array or a Dataset of batches): tokens by descending
        count, ties by descending token, at most max_tokens with the special tokens; tf_idf mode also
        learns idf weights (the OOV buckets get their mean)."""
        counts = _vocabulary.TokenCounts()
        whole = isinstance(data, tf.data.Dataset)
        for batch in batches(data, None, steps):
            counts.update(self._rows(batch, whole), skip={self.mask_token, self.oov_token})
        self._finish_adapt(counts)

    def _finish_adapt(self, counts):
        limit = None if self.max_tokens is None else self.max_tokens - len(self._specials())
        tokens = _vocabulary.ordered_tokens(counts.counts, limit)
        idf = None
        if self.output_mode == "tf_idf":
            idf = _vocabulary.inverse_document_frequency([counts.documents[t] for t in tokens], counts.num_documents)
        self._tokens = None
        self.set_vocabulary(tokens, idf)

    # ---- lookups
    def _ids(self, values):
        """The indices of a NumPy array of tokens (Note [Lookup vocabulary layout]); -1 for a mask token
        in the vector modes."""
        specials = self._specials()
        oov_start = 1 if specials and specials[0] == self.mask_token and self.mask_token is not None else 0
        flat = [self._token(v) for v in values.reshape(-1).tolist()]
        ids = np.empty(len(flat), "int64")
        unknown = []
        for i, token in enumerate(flat):
            index = self._index.get(token)
            if index is not None:
                ids[i] = index
            elif self.mask_token is not None and token == self.mask_token:
                ids[i] = 0 if self.output_mode == "int" else -1
            else:
                unknown.append(i)
        if unknown:
            if self.num_oov_indices == 0:
                raise ValueError(f"{type(self).__name__}: the input holds tokens outside the vocabulary "
                                 f"({flat[unknown[0]]!r}) and num_oov_indices=0")
            ids[unknown] = oov_start + self._oov_buckets([flat[i] for i in unknown])
        return ids.reshape(values.shape)

    def _oov_buckets(self, tokens):
        if self.num_oov_indices == 1:
            return np.zeros(len(tokens), "int64")
        if not self._is_string and self.oov_method == "floormod":
            return np.mod(np.asarray(tokens, "int64"), self.num_oov_indices)
        strings = tf.constant([str(t) for t in tokens])  # integers hash as their decimal strings
        if self.salt is None:
            return tf.strings.to_hash_bucket_fast(strings, self.num_oov_indices).numpy()
        return tf.strings.to_hash_bucket_strong(strings, self.num_oov_indices, self.salt).numpy()

    def _depth(self):
        return self.max_tokens if self.pad_to_max_tokens else self.vocabulary_size()

    def _idf_vector(self):
        oov = np.full(self.num_oov_indices, self._idf.mean() if len(self._idf) else 0.0, "float32")
        weights = np.concatenate([oov, self._idf])
        return np.pad(weights, (0, self._depth() - len(weights)))

    def _check_ready(self):
        if self._tokens is None:
            raise ValueError(f"The {type(self).__name__} layer has no vocabulary: pass `vocabulary` or call "
                             "`adapt()` first")

    def _encode(self, ids):
        """ids (an int64 tensor) in the layer's output mode."""
        if self.output_mode == "int":
            return ids
        dtype = tf.float32 if self.output_mode == "tf_idf" else tf.int64
        idf = tf.constant(self._idf_vector()) if self.output_mode == "tf_idf" else None
        return encode_ids(ids, self._depth(), self.output_mode, dtype, idf)

    def _invert(self, inputs):
        vocabulary = self.get_vocabulary()
        ids = np.asarray(as_numpy(inputs)).astype("int64")
        fill = self.oov_token
        tokens = np.array([vocabulary[i] if 0 <= i < len(vocabulary) else fill for i in ids.reshape(-1).tolist()],
                          dtype=object if self._is_string else "int64").reshape(ids.shape)
        return tf.constant(tokens.tolist() if self._is_string else tokens)

    def _tensor_ids(self, inputs):
        """_ids with tensor ops, for integer tokens in a traced function (Dataset.map): a match
        against every vocabulary entry, OOV buckets by floormod."""
        x = tf.cast(inputs, tf.int64)
        start = len(self._specials()) - self.num_oov_indices  # 1 with a mask token in int mode
        match = tf.equal(tf.expand_dims(x, -1), tf.constant(np.asarray(self._tokens, "int64")))
        found = tf.reduce_any(match, axis=-1)
        ids = tf.cast(tf.argmax(tf.cast(match, tf.int32), axis=-1), tf.int64) + (start + self.num_oov_indices)
        oov = tf.math.floormod(x, self.num_oov_indices) + start
        ids = tf.where(found, ids, oov)
        if self.mask_token is not None:
            masked = tf.constant(0 if self.output_mode == "int" else -1, tf.int64)
            ids = tf.where(tf.equal(x, self.mask_token), masked, ids)
        return ids

    def call(self, inputs):
        self._check_ready()
        if self.invert:
            return self._invert(inputs)
        if not self._is_string and self.oov_method == "floormod" and self.num_oov_indices and self._tokens:
            return self._encode(self._tensor_ids(inputs))
        return self._encode(tf.constant(self._ids(np.asarray(as_numpy(inputs)))))
