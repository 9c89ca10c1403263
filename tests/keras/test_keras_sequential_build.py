"""Sequential built at construction from its input shape, None axes included; keras.__version__.

The expected shapes and counts are Keras 3.15.1's (TensorFlow 2.21 backend), read by running it.
"""
import re

import numpy as np
import pytest

from tapegrad import keras

L = keras.layers


def _lstm_dense():
    return keras.Sequential([keras.Input(shape=(None, 8)), L.LSTM(4, return_sequences=True), L.Dense(3)])


def _added():
    model = keras.Sequential()
    model.add(keras.Input(shape=(None, 8)))
    model.add(L.LSTM(4))
    return model


# (make the model, weight shapes, input_shape, output_shape, each layer's output shape in summary)
CASES = {
    "lstm_dense": (_lstm_dense, [(8, 16), (4, 16), (16,), (4, 3), (3,)],
                   (None, None, 8), (None, None, 3), [(None, None, 4), (None, None, 3)]),
    "conv1d_dense": (lambda: keras.Sequential([keras.Input(shape=(None, 8)), L.Conv1D(5, 3, padding="same"),
                                               L.Dense(2)]),
                     [(3, 8, 5), (5,), (5, 2), (2,)], (None, None, 8), (None, None, 2),
                     [(None, None, 5), (None, None, 2)]),
    "conv1d_pool_dense": (lambda: keras.Sequential([keras.Input(shape=(None, 8)), L.Conv1D(5, 3),
                                                    L.GlobalAveragePooling1D(), L.Dense(2)]),
                          [(3, 8, 5), (5,), (5, 2), (2,)], (None, None, 8), (None, 2),
                          [(None, None, 5), (None, 5), (None, 2)]),
    "embedding_lstm": (lambda: keras.Sequential([keras.Input(shape=(None,), dtype="int32"), L.Embedding(10, 4),
                                                 L.LSTM(3)]),
                       [(10, 4), (4, 12), (3, 12), (12,)], (None, None), (None, 3), [(None, None, 4), (None, 3)]),
    "fixed_batch": (lambda: keras.Sequential([keras.Input(batch_shape=(2, None, 8)), L.LSTM(4)]),
                    [(8, 16), (4, 16), (16,)], (2, None, 8), (2, 4), [(2, 4)]),
    "input_layer_gru": (lambda: keras.Sequential([L.InputLayer(shape=(None, 8)), L.GRU(4)]),
                        [(8, 12), (4, 12), (2, 12)], (None, None, 8), (None, 4), [(None, 4)]),
    "add_input": (_added, [(8, 16), (4, 16), (16,)], (None, None, 8), (None, 4), [(None, 4)]),
    "input_shape_arg": (lambda: keras.Sequential([L.Dense(3, input_shape=(None, 8)), L.Dense(2)]),
                        [(8, 3), (3,), (3, 2), (2,)], (None, None, 8), (None, None, 2),
                        [(None, None, 3), (None, None, 2)]),
    "fixed_length": (lambda: keras.Sequential([keras.Input(shape=(5, 8)), L.LSTM(4)]),
                     [(8, 16), (4, 16), (16,)], (None, 5, 8), (None, 4), [(None, 4)]),
}


@pytest.mark.parametrize("case", CASES)
def test_built_at_construction_with_keras_shapes(case):
    make, weights, input_shape, output_shape, layer_shapes = CASES[case]
    model = make()
    assert model.built
    assert [tuple(w.shape) for w in model.weights] == weights
    assert model.count_params() == sum(int(np.prod(s)) for s in weights)
    assert model.input_shape == input_shape and model.output_shape == output_shape
    assert [layer.output.shape for layer in model.layers] == layer_shapes
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines).splitlines()
    rows = [next(line for line in text if re.search(rf"(^|\s){layer.name}\s", line)) for layer in model.layers]
    assert [str(s) in row for s, row in zip(layer_shapes, rows)] == [True] * len(layer_shapes)


def test_summary_of_a_sequence_model():
    lines = []
    _lstm_dense().summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "(None, None, 4)" in text and "(None, None, 3)" in text
    assert "Total params: 223 (892.00 B)" in text  # Keras's total for LSTM(4) + Dense(3) over 8 features


def test_calls_at_different_lengths_keep_the_symbolic_shapes():
    model = _lstm_dense()
    assert model(np.zeros((2, 5, 8), "float32")).shape == (2, 5, 3)
    assert model(np.zeros((3, 7, 8), "float32")).shape == (3, 7, 3)
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 5, 8)), np.ones((4, 5, 3)), verbose=0)
    model.fit(np.ones((4, 7, 8)), np.ones((4, 7, 3)), verbose=0)
    assert model.predict(np.ones((2, 9, 8)), verbose=0).shape == (2, 9, 3)
    assert model.output_shape == (None, None, 3)  # not the last call's length
    lines = []
    model.summary(print_fn=lines.append)
    assert "(None, None, 4)" in "\n".join(lines)


def test_weights_io_before_any_call(tmp_path):
    model = _lstm_dense()
    values = [np.full(w.shape, i + 1.0, np.float32) for i, w in enumerate(model.get_weights())]
    model.set_weights(values)
    model.save_weights(tmp_path / "m.weights.npz")
    model.save(tmp_path / "m.keras")
    other = _lstm_dense()
    other.load_weights(tmp_path / "m.weights.npz")
    for w, v in zip(other.get_weights(), values):
        np.testing.assert_array_equal(w, v)
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert loaded.input_shape == (None, None, 8)
    x = np.random.default_rng(0).normal(size=(2, 6, 8)).astype(np.float32)
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_optimizer_builds_before_any_call():
    model = _lstm_dense()
    opt = keras.optimizers.Adam()
    opt.build(model.trainable_variables)
    slots = sorted(tuple(v.shape) for v in opt.variables if len(v.shape))  # m and v of each weight
    assert slots == sorted(2 * [(8, 16), (4, 16), (16,), (4, 3), (3,)])


def test_add_and_pop_rebuild():
    model = _lstm_dense()
    model.add(L.Dense(2))
    assert model.output_shape == (None, None, 2) and [tuple(w.shape) for w in model.weights[-2:]] == [(3, 2), (2,)]
    model.pop()
    assert model.built and model.output_shape == (None, None, 3) and len(model.weights) == 5


def test_build_with_none_axes_and_a_conflicting_shape():
    model = keras.Sequential([L.Dense(3)])
    model.build((None, None, 8))
    assert model.built and model.input_shape == (None, None, 8) and model.output_shape == (None, None, 3)
    assert [tuple(w.shape) for w in model.weights] == [(8, 3), (3,)]
    batch = keras.Sequential([L.Dense(3)])
    batch.build((5, None, 8))
    assert batch.input_shape == (5, None, 8) and batch.output_shape == (5, None, 3)
    with pytest.raises(ValueError, match="already been configured to use input shape"):
        _lstm_dense().build((None, 5, 8))


def test_nested_sequential_keeps_none_axes():
    outer = keras.Sequential([keras.Input((None, 8)), keras.Sequential([L.Dense(3), L.Dense(2)])])
    inner = outer.layers[0]
    assert outer.output_shape == (None, None, 2)
    assert inner.built and inner.input_shape == (None, None, 8) and inner.output_shape == (None, None, 2)


def test_feature_model_from_a_sequence_model():
    model = _lstm_dense()
    hidden = model.layers[0].output  # the graph exists from construction, before model.inputs is read
    L.Dense(2)(np.zeros((1, 3), "float32"))  # weights made elsewhere do not remake the model's graph
    features = keras.Model(model.inputs, hidden)
    assert features(np.zeros((2, 6, 8), "float32")).shape == (2, 6, 4)


def test_lazy_sequential_shapes_after_fit():
    model = keras.Sequential([L.Dense(3)])
    assert not model.built and model.weights == []
    with pytest.raises(AttributeError, match="has no defined input"):
        model.input_shape
    lines = []
    model.summary(print_fn=lines.append)
    assert "0 (unbuilt)" in "\n".join(lines)
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.zeros((10, 8)), np.zeros((10, 3)), batch_size=4, verbose=0)
    assert model.input_shape == (None, 8) and model.output_shape == (None, 3)


def test_weights_on_an_unknown_axis_fail_at_construction():
    with pytest.raises(ValueError, match="fully-defined"):
        keras.Sequential([keras.Input(shape=(None,)), L.Dense(3)])


def test_functional_input_and_output_shapes():
    a, b = keras.Input((3,)), keras.Input((None, 2))
    model = keras.Model([a, b], [L.Dense(2)(a), L.Dense(4)(b)])
    assert model.input_shape == [(None, 3), (None, None, 2)]
    assert model.output_shape == [(None, 2), (None, None, 4)]
    single = keras.Model([a], L.Dense(2)(a))
    assert single.input_shape == (None, 3) and single.output_shape == (None, 2)


def test_keras_version():
    assert keras.__version__ == "3.15.1"
    assert keras.version() == "3.15.1"


def test_stateful_rnn_states_survive_building_and_summary():
    x = np.random.default_rng(1).normal(size=(4, 5, 8)).astype(np.float32)
    model = keras.Sequential([keras.Input(batch_shape=(4, 5, 8)), L.LSTM(3, stateful=True)])
    first = model(x).numpy()  # starts from zero states, not from the build's
    lazy = keras.Sequential([L.LSTM(3, stateful=True)])
    lazy(x)
    lazy.set_weights(model.get_weights())
    lazy.layers[0].reset_states()
    np.testing.assert_allclose(lazy(x).numpy(), first, rtol=1e-6)
    lazy.summary(print_fn=lambda *a, **k: None)  # the summary's shapes do not move the states
    np.testing.assert_allclose(lazy(x).numpy(), model(x).numpy(), rtol=1e-6)
