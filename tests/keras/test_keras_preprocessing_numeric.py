"""keras.layers' numeric and image preprocessing layers against NumPy references: Rescaling,
Normalization (adapt on arrays and Datasets, fit on a Dataset), CategoryEncoding, Discretization,
Resizing, CenterCrop and the random augmentations (identity at inference, their draws' ranges in
training), in models, eagerly and in Dataset.map. Keras itself is compared in
tests/oracle/test_tf_oracle_keras_preprocessing.py."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

L = keras.layers
RNG = np.random.default_rng(0)


def test_rescaling_scales_and_offsets_into_float32():
    x = np.arange(6, dtype="int32").reshape(2, 3)
    out = L.Rescaling(1 / 255, offset=-1.0)(x)
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), x / 255 - 1, rtol=1e-6)


@pytest.mark.parametrize("axis,reduce", [(-1, (0,)), (None, (0, 1)), ((1,), (0,))])
def test_normalization_adapt_on_arrays_is_the_population_mean_and_variance(axis, reduce):
    x = RNG.normal(3.0, 2.0, size=(50, 4)).astype("float32")
    layer = L.Normalization(axis=axis)
    layer.adapt(x)
    mean, var = x.astype("float64").mean(axis=reduce), x.astype("float64").var(axis=reduce)
    np.testing.assert_allclose(np.ravel(layer.mean.numpy()), np.ravel(mean), rtol=1e-5)
    np.testing.assert_allclose(np.ravel(layer.variance.numpy()), np.ravel(var), rtol=1e-5)
    np.testing.assert_allclose(layer(x).numpy(), (x - mean.reshape(layer.mean.shape)) /
                               np.sqrt(var.reshape(layer.mean.shape)), rtol=1e-4, atol=1e-5)
    assert [w.name.split("/")[-1] for w in layer.weights] == ["mean:0", "variance:0", "count:0"]


def test_normalization_adapt_on_a_dataset_combines_batches():
    x = RNG.normal(size=(37, 3)).astype("float32")
    whole, batched = L.Normalization(), L.Normalization()
    whole.adapt(x)
    batched.adapt(tf.data.Dataset.from_tensor_slices(x).batch(8))
    np.testing.assert_allclose(batched.mean.numpy(), whole.mean.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(batched.variance.numpy(), whole.variance.numpy(), rtol=1e-6)


def test_normalization_given_statistics_invert_and_errors():
    layer = L.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0])
    np.testing.assert_allclose(layer(np.array([[3.0, 8.0]])).numpy(), [[1.0, 2.0]])
    assert layer.weights == []
    back = L.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0], invert=True)
    np.testing.assert_allclose(back(np.array([[1.0, 2.0]])).numpy(), [[3.0, 8.0]])
    with pytest.raises(ValueError, match="both `mean` and `variance` must be set"):
        L.Normalization(mean=[1.0])


def test_normalization_and_dense_train_with_fit_on_a_dataset():
    x = RNG.normal(50.0, 10.0, size=(256, 3)).astype("float32")
    y = ((x - 50.0) / 10.0 @ np.array([[1.0], [-2.0], [0.5]])).astype("float32")
    norm = L.Normalization()
    norm.adapt(tf.data.Dataset.from_tensor_slices(x).batch(64))
    model = keras.Sequential([keras.Input((3,)), norm, L.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    history = model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(32), epochs=15, verbose=0)
    assert history.history["loss"][-1] < 0.01 * history.history["loss"][0]
    np.testing.assert_allclose(norm.mean.numpy().ravel(), x.mean(axis=0), rtol=1e-5)  # fit leaves it alone


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
def test_category_encoding_matches_numpy(mode):
    ids = np.array([[0, 2, 2], [1, 3, 3]])
    out = L.CategoryEncoding(4, output_mode=mode)(ids).numpy()
    eye = np.eye(4)
    if mode == "one_hot":
        expected = eye[ids]
    else:
        expected = eye[ids].sum(axis=1)
        expected = np.minimum(expected, 1) if mode == "multi_hot" else expected
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(L.CategoryEncoding(4)(np.array([0, 2, 2])).numpy(), [1, 0, 1, 0])  # one row


def test_category_encoding_count_weights_and_errors():
    out = L.CategoryEncoding(3, output_mode="count")(np.array([[0, 1, 1]]), count_weights=np.array([[0.5, 2, 1]]))
    np.testing.assert_allclose(out.numpy(), [[0.5, 3.0, 0.0]])
    with pytest.raises(ValueError, match="num_tokens must be set"):
        L.CategoryEncoding()


def test_discretization_buckets_as_numpy_digitize():
    bins = [-1.0, 0.0, 2.5]
    x = RNG.normal(size=(4, 5)).astype("float32") * 3
    out = L.Discretization(bin_boundaries=bins)(x)
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy(), np.digitize(x, bins))
    hot = L.Discretization(bin_boundaries=bins, output_mode="one_hot")(x[0]).numpy()
    np.testing.assert_array_equal(hot, np.eye(4)[np.digitize(x[0], bins)])


def test_discretization_adapt_finds_the_quantiles():
    layer = L.Discretization(num_bins=4)
    layer.adapt(np.arange(37.0))
    assert layer.bin_boundaries == [8.25, 17.5, 26.75]
    batched = L.Discretization(num_bins=4)
    batched.adapt(tf.data.Dataset.from_tensor_slices(np.arange(1000.0)).batch(100))
    np.testing.assert_allclose(batched.bin_boundaries, [250, 500, 750], atol=15)
    with pytest.raises(ValueError, match="use `num_bins` instead"):
        L.Discretization(bin_boundaries=[1.0]).adapt(np.zeros(3))


def test_resizing_and_center_crop():
    x = np.arange(2 * 4 * 6 * 3, dtype="float32").reshape(2, 4, 6, 3)
    near = L.Resizing(2, 3, interpolation="nearest")(x).numpy()
    np.testing.assert_array_equal(near, x[:, 1::2, 1::2])  # nearest, half-pixel centres
    assert L.Resizing(3, 5)(x[0]).shape == (3, 5, 3)
    cropped = L.Resizing(2, 2, crop_to_aspect_ratio=True, interpolation="nearest")(x).numpy()
    np.testing.assert_array_equal(cropped, x[:, 1::2, 2:5:2])  # the central 4x4 window, then resized
    np.testing.assert_array_equal(L.CenterCrop(2, 3)(x).numpy(), x[:, 1:3, 1:4])
    assert L.CenterCrop(6, 8)(x).shape == (2, 6, 8, 3)  # larger than the image: resized
    first = L.CenterCrop(2, 2, data_format="channels_first")(np.transpose(x, [0, 3, 1, 2])).numpy()
    np.testing.assert_array_equal(first, np.transpose(x[:, 1:3, 2:4], [0, 3, 1, 2]))


AUGMENTATIONS = [lambda: L.RandomFlip(), lambda: L.RandomCrop(2, 3), lambda: L.RandomContrast(0.5),
                 lambda: L.RandomBrightness(0.3)]


@pytest.mark.parametrize("make", AUGMENTATIONS, ids=["flip", "crop", "contrast", "brightness"])
def test_augmentation_is_the_identity_at_inference_and_changes_in_training(make):
    x = RNG.uniform(0, 255, size=(16, 4, 5, 3)).astype("float32")
    layer = make()
    model = keras.Sequential([keras.Input((4, 5, 3)), layer])
    if not isinstance(layer, L.RandomCrop):
        np.testing.assert_array_equal(model.predict(x, verbose=0), x)
        np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
        assert not np.array_equal(layer(x).numpy(), x)  # a direct call trains, as in Keras
    out = model(x, training=True).numpy()
    assert out.shape == ((16, 2, 3, 3) if isinstance(layer, L.RandomCrop) else x.shape)


def test_random_flip_flips_about_half_the_images():
    x = np.tile(np.arange(4.0, dtype="float32").reshape(1, 1, 4, 1), (2000, 2, 1, 1))
    out = L.RandomFlip("horizontal", seed=3)(x, training=True).numpy()
    flipped = out[:, 0, 0, 0] == 3
    assert set(np.unique(out[:, 0, 0, 0])) == {0.0, 3.0} and 0.45 < flipped.mean() < 0.55
    np.testing.assert_array_equal(out[flipped], x[flipped][:, :, ::-1])


def test_random_crop_takes_one_window_of_the_batch():
    x = np.arange(16.0, dtype="float32").reshape(1, 4, 4, 1).repeat(5, axis=0)
    out = L.RandomCrop(2, 2)(x, training=True).numpy()
    top, left = divmod(int(out[0, 0, 0, 0]), 4)
    np.testing.assert_array_equal(out, x[:, top:top + 2, left:left + 2])


def test_random_contrast_and_brightness_draw_in_their_ranges():
    x = RNG.uniform(100, 150, size=(500, 4, 4, 3)).astype("float32")
    out = L.RandomContrast((0.1, 0.3))(x, training=True).numpy()
    centred = x - x.mean(axis=(1, 2), keepdims=True)
    c = (out - out.mean(axis=(1, 2), keepdims=True)).std(axis=(1, 2)) / centred.std(axis=(1, 2))
    assert 0.9 <= c.min() < 0.95 and 1.25 < c.max() <= 1.3
    delta = L.RandomBrightness((-0.1, 0.2))(x, training=True).numpy() - x
    assert -25.5 <= delta.min() < -20 and 45 < delta.max() <= 51
    np.testing.assert_allclose(delta, delta[:, :1, :1, :1] + 0 * delta, atol=1e-4)  # one delta per image
    top = L.RandomBrightness(0.5, value_range=(0, 1))(np.full((4, 2, 2, 1), 0.9, "float32"), training=True)
    assert top.numpy().max() <= 1.0
    with pytest.raises(ValueError, match=r"in the range \[0, 1\]"):
        L.RandomContrast(1.5)


def test_numeric_layers_run_in_dataset_map():
    x = RNG.uniform(0, 255, size=(8, 6, 6, 3)).astype("float32")
    norm = L.Normalization()
    norm.adapt(x)
    pipeline = [L.Rescaling(0.5), L.CenterCrop(4, 4), L.Resizing(2, 2), L.RandomFlip(seed=1)]
    ds = tf.data.Dataset.from_tensor_slices(x).batch(4)
    for layer in pipeline:
        ds = ds.map(lambda b, layer=layer: layer(b, training=True))
    batches = [b.numpy() for b in ds]
    assert [b.shape for b in batches] == [(4, 2, 2, 3)] * 2
    normed = [b.numpy() for b in tf.data.Dataset.from_tensor_slices(x).batch(4).map(norm)]
    np.testing.assert_allclose(np.concatenate(normed), norm(x).numpy(), rtol=1e-6)
    ids = tf.data.Dataset.from_tensor_slices(np.array([[0.5], [3.0]], "float32")).batch(2)
    assert [b.numpy().tolist() for b in ids.map(L.Discretization(bin_boundaries=[1.0]))] == [[[0], [1]]]


def test_normalization_saves_and_loads_its_adapted_statistics(tmp_path):
    x = RNG.normal(5, 3, size=(40, 2)).astype("float32")
    norm = L.Normalization()
    norm.adapt(x)
    model = keras.Sequential([keras.Input((2,)), norm, L.Discretization(bin_boundaries=[-0.5, 0.5]),
                              L.CategoryEncoding(3, output_mode="count")])
    path = str(tmp_path / "norm.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    np.testing.assert_allclose(loaded.layers[0].mean.numpy(), norm.mean.numpy())


def test_pad_sequences_is_in_keras_preprocessing_sequence():
    assert keras.preprocessing.sequence.pad_sequences is keras.utils.pad_sequences
    np.testing.assert_array_equal(keras.preprocessing.sequence.pad_sequences([[1, 2], [3]]), [[1, 2], [0, 3]])
