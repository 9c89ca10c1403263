"""keras.applications.vgg16: VGG16 (Simonyan and Zisserman, 2014), with Keras's layer names."""
from tapegrad.keras.applications import _vgg, imagenet_utils

__all__ = ["VGG16", "preprocess_input", "decode_predictions"]

_URL = _vgg.WEIGHTS_URL + "vgg16/vgg16_weights_tf_dim_ordering_tf_kernels"
_HASHES = ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc")


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
          classes=1000, classifier_activation="softmax", name="vgg16"):
    """VGG16: 13 3x3 convolutions in five blocks, then (include_top) two 4096-unit layers and the classifier.
    Inputs as ``vgg16.preprocess_input`` gives them (BGR, ImageNet's channel means subtracted)."""
    return _vgg.build((2, 2, 3, 3, 3), include_top, weights, input_tensor, input_shape, pooling, classes,
                      classifier_activation, name, _URL, _HASHES)


def preprocess_input(x, data_format=None):
    """RGB to BGR and each channel less its ImageNet mean (mode 'caffe')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
