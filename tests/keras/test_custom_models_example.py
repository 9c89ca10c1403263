"""examples/custom_models.py (the chapter-12 custom layers and models) runs, learns, and its layers
behave as Keras layers: shapes, configs, add_loss and the tracked metric."""
import os
import runpy

import numpy as np
import pytest

import tapegrad as tf

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "custom_models.py")


@pytest.fixture(scope="module")
def example():
    return runpy.run_path(EXAMPLE)


def test_every_model_learns(example, capsys):
    results = example["main"](epochs=3, n=400)
    out = capsys.readouterr().out
    assert set(results) == {"MyDense", "ResidualRegressor", "ReconstructingRegressor"}
    for name, (first, last, test_loss) in results.items():
        assert np.isfinite(test_loss) and last < first, (name, first, last)
    assert "reconstruction error per epoch" in out


def test_my_dense_shapes_config_and_weights(example):
    layer = example["MyDense"](4, activation="relu", name="d")
    y = layer(tf.ones([2, 3]))
    assert tuple(y.shape) == (2, 4)
    assert [tuple(w.shape) for w in layer.trainable_weights] == [(3, 4), (4,)]
    assert tuple(layer.compute_output_shape(tf.TensorShape([None, 5, 3]))) == (None, 5, 4)
    config = layer.get_config()
    assert config["units"] == 4 and config["activation"] == "relu" and config["name"] == "d"
    clone = example["MyDense"].from_config(config)
    assert clone.units == 4 and clone.name == "d"


def test_residual_block_adds_its_input(example):
    block = example["ResidualBlock"](2, 3)
    x = tf.constant(np.arange(6.0, dtype="float32").reshape(2, 3))
    y = block(x)
    inner = x
    for layer in block.hidden:
        inner = layer(inner)
    np.testing.assert_allclose(y.numpy(), (x + inner).numpy(), rtol=1e-6)
    assert len(block.trainable_weights) == 4


def test_residual_regressor_reuses_its_first_block(example):
    model = example["ResidualRegressor"](2)
    assert tuple(model(tf.ones([3, 8])).shape) == (3, 2)
    # Dense 8->30, two blocks of two Dense 30->30, Dense 30->2: the first block's weights exist once
    assert len(model.trainable_weights) == 2 + 4 + 4 + 2


def test_reconstructing_regressor_adds_its_loss_and_tracks_it(example):
    model = example["ReconstructingRegressor"](1)
    x = np.random.default_rng(0).standard_normal((5, 8)).astype("float32")
    model(x, training=True)
    assert len(model.losses) == 1
    recon = model.reconstruction_mean.result().numpy()
    np.testing.assert_allclose(model.losses[0].numpy(), 0.05 * recon, rtol=1e-5)
    assert model.reconstruction_mean in model.metrics
