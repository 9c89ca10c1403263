"""keras.layers.TextVectorization: strings to token indices or token-count vectors.

Each string is standardized, split into tokens, extended with its n-grams, then looked up in a
vocabulary (a StringLookup with mask token "" and OOV token "[UNK]"; Note [Lookup vocabulary layout]).
The text steps run in Python per string: tapegrad has no RaggedTensor for a batch of token lists.
"""
import string

import numpy as np

import tapegrad as tf

from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.preprocessing import _vocabulary
from tapegrad.keras.layers.preprocessing._adapt import as_numpy, batches
from tapegrad.keras.layers.preprocessing.lookup import StringLookup

__all__ = ["TextVectorization"]

_STANDARDIZE = (None, "lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = (None, "whitespace", "character")
_PUNCTUATION = str.maketrans("", "", string.punctuation)  # the ASCII punctuation Keras's default regex strips


class TextVectorization(Layer):
    """Turns a batch of strings ([batch] or [batch, 1]) into token indices or vectors.

    Args:
      max_tokens: the largest vocabulary, the mask and OOV tokens included.
      standardize: None, "lower_and_strip_punctuation", "lower", "strip_punctuation" or a callable on a str.
      split: None (the whole string is one token), "whitespace", "character" or a callable str -> tokens.
      ngrams: None, n (the 1..n-grams) or a tuple of n-gram sizes, joined by a space.
      output_mode: "int" (int64 indices, padded with 0 to output_sequence_length or to the longest
        row), "multi_hot", "count" (int64) or "tf_idf" (float32) vectors over the vocabulary.
      vocabulary, idf_weights: a given vocabulary (and its idf weights); otherwise call adapt(data).
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None, **kwargs):
        kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("int", "multi_hot", "count", "tf_idf"):
            raise ValueError("Invalid value for argument `output_mode`. Expected one of "
                             f"{('int', 'multi_hot', 'count', 'tf_idf')}. Received: output_mode={output_mode}")
        if not callable(standardize) and standardize not in _STANDARDIZE:
            raise ValueError(f"Invalid value for argument `standardize`. Expected one of {_STANDARDIZE} or a "
                             f"callable. Received: standardize={standardize}")
        if not callable(split) and split not in _SPLIT:
            raise ValueError(f"Invalid value for argument `split`. Expected one of {_SPLIT} or a callable. "
                             f"Received: split={split}")
        if isinstance(ngrams, int) and not isinstance(ngrams, bool) and ngrams < 1 or \
                ngrams is not None and not isinstance(ngrams, (int, list, tuple)):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams={ngrams}")
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError(f"`output_sequence_length` must not be set if `output_mode` is not 'int'. "
                             f"Received output_sequence_length={output_sequence_length}.")
        if ragged or sparse:
            raise NotImplementedError("TextVectorization(ragged=True or sparse=True): tapegrad has neither "
                                      "RaggedTensor nor sparse outputs here")
        self.max_tokens, self.standardize, self.split = max_tokens, standardize, split
        self.ngrams = tuple(ngrams) if isinstance(ngrams, list) else ngrams
        self.output_mode, self.output_sequence_length = output_mode, output_sequence_length
        self.pad_to_max_tokens, self.sparse, self.ragged, self.encoding = pad_to_max_tokens, sparse, ragged, encoding
        self._lookup = StringLookup(max_tokens=max_tokens, mask_token="", oov_token="[UNK]", vocabulary=vocabulary,
                                    idf_weights=idf_weights, output_mode=output_mode,
                                    pad_to_max_tokens=pad_to_max_tokens, name=f"{self.name}_lookup")

    def get_config(self):
        lookup = self._lookup.get_config()
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name,
                "max_tokens": self.max_tokens, "standardize": self.standardize, "split": self.split,
                "ngrams": list(self.ngrams) if isinstance(self.ngrams, tuple) else self.ngrams,
                "output_mode": self.output_mode, "output_sequence_length": self.output_sequence_length,
                "pad_to_max_tokens": self.pad_to_max_tokens, "sparse": self.sparse, "ragged": self.ragged,
                "vocabulary": lookup["vocabulary"], "idf_weights": lookup["idf_weights"],  # Note [Saved vocabularies]
                "encoding": self.encoding, "vocabulary_size": self.vocabulary_size()}

    # ---- the vocabulary
    def get_vocabulary(self, include_special_tokens=True):
        return self._lookup.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        return self._lookup.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        self._lookup.set_vocabulary(vocabulary, idf_weights)

    # ---- text to tokens
    def _standardized(self, text):
        if callable(self.standardize):
            return self.standardize(text)
        if self.standardize in ("lower_and_strip_punctuation", "lower"):
            text = text.lower()
        if self.standardize in ("lower_and_strip_punctuation", "strip_punctuation"):
            text = text.translate(_PUNCTUATION)
        return text

    def _tokens(self, text):
        """One document's tokens and n-grams, in Keras's order (all 1-grams, then 2-grams, ...)."""
        text = self._standardized(text)
        if self.split is None:
            tokens = [text]
        elif callable(self.split):
            tokens = [str(t) for t in self.split(text)]
        elif self.split == "whitespace":
            tokens = text.split()
        else:
            tokens = list(text)
        if self.ngrams is None:
            return tokens
        sizes = range(1, self.ngrams + 1) if isinstance(self.ngrams, int) else self.ngrams
        return [" ".join(tokens[i:i + n]) for n in sizes for i in range(len(tokens) - n + 1)]

    def _documents(self, inputs):
        """The batch's strings (a [batch, 1] batch squeezed) and whether it was a scalar."""
        texts = np.asarray(as_numpy(inputs))
        if texts.ndim == 2 and texts.shape[-1] == 1:
            texts = texts[:, 0]
        if texts.ndim > 1:
            raise ValueError("When using TextVectorization to tokenize strings, the input rank must be 1 or "
                             f"the last shape dimension must be 1. Received: inputs.shape={texts.shape} with "
                             f"rank={texts.ndim}")
        return [str(t) for t in texts.reshape(-1).tolist()], texts.ndim == 0

    def adapt(self, data, batch_size=None, steps=None):
        """Learns the vocabulary (and idf weights in tf_idf mode) from strings: an array or a Dataset of batches."""
        counts = _vocabulary.TokenCounts()
        for batch in batches(data, batch_size, steps):
            documents, _ = self._documents(batch)
            counts.update([self._tokens(d) for d in documents], skip={"", "[UNK]"})
        self._lookup._finish_adapt(counts)

    def call(self, inputs):
        self._lookup._check_ready()
        documents, scalar = self._documents(inputs)
        rows = [self._tokens(d) for d in documents]
        width = self.output_sequence_length
        if width is None:
            width = max([len(r) for r in rows] + [0])
        if self.output_mode == "int":
            out = np.zeros((len(rows), width), "int64")
            for i, row in enumerate(rows):
                row = row[:width]
                if row:
                    out[i, :len(row)] = self._lookup._ids(np.array(row, dtype=object))
            if self.split is None and self.output_sequence_length is None:
                out = out[:, 0]  # one token per string: no token axis, as Keras
            return tf.constant(out[0] if scalar else out)
        ids = np.full((len(rows), max(width, 1)), -1, "int64")  # -1: no token (one_hot gives zeros)
        for i, row in enumerate(rows):
            if row:
                ids[i, :len(row)] = self._lookup._ids(np.array(row, dtype=object))
        out = self._lookup._encode(tf.constant(ids))
        return out[0] if scalar else out
