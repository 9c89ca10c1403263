"""Keras 3's weights file: ``model.weights.h5`` inside a ``.keras`` zip and ``save_weights("w.weights.h5")``.

Note [Keras 3 weights layout]: an HDF5 file (through h5py) with one group per saved object, each
holding a group "vars" with one dataset per own variable, named "0", "1", ... in the object's order
(own trainable, then own non-trainable variables, as Keras orders them):
  "vars"                      the model's own variables (none for Sequential and Functional);
  "layers/<name>/vars"        each of model.layers (Sequential's without its InputLayer), where
                              <name> is the snake_case class name made unique in layer order
                              ("dense", "dense_1", "batch_normalization"), not the layer's name;
  ".../<attr>/vars"           a layer's sublayers under the attribute that holds them, in sorted
                              attribute order ("layers/lstm/cell/vars" holds an LSTM's weights);
                              a list attribute names its layers as "layers" does;
  "optimizer/vars"            iterations, the learning rate (none for a schedule), then the slots
                              of the trainable variables in Keras's order (Note [Keras 3 optimizer
                              slots]), when compiled.
Each "vars" group carries the attribute "name" (the object's name), which reading ignores. Reading
walks the same paths over the model being loaded (an optimizer whose variable count differs from the
file's is skipped with a warning, as Keras does), checks that every group exists and holds exactly
as many datasets of the same shapes as the object has variables, all numbers, before it assigns any.

Note [Keras 3 optimizer slots]: Keras makes an optimizer's slots in groups, each group one slot per
name for every trainable variable in turn: Adam (m, v) per variable, then amsgrad's vhat per variable;
RMSprop its velocities, then the momentums (only when momentum > 0: tapegrad keeps them anyway, and with
momentum 0 their value never reaches a step), then the average gradients (centered). Adamax, Ftrl,
SGD, Adagrad, Lion and AdamW are one group. Keras keeps variables tapegrad computes instead: Nadam's
scalar u_product (the product of its momentum schedule, last), Adafactor's two scalar placeholders
before a rank-1 variable's velocity (where a matrix has its row and column means). They are written
with Keras's values and read and dropped (_KerasOnly).

Note [Keras 3 layer order]: a Functional's layers are in Keras's order, not tapegrad's, since the
group names ("dense" or "dense_1") and the order of the optimizer's slots follow it: walk the nodes
depth-first from the outputs, inputs before the node, numbering each node when it finishes; a node's
depth is 0 at an output and one more than the deepest node it feeds; a layer's depth is its deepest
node's. Layers go deepest first, and by the number of their first node within a depth.
"""
import io
import re
import warnings

import numpy as np

from tapegrad.keras import layers as _layers
from tapegrad.keras.layers.base import Layer
from tapegrad.keras.optimizers._keras_order import keras_order

__all__ = ["layout", "write", "read_into", "optimizer_variables", "optimizer_count", "require_h5py", "to_bytes"]


def _snake(name):
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _own(layer):
    return list(layer._trainable_variables) + list(layer._non_trainable_variables)


def _container(path, layers, out, seen):
    used = {}
    for layer in layers:
        base = _snake(type(layer).__name__)
        n = used.get(base, 0)
        used[base] = n + 1
        _walk(layer, f"{path}/{base}" + (f"_{n}" if n else ""), out, seen)


def _walk(layer, path, out, seen):
    if any(layer is s for s in seen):
        return
    seen.append(layer)
    out.append((path, layer.name, _own(layer)))
    prefix = path + "/" if path else ""
    if type(layer).__name__ in ("Sequential", "Functional"):
        _container(prefix + "layers", keras_layers(layer), out, seen)
    for attr in sorted(vars(layer)):
        value = vars(layer)[attr]
        if attr.startswith("_"):
            continue
        if isinstance(value, Layer):
            _walk(value, prefix + attr, out, seen)
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, Layer) for v in value):
            _container(prefix + attr, value, out, seen)


def keras_layers(model):
    """model.layers in Keras 3's order (see Note [Keras 3 layer order]); Sequential's as they are."""
    graph = model.__dict__.get("_graph")
    if graph is None:
        return list(model.layers)
    finished, depth = [], {}

    def producer(t):
        return getattr(t, "_node", None)

    def visit(node, path):
        if node is None or any(node is n for n in finished) or id(node) in path:
            return
        path.add(id(node))
        for t in ([] if isinstance(node.layer, _input_layer_class()) else node.inputs):
            visit(producer(t), path)
        finished.append(node)
    for t in graph.outputs:
        visit(producer(t), set())
    for t in graph.outputs:
        depth[id(producer(t))] = 0
    for node in reversed(finished):
        d = depth.setdefault(id(node), 0)
        if not isinstance(node.layer, _input_layer_class()):
            for t in node.inputs:
                prev = producer(t)
                if prev is not None:
                    depth[id(prev)] = max(depth.get(id(prev), 0), d + 1)
    index, layer_depth, layers = {}, {}, []
    for i, node in enumerate(finished):
        key = id(node.layer)
        if key not in index:
            index[key] = i
            layers.append(node.layer)
        layer_depth[key] = max(layer_depth.get(key, 0), depth[id(node)])
    return sorted(layers, key=lambda l: (-layer_depth[id(l)], index[id(l)]))


def _input_layer_class():
    return _layers.InputLayer


def keras_trainable_variables(model):
    """model.trainable_variables in Keras 3's order: each layer's in keras_layers order."""
    if model.__dict__.get("_graph") is None:
        return list(model.trainable_variables)
    out, seen = [], set()
    for v in list(model._trainable_variables) + [v for l in keras_layers(model) for v in l.trainable_variables]:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def layout(model):
    """[(group path, object name, [variables])] of the model in Keras 3's layout."""
    out = []
    _walk(model, "", out, [])
    return out


def optimizer_variables(opt, model):
    """The optimizer's variables in Keras 3's order for the model's trainable variables in Keras's
    order (Note [Keras 3 optimizer slots]; keras/optimizers/_keras_order.py)."""
    return keras_order(opt, keras_trainable_variables(model))


def require_h5py(what):
    """h5py, or an ImportError saying how to install it (it is in the default install)."""
    try:
        import h5py
    except ImportError as e:
        raise ImportError(f"{what}: model and weights files (.keras, .weights.h5, .h5) hold their weights in "
                          f"HDF5, read and written through h5py: pip install h5py (or \"tapegrad[h5]\"). "
                          f"({e})") from e
    return h5py


def write(f, model, optimizer=None, userblock_size=0):
    """Writes the model's (and the optimizer's) variables to f, a path or binary file object."""
    h5py = require_h5py("save")
    entries = layout(model)
    if optimizer is not None:
        entries.append(("optimizer", optimizer.name, optimizer_variables(optimizer, model)))
    with h5py.File(f, "w", userblock_size=userblock_size) as h5:
        for path, name, variables in entries:
            group = h5.require_group(path + "/vars" if path else "vars")
            group.attrs["name"] = name
            for i, v in enumerate(variables):
                group.create_dataset(str(i), data=np.asarray(v.numpy()))


def _check(group, path, variables, where):
    if group is None:
        if variables:
            raise ValueError(f"{where}: the file has no group '{path}' for {len(variables)} weights "
                             f"({variables[0].name}, ...)")
        return []
    keys = list(group.keys())
    if sorted(keys) != sorted(str(i) for i in range(len(keys))) or len(keys) != len(variables):
        raise ValueError(f"{where}: group '{path}' holds {len(keys)} weights ({sorted(keys)[:4]}...), the model's "
                         f"object there has {len(variables)}")
    arrays = []
    for i, var in enumerate(variables):
        ds = group[str(i)]
        if not hasattr(ds, "shape") or tuple(ds.shape) != tuple(var.shape):
            raise ValueError(f"{where}: weight '{path}/{i}' in the file has shape {getattr(ds, 'shape', None)}, "
                             f"the model's '{getattr(var, 'path', var.name)}' has shape {tuple(var.shape)}")
        if ds.dtype.kind not in "biuf":
            raise ValueError(f"{where}: weight '{path}/{i}' in the file holds {ds.dtype} values, not numbers")
        arrays.append(np.asarray(ds[()]))
    return arrays


def read_into(f, model, where, optimizer=None):
    """Reads f (path or binary file object) into the model's variables (and the optimizer's when given and
    the file has them), checking every group, count, shape and dtype first; ValueError naming ``where``.
    Returns whether optimizer state was read."""
    h5py = require_h5py(where)
    entries, skipped = layout(model), None
    try:
        with h5py.File(f, "r") as h5:
            if optimizer is not None and "optimizer/vars" in h5:
                ours, theirs = optimizer_variables(optimizer, model), len(h5["optimizer/vars"])
                if len(ours) == theirs:
                    entries.append(("optimizer", optimizer.name, ours))
                else:  # as Keras: the model's weights load, the optimizer keeps its state
                    skipped = (f"{where}: skipping the optimizer's variables: the file holds {theirs}, "
                               f"{optimizer.name} has {len(ours)} (it is built for other variables or not yet built)")
            pairs = []
            for path, _, variables in entries:
                key = path + "/vars" if path else "vars"
                group = h5[key] if key in h5 else None
                pairs += zip(_check(group, key, variables, where), variables)
    except ValueError:
        raise
    except Exception as e:  # noqa: BLE001 -- whatever h5py raises on damaged bytes is a damaged file
        raise ValueError(f"{where}: not a readable Keras weights file ({type(e).__name__}: {e})") from None
    if skipped:
        warnings.warn(skipped, UserWarning, stacklevel=3)
    values = [arr.astype(var.dtype.as_numpy_dtype) for arr, var in pairs]
    for value, (_, var) in zip(values, pairs):
        var.assign(value)
    return any(path == "optimizer" for path, _, _ in entries)


def optimizer_count(f, where):
    """How many variables the file's "optimizer/vars" group holds (0 when it has none)."""
    h5py = require_h5py(where)
    try:
        with h5py.File(f, "r") as h5:
            return len(h5["optimizer/vars"]) if "optimizer/vars" in h5 else 0
    except Exception as e:  # noqa: BLE001 -- whatever h5py raises on damaged bytes is a damaged file
        raise ValueError(f"{where}: not a readable Keras weights file ({type(e).__name__}: {e})") from None


def to_bytes(model, optimizer=None, userblock_size=0):
    buf = io.BytesIO()
    write(buf, model, optimizer, userblock_size)
    return buf.getvalue()
