"""The object graph TensorFlow + Keras 3 build for keras models and optimizers, from tapegrad's objects.

Note [Keras 3 object graph]: in a TF-format checkpoint, objects are matched by the chain of child
names from the root, so a file TF restores into Keras 3 objects must use Keras 3's names (seen by
saving in TF 2.21 + Keras 3):
  Sequential      "_functional" -> "_operations" -> "0" (its InputLayer, no values), "1", "2", ...
  Functional      "_operations" -> "0", "1", ... (every layer, InputLayers included, in graph order)
  Layer           each weight under the attribute Keras keeps it in: Dense's and ConvND's kernel is
                  "_kernel", Embedding's "_embeddings", any other weight its add_weight name ("bias", "gamma",
                  "moving_mean"); then its public attributes (a subclassed model's layers "d1", ...)
  Optimizer       "_variables" [iterations, learning_rate, the slots: Keras's order, Note [Keras 3
                  optimizer slots], Keras's own variables (Nadam's u_product) included],
                  "_trainable_variables" [the variables it was built for], "_iterations",
                  "_learning_rate", and its slot lists (Adam "_momentums"/"_velocities", SGD
                  "momentums"), each indexed like "_trainable_variables".
Everything else (tf.Module, dicts, lists, Checkpoint) is named as in Note [Checkpoint keys]. Only
restore and write in TF's format read these names; tapegrad's own keys are unchanged.
"""
from tapegrad._tensor.tensor import Variable
from tapegrad.train import _graph

# Keras 3's attribute for a weight, where it is not the add_weight name: {layer class: {name: attr}}.
_WEIGHT_ATTRS = {"Dense": {"kernel": "_kernel"}, "EinsumDense": {"kernel": "_kernel"},
                 "Embedding": {"embeddings": "_embeddings"},
                 **{f"Conv{n}D{t}": {"kernel": "_kernel"} for n in (1, 2, 3) for t in ("", "Transpose")}}
# Keras 3's slot lists: {optimizer class: {tapegrad slot name: Keras attribute}}.
_SLOT_LISTS = {"Adam": {"m": "_momentums", "v": "_velocities", "vhat": "_velocity_hats"},
               "AdamW": {"m": "_momentums", "v": "_velocities", "vhat": "_velocity_hats"},
               "SGD": {"momentum": "momentums"}}


class _Group:
    """A Keras-internal object that only names children (Sequential's "_functional")."""

    def __init__(self, items):
        self._items = items

    def _checkpoint_children(self):
        return self._items


def _keras_classes():
    """Layer, Sequential, Optimizer and keras_order (keras loads after train: imported at first use)."""
    from tapegrad.keras.layers.base import Layer
    from tapegrad.keras.models import Sequential
    from tapegrad.keras.optimizers import _keras_order, base
    return Layer, Sequential, base.Optimizer, _keras_order.keras_order


def _keras_variables(opt, built):
    """The optimizer's "_variables" in Keras 3's order (keras_order); a variable Keras keeps that
    tapegrad computes is a new Variable holding Keras's value (written, and dropped when restored)."""
    keras_order = _keras_classes()[3]
    return [v if isinstance(v, Variable) else Variable(v.numpy(), trainable=False, name=v.name.split("/")[-1])
            for v in keras_order(opt, built)]


def children(obj, variables_by_id):
    """(name, child) pairs of obj as TF + Keras 3 name them; variables_by_id maps id() to every
    Variable in the graph (an optimizer lists its variables by id)."""
    Layer, Sequential, Optimizer, _ = _keras_classes()
    if isinstance(obj, _Group):
        return obj._checkpoint_children()
    if isinstance(obj, Optimizer):
        return _optimizer_children(obj, variables_by_id)
    if isinstance(obj, Sequential):
        return [("_functional", _Group([("_operations", [None] + obj.layers)]))]
    if isinstance(obj, Layer):
        graph = obj.__dict__.get("_graph")
        if graph is not None:  # a functional model
            return [("_operations", list(graph.layers))]
        attrs = _WEIGHT_ATTRS.get(type(obj).__name__, {})
        own = [(attrs.get(k, k), v) for k, v in obj._weight_keys]
        listed = {id(v) for _, v in own}  # Keras 3 reaches a weight once, by its attribute
        return own + [(k, v) for k, v in sorted(vars(obj).items()) if k[0] != "_" and id(v) not in listed]
    return _graph.children(obj)


def _optimizer_children(opt, variables_by_id):
    built = [variables_by_id[i] for i in opt._var_dtypes if i in variables_by_id]
    out = [("_variables", _keras_variables(opt, built)), ("_trainable_variables", built), ("_iterations", opt._iterations)]
    if not callable(opt._learning_rate):  # a schedule is no variable in Keras
        out.append(("_learning_rate", opt._lr_var))
    lists = _SLOT_LISTS.get(type(opt).__name__, {})
    for name, attr in lists.items():
        column = [dict(opt._checkpoint_slots(v)).get(name) for v in built]
        if any(s is not None for s in column):
            out.append((attr, column))
    return out


def variables_by_id(root):
    variables, objects = _graph.walk(root)
    every = list(variables.values()) + list(_graph.slot_variables(variables, objects).values())
    return {id(v): v for v in every if isinstance(v, Variable)}


def walk(root):
    """{path: Variable} of every variable reachable from root by Keras 3's names (first path kept)."""
    by_id = variables_by_id(root)
    out, seen, queue = {}, {id(root)}, [("", root)]
    while queue:
        prefix, obj = queue.pop(0)
        for name, child in children(obj, by_id):
            if child is None or id(child) in seen or not (_graph._containers_hold_trackables(child)
                                                          or isinstance(child, _Group)):
                continue
            seen.add(id(child))
            path = f"{prefix}/{name}" if prefix else str(name)
            if isinstance(child, Variable):
                out[path] = child
            else:
                queue.append((path, child))
    return out


def _child(obj, name):
    return next((c for n, c in _graph.children(obj) if n == name), None)


def tapegrad_key(root, tf_path):
    """tapegrad's key (Note [Checkpoint keys]) for a value at tf_path (Keras 3's names) under root, as
    far as the objects on the way exist; past the last existing object the names are kept. None for a
    path tapegrad has no key for (an InputLayer, an optimizer's internal lists)."""
    Layer, Sequential, Optimizer, _ = _keras_classes()
    parts, out, obj, i = tf_path.split("/"), [], root, 0
    while i < len(parts):
        name = parts[i]
        if obj is None:
            out += parts[i:]
            break
        if isinstance(obj, Sequential) and name == "_functional":
            if parts[i + 1:i + 2] != ["_operations"] or not parts[i + 2:i + 3] or not parts[i + 2].isdigit():
                return None
            n = int(parts[i + 2]) - 1  # operation 0 is the InputLayer
            if n < 0:
                return None
            out.append(f"layer-{n}")
            obj, i = (obj.layers[n] if n < len(obj.layers) else None), i + 3
        elif isinstance(obj, Layer) and obj.__dict__.get("_graph") is not None and name == "_operations":
            if not parts[i + 1:i + 2] or not parts[i + 1].isdigit():
                return None
            n, layers = int(parts[i + 1]), obj._graph.layers
            out.append(f"layer-{n}")
            obj, i = (layers[n] if n < len(layers) else None), i + 2
        elif isinstance(obj, Layer):
            reverse = {v: k for k, v in _WEIGHT_ATTRS.get(type(obj).__name__, {}).items()}
            out.append(reverse.get(name, name))
            obj, i = _child(obj, out[-1]), i + 1
        elif isinstance(obj, Optimizer):
            if name != "_iterations":
                return None
            out.append("iter")
            obj, i = None, i + 1
        else:
            out.append(name)
            obj, i = (_child(obj, name) if _graph.is_trackable(obj) or isinstance(obj, (list, tuple, dict))
                      else None), i + 1
    return "/".join(out)


def object_at(root, tf_path):
    """The tapegrad object at tf_path (Keras 3's names), or None."""
    obj = root
    for name in tf_path.split("/") if tf_path else []:
        obj = next((c for n, c in children(obj, {}) if n == name), None)
        if obj is None:
            return None
    return obj


def slot_keys(nodes, paths, root, variable_key):
    """{slot node id: tapegrad slot key} for Keras 3 optimizers in a TF graph: slot list <L>'s item j
    belongs to the optimizer's "_trainable_variables" item j. variable_key(node id) is the tapegrad key
    of a variable node (or None)."""
    _, _, Optimizer, _ = _keras_classes()
    out = {}
    for i, node in enumerate(nodes):
        names = dict((n, c) for c, n in node["children"])
        if "_trainable_variables" not in names or not paths.get(i):
            continue
        opt_path = paths[i][0]
        opt = object_at(root, opt_path)
        if not isinstance(opt, Optimizer):
            continue
        opt_key = tapegrad_key(root, opt_path)
        owners = [c for c, _ in sorted(nodes[names["_trainable_variables"]]["children"], key=lambda x: int(x[1]))]
        for slot, attr in _SLOT_LISTS.get(type(opt).__name__, {}).items():
            if attr not in names:
                continue
            for child, index in nodes[names[attr]]["children"]:
                j = int(index) if index.isdigit() else -1
                var_key = variable_key(owners[j]) if 0 <= j < len(owners) else None
                if var_key is not None and opt_key is not None:
                    out[child] = f"{var_key}{_graph.SLOT}{opt_key}/{slot}"
    return out
