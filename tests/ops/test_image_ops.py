"""tf.image preprocessing and augmentation ops: values against NumPy (and colorsys) references, traced
(tf.function) against eager, inside tf.data map functions, reproducibility of the random ones after
tf.random.set_seed, errors that name the function and argument, and float64 finite-difference
gradients. tests/oracle/test_tf_oracle_image_ops.py compares with TF itself."""
import colorsys

import numpy as np
import pytest

import tapegrad as tf
from gradcheck import check_grads

_rng = np.random.default_rng(7)
X4 = _rng.random((2, 5, 6, 3))  # float64 RGB in [0, 1]
X3 = X4[0]
F4 = X4.astype(np.float32)


def _np(t):
    return t.numpy()


# NumPy references

@pytest.mark.parametrize("x", [X4, X3], ids=["4d", "3d"])
def test_flips_turns_and_transpose_match_numpy(x):
    h = x.ndim - 3
    np.testing.assert_array_equal(_np(tf.image.flip_left_right(x)), x[..., ::-1, :])
    np.testing.assert_array_equal(_np(tf.image.flip_up_down(x)), x[..., ::-1, :, :])
    np.testing.assert_array_equal(_np(tf.image.transpose(x)), np.swapaxes(x, h, h + 1))
    for k in range(-5, 6):
        np.testing.assert_array_equal(_np(tf.image.rot90(x, k)), np.rot90(x, k, axes=(h, h + 1)))


def test_crops_and_pads_match_numpy():
    np.testing.assert_array_equal(_np(tf.image.crop_to_bounding_box(X4, 1, 2, 3, 4)), X4[:, 1:4, 2:6])
    padded = np.zeros((2, 8, 9, 3))
    padded[:, 2:7, 1:7] = X4
    np.testing.assert_array_equal(_np(tf.image.pad_to_bounding_box(X4, 2, 1, 8, 9)), padded)
    np.testing.assert_array_equal(_np(tf.image.central_crop(X3, 0.5)), X3[1:4, 1:5])  # int((5 - 2.5) / 2) = 1
    np.testing.assert_array_equal(_np(tf.image.central_crop(X3, 1.0)), X3)
    # crop the height 5 -> 3 (rows 1..3), pad the width 6 -> 9 (1 column before, 2 after)
    want = np.zeros((3, 9, 3))
    want[:, 1:7] = X3[1:4]
    np.testing.assert_array_equal(_np(tf.image.resize_with_crop_or_pad(X3, 3, 9)), want)


def test_resize_with_pad_is_resize_then_centred_pad():
    out = tf.image.resize_with_pad(F4, 10, 6)  # width limits: 5x6 -> 5x6 image, 2 rows of padding above and 3 below
    np.testing.assert_allclose(_np(out)[:, 2:7], _np(tf.image.resize(F4, [5, 6])), rtol=1e-6)
    assert not np.any(_np(out)[:, :2]) and not np.any(_np(out)[:, 7:])


def _patches_reference(x, k, s, r, padding):
    b, h, w, d = x.shape
    span = [(k[i] - 1) * r[i] + 1 for i in (0, 1)]
    if padding == "VALID":
        out = [max(0, -(-(n - sp + 1) // st)) for n, sp, st in zip((h, w), span, s)]
        x = x
    else:
        out = [-(-n // st) for n, st in zip((h, w), s)]
        tot = [max((o - 1) * st + sp - n, 0) for o, st, sp, n in zip(out, s, span, (h, w))]
        x = np.pad(x, [(0, 0), (tot[0] // 2, tot[0] - tot[0] // 2), (tot[1] // 2, tot[1] - tot[1] // 2), (0, 0)])
    y = np.zeros((b, out[0], out[1], k[0] * k[1] * d), x.dtype)
    for i in range(out[0]):
        for j in range(out[1]):
            patch = x[:, i * s[0]:i * s[0] + span[0]:r[0], j * s[1]:j * s[1] + span[1]:r[1], :]
            y[:, i, j] = patch.reshape(b, -1)
    return y


@pytest.mark.parametrize("k,s,r", [((2, 2), (2, 2), (1, 1)), ((3, 2), (1, 2), (1, 1)), ((2, 3), (2, 1), (2, 1)),
                                   ((1, 1), (3, 3), (1, 1)), ((2, 2), (1, 1), (2, 2))])
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_extract_patches_matches_numpy(k, s, r, padding):
    got = tf.image.extract_patches(X4, [1, *k, 1], [1, *s, 1], [1, *r, 1], padding)
    np.testing.assert_array_equal(_np(got), _patches_reference(X4, k, s, r, padding))


def test_colour_adjustments_match_numpy():
    x = F4
    mean = x.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(_np(tf.image.adjust_brightness(x, 0.2)), x + 0.2, rtol=1e-6)
    np.testing.assert_allclose(_np(tf.image.adjust_contrast(x, 1.5)), (x - mean) * 1.5 + mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(tf.image.adjust_gamma(x, 0.5, 2.0)), 2.0 * x ** 0.5, rtol=1e-5)
    n = x[0].size
    std = np.maximum(x.std(axis=(1, 2, 3), keepdims=True), 1 / np.sqrt(n))
    np.testing.assert_allclose(_np(tf.image.per_image_standardization(x)),
                               (x - x.mean(axis=(1, 2, 3), keepdims=True)) / std, rtol=1e-4, atol=1e-5)
    gray = x @ np.array([0.2989, 0.5870, 0.1140])
    np.testing.assert_allclose(_np(tf.image.rgb_to_grayscale(x)), gray[..., None], rtol=1e-5)
    np.testing.assert_array_equal(_np(tf.image.grayscale_to_rgb(x[..., :1])), np.repeat(x[..., :1], 3, axis=-1))


def test_integer_images_keep_their_dtype_and_saturate():
    top = 2 ** 31 - 1
    img = tf.constant([[[0], [top // 2]], [[top], [7]]], tf.int32)
    bright = tf.image.adjust_brightness(img, 0.6)
    assert bright.dtype == tf.int32
    assert _np(bright)[1, 0, 0] == 2147483520  # saturates at the largest float32 below 2**31
    assert tf.image.adjust_contrast(img, 2.0).dtype == tf.int32
    assert tf.image.per_image_standardization(img).dtype == tf.float32


def test_convert_image_dtype_scales_ranges():
    top = 2 ** 31 - 1
    as_float = tf.image.convert_image_dtype(tf.constant([0, top // 2, top], tf.int32), tf.float64)
    np.testing.assert_allclose(_np(as_float), [0, (top // 2) / top, 1.0], rtol=1e-12)
    back = tf.image.convert_image_dtype(tf.constant([0.0, 0.5, 1.0], tf.float64), tf.int32)
    np.testing.assert_array_equal(_np(back), [0, int(0.5 * (top + 0.5)), top])
    np.testing.assert_array_equal(_np(tf.image.convert_image_dtype(tf.constant([1, -1], tf.int32), tf.int64)),
                                  [2 ** 32, -2 ** 32])
    x = tf.constant([0.25])
    assert tf.image.convert_image_dtype(x, tf.float32) is not None
    np.testing.assert_array_equal(_np(tf.image.convert_image_dtype(x, tf.float32)), [0.25])


def test_hsv_conversions_match_colorsys():
    flat = X4.reshape(-1, 3)
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in flat]).reshape(X4.shape)
    np.testing.assert_allclose(_np(tf.image.rgb_to_hsv(X4)), hsv, atol=1e-12)
    np.testing.assert_allclose(_np(tf.image.hsv_to_rgb(hsv)), X4, atol=1e-12)
    greys = np.array([[[0.0, 0.0, 0.0], [0.5, 0.5, 0.5]]])
    np.testing.assert_array_equal(_np(tf.image.rgb_to_hsv(greys)), [[[0, 0, 0], [0, 0, 0.5]]])


def test_hue_and_saturation_adjustments_match_colorsys():
    flat = F4.reshape(-1, 3).astype(np.float64)
    for delta in (0.3, -0.45):
        want = [colorsys.hsv_to_rgb((h + delta) % 1.0, s, v) for h, s, v in (colorsys.rgb_to_hsv(*p) for p in flat)]
        np.testing.assert_allclose(_np(tf.image.adjust_hue(F4, delta)).reshape(-1, 3), want, atol=2e-6)
    want = [colorsys.hsv_to_rgb(h, min(s * 1.7, 1.0), v) for h, s, v in (colorsys.rgb_to_hsv(*p) for p in flat)]
    np.testing.assert_allclose(_np(tf.image.adjust_saturation(F4, 1.7)).reshape(-1, 3), want, atol=2e-6)


def _sobel_reference(x):
    p = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
    h, w = x.shape[1:3]
    out = [sum(k[i, j] * p[:, i:i + h, j:j + w] for i in range(3) for j in range(3)) for k in (ky, ky.T)]
    return np.stack(out, axis=-1)


def test_measures_match_numpy():
    x, y = X4, X4 * 0.7 + 0.1
    tv = np.abs(np.diff(x, axis=1)).sum(axis=(1, 2, 3)) + np.abs(np.diff(x, axis=2)).sum(axis=(1, 2, 3))
    np.testing.assert_allclose(_np(tf.image.total_variation(x)), tv, rtol=1e-12)
    np.testing.assert_allclose(_np(tf.image.total_variation(x[0])), tv[0], rtol=1e-12)
    dy, dx = tf.image.image_gradients(x)
    np.testing.assert_array_equal(_np(dy)[:, :-1], np.diff(x, axis=1))
    np.testing.assert_array_equal(_np(dx)[:, :, :-1], np.diff(x, axis=2))
    assert not np.any(_np(dy)[:, -1]) and not np.any(_np(dx)[:, :, -1])
    np.testing.assert_allclose(_np(tf.image.sobel_edges(x)), _sobel_reference(x), rtol=1e-12, atol=1e-12)
    mse = ((x - y) ** 2).mean(axis=(1, 2, 3))
    np.testing.assert_allclose(_np(tf.image.psnr(x, y, 1.0)), -10 * np.log10(mse), rtol=1e-5)


def _ssim_reference(x, y, size=11, sigma=1.5, k1=0.01, k2=0.03):
    c = np.arange(size) - (size - 1) / 2
    g = np.exp(-(c[:, None] ** 2 + c[None, :] ** 2) / (2 * sigma ** 2))
    g /= g.sum()

    def local_mean(z):
        windows = np.lib.stride_tricks.sliding_window_view(z, (size, size), axis=(1, 2))
        return np.einsum("bhwcij,ij->bhwc", windows, g)
    mx, my = local_mean(x), local_mean(y)
    vx, vy, cxy = local_mean(x * x) - mx ** 2, local_mean(y * y) - my ** 2, local_mean(x * y) - mx * my
    c1, c2 = k1 ** 2, k2 ** 2
    index = (2 * mx * my + c1) * (2 * cxy + c2) / ((mx ** 2 + my ** 2 + c1) * (vx + vy + c2))
    return index.mean(axis=(1, 2, 3))


def test_ssim_matches_numpy():
    x = _rng.random((2, 14, 13, 3))
    y = np.clip(x + 0.2 * _rng.standard_normal(x.shape), 0, 1)
    np.testing.assert_allclose(_np(tf.image.ssim(x, y, 1.0)), _ssim_reference(x, y), rtol=1e-4)
    np.testing.assert_allclose(_np(tf.image.ssim(x, x, 1.0)), [1.0, 1.0], rtol=1e-6)


# traced == eager

DETERMINISTIC = [
    ("flip_left_right", ()), ("flip_up_down", ()), ("transpose", ()), ("rot90", (3,)), ("central_crop", (0.6,)),
    ("crop_to_bounding_box", (1, 1, 3, 4)), ("pad_to_bounding_box", (1, 0, 7, 7)),
    ("resize_with_crop_or_pad", (4, 8)), ("resize_with_pad", (7, 9)),
    ("extract_patches", ([1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME")),
    ("adjust_brightness", (0.1,)), ("adjust_contrast", (1.4,)), ("adjust_gamma", (0.8,)),
    ("per_image_standardization", ()), ("rgb_to_grayscale", ()), ("convert_image_dtype", (tf.int32,)),
    ("total_variation", ()), ("image_gradients", ()), ("sobel_edges", ()), ("rgb_to_hsv", ()), ("hsv_to_rgb", ()),
    ("adjust_saturation", (0.6,)), ("adjust_hue", (0.25,)),
]


@pytest.mark.parametrize("name,args", DETERMINISTIC, ids=[c[0] for c in DETERMINISTIC])
def test_traced_equals_eager(name, args):
    fn = getattr(tf.image, name)
    traced = tf.function(lambda x: fn(x, *args))
    eager, graph = fn(tf.constant(F4), *args), traced(tf.constant(F4))
    for e, g in zip(eager if isinstance(eager, tuple) else (eager,), graph if isinstance(graph, tuple) else (graph,)):
        assert e.dtype == g.dtype
        np.testing.assert_allclose(_np(g), _np(e), rtol=1e-6, atol=1e-6)


def test_traced_metrics_and_tensor_arguments():
    x, y = tf.constant(F4), tf.constant(F4 * 0.5)
    np.testing.assert_allclose(_np(tf.function(lambda a, b: tf.image.psnr(a, b, 1.0))(x, y)),
                               _np(tf.image.psnr(x, y, 1.0)), rtol=1e-6)
    big = tf.constant(_rng.random((1, 12, 12, 3)).astype(np.float32))
    np.testing.assert_allclose(_np(tf.function(lambda a: tf.image.ssim(a, a * 0.3, 1.0))(big)),
                               _np(tf.image.ssim(big, big * 0.3, 1.0)), rtol=1e-6)
    turn = tf.function(lambda x, k: tf.image.rot90(x, k))  # k read when the graph runs
    for k in range(4):
        np.testing.assert_array_equal(_np(turn(x, tf.constant(k))), _np(tf.image.rot90(x, k)))
    crop = tf.function(lambda x, top, left: tf.image.crop_to_bounding_box(x, top, left, 2, 3))
    np.testing.assert_array_equal(_np(crop(x, tf.constant(2), tf.constant(3))), F4[:, 2:4, 3:6])
    np.testing.assert_array_equal(_np(crop(x, tf.constant(0), tf.constant(1))), F4[:, 0:2, 1:4])


RANDOM = [("random_flip_left_right", ()), ("random_flip_up_down", ()), ("random_crop", ([2, 3, 4, 3],)),
          ("random_brightness", (0.3,)), ("random_contrast", (0.2, 1.8)), ("random_saturation", (0.2, 1.8)),
          ("random_hue", (0.4,))]


@pytest.mark.parametrize("name,args", RANDOM, ids=[c[0] for c in RANDOM])
def test_random_ops_are_reproducible_after_set_seed_eager_and_traced(name, args):
    fn = getattr(tf.image, name)
    traced = tf.function(lambda x: fn(x, *args, seed=11))
    x = tf.constant(_rng.random((8, 5, 6, 3)).astype(np.float32))
    runs = []
    for _ in range(2):
        tf.random.set_seed(1234)
        runs.append([_np(fn(x, *args)), _np(fn(x, *args)), _np(traced(x)), _np(traced(x))])
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
    first, second = runs[0][2], runs[0][3]
    assert first.shape == second.shape and not np.array_equal(first, second)  # each call draws anew


def test_random_flips_choose_per_image_and_keep_gradients():
    x = tf.constant(np.tile(np.arange(6, dtype=np.float64).reshape(1, 2, 3, 1), [64, 1, 1, 1]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.random_flip_left_right(x)
        loss = tf.reduce_sum(y * tf.constant(np.arange(6.0).reshape(1, 2, 3, 1)))
    flipped = np.any(_np(y) != _np(x), axis=(1, 2, 3))
    assert 0 < flipped.sum() < 64
    g = _np(tape.gradient(loss, x))
    w = np.arange(6.0).reshape(2, 3, 1)
    np.testing.assert_array_equal(g[flipped], np.broadcast_to(w[:, ::-1], g[flipped].shape))
    np.testing.assert_array_equal(g[~flipped], np.broadcast_to(w, g[~flipped].shape))


# tf.data

def test_augmentation_pipeline_in_dataset_map():
    images = (_rng.random((6, 8, 9, 3)) * 255).astype(np.int32)
    ds = tf.data.Dataset.from_tensor_slices(images)

    def preprocess(image):
        x = tf.image.convert_image_dtype(image, tf.float32)
        x = tf.image.random_flip_left_right(x)
        x = tf.image.random_crop(x, [6, 6, 3])
        x = tf.image.random_brightness(x, 0.1)
        x = tf.image.random_contrast(x, 0.8, 1.2)
        return tf.image.per_image_standardization(tf.image.resize_with_crop_or_pad(x, 7, 7))
    batches = list(ds.map(preprocess).batch(4))
    assert [tuple(b.shape) for b in batches] == [(4, 7, 7, 3), (2, 7, 7, 3)]
    assert all(b.dtype == tf.float32 for b in batches)


def test_deterministic_map_matches_eager():
    images = _rng.random((5, 6, 6, 3)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices(images).map(
        lambda im: tf.image.adjust_hue(tf.image.rot90(tf.image.central_crop(im, 0.5), 1), 0.1))
    for got, im in zip(ds, images):
        want = tf.image.adjust_hue(tf.image.rot90(tf.image.central_crop(im, 0.5), 1), 0.1)
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6, atol=1e-7)


def test_map_over_images_of_different_sizes_matches_eager():
    # the map's graph is traced at two example sizes; a central crop keeps every row of 2 or 3 rows, so
    # the two graphs agree there and must still not be reused for other sizes
    images = [_rng.random((h, w, 3)).astype(np.float32) for h, w in [(5, 6), (3, 8), (12, 13), (4, 4)]]
    spec = tf.TensorSpec((None, None, 3), tf.float32)
    ds = tf.data.Dataset.from_generator(lambda: iter(images), output_signature=spec)
    for fn in (lambda im: tf.image.central_crop(im, 0.5), lambda im: tf.image.resize_with_crop_or_pad(im, 4, 5),
               tf.image.per_image_standardization, lambda im: tf.image.resize_with_pad(im, 6, 6),
               lambda im: tf.image.extract_patches(im[None], [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME")):
        for got, im in zip(ds.map(fn), images):
            want = fn(tf.constant(im))
            assert tuple(got.shape) == tuple(want.shape)
            np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6, atol=1e-6)


# errors name the function and the argument

@pytest.mark.parametrize("call,error,words", [
    (lambda: tf.image.crop_to_bounding_box(X4, -1, 0, 2, 2), ValueError, ["crop_to_bounding_box", "offset_height"]),
    (lambda: tf.image.crop_to_bounding_box(X4, 0.5, 0, 2, 2), tf.errors.InvalidArgumentError,
     ["crop_to_bounding_box", "offset_height"]),
    (lambda: tf.image.pad_to_bounding_box(X4, 0, -2, 9, 9), ValueError, ["pad_to_bounding_box", "offset_width"]),
    (lambda: tf.image.resize_with_crop_or_pad(X4, 0, 3), ValueError, ["resize_with_crop_or_pad", "target_height"]),
    (lambda: tf.image.central_crop(X4, 1.5), ValueError, ["central_crop", "central_fraction"]),
    (lambda: tf.image.rot90(X4, 1.5), TypeError, ["rot90", "k"]),
    (lambda: tf.image.flip_left_right(X4[0, 0]), ValueError, ["flip_left_right", "image"]),
    (lambda: tf.image.extract_patches(X4, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "full"),
     tf.errors.InvalidArgumentError, ["extract_patches", "padding"]),
    (lambda: tf.image.extract_patches(X4, [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
     tf.errors.UnimplementedError, ["extract_patches", "sizes"]),
    (lambda: tf.image.random_hue(X4, 0.7), ValueError, ["random_hue", "max_delta"]),
    (lambda: tf.image.random_contrast(X4, 0.5, 0.2), ValueError, ["random_contrast", "upper"]),
    (lambda: tf.image.random_crop(X4, [3, 1, 1, 1]), tf.errors.InvalidArgumentError, ["random_crop", "size"]),
    (lambda: tf.image.adjust_gamma(X4, -1.0), ValueError, ["adjust_gamma", "Gamma"]),
    (lambda: tf.image.adjust_hue(X4, 2.0), ValueError, ["adjust_hue", "delta"]),
    (lambda: tf.image.rgb_to_grayscale(X4[..., :2]), tf.errors.InvalidArgumentError, ["rgb_to_grayscale", "images"]),
    (lambda: tf.image.grayscale_to_rgb(X4), ValueError, ["grayscale_to_rgb", "grayscale"]),
    (lambda: tf.image.sobel_edges(tf.constant([[[[1]]]])), tf.errors.InvalidArgumentError, ["sobel_edges", "image"]),
    (lambda: tf.image.convert_image_dtype(X4, tf.bool), AttributeError, ["convert_image_dtype", "dtype"]),
    (lambda: tf.image.ssim(X4, X4, 1.0), tf.errors.InvalidArgumentError, ["ssim", "filter_size"]),
    (lambda: tf.image.total_variation(X4[0, 0]), ValueError, ["total_variation", "images"]),
])
def test_errors_name_function_and_argument(call, error, words):
    with pytest.raises(error) as info:
        call()
    for word in words:
        assert word in str(info.value)


# float64 finite differences

GRADCHECK = [
    (lambda x: tf.image.rot90(x, 3), (1, 3, 4, 2), {}),
    (lambda x: tf.image.crop_to_bounding_box(x, 1, 1, 2, 2), (1, 4, 4, 1), {}),
    (lambda x: tf.image.resize_with_crop_or_pad(x, 5, 2), (1, 3, 4, 2), {}),
    (lambda x: tf.image.extract_patches(x, [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME"), (1, 3, 4, 2), {}),
    (lambda x: tf.image.sobel_edges(x), (1, 3, 4, 2), {}),
    (lambda x: tf.image.total_variation(x), (2, 3, 3, 2), {}),
    (lambda x: tf.image.image_gradients(x)[0] * 2.0 + tf.image.image_gradients(x)[1], (1, 3, 4, 2), {}),
    (lambda x: tf.image.rgb_to_hsv(x), (2, 3, 3), {}),
    (lambda x: tf.image.hsv_to_rgb(x), (2, 3, 3), {}),
]


@pytest.mark.parametrize("fn,shape,kwargs", GRADCHECK)
def test_float64_gradients_match_finite_differences(fn, shape, kwargs):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.05, 0.95, shape)
    check_grads(fn, [x], kwargs, [0], rng)


# these compute in float32 as TF does (so a looser check); TF has no gradient for them at all
@pytest.mark.parametrize("fn", [lambda x: tf.image.adjust_contrast(x, 1.6), lambda x: tf.image.adjust_saturation(x, 0.7),
                                lambda x: tf.image.adjust_hue(x, 0.15), lambda x: tf.image.adjust_gamma(x, 0.7),
                                lambda x: tf.cast(tf.image.per_image_standardization(x), tf.float64)])
def test_float32_core_gradients_match_finite_differences(fn):
    rng = np.random.default_rng(4)
    x = rng.uniform(0.05, 0.95, (1, 2, 3, 3))
    check_grads(fn, [x], {}, [0], rng, eps=1e-3, atol=3e-3, rtol=3e-3)


# bad values of every argument: TF's error classes (AttributeError only where convert_image_dtype meets a
# non-numeric dtype, as in TF), and messages that name the function (or the engine op that refused)

_GOOD = {"image": tf.ones([2, 12, 12, 3]), "k": 1, "central_fraction": 0.5, "offset_height": 1, "offset_width": 1,
         "target_height": 4, "target_width": 4, "size": [1, 2, 2, 3], "sizes": [1, 2, 2, 1], "strides": [1, 1, 1, 1],
         "rates": [1, 1, 1, 1], "padding": "VALID", "delta": 0.1, "contrast_factor": 1.2, "max_delta": 0.1,
         "lower": 0.5, "upper": 1.5, "saturation_factor": 1.2, "dtype": tf.int32, "max_val": 1.0,
         "contents": tf.io.encode_png(np.zeros((2, 2, 3), np.uint8)), "crop_window": [0, 0, 1, 1], "seed": [1, 2],  # (codecs)
         "boxes": tf.constant([[0.0, 0.0, 1.0, 1.0], [0.0, 0.5, 1.0, 1.5]]), "scores": [0.9, 0.8], "max_output_size": 2}
_BAD = [None, "a", object(), [], float("nan"), {"a": 1}, tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([True, False]),
        tf.ones([4, 5]), -1, 2 ** 70, float("inf"), 2.5, [-1], [2 ** 70]]
_IMAGE_ARGS = {"images", "value", "img1", "img2", "a", "b"}


def _image_functions():
    return sorted(n for n in dir(tf.image) if not n.startswith("_") and n not in ("ResizeMethod", "resize"))


@pytest.mark.parametrize("name", _image_functions())
def test_bad_arguments_raise_tf_classes_naming_the_function(name):
    import inspect
    fn = getattr(tf.image, name)
    required = [p.name for p in inspect.signature(fn).parameters.values() if p.default is p.empty]
    good = [_GOOD["image" if p in _IMAGE_ARGS else p] for p in required]
    allowed = (tf.errors.OpError, TypeError, ValueError)
    for i, p in enumerate(required):
        for bad in _BAD:
            args = list(good)
            args[i] = bad
            try:
                fn(*args)
            except allowed as e:
                head = str(e).split(":")[0]  # or the engine's op ("Add: ..."), as in test_error_contract.py
                assert name in str(e) or head == "convert_image_dtype" or head.isidentifier() and head[0].isupper(), (
                    p, bad, str(e))
            except AttributeError as e:
                # a bool image, or dtype "a" (NumPy's code for bytes, so tf.string here)
                assert "convert_image_dtype" in str(e) and (p == "dtype" or bad.dtype == tf.bool)
