"""keras.utils.image_dataset_from_directory and text_dataset_from_directory: a directory of files (one
subdirectory per class) as a batched tf.data.Dataset of (file contents, label).

Files are listed, labelled, shuffled (NumPy's generator of ``seed``, as Keras, so ``file_paths``
come in Keras's order) and split once; the dataset reads and decodes them lazily (tf.io.read_file,
tf.io.decode_image) and, when shuffling, also shuffles a buffer of ``batch_size * 8`` elements each
epoch (tf.data's order, not TF's).
"""
import numpy as np

import tapegrad as tf
from tapegrad.keras import _directory_index as index

__all__ = ["image_dataset_from_directory", "text_dataset_from_directory"]

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")
_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}


def _crop_to_aspect(image, target_h, target_w):
    """The largest central window of the target's aspect ratio (Keras's smart_resize crop), sizes
    truncated to ints as Keras computes them."""
    size = tf.shape(image)
    height, width = size[0], size[1]
    box_h = tf.minimum(height, tf.cast(tf.cast(width * target_h, tf.float32) / target_w, tf.int32))
    box_w = tf.minimum(width, tf.cast(tf.cast(height * target_w, tf.float32) / target_h, tf.int32))
    return tf.slice(image, tf.stack([(height - box_h) // 2, (width - box_w) // 2, 0]), tf.stack([box_h, box_w, -1]))


def _load_image(path, channels, image_size, interpolation, crop, pad, data_format):
    image = tf.io.decode_image(tf.io.read_file(path), channels=channels, expand_animations=False)
    if pad:  # Keras pads with tf.image.resize_with_pad: resized to fit, then centred
        image = tf.image.resize_with_pad(image, image_size[0], image_size[1], method=interpolation)
    else:
        image = tf.image.resize(_crop_to_aspect(image, *image_size) if crop else image, image_size,
                                method=interpolation)
    image = tf.ensure_shape(image, (image_size[0], image_size[1], channels))
    return tf.transpose(image, [2, 0, 1]) if data_format == "channels_first" else image


def _finish(ds, shuffle, seed, batch_size, class_names, file_paths=None):
    """Keras's last steps: the per-epoch shuffle, batching, prefetch and the attributes it sets."""
    if shuffle:
        ds = ds.shuffle(buffer_size=1024 if batch_size is None else batch_size * 8, seed=seed)
    if batch_size is not None:
        ds = ds.batch(batch_size)
    ds = ds.prefetch(tf.data.AUTOTUNE)
    ds.class_names = class_names
    if file_paths is not None:
        ds.file_paths = file_paths
    return ds


def _check_format(format):
    if format != "tf":
        raise ValueError(f'`format` should be "tf" (tapegrad datasets are tf.data datasets). Received: format={format}')


def _subsets(paths, labels, validation_split, subset, verbose):
    parts = ("training", "validation") if subset == "both" else (subset,)
    return [index.split_for_subset(paths, labels, validation_split, part, verbose) for part in parts]


def _datasets(directory, labels, label_mode, class_names, shuffle, seed, validation_split, subset, follow_links,
              verbose, kind, formats, element):
    """Lists, checks and splits the files, then one dataset per subset: element(paths) zipped with
    the labels (when any). Returns ([(dataset, paths)], class_names, seed)."""
    label_mode = index.check_common_args(labels, label_mode, class_names, validation_split, subset, shuffle, seed,
                                         kind)
    if shuffle and seed is None:  # one seed for the file order and the per-epoch shuffle, as Keras
        seed = int(np.random.randint(1_000_000))
    paths, found_labels, class_names = index.index_directory(directory, labels, formats, class_names, shuffle, seed,
                                                             follow_links, verbose, kind)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 class_names. Received: '
                         f"class_names={class_names}")
    out = []
    for part_paths, part_labels in _subsets(paths, found_labels, validation_split, subset, verbose):
        ds = element(tf.data.Dataset.from_tensor_slices(tf.constant(part_paths, dtype=tf.string)))
        if label_mode is not None:
            ds = tf.data.Dataset.zip((ds, index.labels_dataset(tf, part_labels, label_mode, len(class_names))))
        out.append((ds, part_paths))
    return out, class_names, seed


def image_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, color_mode="rgb",
                                 batch_size=32, image_size=(256, 256), shuffle=True, seed=None, validation_split=None,
                                 subset=None, interpolation="bilinear", follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, format="tf", verbose=True):
    """The images under ``directory`` (BMP, GIF, JPEG, PNG; one subdirectory per class with
    labels="inferred") as a dataset of (images, labels) batches: images float32 [batch, *image_size,
    channels] (uint8 with interpolation="nearest"), labels int32 (label_mode="int"), one-hot float32
    ("categorical") or [batch, 1] float32 ("binary"); images alone with labels=None. The dataset has
    ``class_names`` and ``file_paths``; subset="both" returns the (training, validation) pair."""
    _check_format(format)
    if color_mode not in _CHANNELS:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         f"Received: color_mode={color_mode}")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Argument `interpolation` should be one of {_INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation}")
    data_format = "channels_last" if data_format is None else data_format
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                         f"Received: data_format={data_format}")
    image_size, channels = tuple(int(s) for s in image_size), _CHANNELS[color_mode]

    def images(paths):
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set to `True`.")
        return paths.map(lambda p: _load_image(p, channels, image_size, interpolation, crop_to_aspect_ratio,
                                               pad_to_aspect_ratio, data_format))

    parts, class_names, seed = _datasets(directory, labels, label_mode, class_names, shuffle, seed, validation_split,
                                   subset, follow_links, verbose, "image", IMAGE_FORMATS, images)
    out = [_finish(ds, shuffle, seed, batch_size, class_names, paths) for ds, paths in parts]
    return out if subset == "both" else out[0]


def text_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                max_length=None, shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):
    """The .txt files under ``directory`` as a dataset of (strings, labels) batches (labels as in
    image_dataset_from_directory); each string cut to its first ``max_length`` bytes when given. The
    dataset has ``class_names``."""
    _check_format(format)

    def texts(paths):
        read = paths.map(tf.io.read_file)
        return read if max_length is None else read.map(lambda s: tf.strings.substr(s, 0, max_length))

    parts, class_names, seed = _datasets(directory, labels, label_mode, class_names, shuffle, seed, validation_split,
                                   subset, follow_links, verbose, "text", (".txt",), texts)
    out = [_finish(ds, shuffle, seed, batch_size, class_names) for ds, _ in parts]
    return out if subset == "both" else out[0]
