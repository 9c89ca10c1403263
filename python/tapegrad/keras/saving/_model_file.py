"""Whole-model files: ``model.save("m.keras")`` and ``keras.models.load_model``.

Note [Model file format]: a ``.keras`` file is a zip archive (as Keras 3's) holding
  "metadata.json"          {"format": "tapegrad-keras-v1", "keras_version", "tapegrad_version", "date_saved"};
  "config.json"            the model serialized as Keras 3 does ({"module", "class_name", "config",
                           "registered_name"}, see Note [Keras object configs]) plus "build_config"
                           ({"input_shape": ...}, the shape the model was built with) and "compile_config"
                           (the serialized compile() arguments) when compiled;
  "model.weights.npz"      model.weights in the weights format (Note [Weights file format] in _saving.py);
  "optimizer.weights.npz"  optimizer.variables (iterations, then the slots) in that format, when compiled.
Loading rebuilds the model from its config (custom classes through custom_objects or
register_keras_serializable), builds it from build_config, checks every weight's shape, then assigns,
compiles with compile_config and restores the optimizer's state. The weights are NumPy archives, not
Keras's HDF5 "model.weights.h5": real Keras ``.keras`` files do not load here, nor these in Keras.
A functional model plugs in through its own get_config / from_config, like Sequential's. A path
ending in ``.h5`` holds the same content in HDF5 (Note [HDF5 model files] in _h5_file.py).
A damaged file raises a ValueError naming it before any variable is assigned: zip checks each
member's CRC-32 as it is read, the JSON is parsed with a depth limit (loads_config), the config must
describe a layer or model, and every weight's shape and kind is checked before the first assignment.
"""
import datetime
import io
import json
import os
import zipfile

import numpy as np

import tapegrad as tf

from tapegrad.keras import _saving
from tapegrad.keras.saving import _h5_file
from tapegrad.keras.layers.base import Layer
from tapegrad.keras.saving._serialization import (CustomObjectScope, deserialize_keras_object, loads_config,
                                                  serialize_keras_object)

__all__ = ["save_model", "load_model"]

FORMAT = "tapegrad-keras-v1"
_MEMBERS = ("metadata.json", "config.json", "model.weights.npz")


def _check_path(filepath, what):
    filepath = os.fspath(filepath)
    if not filepath.endswith((".keras",) + _h5_file.SUFFIXES):
        raise ValueError(f"{what}: invalid filepath extension for saving {filepath!r}. Add a `.keras` extension "
                         "(the native format) or `.h5`; SavedModel directories are not supported")
    return filepath


def save_model(model, filepath, overwrite=True, include_optimizer=True, **kwargs):
    """Writes the model's config, weights and (when compiled) optimizer state to a ``.keras`` zip file."""
    filepath = _check_path(filepath, "save_model")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"save_model: {filepath} exists and overwrite=False")
    config = serialize_keras_object(model)
    shape = model._saved_build_shape()
    if shape is not None:
        config["build_config"] = {"input_shape": serialize_keras_object(shape)}
    opt, optimizer_variables = getattr(model, "optimizer", None), None
    if getattr(model, "compiled", False) and model._compile_config() is not None:
        config["compile_config"] = model._compile_config()
        if include_optimizer and opt is not None:
            optimizer_variables = opt.variables
    metadata = {"format": FORMAT, "keras_version": tf.keras.__version__, "tapegrad_version": tf.version.TAPEGRAD_VERSION,
                "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    if filepath.endswith(_h5_file.SUFFIXES):
        return _h5_file.write(filepath, FORMAT, metadata, config, model.weights, optimizer_variables)
    members = {"config.json": json.dumps(config, indent=1).encode(), "model.weights.npz": _npz(model.weights),
               "metadata.json": json.dumps(metadata).encode()}
    if optimizer_variables is not None:
        members["optimizer.weights.npz"] = _npz(optimizer_variables)

    def write(f):
        with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
            for name, data in members.items():
                z.writestr(name, data)
    _saving.atomic_write(filepath, write)


def _npz(variables):
    buf = io.BytesIO()
    _saving.write_weights(buf, variables)
    return buf.getvalue()


def _read(filepath):
    """{member: bytes} of a .keras file, with ValueErrors naming the file and what is wrong."""
    if not os.path.isfile(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible "
                         "`.keras` zip file.")
    try:
        with zipfile.ZipFile(filepath) as z:
            names = set(z.namelist())
            missing = [m for m in _MEMBERS if m not in names]
            if missing:
                raise ValueError(f"it lacks {missing}")
            return {n: z.read(n) for n in names if n.endswith((".json", ".npz"))}
    # what zipfile raises on damaged bytes besides BadZipFile: a flipped version or compression
    # field (NotImplementedError), flag (RuntimeError: "encrypted"), size (EOFError, OverflowError), ...
    except Exception as e:  # noqa: BLE001 -- every failure to read the archive is a damaged file
        raise ValueError(f"load_model: {filepath} is not a readable tapegrad .keras file ({type(e).__name__}: "
                         f"{e})") from None


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002 -- Keras's name
    """The model saved by ``model.save(filepath)``: rebuilt from its config, with its weights and, when
    ``compile``, its compile() arguments and optimizer state. Custom classes come from ``custom_objects``
    or ``keras.saving.register_keras_serializable``."""
    filepath = _check_path(filepath, "load_model")
    where = f"load_model: {filepath}"
    if filepath.endswith(_h5_file.SUFFIXES):
        metadata, config, (paths, arrays), optimizer_weights = _h5_file.read(filepath, FORMAT)
    else:
        metadata, config, (paths, arrays), optimizer_weights = _read_zip(filepath, where)
    if not (isinstance(config, dict) and isinstance(config.get("class_name"), str)
            and isinstance(config.get("config"), dict)):
        raise ValueError(f"{where}: the config does not describe a model: expected a serialized object "
                         f"{{'class_name': ..., 'config': {{...}}}}, got {type(config).__name__} {str(config)[:60]}")
    with CustomObjectScope(custom_objects or {}):
        model = deserialize_keras_object({k: v for k, v in config.items() if k not in ("build_config", "compile_config")})
        if not isinstance(model, Layer):
            raise ValueError(f"{where}: the config describes a {type(model).__name__}, not a model or layer")
        build = config.get("build_config")
        if build and build.get("input_shape") is not None and not model.weights:
            model._build_from_shape(build["input_shape"])
        _saving.check_weights(paths, arrays, model.weights, where)
        _saving.assign_weights(arrays, model.weights)
        compile_config = config.get("compile_config")
        if compile and compile_config:
            model.compile(**{k: deserialize_keras_object(v) for k, v in compile_config.items()})
            if optimizer_weights is not None:
                _restore_optimizer(model, *optimizer_weights, where)
    return model


def _read_zip(filepath, where):
    """(metadata, config, (paths, arrays), optimizer (paths, arrays) or None) of a .keras file."""
    members = _read(filepath)
    for name in ("metadata.json", "config.json"):
        try:
            members[name] = loads_config(members[name])
        except ValueError as e:
            raise ValueError(f"{where}: {name} {e}") from None
    metadata, config = members["metadata.json"], members["config.json"]
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise ValueError(f"load_model: {filepath} is not a {FORMAT} file (a Keras file? see the README)")
    weights = _saving.read_weights(io.BytesIO(members["model.weights.npz"]), where + " model.weights.npz")
    optimizer = None
    if "optimizer.weights.npz" in members:
        optimizer = _saving.read_weights(io.BytesIO(members["optimizer.weights.npz"]), where + " optimizer.weights.npz")
    return metadata, config, weights, optimizer


def _restore_optimizer(model, paths, arrays, where):
    opt = model.optimizer
    if len(arrays) > 1:  # slots were made: make them here too, in the order training made them
        opt.build(model.trainable_variables)
        opt.built = True
    _saving.check_weights(paths, arrays, opt.variables, where + " optimizer weights")
    _saving.assign_weights(arrays, opt.variables)


def _zeros_for(shape, dtype):
    if shape and isinstance(shape[0], (list, tuple)):
        return [_zeros_for(s, dtype) for s in shape]
    return np.zeros((1,) + tuple(shape[1:]), dtype)
