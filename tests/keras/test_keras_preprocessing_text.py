"""keras.layers' vocabulary and text layers against Python references: Hashing (FarmHash bins from
tf.strings), StringLookup, IntegerLookup and TextVectorization (vocabulary order, OOV buckets, masks,
output modes, tf-idf, adapt on arrays and Datasets), in models, in Dataset.map, and saved to and loaded
from .keras files. Keras itself is compared in tests/oracle/test_tf_oracle_keras_preprocessing.py."""
import collections
import math

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

L = keras.layers
WORDS = np.array(["b", "a", "b", "c", "a", "d", "b"])
TEXTS = np.array(["The cat sat.", "the DOG, sat!", "a cat and a dog", "Dog"])


def _keras_order(tokens):
    """By descending count, ties by descending token."""
    counts = collections.Counter(tokens)
    return sorted(counts, key=lambda t: (counts[t], t), reverse=True)


def test_hashing_bins_are_tf_strings_fingerprint_buckets():
    words = np.array([["a"], ["hello"], ["x"], [""]])
    expected = tf.strings.to_hash_bucket_fast(tf.constant(words), 7).numpy()
    np.testing.assert_array_equal(L.Hashing(7)(words).numpy(), expected)
    ints = np.array([[1], [22], [-3]])
    np.testing.assert_array_equal(L.Hashing(7)(ints).numpy(),
                                  tf.strings.to_hash_bucket_fast(tf.constant([["1"], ["22"], ["-3"]]), 7).numpy())
    masked = L.Hashing(7, mask_value="")(words).numpy()
    np.testing.assert_array_equal(masked[:3], tf.strings.to_hash_bucket_fast(tf.constant(words[:3]), 6).numpy() + 1)
    assert masked[3, 0] == 0
    salted = L.Hashing(7, salt=[1, 2])(words).numpy()
    np.testing.assert_array_equal(salted, tf.strings.to_hash_bucket_strong(tf.constant(words), 7, [1, 2]).numpy())
    hot = L.Hashing(7, output_mode="multi_hot")(np.array([["a", "x"]])).numpy()
    assert hot.shape == (1, 7) and hot.sum() == len(set(expected[[0, 2], 0]))


def test_string_lookup_adapts_the_vocabulary_in_keras_order():
    layer = L.StringLookup()
    layer.adapt(WORDS)
    assert layer.get_vocabulary() == ["[UNK]"] + _keras_order(WORDS.tolist())
    assert layer(np.array(["b", "a", "zz"])).numpy().tolist() == [1, 2, 0]
    capped = L.StringLookup(max_tokens=3)
    capped.adapt(tf.data.Dataset.from_tensor_slices(WORDS).batch(3))
    assert capped.get_vocabulary() == ["[UNK]", "b", "a"]


def test_string_lookup_mask_oov_buckets_and_invert():
    layer = L.StringLookup(mask_token="", num_oov_indices=2, vocabulary=["a", "b"])
    assert layer.get_vocabulary() == ["", "[UNK]", "[UNK]", "a", "b"] and layer.vocabulary_size() == 5
    unknown = ["x", "yy", "zz"]
    buckets = tf.strings.to_hash_bucket_fast(tf.constant(unknown), 2).numpy() + 1
    assert layer(np.array(["", "a", "b"] + unknown)).numpy().tolist() == [0, 3, 4] + buckets.tolist()
    invert = L.StringLookup(vocabulary=["a", "b"], invert=True)
    assert invert(np.array([2, 1, 0])).numpy().tolist() == [b"b", b"a", b"[UNK]"]


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
def test_string_lookup_vector_modes(mode):
    layer = L.StringLookup(vocabulary=["a", "b"], output_mode=mode)
    out = layer(np.array([["a", "q"], ["b", "b"]])).numpy()
    if mode == "one_hot":
        np.testing.assert_array_equal(out, np.eye(3)[[[1, 0], [2, 2]]])
    else:
        np.testing.assert_array_equal(out, [[1, 1, 0], [0, 0, 1 if mode == "multi_hot" else 2]])
    assert out.dtype == np.int64


def test_string_lookup_tf_idf():
    given = L.StringLookup(vocabulary=["a", "b"], output_mode="tf_idf", idf_weights=[0.5, 0.25])
    np.testing.assert_allclose(given(np.array([["a", "q", "a"]])).numpy(), [[0.375, 1.0, 0.0]])  # OOV: the mean
    learned = L.StringLookup(output_mode="tf_idf")
    learned.adapt(np.array([["a", "b"], ["a", "c"], ["a", "a"]]))
    idf = {t: math.log(1 + 3 / (1 + df)) for t, df in {"a": 3, "b": 1, "c": 1}.items()}
    out = learned(np.array([["a", "a", "c"]])).numpy()[0]
    vocab = learned.get_vocabulary()
    np.testing.assert_allclose(out[vocab.index("a")], 2 * idf["a"], rtol=1e-6)
    np.testing.assert_allclose(out[vocab.index("c")], idf["c"], rtol=1e-6)


def test_integer_lookup_adapt_floormod_buckets_and_invert():
    layer = L.IntegerLookup()
    layer.adapt(np.array([5, 5, 3, 9, 9, 9, 1]))
    assert layer.get_vocabulary() == [-1, 9, 5, 3, 1]
    assert layer(np.array([5, 7, 9])).numpy().tolist() == [2, 0, 1]
    buckets = L.IntegerLookup(num_oov_indices=3, vocabulary=[10, 20])
    assert buckets(np.array([1, 2, 3, 4, 10, 20])).numpy().tolist() == [1, 2, 0, 1, 3, 4]
    assert L.IntegerLookup(vocabulary=[10, 20], invert=True)(np.array([0, 2])).numpy().tolist() == [-1, 20]


def test_lookup_errors():
    with pytest.raises(ValueError, match="repeated term"):
        L.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="`output_mode` must be `'int'` when `invert` is true"):
        L.StringLookup(invert=True, output_mode="count")
    with pytest.raises(ValueError, match="Unknown value for `oov_method`"):
        L.IntegerLookup(oov_method="x")


def test_text_vectorization_int_mode_vocabulary_and_padding():
    layer = L.TextVectorization()
    layer.adapt(TEXTS)
    tokens = [t.lower().replace(".", "").replace(",", "").replace("!", "").split() for t in TEXTS]
    vocab = ["", "[UNK]"] + _keras_order([w for row in tokens for w in row])
    assert layer.get_vocabulary() == vocab
    width = max(len(r) for r in tokens)
    expected = [[vocab.index(w) for w in row] + [0] * (width - len(row)) for row in tokens]
    assert layer(TEXTS).numpy().tolist() == expected
    short = L.TextVectorization(max_tokens=5, output_sequence_length=3)
    short.adapt(tf.data.Dataset.from_tensor_slices(TEXTS).batch(2))
    assert short.get_vocabulary() == vocab[:5]
    assert short(TEXTS).numpy().tolist() == [[3, 1, 4], [3, 2, 4], [1, 1, 1], [2, 0, 0]]
    assert L.TextVectorization(vocabulary=["cat"])(np.array([["the cat"], ["cat"]])).numpy().tolist() == \
        [[1, 2], [2, 0]]


def test_text_vectorization_ngrams_and_vector_modes():
    layer = L.TextVectorization(output_mode="multi_hot", ngrams=2)
    layer.adapt(TEXTS)
    vocab = layer.get_vocabulary()
    assert vocab[0] == "[UNK]" and "the cat" in vocab and "" not in vocab
    out = layer(TEXTS[:1]).numpy()[0]
    assert {vocab[i] for i in np.flatnonzero(out)} == {"the", "cat", "sat", "the cat", "cat sat"}
    counts = L.TextVectorization(output_mode="count", vocabulary=["cat", "dog"])(TEXTS).numpy()
    assert counts.tolist() == [[2, 1, 0], [2, 0, 1], [3, 1, 1], [0, 0, 1]]
    whole = L.TextVectorization(standardize=None, split=None, vocabulary=["The cat sat."])(TEXTS)
    assert whole.numpy().tolist() == [2, 1, 1, 1]
    tfidf = L.TextVectorization(output_mode="tf_idf")
    tfidf.adapt(TEXTS)
    dog = tfidf.get_vocabulary().index("dog")
    np.testing.assert_allclose(tfidf(np.array(["dog dog"])).numpy()[0, dog], 2 * math.log(1 + 4 / 4), rtol=1e-6)


def test_string_layers_run_in_dataset_map():
    lookup = L.StringLookup(vocabulary=["a", "b"])
    vectorize = L.TextVectorization(vocabulary=["cat", "dog"], output_sequence_length=3)
    ds = tf.data.Dataset.from_tensor_slices((np.array(["a", "q", "b", "a"]), TEXTS)).batch(2)
    out = [(a.numpy().tolist(), b.numpy().tolist()) for a, b in ds.map(lambda w, t: (lookup(w), vectorize(t)))]
    assert out == [([1, 0], [[1, 2, 1], [1, 3, 1]]), ([2, 1], [[1, 2, 1], [3, 0, 0]])]
    integers = L.IntegerLookup(vocabulary=[10, 20], mask_token=0, num_oov_indices=3)  # tensor ops when traced
    ids = tf.data.Dataset.from_tensor_slices(np.array([1, 2, 10, 20, 0, 7])).batch(3).map(integers)
    assert [b.numpy().tolist() for b in ids] == [[2, 3, 4], [5, 0, 2]]


def test_text_model_saves_and_loads_with_its_vocabulary(tmp_path):
    vectorize = L.TextVectorization(output_sequence_length=4)
    vectorize.adapt(TEXTS)
    inputs = keras.Input(shape=(), dtype="string")
    x = L.Embedding(10, 3)(vectorize(inputs))
    model = keras.Model(inputs, L.Dense(1)(L.GlobalAveragePooling1D()(x)))
    path = str(tmp_path / "text.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    assert loaded.layers[1].get_vocabulary() == vectorize.get_vocabulary()
    np.testing.assert_allclose(loaded.predict(TEXTS, verbose=0), model.predict(TEXTS, verbose=0), rtol=1e-6)


def test_lookup_sequential_model_saves_and_loads(tmp_path):
    lookup = L.StringLookup(num_oov_indices=2, mask_token="")
    lookup.adapt(WORDS)
    model = keras.Sequential([keras.Input((), dtype="string"), lookup, L.Embedding(8, 2)])
    words = np.array(["a", "b", "zz", ""])
    expected = model.predict(words, verbose=0)
    path = str(tmp_path / "lookup.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    assert loaded.layers[0].get_vocabulary() == lookup.get_vocabulary()
    np.testing.assert_array_equal(loaded.predict(words, verbose=0), expected)
