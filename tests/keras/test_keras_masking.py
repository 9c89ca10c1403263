"""Keras masks (Note [Keras masks] in keras/_masking.py): Embedding(mask_zero=True) and Masking set
a mask that recurrent layers, attention, GlobalAveragePooling1D and losses read and that
pass-through layers keep; values against TF-Keras 3.15 for the same weights."""
import warnings

import numpy as np
import pytest

import tapegrad as tf
from tapegrad.keras._masking import get_keras_mask

keras = tf.keras

IDS = np.array([[3, 1, 0, 0], [2, 4, 5, 0], [1, 0, 0, 0]])
LABELS = np.array([[1, 2, 0, 0], [0, 1, 2, 0], [2, 0, 0, 0]])


def _weights(shapes):
    """Deterministic weights; the same formula produced the TF-Keras values below."""
    return [(np.sin(np.arange(int(np.prod(s))) * 0.7 + k) * 0.5).reshape(s).astype(np.float32)
            for k, s in enumerate(shapes)]


# From TF 2.21 / Keras 3.15: the models below with _weights(...) set, called on IDS.
KERAS_BI_LSTM_POOL = np.array([
    0.500071, 0.52392, 0.472752]).reshape(3, 1)
KERAS_GRU_DENSE = np.array([
    -0.505715, -0.294014, 0.055966, -0.536361, -0.285135, 0.100194, -0.536361, -0.285135, 0.100194,
    -0.536361, -0.285135, 0.100194, -0.506223, -0.289277, 0.063721, -0.538534, -0.28521, 0.102253,
    -0.526239, -0.28403, 0.091764, -0.526239, -0.28403, 0.091764, -0.527838, -0.281899, 0.096622, -0.527838,
    -0.281899, 0.096622, -0.527838, -0.281899, 0.096622, -0.527838, -0.281899, 0.096622]).reshape(3, 4, 3)
KERAS_GRU_DENSE_LOSS = 1.021636724472046
KERAS_ATTENTION_POOL = np.array([
    0.470969, 0.182946, -0.191119, -0.475298, 0.501667, 0.24781, -0.122596, -0.435343, 0.473874, 0.192333,
    -0.179665, -0.467164]).reshape(3, 4)
KERAS_MASKING_LSTM = np.array([
    0.947296, 0.947296, 0.608283, 0.608283]).reshape(2, 2)


def _model(body):
    inp = keras.Input((4,), dtype="int32")
    model = keras.Model(inp, body(inp))
    model.set_weights(_weights([w.shape for w in model.get_weights()]))
    return model


def _bi_lstm_pool(inp):
    x = keras.layers.Embedding(6, 3, mask_zero=True)(inp)
    x = keras.layers.Bidirectional(keras.layers.LSTM(2, return_sequences=True))(x)
    return keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(x))


def _gru_dense(inp):
    x = keras.layers.Embedding(6, 3, mask_zero=True)(inp)
    x = keras.layers.Dropout(0.5)(keras.layers.GRU(4, return_sequences=True)(x))
    return keras.layers.Dense(3)(x)


def _attention_pool(inp):
    x = keras.layers.Embedding(6, 4, mask_zero=True)(inp)
    return keras.layers.GlobalAveragePooling1D()(keras.layers.MultiHeadAttention(2, 2)(x, x))


@pytest.mark.parametrize("body,want", [(_bi_lstm_pool, KERAS_BI_LSTM_POOL), (_gru_dense, KERAS_GRU_DENSE),
                                       (_attention_pool, KERAS_ATTENTION_POOL)],
                         ids=["bidirectional_lstm_pool", "gru_dropout_dense", "attention_pool"])
def test_models_match_tf_keras(body, want):
    np.testing.assert_allclose(_model(body)(IDS).numpy(), want, atol=3e-6)


def test_the_loss_averages_over_unmasked_steps():
    model = _model(_gru_dense)
    out = model(IDS)
    mask = get_keras_mask(out)
    assert mask is not None and mask.numpy().tolist() == (IDS != 0).tolist()
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    np.testing.assert_allclose(float(loss(LABELS, out)), KERAS_GRU_DENSE_LOSS, rtol=1e-6)
    per_step = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")(LABELS, out).numpy()
    np.testing.assert_allclose(float(loss(LABELS, out)), per_step[IDS != 0].mean(), rtol=1e-6)
    accuracy = keras.metrics.SparseCategoricalAccuracy()
    accuracy.update_state(LABELS, out)
    assert float(accuracy.result()) == 0.5  # TF-Keras: 0.5 over the 6 unmasked steps
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["sparse_categorical_accuracy"])
    # a traced test_step reads the masks too; TF-Keras: [KERAS_GRU_DENSE_LOSS, 0.5]
    np.testing.assert_allclose(model.evaluate(IDS, LABELS, verbose=0), [KERAS_GRU_DENSE_LOSS, 0.5], rtol=1e-5)
    history = model.fit(IDS, LABELS, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


def test_masking_layer_and_masked_steps():
    x = np.array([[[1., 2.], [0., 0.], [3., 0.]], [[0., 0.], [0., 0.], [1., 1.]]], np.float32)
    masked = keras.layers.Masking()(x)
    assert get_keras_mask(masked).numpy().tolist() == [[True, False, True], [False, False, True]]
    lstm = keras.layers.LSTM(2, kernel_initializer="ones", recurrent_initializer="ones")
    np.testing.assert_allclose(lstm(masked).numpy(), KERAS_MASKING_LSTM, atol=2e-6)
    # A masked step keeps the states and repeats the previous output; a leading one outputs zeros.
    seq = keras.layers.SimpleRNN(2, return_sequences=True, kernel_initializer="ones",
                                 recurrent_initializer="ones")(masked).numpy()
    assert (seq[1, :2] == 0).all() and (seq[0, 1] == seq[0, 0]).all()


def test_pass_through_and_dropped_masks():
    x = keras.layers.Embedding(6, 3, mask_zero=True)(IDS)
    for layer in (keras.layers.Dense(2), keras.layers.Dropout(0.3), keras.layers.LayerNormalization(),
                  keras.layers.Activation("relu")):
        assert get_keras_mask(layer(x)) is not None, layer
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert get_keras_mask(keras.layers.Conv1D(2, 1)(x)) is None
    assert any("does not support masking" in str(w.message) for w in caught)
    assert get_keras_mask(keras.layers.LSTM(2)(x)) is None  # no sequence out: no mask
    assert get_keras_mask(keras.layers.Embedding(6, 3)(IDS)) is None


def test_masked_rnn_gradients_skip_padding():
    emb = keras.layers.Embedding(6, 3, mask_zero=True)
    lstm = keras.layers.LSTM(2)
    with tf.GradientTape() as tape:
        out = lstm(emb(IDS))
    grads = tf.convert_to_tensor(tape.gradient(out, emb.trainable_variables)[0]).numpy()  # from IndexedSlices
    assert (grads[0] == 0).all() and np.abs(grads[1:]).sum() > 0  # the padding id's row gets nothing


def test_a_mask_of_the_wrong_shape_names_the_layer():
    layer = keras.layers.LSTM(2, name="lstm_mask")
    with pytest.raises(ValueError, match=r"lstm_mask: the mask must have shape \(batch, timesteps\) = \(3, 4\)"):
        layer(np.ones((3, 4, 2), np.float32), mask=np.ones((3, 5), bool))
