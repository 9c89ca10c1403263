"""Metrics over counts: Precision, Recall, AUC, MeanIoU, and the top-k accuracies.

The counts (true/false positives and negatives per threshold, a confusion matrix) are float Variables
updated with tensor ops, so each metric updates eagerly and inside a tf.function alike.
"""
import numpy as np

import tapegrad as tf

from tapegrad.keras.metrics import MeanMetricWrapper, Metric

__all__ = ["Precision", "Recall", "AUC", "MeanIoU", "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy",
           "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy"]

_EPS = 1e-7
_NEG_INF = -1e10


def _divide_no_nan(a, b):
    return tf.where(tf.equal(b, 0.0), tf.zeros_like(a), a / tf.where(tf.equal(b, 0.0), tf.ones_like(b), b))


def _confusion(y_true, y_pred, thresholds, sample_weight, class_id=None):
    """(tp, fp, tn, fn) per threshold: a prediction is positive where y_pred > threshold."""
    y_true, y_pred = tf.convert_to_tensor(y_true), tf.convert_to_tensor(y_pred)
    if tuple(y_true.shape) != tuple(y_pred.shape) and y_true.ndim == y_pred.ndim - 1:
        y_true = tf.expand_dims(y_true, -1)
    if class_id is not None:
        y_true, y_pred = y_true[..., class_id], y_pred[..., class_id]
    try:
        np.broadcast_shapes(tuple(y_true.shape), tuple(y_pred.shape))
    except ValueError:
        raise ValueError(f"confusion metric: y_true of shape {tuple(y_true.shape)} and y_pred of shape "
                         f"{tuple(y_pred.shape)} do not match") from None
    pred = tf.reshape(tf.cast(y_pred, tf.float32), [-1, 1])
    truth = tf.reshape(tf.cast(tf.broadcast_to(tf.cast(y_true, tf.float32), y_pred.shape), tf.float32), [-1, 1])
    above = tf.cast(pred > tf.constant(np.asarray(thresholds, np.float32)[None, :]), tf.float32)
    if sample_weight is None:
        w = tf.ones_like(truth)
    else:  # weights get trailing unit axes, then broadcast to the predictions
        w = tf.cast(tf.convert_to_tensor(sample_weight), tf.float32)
        w = tf.reshape(w, list(w.shape) + [1] * max(0, y_pred.ndim - w.ndim))
        w = tf.reshape(tf.broadcast_to(w, y_pred.shape), [-1, 1])
    pos, neg = truth * w, (1.0 - truth) * w
    tp = tf.reduce_sum(above * pos, axis=0)
    fp = tf.reduce_sum(above * neg, axis=0)
    fn = tf.reduce_sum((1.0 - above) * pos, axis=0)
    tn = tf.reduce_sum((1.0 - above) * neg, axis=0)
    return tp, fp, tn, fn


def _keep_top_k(pred, k):
    """pred with every entry outside the k highest of its row (last axis) set to -inf (ties are kept)."""
    pred = tf.cast(pred, tf.float32)
    higher = tf.reduce_sum(tf.cast(tf.expand_dims(pred, -2) > tf.expand_dims(pred, -1), tf.int32), axis=-1)
    return tf.where(higher < k, pred, tf.fill(pred.shape, float("-inf")))


class _Thresholded(Metric):
    """Precision or Recall at one threshold (a 0-d result) or several (a vector); with ``top_k`` only
    the k highest predictions of each row can be positive; with ``class_id`` only that class counts."""

    _name = None

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name or self._name, dtype)
        if top_k is not None and (not isinstance(top_k, int) or top_k < 1):
            raise ValueError(f"{type(self).__name__}: top_k must be a positive int, got {top_k!r}")
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self._scalar = thresholds is None or np.ndim(thresholds) == 0
        # with top_k and no thresholds every one of the k highest predictions is positive, as in Keras
        default = 0.5 if top_k is None else _NEG_INF
        self.thresholds = [default if thresholds is None else float(thresholds)] if self._scalar else \
            [float(t) for t in thresholds]
        if thresholds is not None and any(not 0.0 <= t <= 1.0 for t in self.thresholds):
            raise ValueError(f"{type(self).__name__}: thresholds must be in [0, 1], got {thresholds}")
        n = len(self.thresholds)
        self.true_positives = self.add_variable(shape=(n,), name="true_positives")
        self._other = self.add_variable(shape=(n,), name=self._other_name)

    def update_state(self, y_true, y_pred, sample_weight=None):
        if self.top_k is not None:
            y_pred = _keep_top_k(tf.convert_to_tensor(y_pred), self.top_k)
        tp, fp, _, fn = _confusion(y_true, y_pred, self.thresholds, sample_weight, self.class_id)
        self.true_positives.assign_add(tp)
        self._other.assign_add(fp if self._other_name == "false_positives" else fn)

    def result(self):
        out = _divide_no_nan(self.true_positives + 0.0, self.true_positives + self._other)
        return out[0] if self._scalar else out

    def get_config(self):
        return {"thresholds": self.init_thresholds, "top_k": self.top_k, "class_id": self.class_id,
                "name": self.name, "dtype": self.dtype.name}


class Precision(_Thresholded):
    """true positives / (true positives + false positives); a prediction is positive above the threshold (0.5)."""
    _name, _other_name = "precision", "false_positives"


class Recall(_Thresholded):
    """true positives / (true positives + false negatives); a prediction is positive above the threshold (0.5)."""
    _name, _other_name = "recall", "false_negatives"


class AUC(Metric):
    """The area under the ROC or precision-recall curve, from confusion counts at ``num_thresholds``
    thresholds evenly spaced in [0, 1] (the ends moved just outside). ``summation_method``:
    "interpolation" (trapezoids for ROC; Davis and Goadrich's interpolation for PR), "minoring" or
    "majoring" (Riemann sums from below or above). Labels and predictions are flattened (one curve)."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        super().__init__(name or "auc", dtype)
        if curve not in ("ROC", "PR"):
            raise ValueError(f'AUC: invalid curve "{curve}"; expected "ROC" or "PR"')
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f'AUC: invalid summation_method "{summation_method}"; expected "interpolation", '
                             '"minoring" or "majoring"')
        if multi_label or label_weights is not None:
            raise tf.errors.UnimplementedError(None, None, "AUC: multi_label and label_weights are not supported")
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError(f"AUC: num_thresholds must be > 1, got {num_thresholds}")
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.num_thresholds, self.curve, self.summation_method = num_thresholds, curve, summation_method
        self.multi_label, self.num_labels, self.label_weights = multi_label, num_labels, label_weights
        self.from_logits, self._init_thresholds = from_logits, thresholds
        self.thresholds = [0.0 - _EPS] + inner + [1.0 + _EPS]
        n = len(self.thresholds)
        self.true_positives = self.add_variable(shape=(n,), name="true_positives")
        self.false_positives = self.add_variable(shape=(n,), name="false_positives")
        self.true_negatives = self.add_variable(shape=(n,), name="true_negatives")
        self.false_negatives = self.add_variable(shape=(n,), name="false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.convert_to_tensor(y_pred)
        if self.from_logits:
            y_pred = tf.sigmoid(y_pred)
        tp, fp, tn, fn = _confusion(y_true, y_pred, self.thresholds, sample_weight)
        for var, value in ((self.true_positives, tp), (self.false_positives, fp), (self.true_negatives, tn),
                           (self.false_negatives, fn)):
            var.assign_add(value)

    def result(self):
        tp, fp, tn, fn = self.true_positives, self.false_positives, self.true_negatives, self.false_negatives
        tp, fp, tn, fn = tp + 0.0, fp + 0.0, tn + 0.0, fn + 0.0
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._pr_interpolated(tp, fp, fn)
        recall = _divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = _divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, _divide_no_nan(tp, tp + fp)
        lo, hi = y[:-1], y[1:]  # the thresholds rise, so x falls from index i to i + 1
        heights = (lo + hi) / 2.0 if self.summation_method == "interpolation" else \
            tf.minimum(lo, hi) if self.summation_method == "minoring" else tf.maximum(lo, hi)
        return tf.reduce_sum((x[:-1] - x[1:]) * heights)

    @staticmethod
    def _pr_interpolated(tp, fp, fn):
        """Precision interpolated linearly in the true positives between thresholds (Davis and Goadrich)."""
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = _divide_no_nan(dtp, tf.maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        both = tf.logical_and(p[:-1] > 0.0, p[1:] > 0.0)
        ratio = tf.where(both, _divide_no_nan(p[:-1], tf.maximum(p[1:], 0.0)), tf.ones_like(p[1:]))
        area = slope * (dtp + intercept * tf.math.log(ratio))
        return tf.reduce_sum(_divide_no_nan(area, tf.maximum(tp[1:] + fn[1:], 0.0)))

    def get_config(self):
        return {"num_thresholds": self.num_thresholds, "curve": self.curve,
                "summation_method": self.summation_method, "name": self.name, "dtype": self.dtype.name,
                "thresholds": self._init_thresholds, "multi_label": self.multi_label, "num_labels": self.num_labels,
                "label_weights": self.label_weights, "from_logits": self.from_logits}


class MeanIoU(Metric):
    """The mean over classes of intersection / union (TP / (TP + FP + FN)) from a confusion matrix of
    integer labels (or, with ``sparse_y_pred=False``, argmax of class scores); classes never seen nor
    predicted are left out of the mean."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, sparse_y_pred=True,
                 axis=-1):
        super().__init__(name or "mean_io_u", dtype)
        if int(num_classes) < 1:
            raise ValueError(f"MeanIoU: num_classes must be positive, got {num_classes}")
        self.num_classes, self.ignore_class = int(num_classes), ignore_class
        self.sparse_y_true, self.sparse_y_pred, self.axis = sparse_y_true, sparse_y_pred, axis
        self.total_cm = self.add_variable(shape=(self.num_classes, self.num_classes), name="total_confusion_matrix")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = tf.convert_to_tensor(y_true), tf.convert_to_tensor(y_pred)
        if not self.sparse_y_true:
            y_true = tf.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = tf.argmax(y_pred, axis=self.axis)
        t = tf.reshape(tf.cast(y_true, tf.int32), [-1])
        p = tf.reshape(tf.cast(y_pred, tf.int32), [-1])
        w = tf.ones(t.shape, tf.float32) if sample_weight is None else \
            tf.reshape(tf.cast(tf.convert_to_tensor(sample_weight), tf.float32), [-1])
        if self.ignore_class is not None:
            w = w * tf.cast(tf.not_equal(t, self.ignore_class), tf.float32)
        rows = tf.one_hot(t, self.num_classes) * tf.expand_dims(w, 1)
        cols = tf.one_hot(p, self.num_classes)
        self.total_cm.assign_add(tf.matmul(rows, cols, transpose_a=True))

    def result(self):
        cm = self.total_cm + 0.0
        tp = tf.linalg.diag_part(cm)
        union = tf.reduce_sum(cm, axis=0) + tf.reduce_sum(cm, axis=1) - tp
        seen = tf.cast(union > 0.0, tf.float32)
        return _divide_no_nan(tf.reduce_sum(_divide_no_nan(tp, union)), tf.reduce_sum(seen))


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the class of the one-hot y_true is among the k highest scores (ties count as in)."""
    return sparse_top_k_categorical_accuracy(tf.argmax(tf.convert_to_tensor(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer label is among the k highest scores of y_pred (ties count as in)."""
    labels, pred = tf.convert_to_tensor(y_true), tf.convert_to_tensor(y_pred)
    if labels.ndim == pred.ndim and labels.shape[-1] == 1:
        labels = tf.squeeze(labels, -1)
    target = tf.reduce_sum(pred * tf.one_hot(tf.cast(labels, tf.int32), pred.shape[-1], dtype=pred.dtype), axis=-1,
                           keepdims=True)
    higher = tf.reduce_sum(tf.cast(pred > target, tf.int32), axis=-1)
    return tf.cast(higher < k, tf.float32)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the one-hot target's class is among the k highest predictions."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        self.k = k


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the integer target is among the k highest predictions."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None, from_sorted_ids=False):
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=k)
        if from_sorted_ids:
            raise tf.errors.UnimplementedError(None, None, "SparseTopKCategoricalAccuracy: from_sorted_ids is not "
                                               "supported")
        self.k, self.from_sorted_ids = k, from_sorted_ids
