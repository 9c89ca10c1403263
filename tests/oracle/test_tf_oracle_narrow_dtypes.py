"""The narrow and unsigned integers and float16 (uint8, int8, int16, uint16, uint32, uint64, float16),
run by TensorFlow and by tapegrad from the same code: the DType surface, conversions from NumPy and
Python values, casts (wrap-around, truncation, the out-of-range rules of Note [Casts from floats to
integers]), integer arithmetic that wraps, comparisons, selects and the ops that move elements; an op
whose TF kernel refuses a type raises TF's error class. Skipped when TensorFlow does not import, unless
TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

NARROW = ("uint8", "int8", "int16", "uint16", "uint32", "uint64")
TYPES = NARROW + ("float16",)


def _same(ours, theirs):
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


def _both(fn):
    """fn(tf) run on each side: equal values and dtypes, or the same error class."""
    try:
        theirs = fn(ref)
    except Exception as e:  # noqa: BLE001 -- the class is what is compared
        with pytest.raises(getattr(tg.errors, type(e).__name__, type(e))):
            fn(tg)
        return
    _same(fn(tg), theirs)


@pytest.mark.parametrize("name", TYPES + ("float32", "int32", "bool"))
def test_dtype_surface(name):
    ours, theirs = getattr(tg, name), getattr(ref, name)
    for attr in ("name", "size", "is_floating", "is_integer", "is_unsigned", "is_bool", "is_complex",
                 "is_quantized", "is_numeric", "as_datatype_enum"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.as_numpy_dtype == theirs.as_numpy_dtype
    assert ours.real_dtype == ours and str(ours) == str(theirs) and repr(ours) == repr(theirs)
    for attr in ("min", "max", "limits"):
        try:
            want = getattr(theirs, attr)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                getattr(ours, attr)
            continue
        assert getattr(ours, attr) == want and type(getattr(ours, attr)) is type(want), attr
    assert tg.as_dtype(name) is ours and tg.as_dtype(np.dtype(ours.as_numpy_dtype)) is ours
    assert ours == name and ours == np.dtype(ours.as_numpy_dtype)


@pytest.mark.parametrize("name", TYPES)
def test_numpy_arrays_keep_their_dtype(name):
    a = np.array([[1, 2, 3], [4, 5, 6]], name)
    _both(lambda tf: tf.constant(a).numpy())
    _both(lambda tf: tf.convert_to_tensor(a[:, 1]).numpy())
    assert tg.constant(a).dtype == getattr(tg, name)


@pytest.mark.parametrize("name", NARROW)
@pytest.mark.parametrize("value", [-1, 0, 255, 256, 65535, 2 ** 31 - 1, 2 ** 32 - 1])
def test_python_ints_wrap(name, value):
    if name == "uint64" and value < 0:
        pytest.skip("TF 2.21 raises SystemError (an exception set inside a returned result)")
    _both(lambda tf: tf.constant(value, getattr(tf, name)).numpy())
    _both(lambda tf: tf.constant([value, 3], getattr(tf, name)).numpy())


@pytest.mark.parametrize("name", TYPES)
def test_python_floats(name):
    _both(lambda tf: tf.constant(3.0, getattr(tf, name)).numpy())
    _both(lambda tf: tf.constant([1.5, 2.0], getattr(tf, name)).numpy())


FLOATS = [0.0, -0.0, 0.4, 0.5, -0.7, 1.5, 300.7, -5.5, 70000.5, -70000.5, 3e9, 4294967808.0, 1e10, -1e10,
          1.8e19, 2e19, -1.0, np.nan, np.inf, -np.inf, 65504.0, 65520.0, 1e-8, 6e-8]


@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("dst", TYPES + ("int32", "int64", "bool"))
def test_cast_from_floats(src, dst):
    # one element at a time: TF's vectorized loop converts some out-of-range values to other unsigned
    # numbers than its scalar loop does (by position); one element takes the scalar loop
    for v in FLOATS:
        x = np.array([v], src)
        _both(lambda tf: tf.cast(tf.constant(x), getattr(tf, dst)).numpy())


INTS = [0, 1, -1, 127, 128, 255, 256, -129, 32767, 32768, 65535, 65536, 2 ** 31 - 1, -2 ** 31]


@pytest.mark.parametrize("src", ["int32", "int64", "uint8", "int8", "uint16", "uint32"])
@pytest.mark.parametrize("dst", TYPES + ("int32", "int64", "float32", "float64", "bool"))
def test_cast_between_integers(src, dst):
    x = np.array(INTS, "int64").astype(src)
    _both(lambda tf: tf.cast(tf.constant(x), getattr(tf, dst)).numpy())


@pytest.mark.parametrize("dst", TYPES + ("int32", "int64", "float32", "float64", "bool"))
def test_cast_from_float16_and_uint64(dst):
    for v in [0, -0.0, 1.5, -2.5, 65504, -65504, np.inf, -np.inf, np.nan, 6e-8, 300.5]:  # one at a time, as above
        h = np.array([v], "float16")
        _both(lambda tf: tf.cast(tf.constant(h), getattr(tf, dst)).numpy())
    u = np.array([0, 1, 2 ** 63, 2 ** 64 - 1, 2 ** 32 + 5], "uint64")
    _both(lambda tf: tf.cast(tf.constant(u), getattr(tf, dst)).numpy())


BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "floordiv", "floormod", "truncatediv",
          "less", "less_equal", "greater", "greater_equal", "equal", "not_equal")


def _operands(name):
    info = np.iinfo(name)
    x = [0, 1, 7, int(info.max), int(info.min), int(info.max) - 1, 100, 3]
    y = [1, 2, 3, 2, 7, int(info.max), 100, 255 if info.max >= 255 else 5]
    if info.min < 0:
        x, y = x + [int(info.min), -7, -7], y + [-1, 2, -2]
    else:
        x, y = x + [5, 9, 11], y + [int(info.max), 4, 3]
    return np.array(x, object).astype(name), np.array(y, object).astype(name)


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("name", NARROW)
def test_binary_ops_wrap(op, name):
    x, y = _operands(name)
    _both(lambda tf: (tf.truncatediv if op == "truncatediv" else getattr(tf.math, op))(tf.constant(x), tf.constant(y)).numpy())


@pytest.mark.parametrize("name", NARROW)
def test_division_by_zero_raises(name):
    x, y = np.array([4, 5], name), np.array([2, 0], name)
    _both(lambda tf: tf.math.floordiv(tf.constant(x), tf.constant(y)).numpy())
    _both(lambda tf: tf.math.floormod(tf.constant(x), tf.constant(y)).numpy())


@pytest.mark.parametrize("op", ["negative", "abs", "sign", "square", "sin", "exp", "sqrt"])
@pytest.mark.parametrize("name", NARROW)
def test_unary_ops_take_what_tf_takes(op, name):
    info = np.iinfo(name)
    x = np.array([0, 1, 5, int(info.max), int(info.min)], object).astype(name)
    _both(lambda tf: getattr(tf.math, op)(tf.constant(x)).numpy())


@pytest.mark.parametrize("name", TYPES)
def test_operators_and_python_operands(name):
    x = np.array([1, 2, 3], name)
    _both(lambda tf: (tf.constant(x) + 2).numpy())
    _both(lambda tf: (tf.constant(x) * tf.constant(x)).numpy())
    _both(lambda tf: (tf.constant(x) < 2).numpy())
    _both(lambda tf: (tf.constant(x) == tf.constant(x)).numpy())


@pytest.mark.parametrize("name", TYPES)
def test_ops_that_move_elements(name):
    x = np.arange(24).reshape(2, 3, 4).astype(name)
    _both(lambda tf: tf.reshape(tf.constant(x), [4, 6]).numpy())
    _both(lambda tf: tf.transpose(tf.constant(x), [2, 0, 1]).numpy())
    _both(lambda tf: tf.concat([tf.constant(x), tf.constant(x)], 1).numpy())
    _both(lambda tf: tf.stack([tf.constant(x[0]), tf.constant(x[1])]).numpy())
    _both(lambda tf: tf.constant(x)[1, ::2, 1:3].numpy())
    _both(lambda tf: tf.gather(tf.constant(x), [2, 0], axis=1).numpy())
    _both(lambda tf: tf.tile(tf.constant(x), [1, 2, 1]).numpy())
    _both(lambda tf: tf.reverse(tf.constant(x), [2]).numpy())
    _both(lambda tf: tf.expand_dims(tf.constant(x), 0).numpy())
    _both(lambda tf: tf.squeeze(tf.constant(x[:1])).numpy())
    _both(lambda tf: tf.broadcast_to(tf.constant(x[:1]), [3, 3, 4]).numpy())
    _both(lambda tf: tf.pad(tf.constant(x), [[0, 1], [1, 0], [0, 0]]).numpy())
    _both(lambda tf: tf.identity(tf.constant(x)).numpy())
    _both(lambda tf: tf.shape(tf.constant(x)).numpy())
    _both(lambda tf: tf.where(tf.constant(x) > 5, tf.constant(x), tf.constant(x[::-1])).numpy() if name != "float16"
          else tf.where(tf.constant([True, False]), tf.constant(x[0, 0, :2]), tf.constant(x[1, 0, :2])).numpy())


MORE = {
    "zeros_like": lambda tf, x: tf.zeros_like(x), "ones_like": lambda tf, x: tf.ones_like(x),
    "zeros": lambda tf, x: tf.zeros([2, 1], x.dtype), "ones": lambda tf, x: tf.ones([3], x.dtype),
    "fill": lambda tf, x: tf.fill([2], x[0, 0]), "split": lambda tf, x: tf.split(x, 2)[1],
    "unstack": lambda tf, x: tf.unstack(x, axis=1)[0], "gather_nd": lambda tf, x: tf.gather_nd(x, [[0, 1], [1, 0]]),
    "one_hot": lambda tf, x: tf.one_hot([1, 0, 3], 3, dtype=x.dtype),
    "sum": lambda tf, x: tf.reduce_sum(x, 0), "sum_all": lambda tf, x: tf.reduce_sum(x * x * x),
    "max": lambda tf, x: tf.reduce_max(x, 1), "min": lambda tf, x: tf.reduce_min(x),
    "mean": lambda tf, x: tf.reduce_mean(x * x, 0), "prod": lambda tf, x: tf.reduce_prod(x + x, 1),
    "argmax": lambda tf, x: tf.argmax(x, 1), "argmin": lambda tf, x: tf.argmin(x, 0),
    "cumsum": lambda tf, x: tf.cumsum(x * x, 1), "cumprod": lambda tf, x: tf.math.cumprod(x + x, 0),
    "sort": lambda tf, x: tf.sort(x, direction="DESCENDING"), "top_k": lambda tf, x: tf.math.top_k(x, 1).values,
    "clip": lambda tf, x: tf.clip_by_value(x, x[0, 0], x[1, 0]), "where1": lambda tf, x: tf.where(x > x[0, 1]),
    "boolean_mask": lambda tf, x: tf.boolean_mask(x, [True, False]), "variable": lambda tf, x: tf.Variable(x) + x,
    "traced": lambda tf, x: tf.function(lambda a: tf.concat([a * a, a + a], 0))(x),
    "truediv": lambda tf, x: x / x[0], "divide": lambda tf, x: tf.divide(x, x),
    "divide_no_nan": lambda tf, x: tf.math.divide_no_nan(x, x - x[0]),
}


@pytest.mark.parametrize("op", sorted(MORE))
@pytest.mark.parametrize("name", TYPES)
def test_more_ops(op, name):
    x = np.array([[1, 200], [3, 100]], "float64").astype(name)
    _both(lambda tf: MORE[op](tf, tf.constant(x)).numpy())


@pytest.mark.parametrize("name", TYPES)
def test_tensor_protos_both_ways(name):
    x = np.array([[0, 1, 7], [100, 3, 2]], name)
    ours = tg.io.serialize_tensor(tg.constant(x)).numpy()
    back = ref.io.parse_tensor(ours, getattr(ref, name)).numpy()
    _same(back, x)
    theirs = ref.io.serialize_tensor(ref.constant(x)).numpy()
    _same(tg.io.parse_tensor(theirs, getattr(tg, name)).numpy(), x)
    proto = ref.make_tensor_proto([3, 1], getattr(ref, name))
    _same(tg.io.parse_tensor(proto.SerializeToString(), getattr(tg, name)).numpy(), ref.make_ndarray(proto))
    listed = type(proto)()  # the typed value lists, not tensor_content; the last value fills the rest
    listed.CopyFrom(proto)
    listed.ClearField("tensor_content")
    field = {"float16": "half_val", "uint32": "uint32_val", "uint64": "uint64_val"}.get(name, "int_val")
    listed.ClearField(field)
    getattr(listed, field).extend([15360, 9] if name == "float16" else [3, 1])  # 15360: 1.0's bits
    _same(tg.io.parse_tensor(listed.SerializeToString(), getattr(tg, name)).numpy(), ref.make_ndarray(listed))


def test_decoded_images_are_uint8_and_convert_as_tf():
    pil = pytest.importorskip("PIL.Image")
    import io
    a = (np.arange(4 * 5 * 3) * 7 % 256).astype(np.uint8).reshape(4, 5, 3)
    buf = io.BytesIO()
    pil.fromarray(a).save(buf, format="PNG")
    data = buf.getvalue()
    for dtype in (None, "uint16"):
        kw = {} if dtype is None else {"dtype": dtype}
        _both(lambda tf: tf.io.decode_png(data, **{k: getattr(tf, v) for k, v in kw.items()}).numpy())
    for out in ("float32", "uint16", "int32", "int8"):
        for saturate in (False, True):
            _both(lambda tf: tf.image.convert_image_dtype(tf.io.decode_png(data), getattr(tf, out), saturate).numpy())
    f = np.array([[-0.5, 0.0, 0.25], [0.999, 1.0, 1.5]], np.float32)
    for out in ("uint8", "uint16", "int8"):
        for saturate in (False, True):
            _both(lambda tf: tf.image.convert_image_dtype(tf.constant(f), getattr(tf, out), saturate).numpy())
    _both(lambda tf: tf.image.adjust_brightness(tf.io.decode_png(data), 0.1).numpy())
    _both(lambda tf: tf.image.rgb_to_grayscale(tf.io.decode_png(data)).numpy())
    _both(lambda tf: tf.io.decode_png(tf.io.encode_png(tf.io.decode_png(data))).numpy())


BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")


@pytest.mark.parametrize("op", BITWISE + ("invert",))
@pytest.mark.parametrize("name", NARROW + ("int32", "int64", "float32", "bool"))
def test_bitwise(op, name):
    if name in ("float32", "bool"):
        x = y = np.array([1, 0], name)
    else:
        info = np.iinfo(name)
        x = np.array([0, 1, 7, int(info.max), int(info.min), 100, 5, 3], object).astype(name)
        y = np.array([3, 40, 1, 2, 7, 0, 255 if info.max >= 255 else 9, int(info.max)], object).astype(name)
        if info.min < 0:
            y[0] = -1  # a negative shift: clamped to 0
    if op == "invert":
        _both(lambda tf: tf.bitwise.invert(tf.constant(x)).numpy())
    else:
        _both(lambda tf: getattr(tf.bitwise, op)(tf.constant(x), tf.constant(y)).numpy())
        _both(lambda tf: getattr(tf.bitwise, op)(tf.constant(x.reshape(2, 4)), tf.constant(y[:4])).numpy())
