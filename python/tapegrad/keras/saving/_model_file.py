"""Whole-model files: ``model.save("m.keras")`` and ``keras.models.load_model``.

Note [Model file format]: a ``.keras`` file is Keras 3's zip archive holding
  "metadata.json"      {"keras_version", "date_saved", "tapegrad_version"};
  "config.json"        the model serialized as Keras 3 writes it (Note [Keras 3 configs] in
                       _keras_config.py) plus "build_config" ({"input_shape": ...}) and "compile_config"
                       (the serialized compile() arguments) when compiled;
  "model.weights.h5"   the model's variables and, when compiled, the optimizer's in Keras 3's HDF5
                       layout (Note [Keras 3 weights layout] in _keras_h5.py).
So Keras 3's ``load_model`` reads these files and tapegrad reads Keras's. Loading rebuilds the model from
its config (custom classes through custom_objects or register_keras_serializable), builds it from
build_config, compiles with compile_config, makes the optimizer's slots, then checks every group, count,
shape and dtype of the weights file before it assigns the first variable.
Older tapegrad files ("format": "tapegrad-keras-v1" in metadata.json, "model.weights.npz" and
"optimizer.weights.npz" in the weights format of Note [Weights file format]) still load, with a
DeprecationWarning. A path ending in ``.h5`` holds tapegrad's own HDF5 layout (Note [HDF5 model files]
in _h5_file.py).
A damaged file raises a ValueError naming it before any variable is assigned: zip checks each
member's CRC-32 as it is read, the JSON is parsed with a depth limit (loads_config), the config must
describe a layer or model, and every weight's shape and kind is checked before the first assignment.
"""
import datetime
import io
import json
import os
import warnings
import zipfile

import numpy as np

import tapegrad as tf

from tapegrad.io._atomic import atomic_write
from tapegrad.keras.saving import _weights_file as _saving
from tapegrad.keras.saving import _h5_file, _keras_config, _keras_h5, _legacy_h5
from tapegrad.keras.layers.base import Layer
from tapegrad.keras.saving._serialization import (CustomObjectScope, deserialize_keras_object, loads_config,
                                                  serialize_keras_object)

__all__ = ["save_model", "load_model"]

FORMAT = "tapegrad-keras-v1"
# What model.save("m.h5") writes: Keras's legacy layout (Note [Keras legacy HDF5 layout]), or
# "tapegrad-h5", the earlier layout of Note [HDF5 model files], which load_model still reads.
H5_WRITE_FORMAT = "keras"
_MEMBERS = ("metadata.json", "config.json")


def _check_path(filepath, what):
    filepath = os.fspath(filepath)
    if what == "load_model" and os.path.isdir(filepath):  # Keras 3's words for a SavedModel directory
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` files, "
                         "legacy H5 format files (`.h5` extension). Note that the legacy SavedModel format is not "
                         "supported by `load_model()` in Keras 3. In order to reload a TensorFlow SavedModel as an "
                         f"inference-only layer in Keras 3, use `keras.layers.TFSMLayer({filepath}, "
                         "call_endpoint='serving_default')` (note that your `call_endpoint` might have a different "
                         "name).")
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
    if filepath.endswith(_h5_file.SUFFIXES) and H5_WRITE_FORMAT == "keras":
        return _legacy_h5.write_model(filepath, model, config, config.get("compile_config"),
                                      opt if optimizer_variables is not None else None)
    if filepath.endswith(_h5_file.SUFFIXES):
        metadata = {"format": FORMAT, "keras_version": tf.keras.__version__,
                    "tapegrad_version": tf.version.TAPEGRAD_VERSION, "date_saved": _now()}
        return _h5_file.write(filepath, FORMAT, metadata, config, model.weights, optimizer_variables)
    _keras_h5.require_h5py("save_model")
    metadata = {"keras_version": tf.keras.__version__, "date_saved": _now(),
                "tapegrad_version": tf.version.TAPEGRAD_VERSION}
    members = {"metadata.json": json.dumps(metadata).encode(),
               "config.json": json.dumps(_keras_config.to_keras(config)).encode(),
               "model.weights.h5": _keras_h5.to_bytes(model, opt if optimizer_variables is not None else None)}

    def write(f):
        with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
            for name, data in members.items():
                z.writestr(name, data)
    atomic_write(filepath, write, make_parents=False)


def _now():
    return datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")


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
            if "model.weights.h5" not in names and "model.weights.npz" not in names:
                raise ValueError("it lacks ['model.weights.h5']")
            return {n: z.read(n) for n in names if n.endswith((".json", ".npz", ".h5"))}
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
    keras_weights = legacy = None
    h5_kind = _h5_file.kind(filepath, where) if filepath.endswith(_h5_file.SUFFIXES) else None
    if h5_kind == "keras":
        legacy = filepath
        with _keras_h5.require_h5py(where).File(filepath, "r") as f:
            config = _legacy_h5.read_model(f, where)
    elif h5_kind == "tapegrad":
        warnings.warn(f"load_model: {filepath} is in tapegrad's earlier .h5 layout; save it again to write "
                      "Keras's, which Keras reads too", DeprecationWarning, stacklevel=2)
        metadata, config, (paths, arrays), optimizer_weights = _h5_file.read(filepath, FORMAT)
    else:
        members = _read(filepath)
        if "model.weights.h5" in members:
            config, keras_weights = _read_keras_zip(members, where), members["model.weights.h5"]
        else:
            warnings.warn(f"load_model: {filepath} is in tapegrad's old .keras layout (NumPy weights); save it "
                          "again to write Keras 3's layout, which Keras reads too", DeprecationWarning, stacklevel=2)
            metadata, config, (paths, arrays), optimizer_weights = _read_zip(members, filepath, where)
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
        if keras_weights is not None:
            _load_keras_state(model, config, keras_weights, compile, where)
            return model
        if legacy is not None:
            _load_legacy_state(model, config, legacy, compile, where)
            return model
        _saving.check_weights(paths, arrays, model.weights, where)
        _saving.assign_weights(arrays, model.weights)
        compile_config = config.get("compile_config")
        if compile and compile_config:
            model.compile(**{k: deserialize_keras_object(v) for k, v in compile_config.items()})
            if optimizer_weights is not None:
                _restore_optimizer(model, *optimizer_weights, where)
    return model


def _compile_kwargs(compile_config):
    """compile()'s arguments from a compile_config, deserialized; Keras's jit_compile (XLA) and its None
    entries (compile's defaults) are left out."""
    out = {}
    for k, v in compile_config.items():
        if k in ("jit_compile",) or (v is None and k != "loss"):
            continue
        out[k] = deserialize_keras_object(v)
    return out


def _load_keras_state(model, config, data, compile, where):  # noqa: A002
    """Compiles the model as saved, makes the optimizer's slots when the file has them, then reads the
    weights file (checked whole before any assignment)."""
    compile_config = config.get("compile_config")
    optimizer = None
    if compile and compile_config:
        model.compile(**_compile_kwargs(compile_config))
        optimizer = model.optimizer
        if _keras_h5.optimizer_count(io.BytesIO(data), where) > len(_keras_h5.optimizer_variables(optimizer, model)):
            optimizer.build(model.trainable_variables)
            optimizer.built = True
    _keras_h5.read_into(io.BytesIO(data), model, where + " model.weights.h5", optimizer)


def _load_legacy_state(model, config, filepath, compile, where):  # noqa: A002
    compile_config = config.get("compile_config")
    optimizer = None
    if compile and compile_config and "optimizer" in compile_config:
        model.compile(**_compile_kwargs(compile_config))
        optimizer = model.optimizer
    with _keras_h5.require_h5py(where).File(filepath, "r") as f:
        _legacy_h5.read_weights_into(f, model, where, optimizer)


def _read_keras_zip(members, where):
    parsed = {}
    for name in ("metadata.json", "config.json"):
        try:
            parsed[name] = loads_config(members[name])
        except ValueError as e:
            raise ValueError(f"{where}: {name} {e}") from None
    return _keras_config.from_keras(parsed["config.json"])


def _read_zip(members, filepath, where):
    """(metadata, config, (paths, arrays), optimizer (paths, arrays) or None) of an old tapegrad .keras file."""
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
