"""Losses and metrics per output of a functional model with several outputs (compile/fit/evaluate).

As Keras 3: ``loss`` is one loss for every output, a list (one per output) or a dict with every
output's name; ``loss_weights`` likewise (1.0 by default); ``metrics`` is a list with one entry (a
metric or a list of them) per output, or a dict by output name. The total loss is the sum of
weight * loss over the outputs; each output's loss (unweighted) is logged as "<output>_loss" and its
metrics as "<output>_<metric>". An output's name is its dict key, else its layer's name.
"""
import numpy as np

import tapegrad as tf

from tapegrad.keras import losses as losses_mod
from tapegrad.keras import metrics as metrics_mod

__all__ = ["OutputLosses", "for_model", "is_structure", "nest_map", "batch_size", "take", "flatten"]


def is_structure(x):
    """A dict, or a list/tuple of arrays or tensors (several inputs or targets, not one nested list)."""
    return isinstance(x, dict) or (isinstance(x, (list, tuple)) and len(x) > 0 and
                                   all(isinstance(v, (np.ndarray, tf.Tensor)) for v in x))


def nest_map(fn, x):
    if isinstance(x, dict):
        return {k: fn(v) for k, v in x.items()}
    if is_structure(x):
        return type(x)(fn(v) for v in x)
    return fn(x)


def flatten(x):
    if isinstance(x, dict):
        return list(x.values())
    return list(x) if is_structure(x) else [x]


def batch_size(x):
    return len(flatten(x)[0])


def take(x, idx):
    return nest_map(lambda v: v[idx], x)


def _per_output(spec, names, what, default):
    """A spec (one value, a list or a dict by name) as one value per output."""
    if isinstance(spec, dict):
        unknown = [k for k in spec if k not in names]
        if unknown:
            raise ValueError(f"compile: {what} names outputs {unknown}, which the model does not have; its outputs "
                             f"are {names}")
        return [spec.get(n, default) for n in names]
    if isinstance(spec, (list, tuple)):
        if len(spec) != len(names):
            raise ValueError(f"compile: {what} has {len(spec)} entries for {len(names)} outputs {names}")
        return list(spec)
    return [spec if spec is not None else default] * len(names)


class OutputLosses:
    """The per-output losses, weights, loss trackers and metrics of one compile()."""

    def __init__(self, names, dict_outputs, loss, loss_weights, metrics):
        self.names, self.dict_outputs = names, dict_outputs
        if isinstance(loss, dict) and sorted(loss) != sorted(names):
            raise ValueError(f"compile: expected keys {names} in loss dict, but found loss.keys()={list(loss)}")
        self.losses = [losses_mod.get(s) for s in _per_output(loss, names, "loss", None)]
        self.weights = [float(w) for w in _per_output(loss_weights, names, "loss_weights", 1.0)]
        self.trackers = [metrics_mod.Mean(name=f"{n}_loss") for n in names]
        if isinstance(metrics, (list, tuple)) and metrics and len(metrics) != len(names):
            raise ValueError(f"compile: invalid `metrics` {metrics!r}: for a model with several outputs give a dict "
                             f"by output name or a list with one entry (a metric or a list) per output {names}")
        per = _per_output(metrics or [], names, "metrics", []) if metrics else [[] for _ in names]
        self.metrics = []
        for name, specs, loss_fn in zip(names, per, self.losses):
            out = []
            for spec in ([specs] if isinstance(specs, (str, metrics_mod.Metric)) or callable(specs) else specs or []):
                m = metrics_mod.get(spec, loss_fn)
                m.name = f"{name}_{m.name}"
                out.append(m)
            self.metrics.append(out)
        self._last = None

    def split(self, y):
        """Targets (or predictions) as one per output, in the outputs' order."""
        if isinstance(y, dict):
            missing = [n for n in self.names if n not in y]
            if missing:
                raise ValueError(f"The targets dict lacks outputs {missing} (the model's outputs are {self.names})")
            return [y[n] for n in self.names]
        if isinstance(y, (list, tuple)):
            if len(y) != len(self.names):
                raise ValueError(f"Expected {len(self.names)} targets for the outputs {self.names}, got {len(y)}")
            return list(y)
        raise ValueError(f"The model has {len(self.names)} outputs {self.names}: give the targets as a list or a dict")

    def total(self, one_loss, y, y_pred, sample_weight):
        """sum(weight * loss) over the outputs with a loss; keeps each loss for the trackers."""
        terms, self._last = [], []
        for fn, w, yt, yp in zip(self.losses, self.weights, self.split(y), self.split(y_pred)):
            value = one_loss(fn, yt, yp, sample_weight) if fn is not None else None
            self._last.append(value)
            if value is not None:
                terms.append(value * w if w != 1.0 else value)
        if not terms:
            return None
        return tf.add_n(terms) if len(terms) > 1 else terms[0]

    def update(self, y, y_pred, batch):
        for tracker, value in zip(self.trackers, self._last or []):
            if value is not None:
                tracker.update_state(value, sample_weight=batch)
        for ms, yt, yp in zip(self.metrics, self.split(y), self.split(y_pred)):
            for m in ms:
                m.update_state(yt, yp)

    def all_metrics(self):
        trackers = [t for t, fn in zip(self.trackers, self.losses) if fn is not None]
        return trackers + [m for ms in self.metrics for m in ms]


def for_model(model, loss, loss_weights, metrics):
    """The OutputLosses of a functional model with several (or named) outputs, else None."""
    graph = model.__dict__.get("_graph")
    if graph is None:
        return None
    structure = graph.output_structure
    if not isinstance(structure, dict) and len(graph.outputs) == 1:
        return None
    names = list(structure) if isinstance(structure, dict) else graph.output_names
    return OutputLosses(names, isinstance(structure, dict), loss, loss_weights, metrics)
