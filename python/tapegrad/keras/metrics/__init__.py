"""keras.metrics: stateful metrics (update_state / result / reset_state) that reuse the loss functions."""
import math

import numpy as np

import tapegrad as tf

from tapegrad.keras import _masking, backend
from tapegrad.keras import initializers as _initializers
from tapegrad.keras import losses as _losses
from tapegrad.keras.saving._serialization import AutoConfig

__all__ = ["Metric", "Reduce", "Mean", "Sum", "MeanMetricWrapper", "MeanAbsoluteError", "MeanSquaredError",
           "RootMeanSquaredError", "MeanAbsolutePercentageError", "Accuracy", "BinaryAccuracy",
           "CategoricalAccuracy", "SparseCategoricalAccuracy", "BinaryCrossentropy", "CategoricalCrossentropy",
           "SparseCategoricalCrossentropy", "get", "binary_accuracy", "categorical_accuracy",
           "sparse_categorical_accuracy", "accuracy", "MeanSquaredLogarithmicError", "mean_squared_error",
           "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_logarithmic_error", "huber",
           "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy", "mse", "mae", "mape",
           "msle", "MSE", "MAE", "MAPE", "MSLE"]

# The loss functions keras.metrics exposes (Keras 3), and tf.keras.metrics's short aliases: the same objects.
mean_squared_error = mse = MSE = _losses.mean_squared_error
mean_absolute_error = mae = MAE = _losses.mean_absolute_error
mean_absolute_percentage_error = mape = MAPE = _losses.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = _losses.mean_squared_logarithmic_error
huber = _losses.huber
binary_crossentropy = _losses.binary_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy


class Metric(AutoConfig):
    """Base class. Subclasses define ``update_state`` and ``result`` over variables from ``add_variable``.

    The state lives in non-trainable Variables updated with tensor ops (``assign_add``), so a
    metric updates eagerly and inside a ``tf.function`` alike (there the update is an assignment
    in the graph and runs at every call). Calling a metric updates it and returns the new result.
    """

    def __init__(self, name=None, dtype=None):
        self.name = name or _losses._snake(type(self).__name__)
        self.dtype = tf.as_dtype(dtype or backend.floatx())
        self._variables = []

    def add_variable(self, shape=(), initializer="zeros", dtype=None, name=None, **kwargs):
        """A non-trainable Variable of the metric's state (Keras 3 argument order)."""
        dt = tf.as_dtype(dtype) if dtype is not None else self.dtype
        shape = tuple(int(d) for d in (shape or ()))
        if initializer in (None, "zeros", "Zeros"):
            value = np.zeros(shape, dt.as_numpy_dtype)
        else:
            value = tf.cast(tf.convert_to_tensor(_initializers.get(initializer)(shape, dtype=dt)), dt)
        v = tf.Variable(value, trainable=False, name=name or "metric_var")
        self._variables.append(v)
        return v

    def add_weight(self, name=None, shape=(), initializer="zeros", dtype=None, **kwargs):
        """``add_variable`` with the Keras 2 argument order (``add_weight("total", initializer="zeros")``)."""
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype, name=name)

    @property
    def variables(self):
        return list(self._variables)

    weights = variables

    @property
    def trainable_variables(self):
        return []

    @property
    def non_trainable_variables(self):
        return list(self._variables)

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def reset_state(self):
        """Sets every state variable to zeros (inside a tf.function: an assignment in the graph)."""
        for v in self._variables:
            v.assign(tf.zeros(v.shape, v.dtype))

    def reset_states(self):
        """The Keras 2 name of ``reset_state``."""
        self.reset_state()

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        """The constructor's arguments (Note [Keras object configs]) with the name and dtype."""
        config = self._constructor_config() if self.__dict__.get("_auto_config") is not None else {}
        return {**config, "name": self.name, "dtype": self.dtype.name}

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


_F32, _F64 = tf.float32, tf.float64


def _f64(x):
    """x as a float64 tensor; a tensor (or a traced tensor) is cast in an op, anything else converted here."""
    if isinstance(x, tf.Tensor):
        return tf.cast(x, _F64)
    return tf.constant(x, dtype=_F64)


def _batch_total(values):
    """The sum of a batch of values as a float64 0-d tensor. float32/float64 tensors are summed in their
    own dtype (as NumPy's ``sum`` did before the state moved into Variables), other values in float64."""
    if isinstance(values, tf.Tensor) and _sums_in_own_dtype(values):
        return _f64(_total(values))
    return _total(_f64(values))


def _total(v):
    return tf.reduce_sum(v) if v.ndim else v


def _sums_in_own_dtype(t):
    dt = t.dtype
    return dt is _F32 or dt is _F64  # DTypes are unique objects


def _size(values):
    if isinstance(values, tf.Tensor):
        return math.prod(values.shape) if values.ndim else 1
    return np.size(values)


def _weighted(values, sample_weight):
    """(values * weights, weights broadcast to the values), float64 tensors, with Keras's rank fixes.

    Trailing unit axes are dropped from the weights (and from the values when the weights have
    fewer axes); the remaining weights get trailing unit axes and must broadcast to the values.
    """
    v, w = _f64(values), _f64(sample_weight)
    vs, ws = list(v.shape), list(w.shape)
    while len(ws) > len(vs) and ws[-1] == 1:
        ws.pop()
    while len(vs) > len(ws) and vs[-1] == 1 and ws:
        vs.pop()
    ws_full = ws + [1] * (len(vs) - len(ws))
    try:
        ok = list(np.broadcast_shapes(tuple(ws_full), tuple(vs))) == vs
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"sample_weight of shape {tuple(w.shape)} does not broadcast to values of shape "
                         f"{tuple(v.shape)}")
    if vs != list(v.shape):
        v = tf.reshape(v, vs)
    if ws_full != list(w.shape):
        w = tf.reshape(w, ws_full)
    if ws_full != vs:
        w = tf.broadcast_to(w, vs)
    return v * w, w


class Reduce(Metric):
    """State: ``total`` (and for a mean ``count``), float64 Variables, so long runs add up without float32
    rounding; ``result`` rounds to the metric's dtype."""

    def __init__(self, reduction="sum", name=None, dtype=None):
        super().__init__(name, dtype)
        self.reduction = reduction
        self._float_result = self.dtype.is_floating
        self.total = self.add_variable(dtype=_F64, name="total")
        self.count = self.add_variable(dtype=_F64, name="count") if reduction == "weighted_mean" else None

    def update_state(self, values, sample_weight=None):
        if sample_weight is None:
            if tf.inside_function():
                self.total.assign_add(_batch_total(values))
                if self.count is not None:
                    # tf.size: a run-time value in a graph that serves several batch sizes
                    self.count.assign_add(tf.cast(tf.size(values), _F64))
                return
            # Eager and unweighted (the training loop's case): the same sums as _batch_total, read
            # back as Python floats, which the Variables add (no Cast op, no count tensor).
            if isinstance(values, tf.Tensor) and values.ndim == 0:  # a loss: its value is the sum
                total, size = float(values), 1
            elif isinstance(values, tf.Tensor) and _sums_in_own_dtype(values):
                size = _size(values)
                total = float(values if size == 1 else tf.reduce_sum(values))
            else:
                v = np.asarray(values.numpy() if isinstance(values, tf.Tensor) else values, np.float64)
                total, size = float(v.sum()), v.size
            self.total.assign_add(total)
            if self.count is not None:
                self.count.assign_add(float(size))
            return
        vw, w = _weighted(values, sample_weight)
        self.total.assign_add(_total(vw))
        if self.count is not None:
            self.count.assign_add(_total(w))

    def _eager_result(self, value):
        """A 0-d tensor of the metric's dtype from a Python float: the float64 -> dtype rounding of a Cast."""
        if self._float_result:
            return tf.convert_to_tensor(value, dtype=self.dtype)
        return tf.constant(value, dtype=self.dtype)


class Sum(Reduce):
    """The (weighted) sum of all values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name, dtype)

    def result(self):
        if not tf.inside_function():  # eager: no Cast op, the same float64 -> dtype rounding
            return self._eager_result(float(self.total))
        return tf.cast(self.total, self.dtype)


class Mean(Reduce):
    """The (weighted) mean of all values seen: total / count (0 before any value)."""

    def __init__(self, name="mean", dtype=None):
        super().__init__("weighted_mean", name, dtype)

    def result(self):
        if not tf.inside_function():  # eager: the same float64 division and rounding without four ops
            count = float(self.count)
            return self._eager_result(float(self.total) / count if count else 0.0)
        nonzero = tf.not_equal(self.count, 0.0)
        return tf.cast(tf.where(nonzero, self.total / self.count, tf.zeros([], _F64)), self.dtype)


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred)`` over all instances seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or fn.__name__, dtype=dtype)
        self._fn, self._fn_kwargs = fn, kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = _masking.get_keras_mask(y_pred) if _masking.masks_in_use() else None
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        if mask is not None:  # masked entries weigh 0 (Note [Keras masks])
            sample_weight = _losses._masked_weight(mask, values.dtype, "sum", sample_weight)
        super().update_state(values, sample_weight)


def accuracy(y_true, y_pred):
    """1.0 where y_true == y_pred, else 0.0."""
    y_true, y_pred = _losses._pair(y_true, y_pred)
    return tf.cast(tf.equal(y_true, y_pred), tf.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """mean(y_true == (y_pred > threshold), axis=-1)."""
    y_true, y_pred = _losses._pair(y_true, y_pred)
    hits = tf.cast(tf.equal(y_true, tf.cast(y_pred > threshold, y_pred.dtype)), tf.float32)
    return tf.reduce_mean(hits, axis=-1) if hits.ndim else hits


def categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_true) == argmax(y_pred)."""
    hits = tf.equal(tf.argmax(tf.convert_to_tensor(y_true), axis=-1), tf.argmax(tf.convert_to_tensor(y_pred), axis=-1))
    return tf.cast(hits, tf.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label equals argmax(y_pred)."""
    labels, pred = tf.convert_to_tensor(y_true), tf.convert_to_tensor(y_pred)
    if labels.ndim == pred.ndim and labels.shape[-1] == 1:
        labels = tf.squeeze(labels, -1)
    return tf.cast(tf.equal(tf.cast(labels, tf.int64), tf.argmax(pred, axis=-1)), tf.float32)


def _metric_class(fn, class_name, default_name, **defaults):
    def __init__(self, name=default_name, dtype=None, **kwargs):
        params = dict(defaults)
        params.update(kwargs)
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **params)

    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__,
                                                  "__doc__": f"The mean of ``{fn.__name__}`` over all instances."})


MeanAbsoluteError = _metric_class(_losses.mean_absolute_error, "MeanAbsoluteError", "mean_absolute_error")
MeanSquaredError = _metric_class(_losses.mean_squared_error, "MeanSquaredError", "mean_squared_error")
MeanAbsolutePercentageError = _metric_class(_losses.mean_absolute_percentage_error, "MeanAbsolutePercentageError",
                                            "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = _metric_class(_losses.mean_squared_logarithmic_error, "MeanSquaredLogarithmicError",
                                            "mean_squared_logarithmic_error")
Accuracy = _metric_class(accuracy, "Accuracy", "accuracy")
BinaryAccuracy = _metric_class(binary_accuracy, "BinaryAccuracy", "binary_accuracy", threshold=0.5)
CategoricalAccuracy = _metric_class(categorical_accuracy, "CategoricalAccuracy", "categorical_accuracy")
SparseCategoricalAccuracy = _metric_class(sparse_categorical_accuracy, "SparseCategoricalAccuracy",
                                          "sparse_categorical_accuracy")
BinaryCrossentropy = _metric_class(_losses.binary_crossentropy, "BinaryCrossentropy", "binary_crossentropy")
CategoricalCrossentropy = _metric_class(_losses.categorical_crossentropy, "CategoricalCrossentropy",
                                        "categorical_crossentropy")
SparseCategoricalCrossentropy = _metric_class(_losses.sparse_categorical_crossentropy,
                                              "SparseCategoricalCrossentropy", "sparse_categorical_crossentropy")


class RootMeanSquaredError(Mean):
    """sqrt of the mean squared error over all instances seen."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        super().update_state(_losses.mean_squared_error(y_true, y_pred), sample_weight)

    def result(self):
        return tf.sqrt(super().result())


# Short names accepted by compile(metrics=[...]); "accuracy"/"acc" is resolved against the loss there.
_BY_NAME = {"mae": (MeanAbsoluteError, "mae"), "mean_absolute_error": (MeanAbsoluteError, "mean_absolute_error"),
            "mse": (MeanSquaredError, "mse"), "mean_squared_error": (MeanSquaredError, "mean_squared_error"),
            "mape": (MeanAbsolutePercentageError, "mape"), "rmse": (RootMeanSquaredError, "rmse"),
            "mean_absolute_percentage_error": (MeanAbsolutePercentageError, "mean_absolute_percentage_error"),
            "msle": (MeanSquaredLogarithmicError, "msle"),
            "mean_squared_logarithmic_error": (MeanSquaredLogarithmicError, "mean_squared_logarithmic_error"),
            "MSE": (MeanSquaredError, "MSE"), "MAE": (MeanAbsoluteError, "MAE"),
            "MAPE": (MeanAbsolutePercentageError, "MAPE"), "MSLE": (MeanSquaredLogarithmicError, "MSLE"),
            "binary_accuracy": (BinaryAccuracy, "binary_accuracy"),
            "categorical_accuracy": (CategoricalAccuracy, "categorical_accuracy"),
            "sparse_categorical_accuracy": (SparseCategoricalAccuracy, "sparse_categorical_accuracy")}


def get(identifier, loss=None):
    """A Metric from a name ("mae", "accuracy"), a function (wrapped as a mean) or a Metric."""
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        if identifier in ("accuracy", "acc"):
            loss_name = getattr(loss, "name", getattr(loss, "__name__", str(loss)))
            cls = (SparseCategoricalAccuracy if "sparse" in loss_name else
                   BinaryAccuracy if "binary" in loss_name else
                   CategoricalAccuracy if "categorical" in loss_name else Accuracy)
            return cls(name=identifier)
        if identifier in _BY_NAME:
            cls, name = _BY_NAME[identifier]
            return cls(name=name)
        raise ValueError(f"Unknown metric: '{identifier}'")
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        return MeanMetricWrapper(identifier, name=getattr(identifier, "__name__", None))
    raise TypeError(f"Could not interpret metric identifier: {identifier!r}")


from tapegrad.keras.metrics._confusion import (AUC, MeanIoU, Precision, Recall, SparseTopKCategoricalAccuracy,  # noqa: E402
                                               TopKCategoricalAccuracy, sparse_top_k_categorical_accuracy,
                                               top_k_categorical_accuracy)

__all__ += ["Precision", "Recall", "AUC", "MeanIoU", "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy",
            "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy"]
_BY_NAME.update({"precision": (Precision, "precision"), "recall": (Recall, "recall"), "auc": (AUC, "auc"),
                 "top_k_categorical_accuracy": (TopKCategoricalAccuracy, "top_k_categorical_accuracy"),
                 "sparse_top_k_categorical_accuracy": (SparseTopKCategoricalAccuracy,
                                                       "sparse_top_k_categorical_accuracy")})
