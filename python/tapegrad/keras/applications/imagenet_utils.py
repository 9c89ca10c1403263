"""keras.applications.imagenet_utils: the ImageNet input scalings the models were trained with, and the
names of the 1000 ImageNet classes for a batch of predictions.

preprocess_input's modes, on pixels in [0, 255] (channels last):
  "caffe"  RGB to BGR, then each channel less its ImageNet mean (103.939, 116.779, 123.68), no scaling;
  "tf"     x / 127.5 - 1, into [-1, 1];
  "torch"  x / 255, then each channel less its mean (0.485, 0.456, 0.406) over its deviation
           (0.229, 0.224, 0.225).
A float NumPy array is scaled in place, as Keras does (pass numpy.copy(x) to keep it); other NumPy
arrays become floatx first. A tensor gives a new tensor (integer tensors are cast to floatx first).
"""
import json
import os

import numpy as np

import tapegrad as tf

from tapegrad.keras import backend
from tapegrad.keras.datasets._files import datasets_dir, get_file

__all__ = ["preprocess_input", "decode_predictions"]

CLASS_INDEX_PATH = "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
_CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"
_CAFFE_MEAN_BGR = (103.939, 116.779, 123.68)
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)
_class_index = {}  # path -> the parsed class index


def _check(mode, data_format):
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError(f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}")
    data_format = backend.image_data_format() if data_format is None else data_format
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Expected data_format to be one of `channels_first` or `channels_last`. Received: "
                         f"data_format={data_format}")
    if data_format == "channels_first":
        raise tf.errors.UnimplementedError(None, None, "preprocess_input: only data_format='channels_last' is "
                                           "supported")


def _scale_array(x, mode):
    """The NumPy path: float arrays change in place, others become floatx arrays."""
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        x = x[..., ::-1]  # RGB -> BGR (a view: the subtraction below lands in the caller's array)
        mean, std = _CAFFE_MEAN_BGR, None
    for c in range(3):
        x[..., c] -= mean[c]
        if std is not None:
            x[..., c] /= std[c]
    return x


def _scale_tensor(x, mode):
    if not x.dtype.is_floating:
        x = tf.cast(x, backend.floatx())
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        mean, std = np.array(_TORCH_MEAN), np.array(_TORCH_STD)
        return (x / 255.0 - tf.constant(mean, x.dtype)) / tf.constant(std, x.dtype)
    return tf.reverse(x, axis=[-1]) - tf.constant(np.array(_CAFFE_MEAN_BGR), x.dtype)


def preprocess_input(x, data_format=None, mode="caffe"):
    """Scales a batch of RGB images (values in [0, 255]) as the models of ``mode`` expect."""
    _check(mode, data_format)
    if isinstance(x, (tf.Tensor, tf.Variable)):
        return _scale_tensor(tf.convert_to_tensor(x), mode)
    return _scale_array(x if isinstance(x, np.ndarray) else np.asarray(x), mode)


def _load_class_index(class_index_path):
    if class_index_path is None:
        cached = os.path.join(datasets_dir("models"), "imagenet_class_index.json")
        path = cached if os.path.exists(cached) else get_file("imagenet_class_index.json", CLASS_INDEX_PATH,
                                                              cache_subdir="models", file_hash=_CLASS_INDEX_HASH)
    else:
        path = os.fspath(class_index_path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"decode_predictions: no ImageNet class index at {path} (Keras's "
                                    f"imagenet_class_index.json, from {CLASS_INDEX_PATH})")
    if path not in _class_index:
        with open(path) as f:
            index = json.load(f)
        if not (isinstance(index, dict) and all(str(i) in index for i in range(1000))):
            raise ValueError(f"decode_predictions: {path} is not ImageNet's class index (a JSON object mapping "
                             "'0'..'999' to [wordnet id, class name])")
        _class_index[path] = index
    return _class_index[path]


def decode_predictions(preds, top=5, *, class_index_path=None):
    """The ``top`` (wordnet id, class name, score) triples of each row of ImageNet predictions, best first.

    The class names come from Keras's ``imagenet_class_index.json``: the file at ``class_index_path``,
    else the one in Keras's cache (``~/.keras/models``), downloaded there when missing.
    """
    preds = np.asarray(preds.numpy() if hasattr(preds, "numpy") else preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
                         f"(samples, 1000)). Received array with shape: {preds.shape}")
    index = _load_class_index(class_index_path)
    results = []
    for pred in preds:
        best = pred.argsort()[-top:][::-1]
        rows = [tuple(index[str(i)]) + (pred[i],) for i in best]
        rows.sort(key=lambda row: row[2], reverse=True)
        results.append(rows)
    return results
