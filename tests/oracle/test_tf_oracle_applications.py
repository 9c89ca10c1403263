"""keras.applications against Keras 3 on TensorFlow: each architecture built both ways with the same
arguments has the same layers (names, order), the same parameter counts (trainable and not), and, with
Keras's weights loaded from its .weights.h5 and from the legacy .h5 layout its released ImageNet files
use, the same predictions (BatchNorm in inference); each family's preprocess_input gives Keras's values and
dtypes. Skipped without TensorFlow, unless TAPEGRAD_REQUIRE_TF=1."""
import numpy as np
import pytest

import tapegrad as tg
from tapegrad import keras as tgk
from tapegrad.keras._functional import TFOpLambda
from tapegrad.keras.saving import _keras_h5
from tf_oracle import import_tensorflow

h5py = pytest.importorskip("h5py")
ref = import_tensorflow()
refk = ref.keras

RTOL, ATOL = 1e-4, 1e-4

# (case, function, arguments, whether to compare outputs too); the deepest variants of a family (ResNet152,
# DenseNet201, EfficientNetB3, ConvNeXtBase, ...) are the same builders with more blocks: their parameter and
# layer counts are checked against Keras's numbers in tests/keras/test_keras_applications.py
CASES = [
    ("mobilenet_v2_top", "MobileNetV2", dict(input_shape=(96, 96, 3)), True),
    ("mobilenet_v2_odd_avg", "MobileNetV2", dict(input_shape=(33, 33, 3), include_top=False, pooling="avg"), True),
    ("mobilenet_v2_alpha", "MobileNetV2", dict(input_shape=(64, 64, 3), alpha=0.35, include_top=False,
                                              pooling="max"), True),
    ("mobilenet_v2_wide", "MobileNetV2", dict(input_shape=(32, 32, 3), alpha=1.4, classes=7), False),
    ("resnet50_top", "ResNet50", dict(input_shape=(64, 64, 3), classes=10), True),
    ("resnet50_max", "ResNet50", dict(input_shape=(32, 32, 3), include_top=False, pooling="max"), False),
    ("resnet50v2_top", "ResNet50V2", dict(input_shape=(64, 64, 3), classes=10), True),
    ("resnet50v2_max", "ResNet50V2", dict(input_shape=(32, 32, 3), include_top=False, pooling="max"), False),
    ("resnet101v2_avg", "ResNet101V2", dict(input_shape=(32, 32, 3), include_top=False, pooling="avg"), False),
    ("vgg16_top", "VGG16", dict(input_shape=(32, 32, 3), classes=10), True),
    ("vgg16_avg", "VGG16", dict(input_shape=(48, 48, 3), include_top=False, pooling="avg"), True),
    ("vgg19_max", "VGG19", dict(input_shape=(32, 32, 3), include_top=False, pooling="max"), True),
    ("efficientnet_b0_top", "EfficientNetB0", dict(input_shape=(64, 64, 3), classes=10), True),
    ("efficientnet_b1_avg", "EfficientNetB1", dict(input_shape=(33, 33, 3), include_top=False, pooling="avg"), True),
    ("efficientnet_b2_max", "EfficientNetB2", dict(input_shape=(32, 32, 3), include_top=False, pooling="max"), False),
    ("densenet121_top", "DenseNet121", dict(input_shape=(32, 32, 3), classes=10), True),
    ("densenet121_max", "DenseNet121", dict(input_shape=(32, 32, 3), include_top=False, pooling="max"), False),
    ("mobilenet_v3_small_top", "MobileNetV3Small", dict(input_shape=(64, 64, 3), classes=10), True),
    ("mobilenet_v3_small_minimal", "MobileNetV3Small", dict(input_shape=(32, 32, 3), minimalistic=True,
                                                           include_top=False, pooling="avg"), True),
    ("mobilenet_v3_large_top", "MobileNetV3Large", dict(input_shape=(48, 48, 3), alpha=0.75,
                                                       include_preprocessing=False), True),
    ("mobilenet_v3_large_wide", "MobileNetV3Large", dict(input_shape=(32, 32, 3), alpha=1.25, include_top=False,
                                                        pooling="max"), False),
    ("inception_v3_top", "InceptionV3", dict(input_shape=(75, 75, 3), classes=10), True),
    ("inception_v3_max", "InceptionV3", dict(input_shape=(80, 80, 3), include_top=False, pooling="max"), False),
    ("xception_top", "Xception", dict(input_shape=(71, 71, 3), classes=10), True),
    ("xception_max", "Xception", dict(input_shape=(71, 71, 3), include_top=False, pooling="max"), False),
    ("convnext_tiny_top", "ConvNeXtTiny", dict(input_shape=(32, 32, 3), classes=10), True),
    ("convnext_tiny_avg", "ConvNeXtTiny", dict(input_shape=(64, 64, 3), include_top=False, pooling="avg",
                                               include_preprocessing=False), True),
    ("convnext_small_max", "ConvNeXtSmall", dict(input_shape=(32, 32, 3), include_top=False, pooling="max"), False),
]


def _build(lib_keras, function, kwargs):
    lib_keras.backend.clear_session()
    return getattr(lib_keras.applications, function)(weights=None, **kwargs)


def _counts(model):
    trainable = sum(int(np.prod(w.shape)) for w in model.trainable_weights)
    return model.count_params(), trainable


def _randomize(model, rng):
    """Random weights everywhere (moving variances positive), so outputs depend on every one."""
    for w in model.weights:
        shape = tuple(w.shape)
        if "variance" in w.path:
            w.assign(rng.uniform(0.5, 1.5, size=shape).astype("float32"))
        else:
            w.assign((rng.normal(size=shape) * 0.2).astype("float32"))


def _legacy_file(model, path):
    from keras.src.legacy.saving import legacy_h5_format
    with h5py.File(path, "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, model)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # NumPy 2 on Keras's save_weights
@pytest.mark.parametrize("case,function,kwargs,outputs", CASES, ids=[c[0] for c in CASES])
def test_application_as_keras(case, function, kwargs, outputs, tmp_path):
    theirs = _build(refk, function, kwargs)
    ours = _build(tgk, function, kwargs)
    # Keras 3's model.layers leaves out the arithmetic on KerasTensors (MobileNetV3's x + 3.0); tapegrad keeps
    # them as TFOpLambda layers, as TF-Keras did
    names = [layer.name for layer in _keras_h5.keras_layers(ours) if not isinstance(layer, TFOpLambda)]
    assert names == [layer.name for layer in theirs.layers]
    assert _counts(ours) == _counts(theirs)
    assert ours.name == theirs.name
    assert tuple(ours.output.shape) == tuple(theirs.output.shape)
    if not outputs:
        return
    rng = np.random.default_rng(0)
    _randomize(theirs, rng)
    side = kwargs["input_shape"][0]
    x = rng.uniform(-1, 1, size=(2, side, side, 3)).astype("float32")
    expected = np.asarray(theirs.predict(x, verbose=0))
    theirs.save_weights(str(tmp_path / "w.weights.h5"))
    _legacy_file(theirs, str(tmp_path / "w.h5"))
    scale = np.abs(expected).max()
    for path in ("w.weights.h5", "w.h5"):
        loaded = _build(tgk, function, kwargs)
        loaded.load_weights(str(tmp_path / path))
        got = np.asarray(loaded.predict(x, verbose=0))
        np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL * scale, err_msg=path)


PREPROCESSORS = ["mobilenet_v2", "resnet", "resnet50", "resnet_v2", "vgg16", "vgg19", "densenet", "inception_v3",
                 "xception", "efficientnet", "mobilenet_v3", "convnext"]


@pytest.mark.parametrize("module", PREPROCESSORS)
@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_preprocess_input_as_keras(module, dtype):
    image = np.random.default_rng(5).integers(0, 256, size=(2, 4, 5, 3)).astype(dtype)
    theirs = getattr(refk.applications, module).preprocess_input(image.copy())
    ours = getattr(tgk.applications, module).preprocess_input(image.copy())
    assert np.asarray(ours).dtype == np.asarray(theirs).dtype
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("module", PREPROCESSORS)
def test_preprocess_tensor_as_keras(module):
    image = np.random.default_rng(6).uniform(0, 255, size=(2, 4, 5, 3)).astype("float32")
    theirs = getattr(refk.applications, module).preprocess_input(ref.constant(image))
    ours = getattr(tgk.applications, module).preprocess_input(tg.constant(image))
    assert ours.dtype.name == theirs.dtype.name
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-5)
