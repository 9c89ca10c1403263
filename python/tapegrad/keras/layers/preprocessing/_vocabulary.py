"""Vocabularies learned by the lookup layers' adapt: token and document counts, Keras's ordering, idf."""
import collections

import numpy as np

__all__ = ["TokenCounts", "ordered_tokens", "inverse_document_frequency"]


class TokenCounts:
    """How often each token occurs, and in how many documents (rows), over the batches seen."""

    def __init__(self):
        self.counts, self.documents, self.num_documents = collections.Counter(), collections.Counter(), 0

    def update(self, rows, skip=()):
        """rows: a list of documents, each a list of tokens; tokens in ``skip`` are not counted."""
        for row in rows:
            row = [t for t in row if t not in skip]
            self.counts.update(row)
            self.documents.update(set(row))
        self.num_documents += len(rows)


def ordered_tokens(counts, limit=None):
    """The tokens by descending count, ties by descending token (Keras's order), the first ``limit``."""
    tokens = sorted(counts, key=lambda t: (counts[t], t), reverse=True)
    return tokens if limit is None else tokens[:max(limit, 0)]


def inverse_document_frequency(document_counts, num_documents):
    """log(1 + num_documents / (1 + document_count)) per token, computed in float64, kept as float32."""
    counts = np.asarray(document_counts, "float64")
    return np.log(1.0 + num_documents / (1.0 + counts)).astype("float32")
