"""The functional API: keras.Input, layers and tapegrad ops on Keras tensors, Model(inputs, outputs)."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras


def _two_branch():
    a = keras.Input((3,), name="a")
    b = keras.Input((2,), name="b")
    shared = keras.layers.Dense(4, name="shared")
    h = tf.concat([shared(a), shared(tf.concat([b, b[:, :1]], axis=1))], axis=1)
    out1 = keras.layers.Dense(1, name="out1")(h * 2.0)
    out2 = tf.reshape(h, [-1, 4, 2])
    return keras.Model(inputs=[a, b], outputs=[out1, out2]), shared


def test_symbolic_shapes_keep_the_batch_axis():
    x = keras.Input((None, 3))
    assert x.shape == (None, None, 3)
    y = keras.layers.Dense(5)(x)
    assert y.shape == (None, None, 5) and y.dtype == tf.float32
    assert tf.reshape(y, [-1, 5]).shape == (None, 5)
    assert x[:, 1:, :2].shape == (None, None, 2)
    assert keras.Input(shape=(4,), batch_size=8).shape == (8, 4)
    seq = keras.Input((None, 4))
    assert seq[:, ::2].shape == (None, None, 4)  # halving an unknown axis keeps it unknown
    assert tf.reshape(seq, [-1, 4]).shape == (None, 4)


def test_functional_model_matches_the_layers_run_by_hand():
    model, shared = _two_branch()
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 3)).astype(np.float32), rng.normal(size=(5, 2)).astype(np.float32)
    y1, y2 = model([a, b])
    w, c = shared.get_weights()
    h = np.concatenate([a @ w + c, np.concatenate([b, b[:, :1]], 1) @ w + c], 1)
    w1, c1 = model.get_layer("out1").get_weights()
    np.testing.assert_allclose(y1.numpy(), (h * 2) @ w1 + c1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y2.numpy(), h.reshape(-1, 4, 2), rtol=1e-6)
    by_name = model({"a": a, "b": b})
    np.testing.assert_allclose(by_name[0].numpy(), y1.numpy())
    assert [l.name for l in model.layers][:3] == ["a", "b", "shared"]
    assert model.get_layer(index=2) is shared
    assert len(model.trainable_weights) == 4 and model.count_params() == 3 * 4 + 4 + 8 * 1 + 1


def test_gradients_reach_every_weight_in_float64():
    x = keras.Input((3,), dtype="float64")
    d = keras.layers.Dense(2, dtype="float64")
    model = keras.Model(x, tf.reduce_sum(d(x) * d(x), axis=1))
    xv = tf.constant(np.arange(6.0).reshape(2, 3))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(xv))
    gk, gb = tape.gradient(loss, d.trainable_weights)
    w, c = d.get_weights()
    z = xv.numpy() @ w + c
    np.testing.assert_allclose(gk.numpy(), xv.numpy().T @ (2 * z), rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), (2 * z).sum(0), rtol=1e-12)


def test_nested_model_and_dict_outputs():
    inner_in = keras.Input((3,))
    inner = keras.Model(inner_in, keras.layers.Dense(2, activation="relu")(inner_in), name="inner")
    x = keras.Input((3,), name="x")
    model = keras.Model(x, {"feat": inner(x), "sum": tf.reduce_sum(inner(x), axis=1, keepdims=True)})
    out = model(np.ones((4, 3), np.float32))
    assert set(out) == {"feat", "sum"} and out["feat"].shape == (4, 2)
    np.testing.assert_allclose(out["sum"].numpy()[:, 0], out["feat"].numpy().sum(1), rtol=1e-6)
    assert model.weights == inner.weights


def test_summary_shows_the_graph():
    model, _ = _two_branch()
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "Connected to" in text and "shared (Dense)" in text and "a[0][0]" in text
    assert "(None, 4, 2)" in text and f"Total params: {model.count_params()} (100.00 B)" in text  # 25 float32


def test_config_round_trip_and_save(tmp_path):
    model, _ = _two_branch()
    clone = keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    a, b = np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)
    for u, v in zip(model([a, b]), clone([a, b])):
        np.testing.assert_allclose(u.numpy(), v.numpy())
    model.compile(optimizer="adam", loss="mse")
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    for u, v in zip(model([a, b]), loaded([a, b])):
        np.testing.assert_allclose(u.numpy(), v.numpy())


def test_subclass_with_a_functional_init():
    class Net(keras.Model):
        def __init__(self):
            x = keras.Input((2,))
            super().__init__(inputs=x, outputs=keras.layers.Dense(1)(x))

    net = Net()
    assert isinstance(net, Net) and net(np.ones((3, 2), np.float32)).shape == (3, 1)
    assert net.input.shape == (None, 2) and net.output.shape == (None, 1)


def test_errors_name_the_layer_and_shapes():
    x = keras.Input((3,))
    with pytest.raises(ValueError, match="tf.matmul.*\\(None, 3, 1\\).*inner dimensions"):
        tf.reshape(x, [-1, 3, 1]) @ tf.ones([2, 2])
    other = keras.Input((3,))
    with pytest.raises(ValueError, match="Graph disconnected"):
        keras.Model(x, keras.layers.Dense(1)(other))
    model = keras.Model(x, keras.layers.Dense(1)(x))
    with pytest.raises(ValueError, match="expects shape \\(None, 3\\)"):
        model(np.ones((2, 4), np.float32))
    with pytest.raises(tf.errors.UnimplementedError):
        keras.Input((3,), sparse=True)


def _two_outputs():
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    h = keras.layers.Concatenate()([a, b])
    reg = keras.layers.Dense(1, name="reg")(h)
    cls = keras.layers.Dense(3, activation="softmax", name="cls")(h)
    return a, b, reg, cls


def test_fit_with_a_loss_and_metrics_per_output():
    a, b, reg, cls = _two_outputs()
    model = keras.Model([a, b], [reg, cls])
    model.compile("sgd", loss=["mse", "sparse_categorical_crossentropy"], loss_weights=[1.0, 0.5],
                  metrics=[["mae"], ["accuracy"]])
    rng = np.random.default_rng(1)
    x = [rng.normal(size=(8, 3)).astype(np.float32), rng.normal(size=(8, 2)).astype(np.float32)]
    y = [rng.normal(size=(8, 1)).astype(np.float32), rng.integers(0, 3, size=8)]
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(logs) == ["loss", "reg_loss", "cls_loss", "reg_mae", "cls_accuracy"]
    p_reg, p_cls = model.predict(x, verbose=0)
    mse = ((p_reg - y[0]) ** 2).mean()
    ce = -np.log(p_cls[np.arange(8), y[1]]).mean()
    np.testing.assert_allclose([logs["reg_loss"], logs["cls_loss"]], [mse, ce], rtol=1e-5)
    np.testing.assert_allclose(logs["loss"], mse + 0.5 * ce, rtol=1e-5)
    np.testing.assert_allclose(logs["reg_mae"], np.abs(p_reg - y[0]).mean(), rtol=1e-5)
    before = logs["loss"]
    history = model.fit(x, y, epochs=5, batch_size=4, verbose=0)
    assert history.history["loss"][-1] < before


def test_fit_with_dicts_of_inputs_and_outputs():
    a, b, reg, cls = _two_outputs()
    model = keras.Model({"a": a, "b": b}, {"r": reg, "c": cls})
    model.compile("sgd", loss={"r": "mse", "c": "sparse_categorical_crossentropy"}, metrics={"c": "accuracy"})
    x = {"a": np.ones((6, 3), np.float32), "b": np.ones((6, 2), np.float32)}
    y = {"r": np.ones((6, 1), np.float32), "c": np.zeros(6, np.int64)}
    logs = model.fit(x, y, verbose=0).history
    assert set(logs) == {"loss", "r_loss", "c_loss", "c_accuracy"}
    out = model.predict(x, verbose=0)
    assert set(out) == {"r", "c"} and out["c"].shape == (6, 3)
    with pytest.raises(ValueError, match="class_weight is not supported"):
        model.fit(x, y, class_weight={0: 1.0}, verbose=0)
    history = model.fit(x, y, validation_split=0.5, verbose=0).history
    assert {"val_loss", "val_r_loss", "val_c_loss", "val_c_accuracy"} <= set(history)
    with pytest.raises(ValueError, match="expected keys \\['r', 'c'\\] in loss dict"):
        model.compile("sgd", loss={"z": "mse"})
    with pytest.raises(ValueError, match="names outputs \\['z'\\]"):
        model.compile("sgd", loss="mse", metrics={"z": "mae"})
    with pytest.raises(ValueError, match="invalid `metrics`"):
        model.compile("sgd", loss="mse", metrics=["mae"])  # Keras 3: one entry per output


@pytest.mark.parametrize("op,shape", [
    (lambda x: tf.expand_dims(x, 1), (None, 1, 3)),
    (lambda x: tf.transpose(tf.reshape(x, [-1, 3, 1]), [0, 2, 1]), (None, 1, 3)),
    (lambda x: tf.stack([x, x], axis=1), (None, 2, 3)),
    (lambda x: tf.cast(x > 0, tf.float32), (None, 3)),
    (lambda x: tf.where(x > 0, x, tf.zeros_like(x)), (None, 3)),
    (lambda x: tf.split(x, [1, 2], axis=1)[1], (None, 2)),
    (lambda x: tf.nn.softmax(-x), (None, 3)),
    (lambda x: tf.reduce_max(x, axis=-1, keepdims=True), (None, 1)),
    (lambda x: tf.gather(x, [2, 0], axis=1), (None, 2)),
])
def test_tapegrad_ops_on_keras_tensors_become_op_layers(op, shape):
    x = keras.Input((3,))
    y = op(x)
    assert y.shape == shape
    model = keras.Model(x, y)
    value = np.array([[-1.0, 2.0, 3.0], [4.0, -5.0, 6.0]], np.float32)
    np.testing.assert_allclose(model(value).numpy(), op(tf.constant(value)).numpy())
    clone = keras.Model.from_config(model.get_config())
    np.testing.assert_allclose(clone(value).numpy(), op(tf.constant(value)).numpy())


def test_checkpoint_keys_and_sequential_nesting(tmp_path):
    a = keras.Input((3,), name="a")
    dense = keras.layers.Dense(3)
    model = keras.Model(a, dense(dense(a)))
    lines = []
    model.summary(print_fn=lines.append)
    assert sum(f"{dense.name} (Dense)" in line for line in lines) == 1  # a shared layer is one row
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ck"))
    a2 = keras.Input((3,), name="a")
    dense2 = keras.layers.Dense(3)
    twin = keras.Model(a2, dense2(dense2(a2)))
    tf.train.Checkpoint(model=twin).restore(path)
    for u, v in zip(model.get_weights(), twin.get_weights()):
        np.testing.assert_array_equal(u, v)
    stack = keras.Sequential([model, keras.layers.Dense(2)])
    assert stack(np.ones((2, 3), np.float32)).shape == (2, 2)


def test_training_flag_reaches_layers_and_probes_leave_statistics_alone():
    x = keras.Input((2,))
    bn = keras.layers.BatchNormalization()
    model = keras.Model(x, bn(x, training=True))
    np.testing.assert_array_equal(bn.moving_mean.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(bn.moving_variance.numpy(), [1.0, 1.0])
    model(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    np.testing.assert_allclose(bn.moving_mean.numpy(), [0.02, 0.03], rtol=1e-5)


def test_keras_3_conventions():
    x = keras.Input((3,))
    model = keras.Model(x, [keras.layers.Dense(2)(x)])
    assert isinstance(model(np.ones((1, 3), np.float32)), tf.Tensor)  # outputs=[y] gives one tensor
    assert isinstance(model.outputs, list)
    with pytest.raises(ValueError, match="shape must be a tuple"):
        keras.Input(3)
    ids = keras.Input((None,), dtype="int32")
    emb = keras.Model(ids, keras.layers.Embedding(10, 4)(ids))
    assert emb(np.array([[1, 2, 3]], np.int64)).shape == (1, 3, 4)


def test_sequential_inputs_and_layer_outputs_make_feature_extractors():
    seq = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(2)])
    assert [t.shape for t in seq.inputs] == [(None, 3)] and seq.outputs[0].shape == (None, 2)
    features = keras.Model(seq.inputs, seq.layers[0].output)
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(features(x).numpy(), seq.layers[0](x).numpy())
    dense = keras.layers.Dense(2)
    with pytest.raises(AttributeError, match="never been called"):
        dense.output
    a = keras.Input((3,))
    first = dense(a)
    dense(a)
    assert dense.output is first and dense.input is a  # the first call's tensors


def test_a_subclass_may_name_its_own_attributes_input_and_output():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.output = keras.layers.Dense(1)

        def call(self, x):
            return self.output(x)

    net = Net()
    assert net(np.ones((2, 3), np.float32)).shape == (2, 1) and len(net.weights) == 2


def test_clone_model_has_the_architecture_and_new_weights():
    model, _ = _two_branch()
    clone = keras.models.clone_model(model)
    assert type(clone) is type(model) and [type(l) for l in clone.layers] == [type(l) for l in model.layers]
    assert all(u.shape == v.shape for u, v in zip(model.get_weights(), clone.get_weights()))
    assert not any(u is v for u, v in zip(model.weights, clone.weights))
    seq = keras.models.clone_model(keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)]))
    assert seq(np.ones((1, 2), np.float32)).shape == (1, 3)
    with pytest.raises(tf.errors.UnimplementedError):
        keras.models.clone_model(model, clone_function=lambda layer: layer)


def test_config_of_a_layer_shared_with_another_model():
    dense = keras.layers.Dense(2)
    a = keras.Input((3,))
    keras.Model(a, dense(a))  # the layer's first node belongs to another model
    b = keras.Input((3,))
    picked = dense(b)[:, 1]  # a tuple index must come back a tuple, not a list
    model = keras.Model(b, picked)
    clone = keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    assert clone(x).shape == (2,)
    np.testing.assert_allclose(clone(x).numpy(), model(x).numpy())


def test_nested_models_with_several_and_named_inputs():
    a, b = keras.Input((3,)), keras.Input((2,))
    inner = keras.Model([a, b], keras.layers.Concatenate()([a, b]), name="inner_pair")
    p, q = keras.Input((3,), name="p"), keras.Input((2,), name="q")
    named = keras.Model({"p": p, "q": q}, keras.layers.Subtract()([p[:, :2], q]), name="inner_named")
    c, d = keras.Input((3,)), keras.Input((2,))
    outer = keras.Model([c, d], [inner([c, d]), named({"p": c, "q": d})])
    assert isinstance(c, keras.KerasTensor)
    x, y = np.arange(6.0, dtype=np.float32).reshape(2, 3), np.ones((2, 2), np.float32)
    pair, diff = outer([x, y])
    np.testing.assert_allclose(pair.numpy(), np.concatenate([x, y], 1))
    np.testing.assert_allclose(diff.numpy(), x[:, :2] - y)
    again = keras.Model.from_config(outer.get_config())
    np.testing.assert_allclose(again([x, y])[1].numpy(), x[:, :2] - y)


def test_two_output_fit_matches_keras():
    """The same weights, data and SGD steps as Keras 3 (TF 2.21) gave these logs and weights."""
    rng = np.random.default_rng(0)
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    h = keras.layers.Concatenate()([a, b])
    h = keras.layers.LayerNormalization()(keras.layers.Dense(4, activation="relu", name="h")(h))
    reg = keras.layers.Dense(1, name="reg")(h)
    cls = keras.layers.Dense(3, activation="softmax", name="cls")(h)
    model = keras.Model([a, b], [reg, cls])
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) * 0.5 for w in model.get_weights()])
    model.compile(keras.optimizers.SGD(0.1), loss=["mse", "sparse_categorical_crossentropy"], loss_weights=[0.3, 1.0],
                  metrics=[["mae"], ["accuracy"]])
    x = [rng.normal(size=(16, 3)).astype(np.float32), rng.normal(size=(16, 2)).astype(np.float32)]
    y = [rng.normal(size=(16, 1)).astype(np.float32), rng.integers(0, 3, size=16)]
    logs = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    keras_logs = {"loss": [1.60346, 1.52405], "reg_loss": [1.29551, 1.16758], "cls_loss": [1.21481, 1.17377],
                  "reg_mae": [0.93242, 0.83498], "cls_accuracy": [0.3125, 0.3125]}
    for key, values in keras_logs.items():
        np.testing.assert_allclose(logs[key], values, atol=2e-5)
    np.testing.assert_allclose(model.get_weights()[0][0], [0.07594, -0.07512, 0.31723, 0.05829], atol=2e-5)


def test_python_ops_check_for_keras_tensors_only_once_keras_registers_them():
    # Note [Op dispatch]: a program that never imports keras pays one comparison per Python op
    import subprocess
    import sys
    code = ("import tapegrad as tf\nfrom tapegrad._ops import _dispatch\n"
            "assert _dispatch._SYMBOLIC[0] is None\n"
            "from tapegrad import keras\n"
            "i = keras.Input((3,))\n"
            "assert type(tf.concat([i, i], 1)).__name__ == 'KerasTensor'\n")
    subprocess.run([sys.executable, "-c", code], check=True)
