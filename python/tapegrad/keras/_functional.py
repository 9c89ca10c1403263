"""The functional API: ``keras.Input``, symbolic Keras tensors, the layer graph and running it.

Note [Functional graphs]: ``keras.Input(shape)`` returns a KerasTensor (a shape with a None batch
axis and a dtype, no values) made by an InputLayer. Calling a layer on KerasTensors does not compute:
it records a Node (the layer, the call's arguments with the KerasTensors in them, the output
KerasTensors) in ``layer._inbound_nodes``. A tapegrad op called on a KerasTensor (``tf.concat``,
``tf.reshape``, ``x * 2``, ``x[:, 1:]``) becomes a TFOpLambda layer's node the same way (the op fails to
bind the KerasTensor and hands the call here, Note [Op dispatch] in _ops/_dispatch.py).
``Model(inputs, outputs)`` walks the nodes back from the outputs and runs them in order on real
tensors. Output shapes come from running the layer on two concrete probes (zeros) in which every
unknown axis has a different size (see _PROBE_SIZES): an axis that differs between the two results
is unknown (None) in the output. That is what the layer's own ``call`` computes, so no layer needs a separate
``compute_output_shape``, and the probes build the layer's weights as a first call would.
"""
import operator

import numpy as np

import tapegrad as tf

from tapegrad._ops import _dispatch, _raw
from tapegrad.keras.layers import base as _base
from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.core import InputLayer
from tapegrad.keras.saving import _serialization

__all__ = ["KerasTensor", "Node", "Input", "TFOpLambda", "is_symbolic"]

# The sizes an unknown axis takes in the two probes: small for the batch axis; for another axis (a
# sequence, an image side) large enough for convolutions and still different after five halvings.
_PROBE_BATCH = (2, 3)
_PROBE_SIZES = (64, 96)


class KerasTensor:
    """A symbolic tensor of a functional model: shape (None where unknown), dtype, and the node that made it."""

    def __init__(self, shape, dtype="float32", name=None, node=None, index=0):
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = tf.as_dtype(dtype)
        self.name = name
        self._node, self._index = node, index

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def _keras_history(self):
        return self._node.layer, self._node.layer._inbound_nodes.index(self._node), self._index

    def __repr__(self):
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype.name}, name={self.name}>"

    def __bool__(self):
        raise TypeError("A symbolic KerasTensor has no truth value (it has no values until the model runs)")

    def __len__(self):
        raise TypeError(f"A symbolic KerasTensor of shape {self.shape} has no len()")

    def __iter__(self):
        raise TypeError(f"A symbolic KerasTensor of shape {self.shape} is not iterable")

    __hash__ = object.__hash__


def _operator(fn, reverse=False):
    """A Python operator of a KerasTensor: the operator's node (``2 * x`` calls fn(2, x))."""
    if reverse:
        return lambda self, other: _op_call(fn, (other, self), {})
    return lambda self, *other: _op_call(fn, (self,) + other, {})


for _name, _fn in [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv), ("mod", operator.mod),
                   ("pow", operator.pow), ("matmul", operator.matmul)]:
    setattr(KerasTensor, f"__{_name}__", _operator(_fn))
    setattr(KerasTensor, f"__r{_name}__", _operator(_fn, reverse=True))
for _name, _fn in [("neg", operator.neg), ("abs", operator.abs), ("getitem", operator.getitem),
                   ("lt", operator.lt), ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge)]:
    setattr(KerasTensor, f"__{_name}__", _operator(_fn))


def is_symbolic(value):
    """Whether ``value`` is a KerasTensor or a list/tuple/dict holding one (one level deep)."""
    if isinstance(value, KerasTensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, KerasTensor) for v in value)
    if isinstance(value, dict):
        return any(isinstance(v, KerasTensor) for v in value.values())
    return False


def _flatten(structure):
    """The KerasTensors of a nested list/tuple/dict structure, in order."""
    if isinstance(structure, KerasTensor):
        return [structure]
    if isinstance(structure, (list, tuple)):
        return [t for v in structure for t in _flatten(v)]
    if isinstance(structure, dict):
        return [t for k in structure for t in _flatten(structure[k])]
    return []


def _map(fn, structure):
    """``structure`` with each KerasTensor replaced by fn(tensor)."""
    if isinstance(structure, KerasTensor):
        return fn(structure)
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map(fn, v) for v in structure)
    if isinstance(structure, dict):
        return {k: _map(fn, v) for k, v in structure.items()}
    return structure


class Node:
    """One call of ``layer`` on symbolic arguments: args/kwargs hold KerasTensors; outputs is a structure of them."""

    def __init__(self, layer, args, kwargs):
        self.layer, self.args, self.kwargs = layer, args, kwargs
        self.inputs = _flatten((args, kwargs))
        self.outputs = None

    def run(self, values):
        """Calls the layer on the real tensors ``values`` ({id(KerasTensor): tensor}) of the inputs."""
        args, kwargs = _map(lambda t: values[id(t)], (self.args, self.kwargs))
        return self.layer(*args, **kwargs)


def _probe(t, which):
    shape = tuple(d if d is not None else _PROBE_BATCH[which] if i == 0 else _PROBE_SIZES[which]
                  for i, d in enumerate(t.shape))
    return tf.zeros(shape, dtype=t.dtype)


def _describe(args):
    return ", ".join(str(t.shape) for t in _flatten(args))


def call_symbolic(layer, args, kwargs):
    """``layer(*args, **kwargs)`` on KerasTensors: records a Node and returns its output KerasTensors."""
    kwargs = {k: v for k, v in kwargs.items() if not (k == "training" and v is None)}
    node = Node(layer, args, kwargs)
    # probes run in inference mode: a BatchNormalization called with training=True must not move its statistics
    probe_kwargs = {k: v for k, v in kwargs.items() if k != "training"}
    built_here = not layer.built
    kept = [(l, l.__dict__["_states"]) for l in _stateful(layer)]  # each probe starts from, and keeps, no RNN states
    results = []
    try:
        for which in (0, 1):
            for l, _ in kept:
                _base._set(l, "_states", None)
            results.append(_run_probe(layer, args, probe_kwargs, which, built_here))
    finally:
        for l, states in kept:
            _base._set(l, "_states", states)
    layer._clear_losses()
    node.outputs = _symbolic_outputs(node, results[0], results[1])
    if isinstance(node.outputs, KerasTensor):  # output_shape from the symbolic shape, not a probe's
        _base._set(layer, "_output_shape", node.outputs.shape)
    if "_inbound_nodes" not in layer.__dict__:
        _base._set(layer, "_inbound_nodes", [])
    layer.__dict__["_inbound_nodes"].append(node)
    return node.outputs


def _stateful(layer):
    """The layer and its sublayers that carry states from one call to the next (stateful RNNs)."""
    own = [layer] if getattr(layer, "stateful", False) is True and "_states" in layer.__dict__ else []
    return own + [l for sub in layer._flat_layers() for l in _stateful(sub)]


def _run_probe(layer, args, probe_kwargs, which, built_here):
    """The layer's output on probe ``which`` of the symbolic arguments, errors naming the layer and shapes."""
    concrete_args, concrete_kwargs = _map(lambda t, w=which: _probe(t, w), (args, probe_kwargs))
    try:
        out = layer(*concrete_args, **concrete_kwargs)
    except (ValueError, TypeError, tf.errors.OpError) as e:
        # the first probe built the layer and the second does not fit its weights
        hint = (" (the layer's weights depend on an axis that is unknown (None) here; weights need "
                "fully-defined shapes)") if which == 1 and built_here else ""
        try:  # the same class, with the layer and the symbolic shapes named
            named = type(e)(f"{layer.name} ({type(layer).__name__}) called on inputs of shapes "
                            f"{_describe(args)}{hint}: {e}")
        except Exception:  # an exception class with other arguments stays as it is
            raise e from None
        raise named from None
    return out


def _symbolic_outputs(node, first, second):
    counter = [0]

    def make(a, b):
        if isinstance(a, (list, tuple)):
            return type(a)(make(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            return {k: make(a[k], b[k]) for k in a}
        if not isinstance(a, tf.Tensor):
            raise TypeError(f"{node.layer.name}: a layer of a functional model must return tensors, got "
                            f"{type(a).__name__}")
        shape = [d if d == e else None for d, e in zip(a.shape, b.shape)]
        t = KerasTensor(shape, a.dtype, name=node.layer.name, node=node, index=counter[0])
        counter[0] += 1
        return t
    return make(first, second)


def Input(shape=None, batch_size=None, dtype=None, name=None, batch_shape=None, sparse=None, tensor=None,  # noqa: N802
          ragged=None, optional=False, **kwargs):
    """A symbolic input of a functional model: ``shape`` without the batch axis (None for an unknown size)."""
    if sparse or ragged:
        raise tf.errors.UnimplementedError(None, None, "keras.Input: sparse and ragged inputs are not supported")
    if kwargs:
        raise TypeError(f"keras.Input: unexpected keyword argument(s) {sorted(kwargs)}")
    if batch_shape is not None:
        batch_size, shape = batch_shape[0], tuple(batch_shape[1:])
    if shape is None:
        raise ValueError("keras.Input: give shape=(...) (the input shape without the batch axis) or batch_shape")
    if not isinstance(shape, (tuple, list)) or not all(d is None or isinstance(d, (int, np.integer)) and d >= 0
                                                        for d in shape):
        raise ValueError(f"keras.Input: shape must be a tuple of non-negative ints or None, got {shape!r}")
    layer = InputLayer(shape=tuple(shape), batch_size=batch_size, dtype=dtype, name=name)
    return _input_layer_output(layer)


def _input_layer_output(layer):
    """The KerasTensor an InputLayer makes (one per layer, made on first use)."""
    out = layer.__dict__.get("_keras_output")
    if out is None:
        node = Node(layer, (), {})
        out = KerasTensor(layer.batch_shape, layer.dtype, name=layer.name, node=node)
        node.outputs = out
        _base._set(layer, "_inbound_nodes", [node])
        _base._set(layer, "_keras_output", out)
    return out


# ---- tapegrad ops on KerasTensors
def _function_name(fn):
    """The public name of a tapegrad op or function ("math.add", "reshape") or an operator ("__operators__.add")."""
    if getattr(operator, getattr(fn, "__name__", ""), None) is fn:
        return "__operators__." + fn.__name__
    for prefix, space in (("", tf), ("math.", tf.math), ("nn.", tf.nn), ("linalg.", tf.linalg), ("keras.ops.", tf.keras.ops)):
        name = getattr(fn, "__name__", None)
        if name and getattr(space, name, None) is fn:
            return prefix + name
    op = getattr(fn, "name", None)  # the internal handle a Python-composed op (tf.concat) calls
    if isinstance(op, str) and repr(fn) == f"<op {op}>":
        return "op:" + op
    return None


def _function_of(name):
    if name.startswith("op:"):
        return getattr(_raw, name[3:])
    if name.startswith("__operators__."):
        return getattr(operator, name.split(".", 1)[1])
    space = tf
    for part in name.split("."):
        space = getattr(space, part)
    return space


class TFOpLambda(Layer):
    """A tapegrad op applied to KerasTensors, as a layer of a functional model (TF-Keras's TFOpLambda)."""

    def __init__(self, function, **kwargs):
        if isinstance(function, str):
            function = _function_of(function)
        name = _function_name(function)
        if "name" not in kwargs:
            base = (name or getattr(function, "__name__", "op")).replace("__operators__.", "").replace("op:", "")
            kwargs["name"] = _base.unique_name("tf." + base)
        super().__init__(**kwargs)
        self.function = function
        self._symbol = name

    def __call__(self, *args, **kwargs):
        if any(is_symbolic(a) for a in args) or any(is_symbolic(v) for v in kwargs.values()):
            return call_symbolic(self, args, kwargs)
        kwargs.pop("training", None)
        return self.function(*args, **kwargs)

    def get_config(self):
        if self._symbol is None:
            raise tf.errors.UnimplementedError(None, None, f"{self.name}: the function {self.function!r} is not a "
                                               "public tapegrad op, so the model cannot be saved; wrap it in a "
                                               "Lambda or a Layer subclass")
        return {"function": self._symbol, "name": self.name, "trainable": self.trainable}


def _op_call(fn, args, kwargs):
    return TFOpLambda(fn)(*args, **kwargs)


_dispatch.register_symbolic_type(KerasTensor, _op_call)
_base._SYMBOLIC[:] = [is_symbolic, call_symbolic]


# ---- the graph of a functional model
def _leaves(structure):
    """The tensors of a real output structure (tensor, list/tuple, dict), in _flatten's order."""
    if isinstance(structure, (list, tuple)):
        return [t for v in structure for t in _leaves(v)]
    if isinstance(structure, dict):
        return [t for k in structure for t in _leaves(structure[k])]
    return [structure]


def _check_structure(structure, what):
    flat = _flatten(structure)
    if not flat or len(flat) != len(_leaves(structure)):
        raise TypeError(f"Model: {what} must be a KerasTensor or a list or dict of them (from keras.Input and layer "
                        f"calls), got {structure!r}")
    return flat


class Graph:
    """The nodes between a functional model's inputs and outputs, in an order that runs them."""

    def __init__(self, model, inputs, outputs):
        self.model = model
        self.input_structure = inputs
        self.output_structure = outputs
        self.inputs = _check_structure(inputs, "inputs")
        self.outputs = _check_structure(outputs, "outputs")
        self.nodes = self._order()
        layers = [t._node.layer for t in self.inputs]
        for node in self.nodes:
            if not any(node.layer is l for l in layers):
                layers.append(node.layer)
        self.layers = layers
        self.output_names = [t._node.layer.name for t in self.outputs]
        if isinstance(outputs, dict):
            self.output_names = list(outputs)

    def _order(self):
        known = {id(t) for t in self.inputs}
        order, done = [], set()

        def visit(t, path):
            if id(t) in known:
                return
            node = t._node
            if node is None or isinstance(node.layer, InputLayer):
                raise ValueError(f"Graph disconnected: the model needs the value of {t!r} (made by "
                                 f"{getattr(node, 'layer', None) and node.layer.name}), which is not among its inputs "
                                 f"{[i.name for i in self.inputs]}")
            if id(node) in done:
                return
            if id(node) in path:
                raise ValueError(f"The functional graph has a cycle at layer {node.layer.name}")
            path.add(id(node))
            for i in node.inputs:
                visit(i, path)
            path.discard(id(node))
            done.add(id(node))
            order.append(node)
        for t in self.outputs:
            visit(t, set())
        return order

    def convert_inputs(self, inputs):
        """The user's inputs (an array, a list, or a dict by input name) in the inputs' structure and dtypes."""
        flat = self.flat_inputs(inputs)
        values = [_base._to_input(v, t.dtype) for v, t in zip(flat, self.inputs)]
        values = [tf.cast(v, t.dtype) if v.dtype != t.dtype and not t.dtype.is_floating and v.dtype.is_integer else v
                  for v, t in zip(values, self.inputs)]
        if isinstance(self.input_structure, KerasTensor):
            return values[0]
        if isinstance(self.input_structure, dict):
            return dict(zip(self.input_structure, values))
        return values

    def flat_inputs(self, inputs):
        n = len(self.inputs)
        structure = self.input_structure
        if isinstance(inputs, dict):
            keys = list(structure) if isinstance(structure, dict) else [t.name for t in self.inputs]
            missing = [k for k in keys if k not in inputs]
            if missing:
                raise ValueError(f"{self.model.name}: the inputs dict lacks {missing} (expected keys {keys})")
            return [inputs[k] for k in keys]
        if isinstance(inputs, (list, tuple)) and (n > 1 or (len(inputs) == 1 and not np.isscalar(inputs[0])
                                                             and not isinstance(structure, KerasTensor))):
            if len(inputs) != n:
                raise ValueError(f"{self.model.name}: expected {n} inputs {[t.shape for t in self.inputs]}, got "
                                 f"{len(inputs)}")
            return list(inputs)
        if n != 1:
            raise ValueError(f"{self.model.name}: expected {n} inputs {[t.shape for t in self.inputs]} as a list or "
                             f"dict, got one {type(inputs).__name__}")
        return [inputs]

    def run(self, inputs):
        values = {id(t): v for t, v in zip(self.inputs, self.flat_inputs(inputs))}
        for t, v in zip(self.inputs, values.values()):
            shape = tuple(v.shape)
            if len(shape) != len(t.shape) or any(d is not None and d != e for d, e in zip(t.shape, shape)):
                raise ValueError(f"{self.model.name}: input '{t.name}' expects shape {t.shape}, got {shape}")
        for node in self.nodes:
            out = node.run(values)
            for t, v in zip(_flatten(node.outputs), _leaves(out)):
                values[id(t)] = v
        structure = self.output_structure
        if isinstance(structure, (list, tuple)) and len(structure) == 1:
            structure = structure[0]  # outputs=[y] gives one tensor, as in Keras 3
        return _map(lambda t: values[id(t)], structure)

    # ---- summary and config
    def summary_rows(self):
        """One row per layer: the output shape of its first call here and the inputs of every call."""
        rows = []
        for layer in self.layers:
            nodes = [n for n in layer.__dict__.get("_inbound_nodes", []) if self._owns(n)]
            shapes = [t.shape for t in _flatten(nodes[0].outputs)]
            shape = str(shapes[0]) if len(shapes) == 1 else str(shapes)
            sources = [f"{t._node.layer.name}[{t._keras_history[1]}][{t._index}]" for n in nodes for t in n.inputs]
            rows.append((f"{layer.name} ({type(layer).__name__})", shape, f"{layer.count_params():,}",
                         ", ".join(sources) or "-"))
        return rows

    def _owns(self, node):
        return any(node is n for n in self.nodes) or isinstance(node.layer, InputLayer) and any(
            node.outputs is t for t in self.inputs)

    def get_config(self):

        # a node's index counts this model's nodes of its layer only (a shared layer may have others)
        local = {}
        for layer in self.layers:
            owned = [n for n in layer.__dict__.get("_inbound_nodes", []) if self._owns(n)]
            local.update({id(n): i for i, n in enumerate(owned)})

        def history(t):
            return [t._node.layer.name, local[id(t._node)], t._index]

        def ref(t):
            return {"class_name": "__keras_tensor__", "config": {"shape": list(t.shape), "dtype": t.dtype.name,
                                                                   "keras_history": history(t)}}

        def plain(value):
            if isinstance(value, slice):
                return {"class_name": "__slice__", "config": [plain(value.start), plain(value.stop), plain(value.step)]}
            if value is Ellipsis:
                return {"class_name": "__ellipsis__", "config": None}
            if isinstance(value, KerasTensor):
                return ref(value)
            if isinstance(value, tuple):  # kept apart from lists: x[1, 2] is not x[[1, 2]]
                return {"class_name": "__tuple__", "config": [plain(v) for v in value]}
            if isinstance(value, list):
                return [plain(v) for v in value]
            if isinstance(value, dict):
                return {k: plain(v) for k, v in value.items()}
            return _serialization.serialize_keras_object(value)

        layers = []
        for layer in self.layers:
            entry = _serialization.serialize_keras_object(layer)
            entry["name"] = layer.name
            entry["inbound_nodes"] = [{"args": plain(list(n.args)), "kwargs": plain(n.kwargs)}
                                      for n in layer.__dict__.get("_inbound_nodes", [])
                                      if self._owns(n) and not isinstance(layer, InputLayer)]
            layers.append(entry)

        def names(structure):
            if isinstance(structure, KerasTensor):
                return history(structure)
            if isinstance(structure, dict):
                return {k: names(v) for k, v in structure.items()}
            return [names(v) for v in structure]
        return {"layers": layers, "input_layers": names(self.input_structure),
                "output_layers": names(self.output_structure)}

    @staticmethod
    def from_config(config, custom_objects=None):
        """(inputs, outputs) rebuilt by calling each deserialized layer on its recorded arguments."""
        made = {}  # layer name -> [output structure of each node]
        pending = []
        layers = {}
        for entry in config["layers"]:
            layer_config = {k: v for k, v in entry.items() if k != "inbound_nodes"}
            layer = _serialization.deserialize_keras_object(layer_config, custom_objects)
            layers[entry["name"]] = layer
            if isinstance(layer, InputLayer):
                made[entry["name"]] = [_input_layer_output(layer)]
            else:
                made[entry["name"]] = []
                pending.extend((entry["name"], n) for n in entry.get("inbound_nodes", []))

        def resolve(value):
            if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
                name, node_index, index = value["config"]["keras_history"]
                outs = made.get(name)
                if outs is None or node_index >= len(outs):
                    raise LookupError(name)
                return _flatten(outs[node_index])[index]
            if isinstance(value, dict) and value.get("class_name") == "__slice__":
                return slice(*[resolve(v) for v in value["config"]])
            if isinstance(value, dict) and value.get("class_name") == "__ellipsis__":
                return Ellipsis
            if isinstance(value, dict) and value.get("class_name") == "__tuple__":
                return tuple(resolve(v) for v in value["config"])
            if isinstance(value, list):
                return [resolve(v) for v in value]
            if isinstance(value, dict) and not ("class_name" in value and "config" in value):
                return {k: resolve(v) for k, v in value.items()}
            return _serialization.deserialize_keras_object(value, custom_objects)

        while pending:  # nodes whose inputs exist run first; a pass without progress is an error
            progress = []
            for item in pending:
                name, node = item
                try:
                    args, kwargs = resolve(node["args"]), resolve(node["kwargs"])
                except LookupError:
                    continue
                made[name].append(layers[name](*args, **kwargs))
                progress.append(item)
            if not progress:
                raise ValueError(f"Functional.from_config: cannot connect layers {[n for n, _ in pending]}")
            pending = [p for p in pending if not any(p is q for q in progress)]

        def find(spec):
            if isinstance(spec, dict):
                return {k: find(v) for k, v in spec.items()}
            if spec and isinstance(spec[0], str):
                name, node_index, index = spec
                return _flatten(made[name][node_index])[index]
            return [find(s) for s in spec]
        return find(config["input_layers"]), find(config["output_layers"])
