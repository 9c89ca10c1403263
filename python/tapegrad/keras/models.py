"""keras.models: Model (subclass it and define call) and Sequential; training lives in _training.py."""
import numpy as np

import tapegrad as tf
from tapegrad.keras import _functional
from tapegrad.keras.saving import _export, _model_file, _weights_file as _saving
from tapegrad.keras.saving._serialization import deserialize_keras_object, serialize_keras_object
from tapegrad.keras._training import TrainingMixin
from tapegrad.keras.layers import base as _base
from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.core import InputLayer, KerasInput

__all__ = ["Model", "Functional", "Sequential", "clone_model", "save_model", "load_model"]

save_model, load_model = _model_file.save_model, _model_file.load_model


class Model(TrainingMixin, Layer):
    """A layer with training: ``Model(inputs, outputs)`` over Keras tensors (the functional API, see
    Functional), or subclass it, create layers in ``__init__`` and use them in ``call``.

    >>> x = keras.Input((3,))
    >>> model = keras.Model(x, keras.layers.Dense(1)(x))

    >>> class Net(keras.Model):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.hidden = keras.layers.Dense(8, activation="relu")
    ...         self.out = keras.layers.Dense(1)
    ...     def call(self, inputs, training=None):
    ...         return self.out(self.hidden(inputs))
    """

    def __new__(cls, *args, **kwargs):
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            cls = Functional  # Model(inputs, outputs) is a functional model, as in Keras
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        graph = args or "inputs" in kwargs or "outputs" in kwargs
        if graph:
            names = ("inputs", "outputs", "name", "trainable")
            kwargs = {**dict(zip(names, args)), **kwargs}
            inputs, outputs = kwargs.pop("inputs", None), kwargs.pop("outputs", None)
        super().__init__(**kwargs)
        self._init_training()
        self._graph = None
        if graph:
            self._graph = _functional.Graph(self, inputs, outputs)
            self._layers = self._graph.layers
            _base._STRUCTURE[0] += 1
            self.built = True

    def __call__(self, inputs, *args, **kwargs):
        graph = self.__dict__.get("_graph")
        if graph is not None and not _functional.is_symbolic(inputs):
            inputs = graph.convert_inputs(inputs)
        return Layer.__call__(self, inputs, *args, **kwargs)

    def call(self, inputs, training=None, mask=None):
        if self._graph is None:
            raise NotImplementedError(f"{type(self).__name__}: a Model subclass must define call(), or pass "
                                      "inputs= and outputs= to Model.__init__")
        return self._graph.run(inputs)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if "input_layers" in config and "layers" in config:  # a functional model's config
            return Functional.from_config.__func__(Functional if cls is Model else cls, config, custom_objects)
        return super().from_config(config)

    def _graph_part(self, what):
        if what in self.__dict__:  # a subclass's own attribute of that name
            return self.__dict__[what]
        graph = self._symbolic_graph()
        if graph is None:
            raise AttributeError(f"{self.name}: a model has {what} only when built by the functional API "
                                 "(Model(inputs, outputs)) or, for a Sequential, from a known input shape")
        return getattr(graph, {"input": "input_structure", "output": "output_structure"}.get(what, what))

    def _symbolic_graph(self):
        return self.__dict__.get("_graph")

    def _set_own(self, what, value):
        self.__dict__[what] = value

    @property
    def input_shape(self):
        """The shape of the model's input (None where unknown), a list of them for several inputs."""
        return _one_or_list([t.shape for t in self._graph_part("inputs")])

    @property
    def output_shape(self):
        """The shape of the model's output (None where unknown), a list of them for several outputs;
        a subclassed model's is its last call's."""
        if self._symbolic_graph() is None:
            return Layer.output_shape.fget(self)
        return _one_or_list([t.shape for t in self._graph_part("outputs")])

    inputs = property(lambda self: self._graph_part("inputs"), lambda self, v: self._set_own("inputs", v))
    outputs = property(lambda self: self._graph_part("outputs"), lambda self, v: self._set_own("outputs", v))
    input = property(lambda self: self._graph_part("input"), lambda self, v: self._set_own("input", v))
    output = property(lambda self: self._graph_part("output"), lambda self, v: self._set_own("output", v))

    @property
    def layers(self):
        return list(self._layers)

    def get_layer(self, name=None, index=None):
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[l.name for l in self.layers]}")

    def _checkpoint_children(self):
        """A functional model's layers are "layer-<i>" in a checkpoint, as in TF-Keras (the InputLayers first)."""
        graph = self.__dict__.get("_graph")
        extra = [] if graph is None else [(f"layer-{i}", layer) for i, layer in enumerate(graph.layers)]
        return super()._checkpoint_children() + extra

    def compile(self, *args, **kwargs):
        super().compile(*args, **kwargs)
        object.__setattr__(self, "_compile_args", (args, kwargs))

    def _compile_config(self):
        """The compile() arguments, serialized for a model file (the optimizer as it is now)."""
        args, kwargs = self.__dict__.get("_compile_args", ((), {}))
        names = ("optimizer", "loss", "loss_weights", "metrics", "weighted_metrics")
        config = {**dict(zip(names, args)), **{k: v for k, v in kwargs.items() if k in names}}
        config["optimizer"] = self.optimizer
        return {k: serialize_keras_object(v) for k, v in config.items() if v is not None}

    def _saved_build_shape(self):
        return self.__dict__.get("_build_input_shape")

    def _build_from_shape(self, input_shape):
        """Builds the model by calling it on zeros of ``input_shape`` (one row for the batch axis)."""
        self(_model_file._zeros_for(input_shape, self.dtype.as_numpy_dtype), training=False)
        self._clear_losses()

    export = _export.export  # Keras 3's model.export (Note [Keras export] in saving/_export.py)

    def save(self, filepath, overwrite=True, **kwargs):
        """Saves the whole model (config, weights, compile arguments, optimizer state) to a ``.keras`` file;
        see Note [Model file format] in saving/_model_file.py."""
        _model_file.save_model(self, filepath, overwrite=overwrite, **kwargs)

    def save_weights(self, filepath, overwrite=True):
        """Saves ``weights`` (and a compiled model's optimizer state) to a Keras 3 ``.weights.h5`` file (Note
        [Keras 3 weights layout] in saving/_keras_h5.py); other names get tapegrad's older ``.weights.npz``
        layout (Note [Weights file format] in _saving.py)."""
        _saving.save_weights(self, filepath, overwrite)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Loads weights saved by ``save_weights`` (tapegrad's or Keras 3's) into this (built) model, checking
        the whole file before any variable changes."""
        _saving.load_weights(self, filepath)

    def summary(self, line_length=None, positions=None, print_fn=None, **kwargs):
        """Prints one row per layer (name, type, output shape, parameter count; for a functional model
        also the layers each is connected to) and the totals."""
        print_fn = print_fn or print
        graph = self.__dict__.get("_graph")
        if graph is not None:
            rows = [("Layer (type)", "Output Shape", "Param #", "Connected to")] + graph.summary_rows()
        else:
            rows = [("Layer (type)", "Output Shape", "Param #")]
            for layer, shape in zip(self.layers, self._summary_shapes()):
                params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
                rows.append((f"{layer.name} ({type(layer).__name__})", str(shape or "?"), params))
        cols = len(rows[0])
        widths = [max(len(r[i]) for r in rows) + 2 for i in range(cols)]
        line = "─" * sum(widths)
        fmt = lambda r: (r[0].ljust(widths[0]) + r[1].ljust(widths[1]) + r[2].rjust(widths[2]) +  # noqa: E731
                         ("  " + r[3] if cols > 3 else ""))
        out = [f'Model: "{self.name}"', line, fmt(rows[0]), line] + [fmt(r) for r in rows[1:]] + [line]
        out += [f" Total params: {_params(self.weights)}",
                f" Trainable params: {_params(self.trainable_weights)}",
                f" Non-trainable params: {_params(self.non_trainable_weights)}", line]
        for text in out:
            print_fn(text)

    def _summary_shapes(self):
        """The output shape of each layer in ``layers`` for summary (None when unknown)."""
        return [layer._output_shape for layer in self.layers]


def _one_or_list(shapes):
    return shapes[0] if len(shapes) == 1 else shapes


def _params(weights):
    """"1,234 (4.82 KB)": the number of values and their size in memory, as Keras 3's summary writes it."""
    count = int(sum(np.prod(w.shape) for w in weights))
    size = float(sum(np.prod(w.shape) * w.dtype.as_numpy_dtype().itemsize for w in weights))
    unit = 0
    while size >= 1024 and unit < 5:
        size, unit = size / 1024, unit + 1
    return f"{count:,} ({size:.2f} {('B', 'KB', 'MB', 'GB', 'TB', 'PB')[unit]})"


class Functional(Model):
    """A model made by ``Model(inputs, outputs)``: a graph of layers called on ``keras.Input`` tensors
    (Note [Functional graphs] in _functional.py)."""

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        super().__init__(inputs=inputs, outputs=outputs, name=name, trainable=trainable, **kwargs)

    def get_config(self):
        """{"name", "trainable", "layers": [each layer serialized with its "inbound_nodes"], "input_layers",
        "output_layers"} as Keras 3 writes it."""
        return {"name": self.name, "trainable": self.trainable, **self._graph.get_config()}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        inputs, outputs = _functional.Graph.from_config(config, custom_objects)
        return cls(inputs=inputs, outputs=outputs, name=config.get("name"), trainable=config.get("trainable", True))

    def _saved_build_shape(self):
        return None  # a functional model is built when it is made

    def _build_from_shape(self, input_shape):
        pass


class Sequential(Model):
    """A stack of layers, each feeding the next.

    Args:
      layers: a list of layers (the first may be an InputLayer or ``keras.Input(shape)``).
      name: the model's name.

    When the input shape is known (InputLayer, Input, or ``input_shape=`` on the first layer; None
    axes allowed, as in a sequence model) the model is built at once, as Keras 3 does: its layers are
    called on a Keras tensor of that shape (Note [Functional graphs] in _functional.py), which creates
    their weights and gives ``input_shape``, ``output_shape`` and summary's shapes with the unknown axes
    None. Otherwise it is built on its first call.

    >>> model = keras.Sequential([keras.Input(shape=(None, 8)), keras.layers.LSTM(4), keras.layers.Dense(1)])
    >>> model.output_shape
    (None, 1)
    """

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        self._input_shape = None
        self._version = 0  # bumped by add/pop: the symbolic graph is valid while it is unchanged
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_build_from_shape()

    def __call__(self, inputs, *args, **kwargs):
        if not self.built and isinstance(inputs, _functional.KerasTensor):
            self.build(inputs.shape)  # a nested Sequential builds from the symbolic shape, None axes kept
        return super().__call__(inputs, *args, **kwargs)

    def add(self, layer, rebuild=True):
        if isinstance(layer, _functional.KerasTensor):
            layer = layer._node.layer if isinstance(layer._node.layer, InputLayer) else layer
        if isinstance(layer, KerasInput):
            layer = InputLayer(shape=layer.shape[1:], batch_size=layer.shape[0], dtype=layer.dtype)
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add: expected a Layer, got {type(layer).__name__}")
        if isinstance(layer, InputLayer):
            if self._layers:
                raise ValueError("Sequential: an InputLayer can only be the first layer")
            self._input_shape = layer.batch_shape
        elif not self._layers and layer._input_shape_arg is not None:
            self._input_shape = layer._input_shape_arg
        self._layers.append(layer)
        self._changed()
        if not isinstance(layer, InputLayer):  # checkpoint key "layer-<i>" (train/_graph.py)
            self._restore_child(f"layer-{len(self.layers) - 1}", layer)
        if rebuild:
            self._maybe_build_from_shape()

    def pop(self, rebuild=True):
        layer = self._layers.pop()
        self._changed()
        if rebuild:
            self._maybe_build_from_shape()
        return layer

    def _changed(self):
        _base._STRUCTURE[0] += 1
        self._version += 1
        self.built = False

    @property
    def layers(self):
        return list(self._stack())

    def _stack(self):
        """The layers without the InputLayer, cached while the structure is unchanged (read every call)."""
        cache = self.__dict__.get("_stack_cache")
        if cache is None or cache[0] != _base._STRUCTURE[0]:
            cache = (_base._STRUCTURE[0], [l for l in self._layers if not isinstance(l, InputLayer)])
            object.__setattr__(self, "_stack_cache", cache)
        return cache[1]

    def _flat_layers(self):
        return self._stack()

    def _graph_part(self, what):
        if what not in self.__dict__ and self._symbolic_graph() is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet: give it a keras.Input "
                                 "or input_shape=, build() it or call it")
        return super()._graph_part(what)

    def _known_input_shape(self):
        """The declared input shape, else the one the model was built with; None before either."""
        return self._input_shape if self._input_shape is not None else self.__dict__.get("_build_input_shape")

    def _symbolic_graph(self):
        """The layers called on ``keras.Input(input shape)``, made when the model is built from a known shape or
        on first use of inputs/outputs (for ``keras.Model(seq.inputs, seq.layers[i].output)``); None while the
        input shape is unknown. Made once per structure, so every layer's first node belongs to it."""
        shape = self._known_input_shape()
        cache = self.__dict__.get("_symbolic_cache")
        if cache is not None and cache[0] == (self._version, shape):
            return cache[1]
        if shape is None or not self.layers:
            return None
        first = self._layers[0]
        x = _functional._input_layer_output(first) if isinstance(first, InputLayer) and first.batch_shape == shape \
            else _functional.Input(batch_shape=shape, dtype=self.__dict__.get("_build_input_dtype", first.dtype))
        y = x
        for layer in self._stack():
            y = layer(y)
        graph = _functional.Graph(self, x, y)
        object.__setattr__(self, "_symbolic_cache", ((self._version, shape), graph))
        return graph

    def _summary_shapes(self):
        graph = self._symbolic_graph() if self.built else None
        if graph is None:
            return super()._summary_shapes()
        return [node.outputs.shape if isinstance(node.outputs, _functional.KerasTensor) else None
                for node in graph.nodes]

    def _checkpoint_children(self):
        return super()._checkpoint_children() + [(f"layer-{i}", layer) for i, layer in enumerate(self.layers)]

    def _maybe_build_from_shape(self):
        if self._known_input_shape() is not None and self.layers:
            self._symbolic_graph()  # builds every layer; Note [Functional graphs]
            self.built = True

    def build(self, input_shape=None):
        """Builds every layer from ``input_shape`` (the batch axis and others may be None); a model with an
        InputLayer is built from its shape."""
        if input_shape is not None and self._input_shape is not None and tuple(input_shape) != self._input_shape:
            raise ValueError(f"Sequential model '{self.name}' has already been configured to use input shape "
                             f"{self._input_shape}. You cannot build it with input_shape {tuple(input_shape)}")
        if input_shape is None and self._known_input_shape() is None:
            raise ValueError(f"Sequential model '{self.name}': build() needs an input_shape (it has no Input)")
        if input_shape is not None and self._input_shape is None:
            object.__setattr__(self, "_build_input_shape", tuple(input_shape))
        self._maybe_build_from_shape()
        self.built = True

    def _maybe_build(self, inputs):
        if isinstance(inputs, tf.Tensor):
            object.__setattr__(self, "_build_input_shape", (None,) + tuple(inputs.shape[1:]))
            object.__setattr__(self, "_build_input_dtype", inputs.dtype)
        self.built = True

    def _saved_build_shape(self):
        return self._known_input_shape()

    def _build_from_shape(self, input_shape):
        self.build(tuple(input_shape))

    def call(self, inputs, training=None):
        x = inputs
        for layer in self._stack():
            x = layer(x)
        return x

    def get_config(self):
        """{"name", "trainable", "layers": [each layer serialized, an InputLayer first when given]}."""
        return {"name": self.name, "trainable": self.trainable,
                "layers": [serialize_keras_object(layer) for layer in self._layers]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layers = [deserialize_keras_object(c, custom_objects) for c in config.pop("layers", [])]
        return cls(layers=layers, **{k: v for k, v in config.items() if k in ("name", "trainable")})


def clone_model(model, input_tensors=None, clone_function=None, call_function=None, recursive=False, **kwargs):
    """A new model of the same architecture with new weights (its config rebuilt, as Keras 3 does)."""
    if input_tensors is not None or clone_function is not None or call_function is not None:
        raise tf.errors.UnimplementedError(None, None, "clone_model: input_tensors, clone_function and "
                                           "call_function are not supported")
    if not isinstance(model, Model):
        raise ValueError(f"clone_model: expected a keras Model, got {type(model).__name__}")
    return deserialize_keras_object(serialize_keras_object(model))
