"""keras.metrics: stateful metrics (update_state / result / reset_state) that reuse the loss functions."""
import numpy as np

import tapegrad as tf

from tapegrad import _core
from tapegrad.keras import losses as _losses

__all__ = ["Metric", "Mean", "Sum", "MeanMetricWrapper", "MeanAbsoluteError", "MeanSquaredError",
           "RootMeanSquaredError", "MeanAbsolutePercentageError", "Accuracy", "BinaryAccuracy",
           "CategoricalAccuracy", "SparseCategoricalAccuracy", "BinaryCrossentropy", "CategoricalCrossentropy",
           "SparseCategoricalCrossentropy", "get", "binary_accuracy", "categorical_accuracy",
           "sparse_categorical_accuracy", "accuracy"]


class Metric:
    """Base class. Subclasses define ``update_state`` and ``result`` over variables from ``add_variable``.

    Calling a metric updates it and returns the new result.
    """

    def __init__(self, name=None, dtype=None):
        self.name = name or _losses._snake(type(self).__name__)
        self.dtype = tf.as_dtype(dtype or "float32")
        self._variables = []

    def add_variable(self, shape=(), initializer="zeros", dtype=None, name=None):
        v = tf.Variable(np.zeros(shape, (dtype and tf.as_dtype(dtype) or self.dtype).as_numpy_dtype),
                        trainable=False, name=name or "metric_var")
        self._variables.append(v)
        return v

    add_weight = add_variable

    @property
    def variables(self):
        return list(self._variables)

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def reset_state(self):
        for v in self._variables:
            v.assign(np.zeros(v.shape, v.dtype.as_numpy_dtype))

    def reset_states(self):
        """The Keras 2 name of ``reset_state``."""
        self.reset_state()

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype.name}

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


def _values_and_weights(values, sample_weight, dtype):
    """The values as a float NumPy array and matching weights (broadcast), detached from any tape."""
    v = np.asarray(tf.convert_to_tensor(values).numpy(), dtype=dtype.as_numpy_dtype)
    if sample_weight is None:
        return v, np.ones_like(v)
    w = np.asarray(tf.convert_to_tensor(sample_weight).numpy(), dtype=dtype.as_numpy_dtype)
    while w.ndim > v.ndim and w.shape[-1] == 1:
        w = w[..., 0]
    while v.ndim > w.ndim and v.shape[-1] == 1 and w.ndim:
        v = v[..., 0]
    try:
        return v, np.broadcast_to(w.reshape(w.shape + (1,) * (v.ndim - w.ndim)), v.shape)
    except ValueError:
        raise ValueError(f"{'sample_weight'} of shape {w.shape} does not broadcast to values of shape {v.shape}") from None


def _scalar(value, dtype):
    """A 0-d tensor of ``dtype`` holding a Python float (read every step: no NumPy round trip for floats)."""
    return _core.fill([], value, dtype.code) if dtype.is_floating else tf.constant(value, dtype=dtype)


class _Accumulating(Metric):
    """State as two Python floats (total, weight count), accumulated in float64; reset to zero."""

    def __init__(self, name, dtype):
        super().__init__(name, dtype)
        self._total = self._count = 0.0

    def update_state(self, values, sample_weight=None):
        self._accumulate(values, sample_weight)

    def _accumulate(self, values, sample_weight):
        if sample_weight is None:
            v = values.numpy() if isinstance(values, tf.Tensor) else np.asarray(values, dtype=np.float64)
            self._total += float(v.sum())
            self._count += float(v.size)
        else:
            v, w = _values_and_weights(values, sample_weight, tf.float64)
            self._total += float((v * w).sum())
            self._count += float(w.sum())

    @property
    def total(self):
        return tf.constant(self._total, dtype=self.dtype)

    @property
    def count(self):
        return tf.constant(self._count, dtype=self.dtype)

    @property
    def variables(self):
        return [self.total, self.count]

    def reset_state(self):
        self._total = self._count = 0.0


class Sum(_Accumulating):
    """The (weighted) sum of all values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name, dtype)

    def result(self):
        return _scalar(self._total, self.dtype)


class Mean(_Accumulating):
    """The (weighted) mean of all values seen: total / count."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name, dtype)

    def result(self):
        return _scalar(self._total / self._count if self._count else 0.0, self.dtype)


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred)`` over all instances seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or fn.__name__, dtype=dtype)
        self._fn, self._fn_kwargs = fn, kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        super().update_state(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)


def accuracy(y_true, y_pred):
    """1.0 where y_true == y_pred, else 0.0."""
    y_true, y_pred = _losses._pair(y_true, y_pred)
    return tf.cast(tf.equal(y_true, y_pred), tf.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """mean(y_true == (y_pred > threshold), axis=-1)."""
    y_true, y_pred = _losses._pair(y_true, y_pred)
    hits = tf.cast(tf.equal(y_true, tf.cast(y_pred > threshold, y_pred.dtype)), tf.float32)
    return tf.reduce_mean(hits, axis=-1) if hits.ndim else hits


def _argmax(x):
    # Metrics need no gradient: NumPy's argmax on the (zero-copy) values is exact and cheapest.
    return np.argmax(np.asarray(tf.convert_to_tensor(x).numpy()), axis=-1)


def categorical_accuracy(y_true, y_pred):
    """1.0 where argmax(y_true) == argmax(y_pred)."""
    return tf.constant((_argmax(y_true) == _argmax(y_pred)).astype("float32"))


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label equals argmax(y_pred)."""
    labels = np.asarray(tf.convert_to_tensor(y_true).numpy())
    pred = np.asarray(tf.convert_to_tensor(y_pred).numpy())
    if labels.ndim == pred.ndim and labels.shape[-1] == 1:
        labels = labels[..., 0]
    return tf.constant((labels.astype("int64") == np.argmax(pred, axis=-1)).astype("float32"))


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
