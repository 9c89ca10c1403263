"""Keras on bad input, as Keras 3.15 on TF 2.21 answers (each expectation below was read from it):
fit / evaluate / predict arguments, an uncompiled model, Dense on a scalar, no samples, damaged
model files, and attention where a query may attend to nothing."""
import json
import zipfile

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

RAN_OUT = "Your input ran out of data; interrupting training"


def _data(n=10):
    x = np.cos(np.arange(n * 3) * 0.7).reshape(n, 3).astype(np.float32)
    return x, x[:, :1] * 2.0 - 0.5


def _model(metrics=None, compile=True):  # noqa: A002 -- as Keras's argument
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    if compile:
        model.compile("sgd", "mse", metrics=metrics)
    return model


# ---- batch_size: Keras fails on a negative one in a reshape ("Invalid value in tensor used for
# shape: -10", a ValueError), and trains with 32 for 0
@pytest.mark.parametrize("batch_size", [-1, -3, -20])
@pytest.mark.parametrize("loop", ["fit", "evaluate", "predict"])
def test_a_negative_batch_size_is_a_value_error_naming_it(loop, batch_size):
    x, y = _data()
    model = _model()
    args = (x,) if loop == "predict" else (x, y)
    with pytest.raises(ValueError, match=rf"{loop}: Invalid value for `batch_size`: {batch_size}\b"):
        getattr(model, loop)(*args, batch_size=batch_size, verbose=0)


def test_batch_size_zero_means_32_as_none_does():
    x, y = _data(40)
    histories = []
    for batch_size in (0, None):
        model = _model()
        histories.append(model.fit(x, y, batch_size=batch_size, shuffle=False, verbose=0).history["loss"])
        histories[-1].append(model.evaluate(x, y, batch_size=batch_size, verbose=0))
    assert histories[0] == histories[1]


def test_a_negative_validation_batch_size_fails_before_training():
    x, y = _data()
    model = _model()
    before = model.get_weights()
    with pytest.raises(ValueError, match=r"`validation_batch_size`: -1\b"):
        model.fit(x, y, validation_split=0.5, validation_batch_size=-1, verbose=0)
    np.testing.assert_array_equal(model.get_weights()[0], before[0])


def test_a_float_batch_size_is_a_type_error():
    x, y = _data()
    with pytest.raises(TypeError, match="`batch_size` must be an integer, got 2.5"):
        _model().fit(x, y, batch_size=2.5, verbose=0)


# ---- validation_split: Keras cuts at floor(n * (1 - split)) and refuses an empty part
@pytest.mark.parametrize("split", [1.0, 0.99, 1e-17])
def test_a_validation_split_leaving_a_part_empty_is_keras_s_value_error(split):
    x, y = _data()
    with pytest.raises(ValueError) as e:
        _model().fit(x, y, validation_split=split, verbose=0)
    assert str(e.value) == (f"Training data contains 10 samples, which is not sufficient to split it into a validation "
                            f"and training set as specified by `validation_split={split}`. Either provide more data, "
                            "or a different value for the `validation_split` argument.")


def test_a_validation_split_above_one_cuts_as_keras_does():
    x, y = _data()
    history = _model().fit(x, y, validation_split=1.5, verbose=0).history  # Keras: x[:-5] and x[-5:]
    assert sorted(history) == ["loss", "val_loss"]


# ---- an uncompiled model: Keras's ValueError for every loop but predict
@pytest.mark.parametrize("loop", ["fit", "evaluate", "train_on_batch", "test_on_batch"])
def test_a_loop_before_compile_is_keras_s_value_error(loop):
    x, y = _data()
    model = _model(compile=False)
    with pytest.raises(ValueError) as e:
        getattr(model, loop)(x, y)
    assert str(e.value) == "You must call `compile()` before using the model."
    assert model.predict(x, verbose=0).shape == (10, 1)


# ---- Dense's input spec: min_ndim=2
@pytest.mark.parametrize("value,ndim", [(np.float32(1), 0), (np.array(1.0), 0), (np.int32(1), 0),
                                        (tf.constant(1.0), 0), (np.ones(3, np.float32), 1)])
def test_dense_on_fewer_than_two_axes_is_a_value_error_naming_the_rank(value, ndim):
    with pytest.raises(ValueError, match=rf"of layer 'dense\w*' is incompatible with the layer: expected min_ndim=2, "
                                         rf"found ndim={ndim}\. Full shape received: \({'3,' if ndim else ''}\)"):
        keras.layers.Dense(2)(value)


def test_dense_rank_checks_once_built_and_traced():
    layer = keras.layers.Dense(2)
    layer(np.ones((1, 3), np.float32))
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
        layer(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=0"):
        tf.function(lambda v: keras.layers.Dense(2)(v))(tf.constant(1.0))
    assert layer(np.ones((2, 5, 3), np.float32)).shape == (2, 5, 2)


# ---- no samples: Keras warns that the input ran out and returns its empty logs
def test_evaluate_on_no_samples_warns_and_returns_empty_logs():
    x, y = _data()
    for metrics in (None, ["mae"]):
        model = _model(metrics)
        with pytest.warns(UserWarning, match=RAN_OUT):
            assert model.evaluate(x[:0], y[:0], verbose=0) == []
        with pytest.warns(UserWarning, match=RAN_OUT):
            assert model.evaluate(x[:0], y[:0], verbose=0, return_dict=True) == {}
    empty = tf.data.Dataset.from_tensor_slices((x, y)).batch(4).take(0)
    with pytest.warns(UserWarning, match=RAN_OUT):
        assert model.evaluate(empty, verbose=0) == []
    with pytest.warns(UserWarning, match=RAN_OUT):
        assert model.fit(x[:0], y[:0], verbose=0).history == {}
    with pytest.warns(UserWarning, match=RAN_OUT):  # empty validation data: no val_ logs
        assert sorted(model.fit(x, y, validation_data=(x[:0], y[:0]), verbose=0).history) == ["loss", "mae"]


def test_evaluate_lists_the_step_s_logs_it_does_not_know_after_the_metrics():
    class Custom(keras.Sequential):
        def test_step(self, data):
            logs = super().test_step(data)
            return {"zeta": logs["loss"] * 2, "loss": logs["loss"]}

    x, y = _data()
    model = Custom([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    loss, zeta = model.evaluate(x, y, verbose=0)
    assert zeta == pytest.approx(2 * loss)


# ---- damaged .keras files: a ValueError naming the file, never other weights
def _saved(tmp_path):
    x, y = _data(4)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3), keras.layers.Dense(1)])
    model.compile("adam", "mse")
    model.fit(x, y, verbose=0)
    path = tmp_path / "good.keras"
    model.save(path)
    return path, model.predict(x, verbose=0), x


def _load_or_raise(path, data, x, expected):
    """Writes data to path and loads it: a ValueError naming the file, or the model's own outputs."""
    path.write_bytes(data)
    try:
        loaded = keras.models.load_model(path)
    except ValueError as e:
        assert path.name in str(e)
        return "raised"
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), expected)
    return "same"


def test_damaged_bytes_raise_a_value_error_naming_the_file(tmp_path):
    good, expected, x = _saved(tmp_path)
    raw = good.read_bytes()
    bad = tmp_path / "bad.keras"
    outcomes = [_load_or_raise(bad, raw[:cut], x, expected) for cut in range(0, len(raw), 97)]
    for off in range(0, len(raw), 11):
        flipped = bytearray(raw)
        flipped[off] ^= 1 << (off % 8)
        outcomes.append(_load_or_raise(bad, bytes(flipped), x, expected))
    for off in range(0, len(raw), 509):
        zeroed = bytearray(raw)
        zeroed[off:off + 512] = bytes(len(zeroed[off:off + 512]))
        outcomes.append(_load_or_raise(bad, bytes(zeroed), x, expected))
    assert outcomes.count("raised") > 0.9 * len(outcomes)  # the rest: dates and other unused bytes


def test_a_zip_version_too_new_is_a_value_error_not_not_implemented(tmp_path):
    good, _, _ = _saved(tmp_path)
    raw = bytearray(good.read_bytes())
    end = raw.rindex(b"PK\x05\x06")  # the end record; the central directory's offset at +16
    entry = int.from_bytes(raw[end + 16:end + 20], "little")
    assert raw[entry:entry + 4] == b"PK\x01\x02"
    raw[entry + 6] = 0xFF  # the first member's "version needed to extract"
    bad = tmp_path / "version.keras"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"version.keras is not a readable tapegrad \.keras file "
                                         r"\(NotImplementedError: zip file version"):
        keras.models.load_model(bad)


def _rewrite(src, dst, **members):
    with zipfile.ZipFile(src) as z:
        content = {n: z.read(n) for n in z.namelist()}
    content.update(members)
    with zipfile.ZipFile(dst, "w") as z:
        for name, data in content.items():
            if data is not None:
                z.writestr(name, data)
    return dst


@pytest.mark.parametrize("members,message", [
    ({"config.json": None}, r"missing.keras is not a readable tapegrad \.keras file \(ValueError: it lacks "
                            r"\['config.json'\]\)"),
    ({"config.json": b"\x00\x01garbage"}, r"missing.keras: config.json is not valid JSON"),
    ({"metadata.json": b"{{{"}, r"missing.keras: metadata.json is not valid JSON \(JSONDecodeError"),
    ({"config.json": b"[1, 2]"}, r"missing.keras: the config does not describe a model.*got list \[1, 2\]"),
    ({"config.json": b'{"a": 1}'}, r"missing.keras: the config does not describe a model.*got dict"),
    ({"config.json": b'{"module": "keras.optimizers", "class_name": "SGD", "config": {}}'},
     r"missing.keras: the config describes a SGD, not a model or layer"),
    ({"config.json": ("[" * 100_000 + "]" * 100_000).encode()},
     r"missing.keras: config.json nests lists and dicts more than 100 deep"),
    ({"config.json": ('{"a":' * 100_000 + "1" + "}" * 100_000).encode()},
     r"missing.keras: config.json nests lists and dicts more than 100 deep"),
], ids=["no_config", "config_not_json", "metadata_not_json", "config_a_list", "config_not_serialized",
        "config_not_a_layer", "deep_lists", "deep_dicts"])
def test_a_bad_member_is_a_value_error_naming_the_file(tmp_path, members, message):
    good, _, _ = _saved(tmp_path)
    with pytest.raises(ValueError, match=message):
        keras.models.load_model(_rewrite(good, tmp_path / "missing.keras", **members))


def test_a_config_nested_past_the_limit_inside_a_layer_is_refused(tmp_path):
    """Deep enough for the deserializer's recursion, not the JSON parser's."""
    good, expected, x = _saved(tmp_path)
    with zipfile.ZipFile(good) as z:
        config = json.loads(z.read("config.json"))
    name = config["config"]["layers"][1]["config"]["name"]
    for _ in range(700):
        name = [name]
    config["config"]["layers"][1]["config"]["name"] = name
    with pytest.raises(ValueError, match="deep.keras: config.json nests lists and dicts more than 100 deep"):
        keras.models.load_model(_rewrite(good, tmp_path / "deep.keras", **{"config.json": json.dumps(config)}))
    loaded = keras.models.load_model(good)  # a real config is far shallower
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), expected)


def test_an_h5_config_nested_too_deep_is_a_value_error(tmp_path):
    h5py = pytest.importorskip("h5py")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    path = tmp_path / "deep.h5"
    model.save(path)
    with h5py.File(path, "r") as f:  # a file without a digest is read unchecked: write one so
        attrs = dict(f.attrs)
    with h5py.File(tmp_path / "nodigest.h5", "w") as f:
        for k, v in attrs.items():
            f.attrs[k] = v
        f.attrs["model_config"] = "[" * 100_000 + "]" * 100_000
        f.create_group("model_weights")
    with pytest.raises(ValueError, match="nodigest.h5 .*model_config nests lists and dicts more than 100 deep"):
        keras.models.load_model(tmp_path / "nodigest.h5")


# ---- MultiHeadAttention where a query may attend to nothing (Note [Attention masks, as Keras])
def _weights(shapes):
    return [(np.sin(np.arange(int(np.prod(s))) * 0.7 + k) * 0.5).reshape(s).astype(np.float32)
            for k, s in enumerate(shapes)]


Q = np.cos(np.arange(2 * 3 * 4) * 0.3).reshape(2, 3, 4).astype(np.float32)
V = np.sin(np.arange(2 * 5 * 6) * 0.2).reshape(2, 5, 6).astype(np.float32)
MASK = np.array([[[1, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]],
                 [[1, 1, 1, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 0, 0]]], bool)
# Keras 3.15 with _weights(...): sample 0 (query 2 attends to nothing) on its fused path (rank-3
# inputs, no dropout, no scores returned), that row on the explicit path, and d(sum(out[0, 2] *
# [1, 2, 3, 4]))/d value[0] on the fused path (the same for every key: the row is their mean).
KERAS_FUSED_0 = np.array([[0.538992, 0.50618, 0.235303, -0.14624], [0.534191, 0.515301, 0.254057, -0.126674],
                          [0.466457, 0.503072, 0.303084, -0.039448]])
KERAS_EXPLICIT_02 = np.array([0.328493, 0.494084, 0.427299, 0.159549])
KERAS_GRAD_V_ROW = np.array([-0.113919, 0.051578, 0.016722, -0.083091, 0.139858, -0.180463])


def _attention():
    layer = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=2)
    layer(Q, V)
    layer.set_weights(_weights([w.shape for w in layer.get_weights()]))
    return layer


def test_attention_to_nothing_is_the_mean_of_the_values_on_keras_s_fused_path():
    layer = _attention()
    np.testing.assert_allclose(layer(Q, V, attention_mask=MASK).numpy()[0], KERAS_FUSED_0, atol=2e-6)
    traced = tf.function(lambda q, v: layer(q, v, attention_mask=MASK))
    np.testing.assert_allclose(traced(tf.constant(Q), tf.constant(V)).numpy()[0], KERAS_FUSED_0, atol=2e-6)
    out, scores = layer(Q, V, attention_mask=MASK, return_attention_scores=True)  # the explicit path
    np.testing.assert_allclose(out.numpy()[0, 2], KERAS_EXPLICIT_02, atol=2e-6)
    assert (scores.numpy()[0, :, 2] == 0).all()


def test_attention_to_nothing_passes_no_gradient_to_the_query():
    layer = _attention()
    q, v = tf.constant(Q), tf.constant(V)
    with tf.GradientTape() as tape:
        tape.watch([q, v])
        loss = tf.reduce_sum(layer(q, v, attention_mask=MASK)[0, 2] * tf.constant([1.0, 2.0, 3.0, 4.0]))
    gq, gv = tape.gradient(loss, [q, v])
    assert (gq.numpy()[0] == 0).all()
    np.testing.assert_allclose(gv.numpy()[0], np.tile(KERAS_GRAD_V_ROW, (5, 1)), atol=2e-6)


def test_attention_with_dropout_takes_the_explicit_path_even_when_not_training():
    layer = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=2, dropout=0.5)
    layer(Q, V)
    layer.set_weights(_weights([w.shape for w in layer.get_weights()]))
    out = layer(Q, V, attention_mask=MASK, training=False)
    np.testing.assert_allclose(out.numpy()[0, 2], KERAS_EXPLICIT_02, atol=2e-6)
