"""What EarlyStopping and ModelCheckpoint share: is a monitored log value better than a reference?

As in Keras: mode "min" / "max" / "auto" (auto: the losses are minimized, accuracy-like metrics
maximized); a value improves only when it beats the reference by more than ``min_delta``, and any
value beats no reference (None).
"""
import warnings

__all__ = ["Monitor"]

# Substrings of metric names that Keras maximizes (its metrics' direction "up").
_UP = ("acc", "auc", "precision", "recall", "f1_score", "fbeta", "iou", "r2_score", "cosine_similarity",
       "true_positives", "true_negatives", "at_recall", "at_precision", "at_specificity", "at_sensitivity")


class Monitor:
    def __init__(self, callback, monitor, mode, min_delta=0.0):
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{callback} mode '{mode}' is unknown, fallback to auto mode.", stacklevel=3)
            mode = "auto"
        self.name, self.monitor, self.mode = callback, monitor, mode
        self.min_delta = abs(float(min_delta))
        name = monitor[4:] if monitor.startswith("val_") else monitor
        self.maximize = mode == "max" or (mode == "auto" and name != "loss" and any(s in name for s in _UP))

    def value(self, logs):
        """The monitored value in ``logs``, or None (with Keras's warning) when it is absent."""
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(f"{self.name} is conditioned on metric `{self.monitor}` which is not available. "
                          f"Available metrics are: {','.join(sorted(logs or {}))}", stacklevel=3)
            return None
        return float(value)

    def improves(self, value, reference):
        if reference is None:
            return True
        if self.maximize:
            return value - self.min_delta > reference
        return value + self.min_delta < reference
