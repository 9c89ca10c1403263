"""keras.layers.Layer: weights, lazy build, losses, sublayer tracking and the ``training`` call context.

Note [Weight caches]: ``weights`` and ``trainable_weights`` are read every training step, so each
layer caches its flattened lists, keyed by the global structure version. A variable's own
``trainable`` flag is still checked at every access.

Note [Training propagation]: the outermost ``layer(x, training=...)`` call sets the call context; a
nested layer called with ``training=None`` takes the context's value (False when nobody set it), so
``model(X, training=True)`` reaches every Dropout and BatchNormalization without threading the flag.
"""
import inspect
import re

import numpy as np

import tapegrad as tf

from tapegrad.keras import _masking, backend, constraints, initializers, regularizers
from tapegrad.keras.layers import _autocast
from tapegrad.keras.saving._serialization import AutoConfig

__all__ = ["Layer", "InputSpec"]

_Tensor = tf.Tensor

_NAME_COUNTS = {}
# Bumped whenever any layer's structure changes (a weight or sublayer added, trainable flipped): the
# flattened weight lists each layer caches are valid while it is unchanged. See Note [Weight caches].
_STRUCTURE = [0]
_CONTEXT = []  # stack of the training flags (bool or None) of the calls in progress; Note [Training propagation]
_SYMBOLIC = []  # (is_symbolic, call_symbolic) from keras/_functional.py: a call on Keras tensors records a node
_set = object.__setattr__  # bypasses Layer.__setattr__ for private bookkeeping on the call path


def _snake(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()  # Keras's rule: Conv2D -> conv2d


def unique_name(base):
    n = _NAME_COUNTS.get(base, 0)
    _NAME_COUNTS[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


class InputSpec:
    def __init__(self, ndim=None, min_ndim=None, axes=None, shape=None, dtype=None):
        self.ndim, self.min_ndim, self.axes, self.shape, self.dtype = ndim, min_ndim, axes or {}, shape, dtype


def _unique(variables):
    out, seen = [], set()
    for w in variables:
        if id(w) not in seen:
            seen.add(id(w))
            out.append(w)
    return out


def _to_input(x, dtype):
    if type(x) is np.ndarray and dtype is not None:  # the common case: a NumPy batch
        if x.dtype.kind == "f" and x.dtype != dtype.as_numpy_dtype:
            x = x.astype(dtype.as_numpy_dtype)
        return tf.convert_to_tensor(x)
    if isinstance(x, tf.Tensor):
        return tf.cast(x, dtype) if x.dtype.is_floating and x.dtype != dtype else x
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], tf.Tensor):
        return type(x)(x)
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], np.ndarray):  # a merge layer's list of arrays
        return type(x)(_to_input(v, dtype) for v in x)
    if isinstance(x, dict):  # a functional model's named inputs, converted by the model
        return x
    arr = np.asarray(x)
    if arr.dtype.kind == "f" and dtype is not None and arr.dtype != np.dtype(dtype.as_numpy_dtype):
        arr = arr.astype(dtype.as_numpy_dtype)
    return tf.constant(arr)


class Layer(_autocast.PolicyProperties, tf.Module, AutoConfig):
    """Base layer: subclass and define ``build(input_shape)`` (create weights) and ``call(inputs)``.

    A layer is a ``tf.Module``: ``name_scope``, ``submodules`` and checkpoint tracking come from there;
    weights created while the layer builds are named in its scope ("dense/kernel:0").

    Args:
      trainable: whether the layer's weights are trained.
      name: the layer's name (unique default from the class name).
      dtype: a dtype or dtype policy ("mixed_float16"); the global policy or floatx() (float32) by default.
      input_shape: (Keras 2 style) the input shape without the batch axis, for a model's first layer.

    >>> class Scale(keras.layers.Layer):
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
    ...     def call(self, x):
    ...         return x * self.w
    """

    # bookkeeping that tf.Module's traversal skips (the constructor's arguments, the caches)
    _MODULE_IGNORED = frozenset(("_deferred_restorations", "_auto_config", "_weight_cache", "_loss_cache",
                                 "_stack_cache"))

    def __init__(self, trainable=True, name=None, dtype=None, input_shape=None, batch_input_shape=None,
                 input_dim=None, **kwargs):
        self._tracking = False
        _autocast.init_policy(self, dtype, kwargs.pop("autocast", True))
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unexpected keyword argument(s) {sorted(kwargs)}")
        self._init_module_name(name or unique_name(_snake(type(self).__name__)))
        self._weight_keys = []  # (checkpoint key, variable) per add_weight; see train/_graph.py
        self._trainable = trainable
        self._trainable_variables, self._non_trainable_variables = [], []
        self._layers = []
        self._losses = []
        self.built = False
        self.input_spec = None
        self._output_shape = None
        self._last_out_shape = None
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        self._input_shape_arg = tuple(batch_input_shape) if batch_input_shape is not None else \
            (None,) + tuple(input_shape) if input_shape is not None else None
        parameters = inspect.signature(self.call).parameters
        self._call_takes_training = "training" in parameters
        self._call_takes_mask = "mask" in parameters
        # (position, name) of each call argument X with an X_mask parameter (attention's query, value, key)
        names = list(parameters)
        self._mask_args = [(i, n) for i, n in enumerate(names) if n + "_mask" in parameters]
        self._computes_mask = type(self).compute_mask is not Layer.compute_mask
        self._tracking = True

    # ---- attribute tracking: sublayers assigned as attributes (or in lists) are tracked.
    def __setattr__(self, name, value):
        if name[0] != "_" and getattr(self, "_tracking", False):
            for item in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(item, Layer) and item is not self and not any(item is l for l in self._layers):
                    self._layers.append(item)
                    _STRUCTURE[0] += 1
        tf.Module.__setattr__(self, name, value)

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        object.__setattr__(self, "_name", value)

    # ---- weights
    def add_weight(self, shape=None, initializer="glorot_uniform", dtype=None, trainable=True, regularizer=None,
                   constraint=None, name=None, autocast=True, aggregation=None, **kwargs):
        """Creates a Variable owned by the layer (Keras 3 order of arguments; name by keyword is best)."""
        shape = tuple(int(d) for d in (shape or ()))
        dt = tf.as_dtype(dtype or self._dtype)
        init = initializers.get(initializer) or initializers.get("glorot_uniform")
        value = init(shape, dtype=dt)
        if value.shape != shape:
            raise ValueError(f"{self.name}: the initializer of '{name}' returned shape {value.shape}, expected {shape}")
        var = tf.Variable(value, trainable=trainable, name=name or "variable", dtype=dt,
                          constraint=constraints.get(constraint))
        var.regularizer = regularizers.get(regularizer)
        var.path = f"{self.name}/{name or 'variable'}"
        var.autocast = autocast  # read in the compute dtype during call (Note [Mixed precision])
        (self._trainable_variables if trainable else self._non_trainable_variables).append(var)
        _STRUCTURE[0] += 1
        key, taken = name or "variable", {k for k, _ in self._weight_keys}
        key = next(f"{key}_{i}" if i else key for i in range(len(taken) + 1) if (f"{key}_{i}" if i else key) not in taken)
        self._weight_keys.append((key, var))
        self._restore_child(key, var)  # a checkpoint restored before this weight existed
        return var

    add_variable = add_weight

    def _checkpoint_children(self):
        """Weights by add_weight name, then public attributes (Note [Checkpoint keys] in train/_graph.py)."""
        return list(self._weight_keys) + [(k, v) for k, v in sorted(vars(self).items()) if k[0] != "_"]

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)
        _STRUCTURE[0] += 1
        for layer in self._layers:
            layer.trainable = value

    @property
    def dtype(self):
        return self._dtype

    def _flat_layers(self):
        return list(self._layers)

    def _cached_lists(self):
        """(all weights, weights of trainable layers) flattened; see Note [Weight caches]."""
        cache = self.__dict__.get("_weight_cache")
        if cache is not None and cache[0] == _STRUCTURE[0]:
            return cache[1], cache[2]
        every = _unique(self._trainable_variables + self._non_trainable_variables +
                        [w for layer in self._flat_layers() for w in layer.weights])
        candidates = [] if not self._trainable else _unique(
            self._trainable_variables + [w for layer in self._flat_layers() for w in layer._cached_lists()[1]])
        object.__setattr__(self, "_weight_cache", (_STRUCTURE[0], every, candidates))
        return every, candidates

    @property
    def weights(self):
        """Own trainable, then own non-trainable, then each sublayer's weights (no duplicates)."""
        return list(self._cached_lists()[0])

    variables = weights

    @property
    def trainable_weights(self):
        return [w for w in self._cached_lists()[1] if w.trainable]

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self):
        train = {id(w) for w in self.trainable_weights}
        return [w for w in self.weights if id(w) not in train]

    non_trainable_variables = non_trainable_weights

    def count_params(self):
        return int(sum(np.prod(w.shape) for w in self.weights))

    def get_weights(self):
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights):
        params = self.weights
        if len(weights) != len(params):
            raise ValueError(f"{self.name}: set_weights got {len(weights)} arrays for {len(params)} weights")
        for var, value in zip(params, weights):
            value = np.asarray(value)
            if tuple(value.shape) != tuple(var.shape):
                raise ValueError(f"{self.name}: weight '{getattr(var, 'path', var.name)}' has shape "
                                 f"{tuple(var.shape)}, got an array of shape {value.shape}")
            var.assign(value.astype(var.dtype.as_numpy_dtype))

    # ---- losses
    def add_loss(self, loss):
        """Adds a scalar loss (e.g. an activity penalty) to ``losses``; cleared at each outermost call."""
        self._losses.append(tf.convert_to_tensor(loss))

    @property
    def losses(self):
        """Losses added in the last call, then one regularization loss per regularized weight, recursively."""
        out = []
        for layer, regularized in self._loss_plan():
            out.extend(layer._losses)
            for w in regularized:
                if w.trainable:
                    out.append(w.regularizer(w))
        return out

    def _loss_plan(self):
        """[(layer, its weights with a regularizer)] in ``losses`` order, cached like the weight lists."""
        cache = self.__dict__.get("_loss_cache")
        if cache is not None and cache[0] == _STRUCTURE[0]:
            return cache[1]
        plan = [(self, [w for w in self._trainable_variables + self._non_trainable_variables
                        if getattr(w, "regularizer", None) is not None])]
        for layer in self._flat_layers():
            plan.extend(layer._loss_plan())
        _set(self, "_loss_cache", (_STRUCTURE[0], plan))
        return plan

    def _clear_losses(self):
        for layer, _ in self._loss_plan():
            if layer._losses:
                _set(layer, "_losses", [])

    # ---- build and call
    def build(self, input_shape):
        self.built = True

    def call(self, inputs, *args, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def _maybe_build(self, inputs):
        if self.built:
            return
        shapes = [t.shape for t in inputs] if isinstance(inputs, (list, tuple)) else inputs.shape
        shapes = tuple(shapes) if isinstance(shapes, list) else tuple(shapes)
        _set(self, "_build_input_shape", shapes)  # for a model file's build_config
        with tf.name_scope(self.name):
            self.build(shapes)
        self.built = True

    def __call__(self, inputs, *args, training=None, **kwargs):
        if type(inputs) is not _Tensor and _SYMBOLIC and _SYMBOLIC[0](inputs):  # Note [Functional graphs]
            return _SYMBOLIC[1](self, (inputs,) + args, {**kwargs, "training": training})
        context = _CONTEXT
        if context:
            if training is None:
                training = context[-1]
        else:
            self._clear_losses()
        context.append(training)
        in_mask = _masking.mask_of(inputs) if _masking.masks_in_use() else None  # Note [Keras masks]
        try:
            if type(inputs) is not _Tensor or inputs.dtype is not self._compute_dtype:  # DTypes are unique
                inputs = _to_input(inputs, self._compute_dtype)
            if not self.built:
                self._maybe_build(inputs)
            if self._call_takes_training:
                kwargs["training"] = bool(training)
            if in_mask is not None and self._call_takes_mask and kwargs.get("mask") is None:
                kwargs["mask"] = in_mask
            if self._mask_args and _masking.masks_in_use():
                self._fill_mask_args((inputs,) + args, kwargs)
            with _autocast.NO_CAST if self._compute_dtype is self._dtype else _autocast.weights_cast(self):
                out = self.call(inputs, *args, **kwargs)
        finally:
            context.pop()
        if in_mask is not None or self._computes_mask:
            self._set_output_mask(inputs, out, in_mask)
        if isinstance(out, _Tensor):
            shape = out.shape
            if shape != self._last_out_shape:
                _set(self, "_last_out_shape", shape)
                _set(self, "_output_shape", (None,) + tuple(shape[1:]) if len(shape) else ())
        return out

    # ---- masks (Note [Keras masks] in keras/_masking.py)
    supports_masking = False  # the input's mask passes through to the output unchanged

    def compute_mask(self, inputs, mask=None):
        """The output's mask from the inputs and their mask: the mask itself for a layer that
        supports masking, else None."""
        return mask if self.supports_masking else None

    def _fill_mask_args(self, positional, kwargs):
        """X_mask from argument X's mask where not given (Keras 3: attention's value_mask, key_mask)."""
        for i, name in self._mask_args:
            value = positional[i] if i < len(positional) else kwargs.get(name)
            mask = _masking.get_keras_mask(value) if value is not None else None
            if mask is not None and kwargs.get(name + "_mask") is None:
                kwargs[name + "_mask"] = mask

    def _set_output_mask(self, inputs, out, in_mask):
        if not self._computes_mask and not self.supports_masking:
            if in_mask is not None and not self._call_takes_mask:
                _masking.warn_dropped(self)
            return
        first = out[0] if isinstance(out, (list, tuple)) and out else out
        if isinstance(first, _Tensor) and _masking.get_keras_mask(first) is None:  # call may have set it
            _masking.set_keras_mask(first, self.compute_mask(inputs, in_mask))

    # ---- the functional API (Note [Functional graphs] in keras/_functional.py)
    def _first_node(self, what):
        nodes = self.__dict__.get("_inbound_nodes")
        if not nodes:
            raise AttributeError(f"The layer {self.name} has never been called on Keras tensors and thus has no "
                                 f"defined {what}.")
        return nodes[0]

    @property
    def input(self):
        """The Keras tensor(s) of the layer's first call on Keras tensors."""
        if "input" in self.__dict__:  # a subclass's own attribute of that name
            return self.__dict__["input"]
        args = self._first_node("input").args
        return args[0] if args else self.output

    @input.setter
    def input(self, value):
        self.__dict__["input"] = value

    @property
    def output(self):
        """The Keras tensor(s) the layer's first call on Keras tensors returned."""
        if "output" in self.__dict__:
            return self.__dict__["output"]
        return self._first_node("output").outputs

    @output.setter
    def output(self, value):
        self.__dict__["output"] = value

    @property
    def output_shape(self):
        if self._output_shape is None:
            raise AttributeError(f"The layer '{self.name}' has not been called yet, so it has no output shape")
        return self._output_shape

    def get_config(self):
        """The constructor's arguments with the current name, trainable and dtype; Note [Keras object configs]."""
        return {**self._constructor_config(), "name": self.name, "trainable": self.trainable, "dtype": self._dtype_policy.name}

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"
