"""The projective image transform (TF's ImageProjectiveTransformV3 as composed ops), keras.ops.image.
affine_transform and the RandomRotation, RandomZoom and RandomTranslation layers built on it. The
transform is compared with TF's raw op in tests/oracle/test_tf_oracle_keras_utils.py; here the values
are worked out by hand."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from tapegrad.keras import layers
from tapegrad.keras._image_transform import projective_transform

ROW = np.arange(4, dtype="float32").reshape(1, 1, 4, 1)  # one image: one row of pixels 0 1 2 3
SHIFT_2 = [1, 0, -2, 0, 1, 0, 0, 0]  # output x reads input x - 2


@pytest.mark.parametrize("fill_mode, expected", [("constant", [9, 9, 0, 1]), ("nearest", [0, 0, 0, 1]),
                                                 ("reflect", [1, 0, 0, 1]), ("wrap", [2, 3, 0, 1])])
def test_fill_modes_map_points_outside(fill_mode, expected):
    out = projective_transform(ROW, SHIFT_2, "nearest", fill_mode, 9.0)
    np.testing.assert_array_equal(out.numpy().ravel(), expected)


def test_bilinear_mixes_neighbours_and_fill_value():
    out = projective_transform(ROW, [1, 0, -0.5, 0, 1, 0, 0, 0], "bilinear", "constant", 4.0)
    np.testing.assert_allclose(out.numpy().ravel(), [2.0, 0.5, 1.5, 2.5])  # x = -0.5: half fill, half pixel 0


def test_nearest_rounds_halves_away_from_zero():
    out = projective_transform(ROW, [1, 0, 0.5, 0, 1, 0, 0, 0], "nearest", "constant", -1.0)
    np.testing.assert_array_equal(out.numpy().ravel(), [1, 2, 3, -1])  # 0.5 -> 1, 3.5 -> 4 (outside)


def test_one_transform_per_image_and_integer_images_truncate():
    images = np.stack([ROW[0], ROW[0] * 10]).astype("uint8")
    out = projective_transform(images, [[1, 0, 0, 0, 1, 0, 0, 0], [1, 0, -0.5, 0, 1, 0, 0, 0]], "bilinear",
                               "nearest")
    assert out.dtype == tf.uint8
    np.testing.assert_array_equal(out.numpy()[..., 0], [[[0, 1, 2, 3]], [[0, 5, 15, 25]]])


def test_projective_row_and_zero_denominator():
    images = np.arange(12, dtype="float32").reshape(1, 3, 4, 1)
    # k = 1 - x / 2 is 0 at x = 2: fill there; elsewhere the point is (x / k, y / k)
    out = projective_transform(images, [1, 0, 0, 0, 1, 0, -0.5, 0], "nearest", "constant", 7.0).numpy()[0, ..., 0]
    assert out[0, 2] == 7.0 and out[1, 2] == 7.0
    assert out[1, 1] == images[0, 2, 2, 0]  # (1, 1) / 0.5 = (2, 2)
    np.testing.assert_array_equal(out[:, 0], images[0, :, 0, 0])


def test_transform_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="fill_mode"):
        projective_transform(ROW, SHIFT_2, "nearest", "mirror")
    with pytest.raises(tf.errors.InvalidArgumentError, match="transforms must be"):
        projective_transform(ROW, [1, 0, 0], "nearest", "constant")
    with pytest.raises(tf.errors.InvalidArgumentError, match="4-D"):
        projective_transform(ROW[0], SHIFT_2, "nearest", "constant")


def test_keras_ops_affine_transform():
    out = keras.ops.image.affine_transform(ROW[0], SHIFT_2, interpolation="nearest", fill_value=5)
    np.testing.assert_array_equal(np.asarray(out).ravel(), [5, 5, 0, 1])
    first = np.transpose(ROW, (0, 3, 1, 2))
    out = keras.ops.image.affine_transform(first, SHIFT_2, interpolation="nearest", fill_mode="wrap",
                                           data_format="channels_first")
    np.testing.assert_array_equal(np.asarray(out).ravel(), [2, 3, 0, 1])
    with pytest.raises(ValueError, match="fill_mode"):
        keras.ops.image.affine_transform(ROW, SHIFT_2, fill_mode="mirrors")


IMAGES = np.random.RandomState(0).randint(0, 256, (2, 6, 8, 3)).astype("uint8")


def test_translation_by_a_fixed_fraction():
    layer = layers.RandomTranslation((0.0, 0.0), (0.5, 0.5), fill_mode="constant", interpolation="nearest",
                                    fill_value=-1.0)
    out = layer(IMAGES).numpy()
    np.testing.assert_array_equal(out[:, :, 4:], IMAGES[:, :, :4])
    assert (out[:, :, :4] == -1).all() and out.dtype == np.float32


def test_zoom_by_a_fixed_factor():
    layer = layers.RandomZoom((1.0, 1.0), interpolation="nearest", fill_mode="constant", fill_value=-1.0)
    image = np.arange(9, dtype="float32").reshape(1, 3, 3, 1)  # zoom 2 about the centre (1, 1)
    out = layer(image).numpy()[0, ..., 0]
    np.testing.assert_array_equal(out, [[-1, -1, -1], [-1, 4, -1], [-1, -1, -1]])


def test_rotation_by_half_a_turn_reverses_both_axes():
    out = layers.RandomRotation((0.5, 0.5))(IMAGES).numpy()
    np.testing.assert_allclose(out, IMAGES[:, ::-1, ::-1].astype("float32"), atol=1e-3)


@pytest.mark.parametrize("make", [lambda: layers.RandomRotation(0.3, seed=3),
                                  lambda: layers.RandomZoom(0.4, (-0.2, 0.3), seed=3),
                                  lambda: layers.RandomTranslation(0.2, (-0.3, 0.1), seed=3)])
def test_random_layers_shapes_ranges_and_inference(make):
    layer = make()
    out = layer(IMAGES)
    assert out.shape == IMAGES.shape and out.dtype == tf.float32
    assert 0 <= float(tf.reduce_min(out)) and float(tf.reduce_max(out)) <= 255  # reflect fill: inside the range
    assert not np.allclose(out.numpy(), IMAGES)
    np.testing.assert_array_equal(layer(IMAGES, training=False).numpy(), IMAGES)
    assert layer(IMAGES[0]).shape == IMAGES.shape[1:]
    first = layer(np.transpose(IMAGES, (0, 3, 1, 2)).astype("float32"), training=False)
    assert first.shape == (2, 3, 6, 8)
    model = keras.Sequential([keras.Input((6, 8, 3)), make()])
    np.testing.assert_array_equal(model.predict(IMAGES, verbose=0), IMAGES)  # inference: the identity
    clone = type(layer).from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()


def test_configs_and_errors():
    assert layers.RandomRotation(-0.3).get_config()["factor"] in ((-0.3, 0.3), [-0.3, 0.3])
    assert tuple(layers.RandomRotation((0.3, 0.1)).get_config()["factor"]) == (0.1, 0.3)
    zoom = layers.RandomZoom(0.2).get_config()
    assert zoom["height_factor"] == 0.2 and zoom["width_factor"] is None and zoom["fill_mode"] == "reflect"
    with pytest.raises(ValueError, match=r"in the range \[-1, 1\]. Received: factor=2.0"):
        layers.RandomRotation(2.0)
    with pytest.raises(ValueError, match=r"range \(-1.0, 1.0\]. Received: input_number=-1.5"):
        layers.RandomZoom(-1.5)
    with pytest.raises(ValueError, match="Received: input_number=-1.5"):
        layers.RandomTranslation(0.1, -1.5)
    with pytest.raises(NotImplementedError, match="Unknown `fill_mode` mirror"):
        layers.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(NotImplementedError, match="Unknown `interpolation` bicubic"):
        layers.RandomZoom(0.1, interpolation="bicubic")
