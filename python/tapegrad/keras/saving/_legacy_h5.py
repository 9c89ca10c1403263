"""Keras's legacy HDF5 files: ``model.save("m.h5")`` / ``load_model("m.h5")`` as Keras 2 (tf.keras) and
Keras 3 write and read them, and Keras 2's weights-only ``save_weights("w.h5")``.

Note [Keras legacy HDF5 layout]: one HDF5 file (through h5py):
  root attributes    "keras_version", "backend" ("tensorflow"), "model_config" (the JSON text of
                     {"class_name", "config"}) and, for a compiled model, "training_config" (the JSON
                     of compile()'s arguments, the optimizer as {"class_name", "config"} under
                     "optimizer_config");
  "model_weights"    attributes "layer_names" (model.layers, in Keras's order), "backend",
                     "keras_version"; a group per layer with the attribute "weight_names" (its
                     trainable, then non-trainable weights) and a dataset per name, at the name
                     inside the group ("dense/dense/kernel:0" in Keras 2, "dense/dense/kernel" in
                     Keras 3); an empty "top_level_model_weights" group;
  "optimizer_weights"  the attribute "weight_names" and a dataset per name: Keras 3 writes the
                     optimizer's variables in order ("adam/iteration", "adam/learning_rate", the
                     slots); Keras 2 "iteration:0", then each variable's slots ("Adam/m/dense/kernel:0").
A weights-only file is the "model_weights" group's content at the root. Loading matches layers by
order among those that hold weights, as Keras does, and checks every layer's count and every shape
before it assigns anything. Keras 2's configs (an InputLayer's batch_input_shape, inbound nodes as
[layer, node, tensor, kwargs] lists, "Custom>Adam") are read as Keras 3 would read them. tapegrad
writes Keras 3's flavour, behind the digest of Note [HDF5 file digest] (_h5_file.py).
"""
import json
import warnings

import numpy as np

import tapegrad as tf

from tapegrad.io._atomic import atomic_path
from tapegrad.keras.saving import _h5_file, _keras_config, _keras_h5
from tapegrad.keras.saving._serialization import loads_config

__all__ = ["is_legacy", "write_model", "read_model", "write_weights", "read_weights_into", "is_weights_file"]

_USER_BLOCK = 512


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def _names(attrs, key):
    return [_text(n) for n in attrs.get(key, [])]


def _layers_of(model):
    """model.layers in Keras's order (a Functional's by Note [Keras 3 layer order])."""
    return _keras_h5.keras_layers(model) if model.__dict__.get("_graph") is not None else list(model.layers)


def _legacy_weights(layer):
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _put_weights(group, model):
    h5py = _keras_h5.require_h5py("save")
    group.attrs["backend"] = "tensorflow"
    group.attrs["keras_version"] = tf.keras.__version__
    layers = _layers_of(model)
    group.attrs["layer_names"] = np.array([layer.name for layer in layers], dtype=h5py.string_dtype())
    for layer in layers:
        weights = _legacy_weights(layer)
        names = [getattr(w, "path", None) or w.name for w in weights]
        g = group.create_group(layer.name)
        g.attrs["weight_names"] = np.array(names, dtype=h5py.string_dtype())
        for name, w in zip(names, weights):
            g.create_dataset(name, data=np.asarray(w.numpy()))
    group.create_group("top_level_model_weights").attrs["weight_names"] = np.array([], dtype=h5py.string_dtype())


def _slot_name(opt, var, slot):
    return f"{opt.name}/{(getattr(var, 'path', None) or var.name).replace('/', '_')}_{slot}"


def _optimizer_names(opt, model, variables):
    by_id = {}
    for var in _keras_h5.keras_trainable_variables(model):
        for slot_name, slot in zip(opt._slot_names.get(id(var), ()), opt._slots.get(id(var), ())):
            by_id[id(slot)] = _slot_name(opt, var, slot_name)
    names = {id(opt.variables[0]): f"{opt.name}/iteration"}
    if not callable(opt._learning_rate):
        names[id(opt._lr_var)] = f"{opt.name}/learning_rate"
    return [names.get(id(v)) or by_id.get(id(v)) or f"{opt.name}/{v.name}" for v in variables]


def write_model(filepath, model, config, compile_config, optimizer):
    """Writes the whole model in Keras 3's flavour of the legacy layout (config: tapegrad's serialized
    model, compile_config: the serialized compile() arguments or None; optimizer or None)."""
    h5py = _keras_h5.require_h5py("save_model")
    keras_config = _keras_config.to_keras({k: v for k, v in config.items() if k not in ("build_config", "compile_config")})
    model_config = {"class_name": keras_config["class_name"], "config": keras_config["config"]}
    with atomic_path(filepath) as tmp:
        with h5py.File(tmp, "w", userblock_size=_USER_BLOCK) as f:
            f.attrs["backend"] = "tensorflow"
            f.attrs["keras_version"] = tf.keras.__version__
            f.attrs["model_config"] = json.dumps(model_config)
            if compile_config is not None:
                f.attrs["training_config"] = json.dumps(_training_config(compile_config))
            _put_weights(f.create_group("model_weights"), model)
            if optimizer is not None:
                variables = _keras_h5.optimizer_variables(optimizer, model)
                names = _optimizer_names(optimizer, model, variables)
                g = f.create_group("optimizer_weights")
                g.attrs["weight_names"] = np.array(names, dtype=h5py.string_dtype())
                for name, v in zip(names, variables):
                    g.create_dataset(name, data=np.asarray(v.numpy()))
        _h5_file.seal(tmp)


def _training_config(compile_config):
    out = {k: _keras_config.to_keras(compile_config.get(k)) for k in ("loss", "metrics", "weighted_metrics",
                                                                     "loss_weights")}
    opt = _keras_config.to_keras(compile_config.get("optimizer"))
    if isinstance(opt, dict):
        out["optimizer_config"] = {"class_name": opt["class_name"], "config": opt["config"]}
    return out


def write_weights(filepath, model):
    """save_weights("w.h5"): Keras 2's weights-only layout (the model_weights group at the root)."""
    h5py = _keras_h5.require_h5py("save_weights")
    with atomic_path(filepath) as tmp:
        with h5py.File(tmp, "w", userblock_size=_USER_BLOCK) as f:
            _put_weights(f, model)
        _h5_file.seal(tmp)


# ---- reading

def is_legacy(f):
    """Whether an open h5py.File is a legacy whole-model file."""
    return "model_config" in f.attrs


def is_weights_file(f):
    return "layer_names" in f.attrs


def _keras_tensor(history):
    name, node_index, tensor_index = history[:3]
    return {"class_name": "__keras_tensor__", "config": {"keras_history": [name, node_index, tensor_index]}}


def _node_from_keras2(node):
    """A Keras 2 inbound node ([[layer, node, tensor, kwargs], ...]) as Keras 3's {"args", "kwargs"}."""
    if isinstance(node, dict):
        return node
    tensors = [_keras_tensor(t) for t in node]
    kwargs = {}
    for t in node:
        if len(t) > 3 and isinstance(t[3], dict):
            kwargs.update(t[3])
    return {"args": [tensors[0] if len(tensors) == 1 else tensors], "kwargs": kwargs}


def _endpoints(spec):
    """Keras 2's [[name, 0, 0]] for one input or output is Keras 3's [name, 0, 0]."""
    if isinstance(spec, list) and len(spec) == 1 and isinstance(spec[0], list) and spec[0] and isinstance(spec[0][0], str):
        return spec[0]
    return spec


# arguments of Keras 2's layers that Keras 3 dropped (their Keras 2 defaults change nothing here)
_KERAS2_ONLY = {cls: ("time_major", "implementation") for cls in ("LSTM", "GRU", "SimpleRNN")}
_KERAS2_ONLY["Embedding"] = ("input_length",)


def from_keras2(value, module="keras"):
    """Keras 2 spellings in a config as Keras 3 writes them (no-ops on a Keras 3 config); ``module``: the
    namespace a class named without one is looked up in."""
    if isinstance(value, list):
        return [from_keras2(v, module) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: from_keras2(v, module) for k, v in value.items()}
    cls, config = out.get("class_name"), out.get("config")
    if isinstance(cls, str) and cls.startswith("Custom>"):
        out["class_name"] = cls = cls[len("Custom>"):]
    if isinstance(cls, str) and not cls.startswith("__") and "config" in out and "module" not in out:
        out["module"] = module  # legacy configs name no module: a built-in class by its name
    if isinstance(config, dict):
        if cls == "InputLayer" and "batch_input_shape" in config:
            config["batch_shape"] = config.pop("batch_input_shape")
        for key in ("is_legacy_optimizer", "jit_compile", "decay"):
            if cls != "InputLayer" and key in config and "learning_rate" in config:
                config.pop(key)
        for key in _KERAS2_ONLY.get(cls, ()):
            config.pop(key, None)
        if cls in ("BatchNormalization", "LayerNormalization") and isinstance(config.get("axis"), list) \
                and len(config["axis"]) == 1:
            config["axis"] = config["axis"][0]  # Keras 2 writes a one-axis list
        if "inbound_nodes" in out:
            out["inbound_nodes"] = [_node_from_keras2(n) for n in out["inbound_nodes"]]
        if "layers" in config and "input_layers" in config:
            config["input_layers"] = _endpoints(config["input_layers"])
            config["output_layers"] = _endpoints(config["output_layers"])
    return out


def read_model(f, where):
    """(tapegrad config with compile_config, the open file) of a legacy file: ValueError naming where."""
    texts = {k: _text(f.attrs[k]) for k in ("model_config", "training_config") if k in f.attrs}
    parsed = {}
    for key, text in texts.items():
        try:
            parsed[key] = loads_config(text)
        except ValueError as e:
            raise ValueError(f"{where} is not a readable .h5 model file: its {key} {e}") from None
    model_config, training = parsed["model_config"], parsed.get("training_config")
    if not (isinstance(model_config, dict) and isinstance(model_config.get("config"), dict)):
        raise ValueError(f"{where} is not a readable .h5 model file: its model_config does not describe a model")
    config = _keras_config.from_keras(from_keras2(model_config))
    if isinstance(training, dict):
        spaces = {"loss": "keras.losses", "metrics": "keras.metrics", "weighted_metrics": "keras.metrics",
                  "loss_weights": "keras"}
        compile_config = {k: _keras_config.from_keras(from_keras2(training[k], space), top=False)
                          for k, space in spaces.items() if training.get(k) is not None}
        opt = training.get("optimizer_config")
        if isinstance(opt, dict):
            compile_config["optimizer"] = _keras_config.from_keras(from_keras2(opt, "keras.optimizers"), top=False)
        config["compile_config"] = compile_config
    return config


def _layer_arrays(group, model, where):
    """[(variable, array)] for the model's layers from a model_weights group, checked whole."""
    names = _names(group.attrs, "layer_names")
    stored = [(n, _names(group[n].attrs, "weight_names")) for n in names if n in group]
    stored = [(n, w) for n, w in stored if w]
    layers = [layer for layer in _layers_of(model) if _legacy_weights(layer)]
    if len(stored) != len(layers):
        raise ValueError(f"{where}: the file holds weights for {len(stored)} layers ({[n for n, _ in stored][:4]}...), "
                         f"the model has {len(layers)} layers with weights")
    pairs = []
    for (name, weight_names), layer in zip(stored, layers):
        weights = _legacy_weights(layer)
        if len(weight_names) != len(weights):
            raise ValueError(f"{where}: layer '{name}' in the file holds {len(weight_names)} weights, the model's "
                             f"layer '{layer.name}' has {len(weights)}")
        for wname, var in zip(weight_names, weights):
            pairs.append((var, _dataset(group[name], wname, var, f"{name}/{wname}", where)))
    return pairs


def _dataset(group, name, var, label, where):
    ds = group.get(name)
    if ds is None or not hasattr(ds, "shape"):
        raise ValueError(f"{where}: the file lacks the weight '{label}'")
    if tuple(ds.shape) != tuple(var.shape):
        raise ValueError(f"{where}: weight '{label}' in the file has shape {tuple(ds.shape)}, the model's "
                         f"'{getattr(var, 'path', var.name)}' has shape {tuple(var.shape)}")
    if ds.dtype.kind not in "biuf":
        raise ValueError(f"{where}: weight '{label}' in the file holds {ds.dtype} values, not numbers")
    return np.asarray(ds[()])


def _optimizer_arrays(group, opt, model, where):
    """[(variable, array)] of the optimizer's state, or [] with a warning when it does not fit (as Keras)."""
    names = _names(group.attrs, "weight_names")
    ours = _keras_h5.optimizer_variables(opt, model)
    iteration = [n for n in names if n.split("/")[-1].split(":")[0] in ("iteration", "iterations")]
    rate = [n for n in names if n.split("/")[-1].split(":")[0] == "learning_rate"]
    slots = [n for n in names if n not in iteration and n not in rate]
    our_slots = ours[1:] if callable(opt._learning_rate) else ours[2:]
    if len(iteration) != 1 or len(slots) != len(our_slots):
        warnings.warn(f"{where}: skipping the optimizer's state: the file holds {len(names)} variables, "
                      f"{opt.name} has {len(ours)}", UserWarning, stacklevel=4)
        return []
    pairs = [(ours[0], _dataset(group, iteration[0], ours[0], iteration[0], where))]
    if rate and not callable(opt._learning_rate):
        pairs.append((ours[1], _dataset(group, rate[0], ours[1], rate[0], where)))
    return pairs + [(v, _dataset(group, n, v, n, where)) for n, v in zip(slots, our_slots)]


def read_weights_into(f, model, where, optimizer=None):
    """Reads a legacy file's weights (and, given an optimizer, its state) into the model: every layer
    and shape checked before any variable changes."""
    try:
        group = f["model_weights"] if "model_weights" in f else f
        pairs = _layer_arrays(group, model, where)
        if optimizer is not None and "optimizer_weights" in f:
            if not optimizer.variables[1:]:
                optimizer.build(model.trainable_variables)
                optimizer.built = True
            pairs += _optimizer_arrays(f["optimizer_weights"], optimizer, model, where)
    except ValueError:
        raise
    except Exception as e:  # noqa: BLE001 -- whatever h5py raises on damaged bytes is a damaged file
        raise ValueError(f"{where}: not a readable Keras .h5 file ({type(e).__name__}: {e})") from None
    values = [arr.astype(var.dtype.as_numpy_dtype) for var, arr in pairs]
    for value, (var, _) in zip(values, pairs):
        var.assign(value)
