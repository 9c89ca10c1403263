"""Whole-model HDF5 files: ``model.save("m.h5")`` and ``load_model("m.h5")`` (the suffix of Keras's
legacy format, common in older scripts and in checkpoint callbacks), through h5py (the ``h5``
extra).

Note [HDF5 model files]: the file holds what a ``.keras`` file holds (Note [Model file format] in
_model_file.py), laid out in HDF5:
  root attributes  "format" ("tapegrad-keras-v1"), "metadata" and "model_config" (the JSON texts of
                   metadata.json and config.json);
  "model_weights"  one dataset per weight, "w000000", ... in model.weights order, with an attribute
                   "paths" (the variables' paths, in that order);
  "optimizer_weights"  the optimizer's variables the same way, when the model was compiled.
Keras's own .h5 files (one group per layer) do not load here, nor these in Keras. The file is written
next to its target and renamed over it, so a failed save leaves the previous file whole.
"""
import json
import os
import tempfile

import numpy as np

__all__ = ["SUFFIXES", "write", "read"]

SUFFIXES = (".h5", ".hdf5")


def _h5py(what):
    try:
        import h5py
    except ImportError as e:
        raise ImportError(f"{what}: HDF5 (.h5) model files need h5py: pip install \"tapegrad[h5]\" (or save to a "
                          f"`.keras` file, which needs nothing more). ({e})") from e
    return h5py


def _put(group, variables):
    for i, v in enumerate(variables):
        group.create_dataset(f"w{i:06d}", data=np.asarray(v.numpy()))
    group.attrs["paths"] = [str(getattr(v, "path", v.name)) for v in variables]


def _get(group):
    paths = [p.decode() if isinstance(p, bytes) else str(p) for p in group.attrs["paths"]]
    return paths, [group[f"w{i:06d}"][()] for i in range(len(paths))]


def write(filepath, fmt, metadata, config, weights, optimizer_variables):
    h5py = _h5py("save_model")
    directory = os.path.dirname(os.path.abspath(filepath))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(filepath) + ".", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        with h5py.File(tmp, "w") as f:
            f.attrs["format"] = fmt
            f.attrs["metadata"] = json.dumps(metadata)
            f.attrs["model_config"] = json.dumps(config)
            _put(f.create_group("model_weights"), weights)
            if optimizer_variables is not None:
                _put(f.create_group("optimizer_weights"), optimizer_variables)
        os.replace(tmp, filepath)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def read(filepath, fmt):
    """(metadata, config, (paths, arrays), optimizer (paths, arrays) or None), or ValueError naming the file."""
    h5py = _h5py("load_model")
    if not os.path.isfile(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.h5` file.")
    try:
        with h5py.File(filepath, "r") as f:
            if f.attrs.get("format") != fmt:
                raise ValueError(f"it is not a {fmt} file (a Keras .h5 file? see the README)")
            metadata, config = json.loads(f.attrs["metadata"]), json.loads(f.attrs["model_config"])
            weights = _get(f["model_weights"])
            optimizer = _get(f["optimizer_weights"]) if "optimizer_weights" in f else None
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"load_model: {filepath} is not a readable tapegrad .h5 model file: {e}") from None
    return metadata, config, weights, optimizer
