"""IndexedSlices against TF: a gather's gradient from a variable is an IndexedSlices with TF's values and
indices, and Keras's optimizers step an embedding whose batch repeats an index to Keras-on-TF's weights
(Note [Sparse updates]). Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1."""
import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import keras as tgk
from tf_oracle import import_tensorflow

ref = import_tensorflow()
refk = ref.keras
rng = np.random.default_rng(0)
TABLE = rng.normal(size=(5, 3)).astype("float32")
WEIGHTS = rng.normal(size=(4, 3)).astype("float32")
IDS = np.array([1, 3, 1, 1])  # index 1 three times

OPTIMIZERS = {
    "adam": lambda k: k.optimizers.Adam(0.1), "adam_amsgrad": lambda k: k.optimizers.Adam(0.1, amsgrad=True),
    "adamw": lambda k: k.optimizers.AdamW(0.1), "nadam": lambda k: k.optimizers.Nadam(0.1),
    "adamax": lambda k: k.optimizers.Adamax(0.1), "rmsprop": lambda k: k.optimizers.RMSprop(0.1),
    "rmsprop_centered": lambda k: k.optimizers.RMSprop(0.1, centered=True, momentum=0.5),
    "adagrad": lambda k: k.optimizers.Adagrad(0.1), "ftrl": lambda k: k.optimizers.Ftrl(0.1),
    "sgd": lambda k: k.optimizers.SGD(0.1), "sgd_momentum": lambda k: k.optimizers.SGD(0.1, momentum=0.9),
    "lion": lambda k: k.optimizers.Lion(0.1),
}


def _loss(lib, table):
    rows = lib.gather(table, IDS)
    return lib.reduce_sum(rows * WEIGHTS) + 0.1 * lib.reduce_sum(rows ** 2)


def _steps(lib, keras, name, steps=3):
    table, opt = lib.Variable(TABLE), OPTIMIZERS[name](keras)
    for _ in range(steps):
        with lib.GradientTape() as tape:
            loss = _loss(lib, table)
        opt.apply_gradients([(tape.gradient(loss, table), table)])
    return table.numpy()


def test_the_gradient_is_tfs_indexed_slices():
    grads = []
    for lib in (tg, ref):
        table = lib.Variable(TABLE)
        with lib.GradientTape() as tape:
            loss = _loss(lib, table)
        grads.append(tape.gradient(loss, table))
    ours, theirs = grads
    assert isinstance(ours, tg.IndexedSlices) and isinstance(theirs, ref.IndexedSlices)
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    np.testing.assert_allclose(ours.values.numpy(), theirs.values.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(ours.dense_shape.numpy(), theirs.dense_shape.numpy())
    np.testing.assert_allclose(tg.convert_to_tensor(ours).numpy(), ref.convert_to_tensor(theirs).numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizers_step_an_embedding_as_keras_on_tf(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _steps(ref, refk, name)
    np.testing.assert_allclose(_steps(tg, tgk, name), want, rtol=2e-5, atol=2e-6)


def test_an_embedding_model_trains_as_keras_on_tf():
    def build(k):
        k.utils.set_random_seed(1) if k is refk else None
        model = k.Sequential([k.Input((4,), dtype="int32"), k.layers.Embedding(7, 3),
                              k.layers.GlobalAveragePooling1D(), k.layers.Dense(1)])
        model.compile(optimizer=k.optimizers.Adam(0.05), loss="mse")
        return model
    ids = np.array([[1, 1, 2, 3], [4, 1, 1, 6], [2, 2, 2, 5]], "int32")
    y = np.array([[0.5], [-1.0], [2.0]], "float32")
    theirs, ours = build(refk), build(tgk)
    ours.set_weights(theirs.get_weights())
    for _ in range(3):
        theirs.train_on_batch(ids, y)
        ours.train_on_batch(ids, y)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_clip_by_global_norm_keeps_indexed_slices_as_tf():
    results = []
    for lib in (tg, ref):
        table, dense = lib.Variable(TABLE), lib.Variable(WEIGHTS)
        with lib.GradientTape() as tape:
            loss = _loss(lib, table) + lib.reduce_sum(dense ** 3)
        grads = tape.gradient(loss, [table, dense])
        results.append(lib.clip_by_global_norm(grads, 1.5))
    (ours, our_norm), (theirs, their_norm) = results
    np.testing.assert_allclose(our_norm.numpy(), their_norm.numpy(), rtol=1e-6)
    assert isinstance(ours[0], tg.IndexedSlices)
    np.testing.assert_allclose(ours[0].values.numpy(), theirs[0].values.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours[1].numpy(), theirs[1].numpy(), rtol=1e-6)
