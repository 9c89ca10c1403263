"""keras.datasets.imdb: 50,000 movie reviews as word-index sequences, labelled positive/negative
(Keras's imdb.npz and imdb_word_index.json)."""
import json

import numpy as np

from tapegrad.keras.datasets._files import KERAS_ORIGIN, get_file, load_npz

__all__ = ["load_data", "get_word_index"]

_SHA256 = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
_WORD_INDEX_MD5 = "bfafd718b763782e994055a2d397834f"


def _sequences(rows):
    """A list of lists as a 1-d object array (one list per review)."""
    out = np.empty(len(rows), dtype=object)
    out[:] = rows
    return out


def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2,
              index_from=3, **kwargs):
    """Returns ``(x_train, y_train), (x_test, y_test)`` as Keras's: each set shuffled with ``seed``, word
    indices shifted by ``index_from`` after a ``start_char``, reviews of ``maxlen`` words or more
    dropped, and words outside [skip_top, num_words) replaced by ``oov_char`` (dropped if it is None)."""
    if kwargs:
        raise TypeError(f"imdb.load_data: unrecognized keyword arguments: {sorted(kwargs)}")
    arrays = load_npz(get_file(path, KERAS_ORIGIN + "imdb.npz", file_hash=_SHA256))
    rng = np.random.RandomState(seed)
    sets = []
    for x_key, y_key in (("x_train", "y_train"), ("x_test", "y_test")):
        order = np.arange(len(arrays[x_key]))
        rng.shuffle(order)  # one generator for both sets, train first: Keras's order
        x, y = arrays[x_key][order], arrays[y_key][order]
        prefix = [start_char] if start_char is not None else []
        rows = [prefix + [w + (index_from or 0) for w in review] for review in x]
        if maxlen:
            kept = [i for i, row in enumerate(rows) if len(row) < maxlen]
            rows, y = [rows[i] for i in kept], y[kept]
        sets.append((rows, y))
    if maxlen and (not sets[0][0] or not sets[1][0]):
        raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, no sequence was kept. "
                         "Increase maxlen.")
    if not num_words:
        num_words = max(max(row) for rows, _ in sets for row in rows if row)

    def vocabulary(row):
        if oov_char is not None:
            return [w if skip_top <= w < num_words else oov_char for w in row]
        return [w for w in row if skip_top <= w < num_words]
    (train, y_train), (test, y_test) = sets
    return ((_sequences([vocabulary(r) for r in train]), np.asarray(y_train)),
            (_sequences([vocabulary(r) for r in test]), np.asarray(y_test)))


def get_word_index(path="imdb_word_index.json"):
    """{word: index} of the word indices in the data (before ``index_from`` shifts them)."""
    with open(get_file(path, KERAS_ORIGIN + "imdb_word_index.json", file_hash=_WORD_INDEX_MD5)) as f:
        return json.load(f)
