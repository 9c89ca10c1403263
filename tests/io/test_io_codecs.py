"""tf.io's image codecs (decode_png/jpeg/bmp/gif/image, encode_png/jpeg, is_jpeg, extract_jpeg_shape,
decode_and_crop_jpeg) and decode_raw: round trips, channel conversions, TF's errors naming the function,
decoded uint8 pixels read by tf.image, tf.data pipelines of image files, and
(with TensorFlow) the same pixels and error classes as TF. Tests that decode need Pillow."""
import io
import sys

import numpy as np
import pytest

import tapegrad as tf

_rng = np.random.default_rng(0)
RGB = _rng.integers(0, 256, (13, 17, 3), dtype=np.uint8)
ALPHA = _rng.integers(0, 256, (13, 17, 1), dtype=np.uint8)
RGBA = np.concatenate([RGB, ALPHA], axis=-1)
SMOOTH = (np.add.outer(np.arange(16) * 8, np.arange(24) * 5) % 256).astype(np.uint8)[..., None].repeat(3, -1)


@pytest.fixture
def pil():
    return pytest.importorskip("PIL.Image")


def _pil_file(pil, array, fmt, **options):
    out = io.BytesIO()
    pil.fromarray(np.ascontiguousarray(array)).save(out, fmt, **options)
    return out.getvalue()


def _gif(pil, frames):
    out = io.BytesIO()
    images = [pil.fromarray(f).quantize(16) for f in frames]
    images[0].save(out, "GIF", save_all=True, append_images=images[1:])
    return out.getvalue()


def _np(t):
    return np.asarray(t.numpy())


# encode_png needs no Pillow: its files are checked by Pillow and by decode_png

@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_png_round_trip_keeps_pixels(pil, channels):
    image = RGBA[..., :channels]
    data = tf.io.encode_png(image)
    assert data.dtype == tf.string and data.shape == ()
    decoded = tf.io.decode_png(data)
    assert decoded.dtype == tf.uint8 and decoded.shape == image.shape
    np.testing.assert_array_equal(_np(decoded), image)
    np.testing.assert_array_equal(np.asarray(pil.open(io.BytesIO(data.numpy()))).reshape(image.shape), image)
    for level in (0, 9):  # each of the five row filters gets chosen on some row of these images
        for img in (image, SMOOTH[..., :channels]):
            np.testing.assert_array_equal(_np(tf.io.decode_png(tf.io.encode_png(img, compression=level))), img)


def test_png_sixteen_bits_and_batches(pil):
    deep = _rng.integers(0, 65536, (5, 6, 1)).astype(np.uint16)
    data = tf.io.encode_png(deep)  # a NumPy uint16 array writes a 16-bit PNG
    np.testing.assert_array_equal(_np(tf.io.decode_png(data, dtype="uint16")), deep)
    np.testing.assert_array_equal(_np(tf.io.decode_png(data)), deep >> 8)  # uint8: the high byte, as TF
    again = tf.io.encode_png(tf.io.decode_png(data, dtype=np.uint16))  # int32 decoded as uint16 stays 16-bit
    assert again.numpy() == data.numpy()
    color = _rng.integers(0, 65536, (5, 6, 3)).astype(np.uint16)
    assert pil.open(io.BytesIO(tf.io.encode_png(color).numpy())).size == (6, 5)
    # Pillow reads 16-bit color at 8 bits (the high byte), which uint16 widens by 257 (TF reads all 16)
    np.testing.assert_array_equal(_np(tf.io.decode_png(tf.io.encode_png(color), dtype="uint16")),
                                  (color >> 8).astype(np.int32) * 257)
    batch = tf.io.encode_png(np.stack([RGB, RGB[::-1]]))
    assert batch.shape == (2,)
    np.testing.assert_array_equal(_np(tf.io.decode_png(batch[1])), RGB[::-1])
    np.testing.assert_array_equal(_np(tf.io.decode_png(tf.io.encode_png(RGB), dtype="uint16")),
                                  RGB.astype(np.int32) * 257)  # 8 -> 16 bits as libpng: * 257


def test_encode_png_errors():
    cases = [
        (lambda: tf.io.encode_png(RGB[..., 0]), tf.errors.InvalidArgumentError, "at least rank 3"),
        (lambda: tf.io.encode_png(np.zeros((2, 2, 5), np.uint8)), tf.errors.InvalidArgumentError, "1, 2, 3, or 4"),
        (lambda: tf.io.encode_png(RGB, compression=10), tf.errors.InvalidArgumentError, r"\[-1,9\]"),
        (lambda: tf.io.encode_png(tf.ones([2, 2, 3])), tf.errors.InvalidArgumentError, "uint8 or uint16"),
        (lambda: tf.io.encode_png(tf.constant([[[256]]])), tf.errors.InvalidArgumentError, r"\[0, 255\]"),
        (lambda: tf.io.encode_png(tf.constant([[[-1]]])), tf.errors.InvalidArgumentError, r"\[0, 255\]"),
        (lambda: tf.io.encode_png(tf.constant(["a"])), TypeError, "string tensor"),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match="encode_png: .*" + words):
            call()


def test_jpeg_round_trip_within_tolerance(pil):
    data = tf.io.encode_jpeg(SMOOTH, quality=95)
    assert tf.io.is_jpeg(data).numpy() and not tf.io.is_jpeg(tf.io.encode_png(SMOOTH)).numpy()
    back = _np(tf.io.decode_jpeg(data)).astype(int)
    assert back.shape == SMOOTH.shape and np.abs(back - SMOOTH).mean() < 2 and np.abs(back - SMOOTH).max() < 16
    gray = tf.io.encode_jpeg(SMOOTH[..., :1], format="grayscale")
    assert tf.io.decode_jpeg(gray).shape == (16, 24, 1)
    assert np.abs(_np(tf.io.decode_jpeg(gray, channels=3)).astype(int) - SMOOTH).max() < 16
    low = tf.io.encode_jpeg(RGB, quality=10, chroma_downsampling=False, progressive=True, optimize_size=True)
    assert len(low.numpy()) < len(tf.io.encode_jpeg(RGB).numpy())
    assert tf.io.extract_jpeg_shape(low).numpy().tolist() == [13, 17, 3]
    assert tf.io.extract_jpeg_shape(gray, output_type=tf.int64).dtype == tf.int64
    cm = pil.open(io.BytesIO(tf.io.encode_jpeg(RGB, density_unit="cm", x_density=50, y_density=60).numpy()))
    assert cm.info["jfif_unit"] == 2 and cm.info["jfif_density"] == (50, 60)
    wrapped = tf.io.decode_jpeg(tf.io.encode_jpeg(np.full((8, 8, 1), 300.7, np.float32)))  # cast as TF: wraps
    assert abs(int(_np(wrapped).mean()) - 44) <= 1


def test_encode_jpeg_errors():
    cases = [
        (lambda: tf.io.encode_jpeg(np.zeros((2, 3, 3, 1), np.uint8)), "3-dimensional"),
        (lambda: tf.io.encode_jpeg(np.zeros((2, 2, 4), np.uint8)), "1 or 3 channels"),
        (lambda: tf.io.encode_jpeg(RGB, quality=101), r"quality must be in \[0,100\]"),
        (lambda: tf.io.encode_jpeg(RGB, format="grayscale"), "format grayscale expects 1 channels"),
        (lambda: tf.io.encode_jpeg(RGB[..., :1], format="rgb"), "format rgb expects 3 channels"),
        (lambda: tf.io.encode_jpeg(RGB, density_unit="mm"), "density_unit"),
    ]
    for call, words in cases:
        with pytest.raises(tf.errors.InvalidArgumentError, match="encode_jpeg: .*" + words):
            call()


def test_channel_conversions(pil):
    png = tf.io.encode_png(RGBA)
    np.testing.assert_array_equal(_np(tf.io.decode_png(png, channels=3)), RGB)  # alpha dropped
    gray = np.floor(RGB @ np.array([0.299, 0.587, 0.114]))[..., None]
    np.testing.assert_array_equal(_np(tf.io.decode_png(png, channels=1)), gray)
    la = tf.io.encode_png(RGBA[..., [0, 3]])
    assert tf.io.decode_png(la).shape == (13, 17, 2)
    np.testing.assert_array_equal(_np(tf.io.decode_png(la, channels=4)), RGBA[..., [0, 0, 0, 3]])
    np.testing.assert_array_equal(_np(tf.io.decode_png(la, channels=1)), RGBA[..., :1])
    rgb4 = _np(tf.io.decode_png(tf.io.encode_png(RGB), channels=4))
    np.testing.assert_array_equal(rgb4[..., :3], RGB)
    assert (rgb4[..., 3] == 255).all()
    np.testing.assert_array_equal(_np(tf.io.decode_image(tf.io.encode_png(RGB[..., :1]), channels=3)),
                                  RGB[..., [0, 0, 0]])
    palette = pil.fromarray(RGB).quantize(8)
    with_transparency = io.BytesIO()
    palette.save(with_transparency, "PNG", transparency=0)
    decoded = _np(tf.io.decode_png(with_transparency.getvalue()))
    assert decoded.shape == (13, 17, 4)
    np.testing.assert_array_equal(decoded, np.asarray(pil.open(with_transparency).convert("RGBA")))
    assert set(decoded[..., 3].ravel()) == {0, 255}


def test_other_formats(pil):
    bmp, bmp32 = _pil_file(pil, RGB, "BMP"), _pil_file(pil, RGBA, "BMP")
    np.testing.assert_array_equal(_np(tf.io.decode_bmp(bmp)), RGB)
    np.testing.assert_array_equal(_np(tf.io.decode_bmp(bmp32)), RGBA)  # the fourth byte is alpha, as in TF
    np.testing.assert_array_equal(_np(tf.io.decode_image(bmp, channels=4))[..., 3], np.full((13, 17), 255))
    frames = [_rng.integers(0, 256, (6, 7, 3), dtype=np.uint8) for _ in range(3)]
    gif = _gif(pil, frames)
    assert tf.io.decode_gif(gif).shape == (3, 6, 7, 3) and tf.io.decode_image(gif).shape == (3, 6, 7, 3)
    assert tf.io.decode_image(gif, expand_animations=False).shape == (6, 7, 3)
    np.testing.assert_array_equal(_np(tf.io.decode_gif(gif))[0], _np(tf.io.decode_image(gif, expand_animations=False)))
    assert tf.io.decode_gif(tf.io.encode_png(RGBA)).shape == (1, 13, 17, 3)  # always RGB frames
    one_frame = _gif(pil, frames[:1])
    assert tf.io.decode_png(one_frame).shape == (6, 7, 3) and tf.io.decode_jpeg(one_frame).shape == (6, 7, 3)
    jpg = tf.io.encode_jpeg(SMOOTH)
    assert tf.io.decode_png(jpg).shape == (16, 24, 3)  # every decoder reads JPEG, PNG and GIF, as in TF
    assert tf.io.decode_jpeg(jpg, ratio=2).shape == (8, 12, 3) and tf.io.decode_jpeg(jpg, ratio=8).shape == (2, 3, 3)
    crop = tf.io.decode_and_crop_jpeg(jpg, [2, 3, 5, 7])
    np.testing.assert_array_equal(_np(crop), _np(tf.io.decode_jpeg(jpg))[2:7, 3:10])
    webp = _pil_file(pil, RGB, "WEBP", lossless=True)
    np.testing.assert_array_equal(_np(tf.io.decode_image(webp)), RGB[None])  # 4-D, as TF gives WebP
    np.testing.assert_array_equal(_np(tf.io.decode_image(webp, expand_animations=False)), RGB)


def test_decode_image_dtypes(pil):
    png, bmp = tf.io.encode_png(RGB), _pil_file(pil, RGB, "BMP")
    as_float = tf.io.decode_image(png, dtype=tf.float32)
    assert as_float.dtype == tf.float32
    np.testing.assert_allclose(_np(as_float), RGB / 255.0, rtol=1e-6)
    np.testing.assert_allclose(_np(tf.io.decode_image(bmp, dtype=tf.float64)), RGB / 255.0, rtol=1e-12)
    # as TF: PNG goes through uint16 (v * 257), the other formats through uint8
    np.testing.assert_array_equal(_np(tf.io.decode_image(png, dtype=tf.int32)), RGB.astype(np.int64) * 257 * 32768)
    np.testing.assert_array_equal(_np(tf.io.decode_image(bmp, dtype=tf.int32)), RGB.astype(np.int64) << 23)
    np.testing.assert_array_equal(_np(tf.io.decode_image(bmp, dtype="uint16")), RGB.astype(np.int32) * 256)
    with pytest.raises(AttributeError, match="decode_image"):
        tf.io.decode_image(png, dtype=tf.bool)


@pytest.mark.parametrize("call, error, words", [
    (lambda d: tf.io.decode_png(d["bmp"]), tf.errors.InvalidArgumentError, "decode_png: Trying to decode BMP"),
    (lambda d: tf.io.decode_bmp(d["png"]), tf.errors.InvalidArgumentError, "decode_bmp: Trying to decode PNG format"),
    (lambda d: tf.io.decode_png(d["gif"]), tf.errors.InvalidArgumentError, "decode_png: Got 2 frames"),
    (lambda d: tf.io.decode_image(b"garbage"), tf.errors.InvalidArgumentError, "decode_image: Unknown image file"),
    (lambda d: tf.io.decode_png(b""), tf.errors.InvalidArgumentError, "decode_png: Input is empty"),
    (lambda d: tf.io.decode_png(d["png"][:40]), tf.errors.InvalidArgumentError, "decode_png: Invalid PNG data"),
    (lambda d: tf.io.decode_jpeg(d["jpg"][:len(d["jpg"]) // 2]), tf.errors.InvalidArgumentError,
     "decode_jpeg: Invalid JPEG data"),
    (lambda d: tf.io.decode_png([d["png"]]), tf.errors.InvalidArgumentError, r"decode_png: `contents` must be scalar"),
    (lambda d: tf.io.decode_png(3), TypeError, "decode_png: `contents` must be a string tensor"),
    (lambda d: tf.io.decode_png(d["png"], channels=2), tf.errors.InvalidArgumentError, "0, 1, 3 or 4 but got 2"),
    (lambda d: tf.io.decode_png(d["png"], dtype=tf.float32), tf.errors.InvalidArgumentError, "uint8, uint16"),
    (lambda d: tf.io.decode_jpeg(d["jpg"], channels=4), tf.errors.InvalidArgumentError, "JPEG does not support 4"),
    (lambda d: tf.io.decode_jpeg(d["jpg"], ratio=3), tf.errors.InvalidArgumentError, "ratio must be 1, 2, 4, or 8"),
    (lambda d: tf.io.decode_jpeg(d["jpg"], dct_method="X"), tf.errors.InvalidArgumentError, "dct_method"),
    (lambda d: tf.io.decode_bmp(d["bmp"], channels=1), tf.errors.InvalidArgumentError, "0, 3 or 4 for BMP"),
    (lambda d: tf.io.decode_image(d["gif"], channels=1), tf.errors.InvalidArgumentError, "0 or 3 for GIF"),
    (lambda d: tf.io.extract_jpeg_shape(d["png"]), tf.errors.InvalidArgumentError, "extract_jpeg_shape: Invalid JPEG"),
    (lambda d: tf.io.decode_and_crop_jpeg(d["png"], [0, 0, 1, 1]), tf.errors.InvalidArgumentError, "JPEG only"),
    (lambda d: tf.io.decode_and_crop_jpeg(d["jpg"], [10, 0, 9, 1]), tf.errors.InvalidArgumentError, "crop window"),
])
def test_decode_errors_name_the_function(pil, call, error, words):
    files = {"png": tf.io.encode_png(RGB).numpy(), "jpg": tf.io.encode_jpeg(SMOOTH).numpy(),
             "bmp": _pil_file(pil, RGB, "BMP"), "gif": _gif(pil, [RGB, RGB[::-1]])}
    with pytest.raises(error, match=words):
        call(files)


def test_decoded_pixels_read_as_uint8_by_tf_image(pil):
    image = tf.io.decode_png(tf.io.encode_png(RGB))
    as_float = tf.image.convert_image_dtype(image, tf.float32)  # [0, 1], as for TF's uint8
    np.testing.assert_allclose(_np(as_float), RGB / 255.0, rtol=1e-6)
    back = tf.image.convert_image_dtype(as_float, "uint8")
    np.testing.assert_array_equal(_np(back), RGB)
    np.testing.assert_array_equal(_np(tf.io.decode_png(tf.io.encode_png(back))), RGB)  # encodable again
    brighter = _np(tf.image.adjust_brightness(image, 0.1))
    assert brighter.dtype == np.uint8 and brighter.max() == 255 and (brighter >= RGB).all()
    np.testing.assert_allclose(float(tf.image.psnr(image, image, 255)), np.inf)
    plain = tf.constant(RGB.astype(np.int32))  # an int32 tensor made otherwise keeps TF's int32 range
    assert float(tf.reduce_max(tf.image.convert_image_dtype(plain, tf.float32))) < 1e-6
    traced = tf.function(lambda s: tf.image.convert_image_dtype(tf.io.decode_png(s), tf.float32))
    np.testing.assert_allclose(_np(traced(tf.io.encode_png(RGB))), RGB / 255.0, rtol=1e-6)


def test_png_pipeline_in_tf_data(pil, tmp_path):
    images = [_rng.integers(0, 256, (6, 5, 3), dtype=np.uint8) for _ in range(5)]
    for i, image in enumerate(images):
        tf.io.write_file(str(tmp_path / f"img{i}.png"), tf.io.encode_png(image))
    files = tf.data.Dataset.list_files(str(tmp_path / "*.png"), shuffle=False)
    decoded = files.map(lambda p: tf.io.decode_png(tf.io.read_file(p), channels=3))
    assert decoded.element_spec == tf.TensorSpec([6, 5, 3], tf.uint8)
    for got, want in zip(decoded, images):
        np.testing.assert_array_equal(_np(got), want)
    scaled = decoded.batch(2).map(lambda x: tf.image.convert_image_dtype(x, tf.float32))  # Note [Pixel marks ...]
    batches = list(scaled)
    assert [b.shape for b in batches] == [(2, 6, 5, 3), (2, 6, 5, 3), (1, 6, 5, 3)]
    np.testing.assert_allclose(_np(batches[0]), np.stack(images[:2]) / 255.0, rtol=1e-6)
    labels = list(range(5))
    paths = [str(tmp_path / f"img{i}.png") for i in range(5)]

    def load(path, label):
        image = tf.io.decode_png(tf.io.read_file(path))
        return tf.image.resize(tf.image.convert_image_dtype(image, tf.float32), [4, 4]), label

    ds = tf.data.Dataset.from_tensor_slices((paths, labels)).shuffle(5, seed=1).map(load).batch(5).prefetch(1)
    assert ds.element_spec == (tf.TensorSpec([None, 4, 4, 3], tf.float32), tf.TensorSpec([None], tf.int32))
    x, y = next(iter(ds))
    assert x.shape == (5, 4, 4, 3) and sorted(_np(y).tolist()) == labels and float(tf.reduce_max(x)) <= 1.0
    sizes = tf.data.Dataset.from_tensor_slices(paths[:2]).map(tf.io.read_file).map(tf.io.decode_png)
    assert [t.shape for t in sizes] == [(6, 5, 3), (6, 5, 3)]


def test_decode_raw():
    data = np.array([1, -2, 300], np.int32).tobytes()
    np.testing.assert_array_equal(_np(tf.io.decode_raw(data, tf.int32)), [1, -2, 300])
    np.testing.assert_array_equal(_np(tf.io.decode_raw(np.array([1], ">i4").tobytes(), tf.int32, little_endian=False)),
                                  [1])
    floats = tf.io.decode_raw([np.float32([1.5, 2]).tobytes(), np.float32([3, 4]).tobytes()], tf.float32)
    assert floats.shape == (2, 2) and floats.dtype == tf.float32
    small = tf.io.decode_raw(b"\x01\xff", "uint8")  # narrow types come back in their own dtype, as TF
    assert small.dtype == tf.uint8 and _np(small).tolist() == [1, 255]
    assert tf.io.decode_raw(b"\xff\xff", np.int16).dtype == tf.int16
    assert _np(tf.io.decode_raw(b"\xff\xff", np.int16)).tolist() == [-1]
    assert tf.io.decode_raw(b"\x00\x3c", tf.float16).numpy().tolist() == [1.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="uint32 is not in the list"):
        tf.io.decode_raw(b"\x00\x00\x00\x00", tf.uint32)
    assert _np(tf.io.decode_raw(b"\x01\x00\x02", tf.bool)).tolist() == [True, False, True]
    padded = tf.io.decode_raw([b"\x01\x00\x00\x00\x05", b"\x02"], np.int16, fixed_length=4)
    assert _np(padded).tolist() == [[1, 0], [2, 0]]
    assert tf.io.decode_raw(b"", tf.int64).shape == (0,)
    for call, words in [(lambda: tf.io.decode_raw(b"\x01\x00\x00", tf.int32), "not a multiple of 4"),
                        (lambda: tf.io.decode_raw([b"\x01\x00", b"\x02"], "uint8"), "same size"),
                        (lambda: tf.io.decode_raw([b"\x01"], np.int16, fixed_length=3), "fixed_length"),
                        (lambda: tf.io.decode_raw(b"ab", tf.string), "out_type")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match="decode_raw: .*" + words):
            call()


def test_without_pillow_the_error_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL raises ImportError
    with pytest.raises(ImportError, match='pip install "tapegrad\\[image\\]"'):
        tf.io.decode_png(tf.io.encode_png(RGB))  # (encode_png needs no Pillow)
    with pytest.raises(ImportError, match="encode_jpeg"):
        tf.io.encode_jpeg(RGB)


def test_image_aliases():
    for name in ["decode_png", "decode_jpeg", "decode_image", "decode_bmp", "decode_gif", "encode_png", "encode_jpeg",
                 "is_jpeg", "extract_jpeg_shape", "decode_and_crop_jpeg"]:
        assert getattr(tf.image, name) is getattr(tf.io, name)


# TensorFlow as the oracle

@pytest.fixture
def ref():
    from tf_oracle import import_tensorflow
    return import_tensorflow()


def _files(pil):
    frames = [_rng.integers(0, 256, (9, 11, 3), dtype=np.uint8) for _ in range(3)]
    palette = io.BytesIO()
    pil.fromarray(RGB).quantize(16).save(palette, "PNG", transparency=3)
    return {"rgb.png": _pil_file(pil, RGB, "PNG"), "rgba.png": _pil_file(pil, RGBA, "PNG"),
            "gray.png": _pil_file(pil, RGB[..., 0], "PNG"), "la.png": _pil_file(pil, RGBA[..., [0, 3]], "PNG"),
            "gray16.png": _pil_file(pil, RGB[..., 0].astype(np.uint16) * 251, "PNG"), "palette.png": palette.getvalue(),
            "rgb.bmp": _pil_file(pil, RGB, "BMP"), "rgba.bmp": _pil_file(pil, RGBA, "BMP"),
            "one.gif": _pil_file(pil, RGB, "GIF"), "anim.gif": _gif(pil, frames),
            "rgb.jpg": _pil_file(pil, SMOOTH, "JPEG", quality=90), "gray.jpg": _pil_file(pil, SMOOTH[..., 0], "JPEG")}


_DECODES = [("decode_image", {}), ("decode_image", {"channels": 3}), ("decode_image", {"channels": 4}),
            ("decode_image", {"channels": 1}), ("decode_image", {"expand_animations": False}),
            ("decode_image", {"dtype": "float32"}), ("decode_png", {}), ("decode_png", {"dtype": "uint16"}),
            ("decode_jpeg", {}), ("decode_jpeg", {"channels": 1}), ("decode_bmp", {}), ("decode_gif", {})]


def _decoded(lib, fn, data, kwargs):
    kwargs = {k: getattr(lib, v, v) if k == "dtype" else v for k, v in kwargs.items()}  # tapegrad has no tf.uint16
    try:
        return getattr(lib.io, fn)(data, **kwargs).numpy()
    except Exception as e:  # noqa: BLE001 -- compared by class
        return type(e).__name__


def test_decoders_match_tensorflow(pil, ref):
    for name, data in _files(pil).items():
        for fn, kwargs in _DECODES:
            ours, theirs = _decoded(tf, fn, data, kwargs), _decoded(ref, fn, data, kwargs)
            where = (name, fn, kwargs)
            assert type(ours) is type(theirs), (where, ours if isinstance(ours, str) else theirs)
            if isinstance(ours, str):
                assert ours == theirs, where
                continue
            assert ours.shape == theirs.shape, where
            diff = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
            scale = 1 / 255 if ours.dtype.kind == "f" else 257 if kwargs.get("dtype") == "uint16" else 1
            if name.endswith(".jpg"):  # libjpeg's accurate IDCT here, TF's fast one by default
                assert diff.max() <= 8 * scale and diff.mean() <= 2 * scale, (where, diff.max(), diff.mean())
            elif kwargs.get("channels") == 1 and not name.startswith(("gray", "la")):
                assert diff.max() <= 1 and diff.mean() < 0.05, where  # the luma's rounding differs by one
            else:
                assert diff.max() <= 1e-6 * (ours.dtype.kind == "f"), (where, diff.max())


def test_encoders_match_tensorflow(pil, ref):
    deep = _rng.integers(0, 65536, (4, 5, 3)).astype(np.uint16)
    for image in (RGB, RGBA, RGBA[..., [0, 3]], RGB[..., :1], deep, deep[..., :1]):
        ours = tf.io.encode_png(image).numpy()
        np.testing.assert_array_equal(ref.io.decode_png(ours, dtype=ref.as_dtype(image.dtype)).numpy(), image)
        theirs = _np(tf.io.decode_png(ref.io.encode_png(image).numpy(), dtype=image.dtype.name))
        if image is deep:  # Pillow reads 16-bit color at 8 bits
            image = (image >> 8).astype(np.int32) * 257
        np.testing.assert_array_equal(theirs, image)
    for image, options in [(SMOOTH, {}), (SMOOTH, {"quality": 40, "chroma_downsampling": False}),
                           (SMOOTH[..., :1], {"format": "grayscale"})]:
        ours = ref.io.decode_jpeg(tf.io.encode_jpeg(image, **options).numpy()).numpy().astype(int)
        theirs = ref.io.decode_jpeg(ref.io.encode_jpeg(image, **options)).numpy().astype(int)
        assert np.abs(ours - theirs).max() <= 8 and np.abs(ours - theirs).mean() < 1.5, options
    jpg = _pil_file(pil, SMOOTH, "JPEG")
    assert tf.io.extract_jpeg_shape(jpg).numpy().tolist() == ref.io.extract_jpeg_shape(jpg).numpy().tolist()
    assert tf.io.decode_jpeg(jpg, ratio=4).shape == tuple(ref.io.decode_jpeg(jpg, ratio=4).shape)


def test_decode_raw_matches_tensorflow(ref):
    data = _rng.integers(0, 256, 24, dtype=np.uint8).tobytes()
    for name in ["int32", "int64", "float32", "float64", "uint8", "int16", "uint16", "int8", "bool"]:
        for little in (True, False):
            ours = _np(tf.io.decode_raw(data, name, little_endian=little))
            theirs = ref.io.decode_raw(data, getattr(ref, name), little_endian=little).numpy()
            np.testing.assert_array_equal(ours, theirs.astype(ours.dtype), err_msg=f"{name} {little}")


def test_signatures_match_tensorflow(ref):
    import inspect
    for name in ["decode_png", "decode_jpeg", "decode_bmp", "decode_gif", "decode_image", "encode_png", "encode_jpeg",
                 "decode_raw", "is_jpeg", "extract_jpeg_shape", "decode_and_crop_jpeg"]:
        assert list(inspect.signature(getattr(tf.io, name)).parameters) == list(
            inspect.signature(getattr(ref.io, name)).parameters), name
