"""keras.losses: loss functions (one loss per instance) and thin classes that reduce them."""
import numpy as np

import tapegrad as tf

from tapegrad.keras import _masking
from tapegrad.keras import backend as _backend
from tapegrad.keras.saving._serialization import AutoConfig

__all__ = ["Loss", "LossFunctionWrapper", "Reduction", "MeanSquaredError", "MeanAbsoluteError",
           "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "Huber", "BinaryCrossentropy",
           "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "mean_squared_error", "mean_absolute_error",
           "mean_absolute_percentage_error", "mean_squared_logarithmic_error", "huber", "binary_crossentropy",
           "categorical_crossentropy", "sparse_categorical_crossentropy", "mse", "mae", "mape", "msle", "MSE", "MAE",
           "MAPE", "MSLE", "get"]

_EPS = 1e-7


_Tensor = tf.Tensor
_F32, _F64 = tf.float32, tf.float64


def _pair(y_true, y_pred):
    """Tensors of one float dtype whose ranks differ by no more than Keras allows (a trailing 1 is squeezed)."""
    pred_dtype = y_pred.dtype if type(y_pred) is _Tensor and type(y_true) is np.ndarray else None
    if pred_dtype is _F32 or pred_dtype is _F64:  # DTypes are unique objects
        # The training-step case (predictions and a NumPy batch): cast in NumPy, same rounding as Cast.
        rank_true, rank_pred = y_true.ndim, y_pred.ndim
        squeeze_true = rank_true == rank_pred + 1 and y_true.shape[-1] == 1
        y_true = tf.convert_to_tensor(y_true.astype(pred_dtype.as_numpy_dtype, copy=False))
        if squeeze_true:
            y_true = tf.squeeze(y_true, -1)
        elif rank_pred == rank_true + 1 and y_pred.shape[-1] == 1:
            y_pred = tf.squeeze(y_pred, -1)
        return y_true, y_pred
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    if y_true.ndim == y_pred.ndim + 1 and y_true.shape[-1] == 1:
        y_true = tf.squeeze(y_true, -1)
    elif y_pred.ndim == y_true.ndim + 1 and y_pred.shape[-1] == 1:
        y_pred = tf.squeeze(y_pred, -1)
    return y_true, y_pred


def _mean_last(x):
    return tf.reduce_mean(x, axis=-1) if x.ndim else x


def mean_squared_error(y_true, y_pred):
    """mean((y_true - y_pred)^2, axis=-1): one loss per instance."""
    y_true, y_pred = _pair(y_true, y_pred)
    return _mean_last(tf.square(y_pred - y_true))


def mean_absolute_error(y_true, y_pred):
    """mean(|y_true - y_pred|, axis=-1)."""
    y_true, y_pred = _pair(y_true, y_pred)
    return _mean_last(tf.abs(y_pred - y_true))


def mean_absolute_percentage_error(y_true, y_pred):
    """100 mean(|y_true - y_pred| / max(|y_true|, eps), axis=-1)."""
    y_true, y_pred = _pair(y_true, y_pred)
    return 100.0 * _mean_last(tf.abs(y_true - y_pred) / tf.maximum(tf.abs(y_true), _EPS))


def mean_squared_logarithmic_error(y_true, y_pred):
    """mean((log(1 + y_true) - log(1 + y_pred))^2, axis=-1), arguments clipped at eps."""
    y_true, y_pred = _pair(y_true, y_pred)
    d = tf.math.log(tf.maximum(y_pred, _EPS) + 1.0) - tf.math.log(tf.maximum(y_true, _EPS) + 1.0)
    return _mean_last(tf.square(d))


def huber(y_true, y_pred, delta=1.0):
    """mean(0.5 e^2 if |e| <= delta else delta (|e| - 0.5 delta), axis=-1), e = y_pred - y_true."""
    y_true, y_pred = _pair(y_true, y_pred)
    err = tf.abs(y_pred - y_true)
    quad = tf.minimum(err, delta)
    return _mean_last(0.5 * tf.square(quad) + delta * (err - quad))


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """mean(-y log p - (1 - y) log(1 - p), axis); with logits z: max(z, 0) - z y + log(1 + exp(-|z|))."""
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        per = tf.nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = tf.clip_by_value(y_pred, _EPS, 1.0 - _EPS)
        per = -(y_true * tf.math.log(p) + (1.0 - y_true) * tf.math.log(1.0 - p))
    return tf.reduce_mean(per, axis=axis) if per.ndim else per


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """-sum(y_true log softmax(logits)) over ``axis`` (or of log of the normalized, clipped probabilities)."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"categorical_crossentropy: y_true of shape {y_true.shape} and y_pred of shape "
                         f"{y_pred.shape} must match (use sparse_categorical_crossentropy for integer labels)")
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_pred.shape[axis]
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(y_true, y_pred, axis=axis)
    p = y_pred / tf.reduce_sum(y_pred, axis=axis, keepdims=True)
    return -tf.reduce_sum(y_true * tf.math.log(tf.clip_by_value(p, _EPS, 1.0 - _EPS)), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """-log p[y_true] per instance; y_true holds class indices (a trailing axis of 1 is allowed)."""
    y_pred = tf.convert_to_tensor(y_pred)
    if tf.is_symbolic_tensor(y_true):  # inside a tf.function, labels of its graph stay tensors
        return _traced_sparse_crossentropy(y_true, y_pred, from_logits, ignore_class, axis)
    y_true = tf.convert_to_tensor(y_true)
    labels = np.asarray(y_true.numpy()).astype("int64")
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = labels[..., 0]
    n_classes = y_pred.shape[axis]
    valid = np.ones(labels.shape, bool) if ignore_class is None else labels != ignore_class
    if labels.shape != tuple(y_pred.shape[:-1]):
        raise ValueError(f"sparse_categorical_crossentropy: labels of shape {labels.shape} do not match "
                         f"predictions of shape {tuple(y_pred.shape)}")
    if ((labels[valid] < 0) | (labels[valid] >= n_classes)).any():
        raise ValueError(f"sparse_categorical_crossentropy: labels must be in [0, {n_classes}), "
                         f"got values in [{labels.min()}, {labels.max()}]")
    if ignore_class is None and from_logits and (axis == -1 or axis == y_pred.ndim - 1):
        return tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant(labels), y_pred)
    onehot = (np.arange(n_classes) == np.where(valid, labels, 0)[..., None]) & valid[..., None]
    onehot = tf.constant(onehot.astype(y_pred.dtype.as_numpy_dtype))
    return categorical_crossentropy(onehot, y_pred, from_logits=from_logits, axis=axis)


def _traced_sparse_crossentropy(labels, y_pred, from_logits, ignore_class, axis):
    """sparse_categorical_crossentropy in graph ops (label values cannot be range-checked while tracing)."""
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = tf.squeeze(labels, -1)
    labels = tf.cast(labels, tf.int64)
    if not labels.shape.is_compatible_with(y_pred.shape[:-1]):
        raise ValueError(f"sparse_categorical_crossentropy: labels of shape {tuple(labels.shape)} do not match "
                         f"predictions of shape {tuple(y_pred.shape)}")
    if ignore_class is None and from_logits and (axis == -1 or axis == y_pred.ndim - 1):
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels, y_pred)
    onehot = tf.one_hot(labels, y_pred.shape[axis], dtype=y_pred.dtype)
    if ignore_class is not None:
        onehot = onehot * tf.cast(tf.expand_dims(tf.not_equal(labels, ignore_class), -1), y_pred.dtype)
    return categorical_crossentropy(onehot, y_pred, from_logits=from_logits, axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error


def _masked_weight(mask, dtype, reduction, sample_weight):
    """The sample weight of a prediction that carries a mask (Note [Keras masks]), as Keras: masked
    entries weigh 0, and for a mean the others weigh total / valid, so the mean is over the valid
    entries alone."""
    weight = tf.cast(mask, dtype)
    if reduction in ("sum_over_batch_size", "mean"):
        weight = weight * tf.math.divide_no_nan(tf.cast(tf.size(weight), dtype), tf.reduce_sum(weight))
    if sample_weight is None:
        return weight
    sw = tf.cast(tf.convert_to_tensor(sample_weight), dtype)
    while sw.ndim > weight.ndim and sw.shape[-1] == 1:
        sw = tf.squeeze(sw, -1)
    while sw.ndim < weight.ndim:
        sw = tf.expand_dims(sw, -1)
    return sw * weight


def _same_rank(values, sw):
    """Keras's alignment of a weight whose rank is one off: a trailing 1 is squeezed, except that a
    vector facing a [n, 1] operand is expanded to [n, 1] instead."""
    if sw.ndim == values.ndim + 1 and sw.shape[-1] == 1:
        return (tf.expand_dims(values, -1), sw) if values.ndim == 1 else (values, tf.squeeze(sw, -1))
    if values.ndim == sw.ndim + 1 and values.shape[-1] == 1:
        return (values, tf.expand_dims(sw, -1)) if sw.ndim == 1 else (tf.squeeze(values, -1), sw)
    return values, sw


def _reduce(values, sample_weight, reduction):
    if sample_weight is not None:
        values, sw = _same_rank(values, tf.cast(tf.convert_to_tensor(sample_weight), values.dtype))
        values = values * sw
    if reduction in (None, "none") or values.ndim == 0 or tuple(values.shape) == (0,):
        return values  # as Keras: a scalar or an empty vector is returned as it is
    if reduction == "sum":
        return tf.reduce_sum(values)
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        return tf.math.divide_no_nan(tf.reduce_sum(values), tf.reduce_sum(sw))
    return tf.reduce_mean(values)  # "sum_over_batch_size", "mean", unweighted "mean_with_sample_weight"


# The reductions Keras 3's losses take (its ValueError lists the set as Python prints it).
_REDUCTIONS = {"sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight"}


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of {_REDUCTIONS}. Received: "
                         f"reduction={reduction}")


class Reduction:
    """tf.keras.losses.Reduction (Keras 3's legacy names, kept in the tf.keras namespace only): the
    reduction strings of Keras 2. Keras 3's losses take "sum_over_batch_size", "sum", "none" (None),
    "mean" and "mean_with_sample_weight"; they refuse AUTO, as Keras 3 does."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


class Loss(AutoConfig):
    """Base class: ``call(y_true, y_pred)`` gives one loss per instance; ``__call__`` reduces it.

    Args:
      reduction: "sum_over_batch_size" (the mean, default), "mean" (the same), "mean_with_sample_weight"
        (the weighted sum over the sum of the sample weights), "sum" or "none" (None).
      name: the loss's name.
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        _check_reduction(reduction)
        self.name = name or _snake(type(self).__name__)
        self.reduction = reduction
        self._dtype = _compute_dtype(dtype, type(self).__name__)

    @property
    def dtype(self):
        """The dtype the loss computes in (its name): ``dtype`` given to the constructor, else floatx then."""
        return self._dtype.name

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        mask = _masking.get_keras_mask(y_pred) if _masking.masks_in_use() else None
        # As Keras, both sides are converted to the loss's dtype first (float64 predictions give a
        # float32 loss under the default floatx; integer labels become floats, as a custom call expects).
        dtype = self._dtype
        values = self.call(_in_dtype(y_true, dtype), _in_dtype(y_pred, dtype))
        if mask is not None:
            sample_weight = _masked_weight(mask, values.dtype, self.reduction, sample_weight)
        return _reduce(values, sample_weight, self.reduction)

    def get_config(self):
        """The constructor's arguments (Note [Keras object configs]) with the name and reduction."""
        config = self._constructor_config() if self.__dict__.get("_auto_config") is not None else {}
        return {**config, "name": self.name, "reduction": self.reduction}


def _compute_dtype(dtype, owner):
    """The DType a loss computes in: None means floatx (read at construction, as Keras); a dtype policy
    (an object with ``compute_dtype``, or a "mixed_float16"-style name) gives its compute dtype."""
    if dtype is None:
        dtype = _backend.floatx()
    dtype = getattr(dtype, "compute_dtype", dtype)
    if isinstance(dtype, str) and dtype.startswith("mixed_"):
        dtype = dtype[len("mixed_"):]
    try:
        return tf.as_dtype(dtype)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: dtype must be a dtype name or a dtype policy, got {dtype!r}") from None


def _in_dtype(x, dtype):
    """x converted to dtype: a NumPy array stays one (the loss functions read NumPy targets directly)."""
    if type(x) is _Tensor:
        return x if x.dtype is dtype else tf.cast(x, dtype)
    if type(x) is np.ndarray:
        target = dtype.as_numpy_dtype
        return x if x.dtype == target else x.astype(target)
    return tf.cast(tf.convert_to_tensor(x), dtype)


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))


class LossFunctionWrapper(Loss):
    """A Loss from a per-instance function and its keyword arguments."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn, self._fn_kwargs = fn, kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)


def _loss_class(fn, class_name, default_name, **defaults):
    def __init__(self, *args, reduction="sum_over_batch_size", name=default_name, dtype=None, **kwargs):
        params = dict(defaults)
        params.update(zip(defaults, args))
        params.update(kwargs)
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, dtype=dtype, **params)

    return type(class_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": f"Class form of ``{fn.__name__}``."})


MeanSquaredError = _loss_class(mean_squared_error, "MeanSquaredError", "mean_squared_error")
MeanAbsoluteError = _loss_class(mean_absolute_error, "MeanAbsoluteError", "mean_absolute_error")
MeanAbsolutePercentageError = _loss_class(mean_absolute_percentage_error, "MeanAbsolutePercentageError",
                                          "mean_absolute_percentage_error")
MeanSquaredLogarithmicError = _loss_class(mean_squared_logarithmic_error, "MeanSquaredLogarithmicError",
                                          "mean_squared_logarithmic_error")
Huber = _loss_class(huber, "Huber", "huber_loss", delta=1.0)
BinaryCrossentropy = _loss_class(binary_crossentropy, "BinaryCrossentropy", "binary_crossentropy",
                                 from_logits=False, label_smoothing=0.0, axis=-1)
CategoricalCrossentropy = _loss_class(categorical_crossentropy, "CategoricalCrossentropy", "categorical_crossentropy",
                                      from_logits=False, label_smoothing=0.0, axis=-1)
SparseCategoricalCrossentropy = _loss_class(sparse_categorical_crossentropy, "SparseCategoricalCrossentropy",
                                            "sparse_categorical_crossentropy", from_logits=False, ignore_class=None)

_BY_NAME = {f.__name__: f for f in [mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
                                    mean_squared_logarithmic_error, huber, binary_crossentropy,
                                    categorical_crossentropy, sparse_categorical_crossentropy]}
_BY_NAME.update({"mse": mse, "mae": mae, "mape": mape, "msle": msle, "MSE": mse, "MAE": mae, "MAPE": mape,
                 "MSLE": msle, "huber_loss": huber})
_BY_NAME.update({c.__name__: c for c in [MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
                                          MeanSquaredLogarithmicError, Huber, BinaryCrossentropy,
                                          CategoricalCrossentropy, SparseCategoricalCrossentropy]})


def get(identifier):
    """A loss from a name ("mse", "MeanSquaredError"), a function or a Loss."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown loss function: '{identifier}'")
        found = _BY_NAME[identifier]
        return found() if isinstance(found, type) else found
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret loss identifier: {identifier!r}")
