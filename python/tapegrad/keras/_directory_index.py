"""The file listing shared by image_dataset_from_directory and text_dataset_from_directory: the files
of a directory with given extensions, their labels and class names, the seeded shuffle and the
validation split, with Keras's checks and messages."""
import os

import numpy as np

__all__ = ["check_common_args", "index_directory", "split_for_subset", "labels_dataset"]

_LABEL_MODES = ("int", "categorical", "binary", None)
# kind -> (what its files are called, what a dataset of them without labels holds)
_KINDS = {"image": ("image files", "images"), "text": ("text files", "text samples")}


def check_common_args(labels, label_mode, class_names, validation_split, subset, shuffle, seed, kind):
    """Keras's argument checks shared by the two readers (kind: "image" or "text"); returns label_mode
    (None without labels)."""
    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple)):
        files, samples = _KINDS[kind]
        raise ValueError(
            f"`labels` argument should be a list/tuple of integer labels, of the same size as the number of {files} "
            "in the target directory. If you wish to infer the labels from the subdirectory names in the target "
            'directory, pass `labels="inferred"`. If you wish to get a dataset that only contains '
            f"{samples} (no labels), pass `labels=None`. Received: labels={labels}")
    if class_names and labels != "inferred":
        if labels is None:
            raise ValueError("When `labels=None` (no labels), argument `class_names` cannot be specified.")
        raise ValueError(f'You can only pass `class_names` if `labels="inferred"`. Received: labels={labels}, and '
                         f"class_names={class_names}")
    if label_mode not in _LABEL_MODES:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", "binary", or None. '
                         f"Received: label_mode={label_mode}")
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: {validation_split}")
    if (validation_split is not None) != (subset is not None):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f'`subset` must be either "training", "validation" or "both", received: {subset}')
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide a `seed` argument, "
                         "to make sure that there is no overlap between the training and validation subset.")
    return None if labels is None else label_mode


def _files_under(directory, formats, follow_links):
    """The files under directory (any depth) whose names end with one of formats, in Keras's order:
    folders sorted by path, names sorted within a folder."""
    found = []
    for root, _, names in sorted(os.walk(directory, followlinks=follow_links), key=lambda walked: walked[0]):
        found.extend(os.path.join(root, n) for n in sorted(names) if n.lower().endswith(formats))
    return found


def index_directory(directory, labels, formats, class_names, shuffle, seed, follow_links, verbose, kind):
    """(file_paths, labels as an int array or None, class_names); prints Keras's "Found N files ..."."""
    if not os.path.isdir(directory):
        raise FileNotFoundError(2, "No such file or directory", directory)
    if labels == "inferred":
        subdirs = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        if class_names:
            if not set(class_names) <= set(subdirs):
                raise ValueError("The `class_names` passed did not match the names of the subdirectories of the "
                                 f"target directory. Expected: {subdirs} (or a subset of it), but received: "
                                 f"class_names={class_names}")
            subdirs = list(class_names)
        class_names = subdirs
        paths, found_labels = [], []
        for index, name in enumerate(subdirs):
            files = _files_under(os.path.join(directory, name), formats, follow_links)
            paths.extend(files)
            found_labels.extend([index] * len(files))
        found_labels = np.asarray(found_labels, dtype="int32")
    else:
        paths = _files_under(directory, formats, follow_links)
        found_labels = None
        if labels is not None:
            if len(labels) != len(paths):
                raise ValueError("Expected the lengths of `labels` to match the number of files in the target "
                                 f"directory. len(labels) is {len(labels)} while we found {len(paths)} files in "
                                 f"directory {directory}.")
            found_labels = np.asarray(labels, dtype="int32")
            class_names = [str(c) for c in sorted(set(labels))]
    if verbose:
        print(f"Found {len(paths)} files." if labels is None else
              f"Found {len(paths)} files belonging to {len(class_names)} classes.")
    if not paths:
        raise ValueError(f"No images found in directory {directory}. Allowed formats: {formats}" if kind == "image"
                         else f"No text files found in directory {directory}. Allowed format: {formats[0]}")
    if shuffle:  # two generators of the same seed: files and labels get the same permutation
        np.random.RandomState(seed).shuffle(paths)
        if found_labels is not None:
            np.random.RandomState(seed).shuffle(found_labels)
    return paths, found_labels, class_names


def split_for_subset(paths, labels, validation_split, subset, verbose):
    """The part of (paths, labels) for subset "training" or "validation": the last
    int(validation_split * N) files are the validation ones."""
    if not validation_split:
        return paths, labels
    held = int(validation_split * len(paths))
    cut = slice(None, len(paths) - held) if subset == "training" else slice(len(paths) - held, None)
    if verbose:
        print(f"Using {len(paths) - held if subset == 'training' else held} files for {subset}.")
    return paths[cut], None if labels is None else labels[cut]


def labels_dataset(tf, labels, label_mode, num_classes):
    """The labels as a dataset of int32 (int), one-hot float32 (categorical) or [1] float32 (binary)."""
    ds = tf.data.Dataset.from_tensor_slices(labels)
    if label_mode == "categorical":
        return ds.map(lambda y: tf.one_hot(y, num_classes))
    if label_mode == "binary":
        return ds.map(lambda y: tf.expand_dims(tf.cast(y, tf.float32), -1))
    return ds
