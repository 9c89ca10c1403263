"""keras.applications: parameter counts, layer counts, output shapes and names as Keras 3 gives them (the
constants were read from Keras; the oracle test compares the rest), forward passes, the input scalings of
preprocess_input, decode_predictions on a class index file, loading weights by path and from Keras's cache,
and Keras's errors."""
import json

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from tapegrad.keras._functional import TFOpLambda

A = keras.applications

# (function, arguments, parameters, trainable parameters, layers, output shape, model name), from Keras 3.15
KERAS_COUNTS = [
    ("MobileNetV2", {"input_shape": (32, 32, 3)}, 3538984, 3504872, 156, (None, 1000), "mobilenetv2_1.00_32"),
    ("MobileNetV2", {"input_shape": (32, 32, 3), "alpha": 0.35, "include_top": False}, 410208, 396128, 154,
     (None, 1, 1, 1280), "mobilenetv2_0.35_32"),
    ("ResNet50", {"input_shape": (32, 32, 3)}, 25636712, 25583592, 177, (None, 1000), "resnet50"),
    ("ResNet101", {"input_shape": (32, 32, 3), "include_top": False}, 42658176, 42552832, 345, (None, 1, 1, 2048),
     "resnet101"),
    ("ResNet50V2", {"input_shape": (32, 32, 3)}, 25613800, 25568360, 192, (None, 1000), "resnet50v2"),
    ("ResNet101V2", {"input_shape": (32, 32, 3), "include_top": False}, 42626560, 42528896, 377, (None, 1, 1, 2048),
     "resnet101v2"),
    ("VGG16", {"input_shape": (32, 32, 3)}, 37694248, 37694248, 23, (None, 1000), "vgg16"),
    ("VGG19", {"input_shape": (32, 32, 3), "include_top": False}, 20024384, 20024384, 22, (None, 1, 1, 512), "vgg19"),
    ("EfficientNetB0", {"input_shape": (32, 32, 3)}, 5330571, 5288548, 240, (None, 1000), "efficientnetb0"),
    ("EfficientNetB1", {"input_shape": (32, 32, 3), "include_top": False}, 6575239, 6513184, 339, (None, 1, 1, 1280),
     "efficientnetb1"),
    ("EfficientNetB2", {"input_shape": (32, 32, 3), "include_top": False}, 7768569, 7700994, 339, (None, 1, 1, 1408),
     "efficientnetb2"),
    ("EfficientNetB3", {"input_shape": (32, 32, 3), "include_top": False}, 10783535, 10696232, 384, (None, 1, 1, 1536),
     "efficientnetb3"),
    ("DenseNet121", {"input_shape": (32, 32, 3)}, 8062504, 7978856, 429, (None, 1000), "densenet121"),
    ("DenseNet169", {"input_shape": (32, 32, 3), "include_top": False}, 12642880, 12484480, 595, (None, 1, 1, 1664),
     "densenet169"),
    ("DenseNet201", {"input_shape": (32, 32, 3), "include_top": False}, 18321984, 18092928, 707, (None, 1, 1, 1920),
     "densenet201"),
    ("MobileNetV3Small", {"input_shape": (32, 32, 3)}, 2554968, 2542856, 164, (None, 1000), "MobileNetV3Small"),
    ("MobileNetV3Large", {"input_shape": (32, 32, 3), "include_top": False}, 2996352, 2971952, 187, (None, 1, 1, 960),
     "MobileNetV3Large"),
    ("MobileNetV3Large", {"input_shape": (32, 32, 3), "minimalistic": True}, 3948688, 3924288, 146, (None, 1000),
     "MobileNetV3Large"),
    ("InceptionV3", {"input_shape": (75, 75, 3)}, 23851784, 23817352, 313, (None, 1000), "inception_v3"),
    ("Xception", {"input_shape": (71, 71, 3)}, 22910480, 22855952, 134, (None, 1000), "xception"),
    ("ConvNeXtTiny", {"input_shape": (32, 32, 3)}, 28589128, 28589128, 135, (None, 1000), "convnext_tiny"),
    ("ConvNeXtTiny", {"input_shape": (32, 32, 3), "include_top": False, "pooling": "avg"}, 27820128, 27820128, 134,
     (None, 768), "convnext_tiny"),
]


def _trainable(model):
    return sum(int(np.prod(w.shape)) for w in model.trainable_weights)


@pytest.mark.parametrize("function,kwargs,params,trainable,n_layers,output_shape,name", KERAS_COUNTS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(KERAS_COUNTS)])
def test_counts_as_keras(function, kwargs, params, trainable, n_layers, output_shape, name):
    model = getattr(A, function)(weights=None, **kwargs)
    assert (model.count_params(), _trainable(model)) == (params, trainable)
    # Keras 3's model.layers leaves out arithmetic on KerasTensors, which tapegrad keeps as TFOpLambda layers
    assert len([layer for layer in model.layers if not isinstance(layer, TFOpLambda)]) == n_layers
    assert tuple(model.output.shape) == output_shape
    assert model.name == name


def test_forward_classifier_and_pooling():
    x = np.random.default_rng(0).uniform(0, 255, size=(2, 32, 32, 3)).astype("float32")
    probs = A.MobileNetV2(weights=None, input_shape=(32, 32, 3), classes=5).predict(x, verbose=0)
    assert probs.shape == (2, 5)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    logits = A.MobileNetV2(weights=None, input_shape=(32, 32, 3), classes=5, classifier_activation=None)(x)
    assert not np.allclose(np.asarray(logits).sum(axis=1), 1.0)
    features = A.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3))
    pooled = A.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="max")
    pooled.set_weights(features.get_weights())
    np.testing.assert_allclose(np.asarray(pooled(x)), np.asarray(features(x)).max(axis=(1, 2)), rtol=1e-5)


def test_unknown_image_size_without_top():
    model = A.MobileNetV2(weights=None, include_top=False, alpha=0.35, pooling="avg")
    assert model.name == "mobilenetv2_0.35_224"
    assert model.input.shape == (None, None, None, 3) and model.output.shape == (None, 1280)
    assert model(np.zeros((1, 40, 48, 3), "float32")).shape == (1, 1280)


def test_input_tensor_is_the_model_input():
    inputs = keras.Input((32, 32, 3))
    model = A.MobileNetV3Small(weights=None, input_tensor=inputs, include_top=False, pooling="avg")
    assert model.inputs[0] is inputs and model.output.shape == (None, 576)


def test_hard_silu_and_grouped_conv():
    from tapegrad.keras.applications import _convnext_layers, mobilenet_v3
    x = np.array([-4.0, -3.0, -1.0, 0.0, 1.5, 3.0, 5.0], "float32")
    np.testing.assert_allclose(mobilenet_v3.hard_silu(tf.constant(x)).numpy(), x * np.clip(x + 3, 0, 6) / 6, atol=1e-6)
    layer = _convnext_layers.Conv2D(3, 3, padding="same", groups=3)
    image = np.random.default_rng(4).normal(size=(1, 5, 5, 3)).astype("float32")
    out = layer(image).numpy()
    assert layer.kernel.shape == (3, 3, 1, 3)
    kernel, bias = layer.kernel.numpy(), layer.bias.numpy()
    padded = np.pad(image, ((0, 0), (1, 1), (1, 1), (0, 0)))
    expected = np.array([[[(padded[0, r:r + 3, c:c + 3, ch] * kernel[:, :, 0, ch]).sum() + bias[ch] for ch in range(3)]
                          for c in range(5)] for r in range(5)])
    np.testing.assert_allclose(out[0], expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(tf.errors.UnimplementedError, match="groups=2"):
        _convnext_layers.Conv2D(4, 3, groups=2)(image)


def _image():
    return np.arange(12, dtype="uint8").reshape(1, 2, 2, 3)


def test_preprocess_modes():
    x = _image().astype("float64")
    np.testing.assert_allclose(A.mobilenet_v2.preprocess_input(_image()), x / 127.5 - 1.0, rtol=1e-6)
    caffe = x[..., ::-1] - np.array([103.939, 116.779, 123.68])
    np.testing.assert_allclose(A.resnet.preprocess_input(_image()), caffe, rtol=1e-5)
    np.testing.assert_allclose(A.vgg16.preprocess_input(_image()), caffe, rtol=1e-5)
    torch = (x / 255.0 - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
    np.testing.assert_allclose(A.densenet.preprocess_input(_image()), torch, rtol=1e-5)
    np.testing.assert_allclose(A.resnet_v2.preprocess_input(_image()), x / 127.5 - 1.0, rtol=1e-6)
    assert A.mobilenet_v2.preprocess_input(_image()).dtype == np.float32
    for module in (A.efficientnet, A.mobilenet_v3):
        image = _image()
        assert module.preprocess_input(image) is image


def test_preprocess_float_arrays_in_place_and_tensors():
    x = _image().astype("float32")
    out = A.imagenet_utils.preprocess_input(x, mode="caffe")
    np.testing.assert_allclose(x[0, 0, 0], [0 - 123.68, 1 - 116.779, 2 - 103.939], rtol=1e-5)  # as Keras: in place
    np.testing.assert_allclose(out[0, 0, 0], [2 - 103.939, 1 - 116.779, 0 - 123.68], rtol=1e-5)
    t = A.imagenet_utils.preprocess_input(tf.constant(_image().astype("float64")), mode="caffe")
    assert isinstance(t, tf.Tensor) and t.dtype == tf.float64
    np.testing.assert_allclose(t.numpy(), out, rtol=1e-5)
    t = A.imagenet_utils.preprocess_input(tf.constant(_image()), mode="tf")
    assert t.dtype == tf.float32
    np.testing.assert_allclose(t.numpy(), _image() / 127.5 - 1.0, rtol=1e-6)


def test_preprocess_errors():
    with pytest.raises(ValueError, match="Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode=foo"):
        A.imagenet_utils.preprocess_input(_image(), mode="foo")
    with pytest.raises(ValueError, match="Expected data_format to be one of"):
        A.resnet.preprocess_input(_image(), data_format="foo")


def _class_index(path):
    path.write_text(json.dumps({str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}))
    return path


def test_decode_predictions(tmp_path, monkeypatch):
    preds = np.zeros((2, 1000), "float32")
    preds[0, [3, 7, 9]] = [0.2, 0.5, 0.3]
    preds[1, 999] = 1.0
    index = _class_index(tmp_path / "index.json")
    rows = A.resnet50.decode_predictions(preds, top=3, class_index_path=index)
    assert [r[:2] for r in rows[0]] == [("n00000007", "class_7"), ("n00000009", "class_9"), ("n00000003", "class_3")]
    np.testing.assert_allclose([r[2] for r in rows[0]], [0.5, 0.3, 0.2])
    assert rows[1][0][:2] == ("n00000999", "class_999") and len(rows[1]) == 3
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    (tmp_path / "home" / "models").mkdir(parents=True)
    _class_index(tmp_path / "home" / "models" / "imagenet_class_index.json")
    assert A.imagenet_utils.decode_predictions(preds, top=1)[1][0][1] == "class_999"  # from Keras's cache


def test_decode_predictions_errors(tmp_path):
    with pytest.raises(ValueError, match=r"expects a batch of predictions .*Received array with shape: \(2, 10\)"):
        A.imagenet_utils.decode_predictions(np.zeros((2, 10)))
    with pytest.raises(FileNotFoundError, match="missing.json"):
        A.imagenet_utils.decode_predictions(np.zeros((1, 1000)), class_index_path=tmp_path / "missing.json")


def _randomized(model, seed):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(0.5, 1.0, size=w.shape).astype("float32") for w in model.get_weights()])
    return model


@pytest.mark.parametrize("suffix", [".weights.h5", ".h5"])
def test_weights_from_a_path(tmp_path, suffix):
    pytest.importorskip("h5py")
    source = _randomized(A.MobileNetV2(weights=None, alpha=0.35, input_shape=(32, 32, 3), classes=4), 1)
    path = str(tmp_path / ("w" + suffix))
    source.save_weights(path)
    loaded = A.MobileNetV2(weights=path, alpha=0.35, input_shape=(32, 32, 3), classes=4)
    x = np.random.default_rng(2).uniform(-1, 1, size=(2, 32, 32, 3)).astype("float32")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), source.predict(x, verbose=0), rtol=1e-5)


def test_imagenet_weights_from_keras_cache(tmp_path, monkeypatch):
    """weights='imagenet' reads Keras's file name in ~/.keras/models (here $KERAS_HOME) without a network."""
    pytest.importorskip("h5py")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (tmp_path / "models").mkdir()
    source = _randomized(A.MobileNetV2(weights=None, include_top=False, input_shape=(96, 96, 3), alpha=0.35), 3)
    source.save_weights(str(tmp_path / "models" / "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5"))
    loaded = A.MobileNetV2(weights="imagenet", include_top=False, input_shape=(96, 96, 3), alpha=0.35)
    for a, b in zip(loaded.get_weights(), source.get_weights()):
        np.testing.assert_array_equal(a, b)


ERRORS = [
    (lambda: A.ResNet50(weights="bogus"), r"The `weights` argument should be either `None` .*Received: weights=bogus"),
    (lambda: A.ResNet50(weights="imagenet", classes=10),
     r"If using `weights='imagenet'` with `include_top=True`, `classes` should be 1000.  Received classes=10"),
    (lambda: A.ResNet50(weights=None, include_top=False, input_shape=(16, 16, 3)),
     r"Input size must be at least 32x32; Received: input_shape=\(16, 16, 3\)"),
    (lambda: A.InceptionV3(weights=None, include_top=False, input_shape=(64, 64, 3)),
     r"Input size must be at least 75x75"),
    (lambda: A.ResNet50(weights="imagenet", include_top=False, input_shape=(64, 64, 1)),
     r"The input must have 3 channels; Received `input_shape=\(64, 64, 1\)`"),
    (lambda: A.VGG16(weights="imagenet", input_shape=(64, 64, 3)),
     r"When setting `include_top=True` and loading `imagenet` weights, `input_shape` should be \(224, 224, 3\)"),
    (lambda: A.ResNet50(weights=None, include_top=False, input_shape=(64, 64)),
     r"`input_shape` must be a tuple of three integers."),
    (lambda: A.DenseNet121(weights=None, input_shape=(None, None, 3)),
     r"If `include_top` is True, you should specify a static `input_shape`"),
    (lambda: A.ResNet50(weights="imagenet", classifier_activation="relu"),
     r"Only `None` and `softmax` activations are allowed for the `classifier_activation` argument"),
    (lambda: A.ResNet50(weights=None, input_tensor=42), r"Argument `input_tensor` must be a KerasTensor"),
    (lambda: A.MobileNetV2(weights="imagenet", alpha=0.3),
     r"If imagenet weights are being loaded, alpha must be one of `0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4`"),
    (lambda: A.MobileNetV3Small(weights="imagenet", alpha=0.5),
     r"If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for non minimalistic"),
    (lambda: A.MobileNetV3Small(weights=None, input_shape=(16, 16, 3)),
     r"Input size must be at least 32x32; Received `input_shape=\(16, 16, 3\)`"),
    (lambda: A.EfficientNetB0(weights="imagenet", classes=3), r"`classes` should be 1000"),
]


@pytest.mark.parametrize("build,message", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_as_keras(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_channels_first_is_refused():
    keras.backend.set_image_data_format("channels_first")
    try:
        with pytest.raises(tf.errors.UnimplementedError, match="channels_last"):
            A.ResNet50(weights=None, include_top=False)
    finally:
        keras.backend.set_image_data_format("channels_last")
