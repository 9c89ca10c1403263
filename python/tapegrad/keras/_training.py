"""compile / fit / evaluate / predict for Model: the loop the book writes by hand, as Keras runs it.

One training step (train_step) is exactly the book's custom loop body:
  y_pred = model(x, training=True); loss = add_n([reduce_mean(loss_fn(y, y_pred))] + model.losses);
  grads = tape.gradient(loss, trainable_variables); optimizer.apply_gradients(zip(grads, vars)),
so ``fit`` and that loop give the same weights from the same seed and the same batches. As in
Keras, fit and evaluate run train_step / test_step as a tf.function (traced once per batch shape,
then one C++ call a step) unless compile(run_eagerly=True) or model.run_eagerly = True.
Batches: fit shuffles with NumPy's global generator (np.random.permutation per epoch), which
keras.utils.set_random_seed seeds; a tf.data.Dataset gives its own batches (keras/_data_adapter.py).
"""
import math
import numbers

import numpy as np

import tapegrad as tf

from tapegrad.keras import _data_adapter as data_adapter
from tapegrad.keras import _multi_output
from tapegrad.keras import losses as losses_mod
from tapegrad.keras import metrics as metrics_mod
from tapegrad.keras import optimizers as optimizers_mod
from tapegrad.keras.callbacks import Callback, CallbackList
from tapegrad.keras.utils import Progbar

__all__ = ["TrainingMixin"]


def _as_array(x, what):
    if x is None:
        return None
    if _multi_output.is_structure(x):  # several inputs or targets
        return _multi_output.nest_map(lambda v: _as_array(v, what), x)
    if isinstance(x, tf.Tensor):
        return np.asarray(x.numpy())
    if isinstance(x, (list, tuple)) and x and not np.isscalar(x[0]) and not hasattr(x[0], "__len__"):
        raise TypeError(f"{what}: expected an array-like, got {type(x).__name__}")
    return np.asarray(x)


def _show(bar, current, logs, finalize=False):
    """Progress with the logs as the step returned them (running means already: not averaged again, as Keras)."""
    bar.stateful_metrics.update(logs)
    bar.update(current, list(logs.items()), finalize=finalize)


def _samples(x, y, what):
    """The number of samples in x, checked against y's; y may be None (add_loss, or an own train_step)."""
    if x is None:
        raise ValueError(f"{what}: x must be given (arrays, tensors or a tf.data.Dataset)")
    n_x = _multi_output.batch_size(x)
    if y is not None and _multi_output.batch_size(y) != n_x:
        raise ValueError(f"{what}: x has {n_x} samples but y has {_multi_output.batch_size(y)}")
    return n_x


def _batch_size(batch_size, what, arg="batch_size"):
    """The batch size to slice arrays by: 32 for None (or 0, as Keras); a ValueError naming the argument
    for a negative one (Keras fails on it later, in a reshape), a TypeError for a non-integer."""
    if not batch_size:
        return 32
    if isinstance(batch_size, numbers.Integral) and batch_size > 0:
        return int(batch_size)
    if not isinstance(batch_size, numbers.Integral):
        raise TypeError(f"{what}: `{arg}` must be an integer, got {batch_size!r} of type {type(batch_size).__name__}")
    raise ValueError(f"{what}: Invalid value for `{arg}`: {batch_size}. Expected a positive integer (or None, "
                     f"for batches of 32)")


def _split_at(n, validation_split):
    """The first validation sample of fit's validation_split, as Keras cuts: floor(n * (1 - split)); a
    ValueError when either part would be empty."""
    cut = int(math.floor(n * (1.0 - validation_split)))
    if cut == 0 or cut == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to split it into a "
                         f"validation and training set as specified by `validation_split={validation_split}`. "
                         "Either provide more data, or a different value for the `validation_split` argument.")
    return cut


def _flatten_logs(logs, names):
    """evaluate's list: the logs of the model's metrics in their order, then any others by name (a
    train_step of one's own may return other keys); one value alone; [] for no batch, as Keras."""
    values = [logs[k] for k in names if k in logs] + [logs[k] for k in sorted(logs) if k not in names]
    return values[0] if len(values) == 1 else values


def _callback_list(callbacks, model, add_history=False, **params):
    """The CallbackList fit / evaluate / predict call their hooks on: the one given (fit passes its own to
    the validation pass), else one over the given callbacks (what is not a Callback is left out), set up
    with the model and params; fit's adds a History after them unless one is among them, as Keras."""
    if isinstance(callbacks, CallbackList):
        return callbacks
    return CallbackList([c for c in (callbacks or []) if isinstance(c, Callback)], add_history=add_history,
                        model=model, **params)


def _take_or_none(y, idx):
    return None if y is None else _multi_output.take(y, idx)


def _class_weights(y, class_weight):
    """Keras's per-sample weights from ``{class index: weight}``: the class is argmax(y) for one-hot
    targets, else round(y); the keys must be 0 .. n_classes - 1."""
    if y.ndim > 2:
        raise ValueError("class_weight is not supported for 3+ dimensional targets")
    keys = sorted(int(k) for k in class_weight)
    if keys != list(range(len(keys))):
        raise ValueError(f"Expected class_weight to be a dict with keys from 0 to one less than the number of "
                         f"classes, found {class_weight}")
    table = np.array([float(class_weight[k]) for k in keys], np.float32)
    classes = (y.argmax(-1) if y.ndim == 2 and y.shape[-1] > 1 else np.round(y.reshape(len(y)))).astype(np.int64)
    if classes.size and (classes.min() < 0 or classes.max() >= len(table)):
        raise ValueError(f"class_weight has no weight for class {int(classes.max())} (keys {keys})")
    return table[classes]


def _as_float(y, dtype):
    """Float targets in the model's float type, as Keras casts them: a custom loss computing
    ``y_true - y_pred`` on float64 NumPy labels meets float32 predictions."""
    if not isinstance(y, tf.Tensor):
        return y
    return tf.cast(y, dtype) if y.dtype.is_floating and y.dtype != dtype else y


def _one_loss(loss, y, y_pred, sample_weight):
    """One compiled loss (a Loss or a function) averaged over the batch; None without a loss."""
    if loss is None:
        return None
    if isinstance(loss, losses_mod.Loss):
        return loss(y, y_pred, sample_weight=sample_weight)
    if isinstance(y, tf.Tensor) and y_pred.dtype.is_floating and y.dtype != y_pred.dtype:
        y = tf.cast(y, y_pred.dtype)  # as Keras's loss wrapper: integer labels meet float predictions
    per_instance = loss(y, y_pred)
    if sample_weight is not None:
        per_instance = per_instance * tf.cast(tf.convert_to_tensor(sample_weight), per_instance.dtype)
    return tf.reduce_mean(per_instance)


class TrainingMixin:
    _replica_step = staticmethod(lambda model, step, data: step(data))  # a multi-worker strategy's (distribute)
    def _init_training(self):
        self.optimizer = self.loss = None
        self.compiled = False
        self.stop_training = False
        self.history = None
        self._compiled_metrics = []
        self._weighted_metrics = []
        self.run_eagerly = False
        self._step_functions = {}

    # ---- compile
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto", **kwargs):
        """Configures training: an optimizer (name or instance; loss-scaled under mixed_float16), a loss, metrics
        (unweighted) and weighted_metrics (weighted by sample_weight / class_weight)."""
        self.optimizer = optimizers_mod.loss_scale_optimizer.scaled_for_policy(self, optimizers_mod.get(optimizer),
                                                                              kwargs.get("auto_scale_loss", True))
        self._outputs_compiled = _multi_output.for_model(self, loss, loss_weights, metrics)
        if self._outputs_compiled is not None:  # several outputs: a loss and metrics per output
            self.loss = loss
            self._metric_specs = []
            self._compiled_metrics = self._outputs_compiled.all_metrics()
        else:
            self.loss = losses_mod.get(loss)
            self._metric_specs = list(metrics or [])
            self._compiled_metrics = [metrics_mod.get(m, self.loss) for m in self._metric_specs]
        # as in Keras: ``metrics`` ignore sample_weight, ``weighted_metrics`` use it
        names = {m.name for m in self._compiled_metrics}
        self._weighted_metrics = []
        for spec in weighted_metrics or []:
            m = metrics_mod.get(spec, self.loss)
            if m.name in names:
                m.name = "weighted_" + m.name
            self._weighted_metrics.append(m)
        self._loss_tracker = metrics_mod.Mean(name="loss")
        self.run_eagerly = bool(run_eagerly)
        self._step_functions = {}
        self.compiled = True

    @property
    def metrics(self):
        return (([self._loss_tracker] if self.compiled else []) + list(self._compiled_metrics) +
                list(getattr(self, "_weighted_metrics", [])))

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    def _check_compiled(self, what):
        if not self.compiled:  # Keras's class and words, whichever loop was asked for
            raise ValueError("You must call `compile()` before using the model.")

    # ---- one step
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss averaged over the batch, plus every loss in ``self.losses``."""
        outputs = self.__dict__.get("_outputs_compiled")
        if outputs is not None:
            main = outputs.total(_one_loss, y, y_pred, sample_weight)
        else:
            main = _one_loss(self.loss, y, y_pred, sample_weight)
        terms = ([main] if main is not None else []) + self.losses
        if not terms:
            raise ValueError("No loss to compute: compile(loss=...) or add_loss in the model")
        return tf.add_n(terms) if len(terms) > 1 else terms[0]

    def train_step(self, data):
        """One training step on a batch ``data``: ``(x, y)``, ``(x, y, sample_weight)`` or ``x``, as Keras
        gives it (``keras.utils.unpack_x_y_sample_weight`` splits it); returns the logs."""
        x, y, sample_weight = data_adapter.unpack(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
            scaled = self.optimizer.scale_loss(loss)  # the loss itself unless a loss scale is set
        variables = self.trainable_variables
        grads = tape.gradient(scaled, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        return self._update_metrics(loss, y, y_pred, sample_weight, _multi_output.batch_size(x))

    def test_step(self, data):
        x, y, sample_weight = data_adapter.unpack(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        return self._update_metrics(loss, y, y_pred, sample_weight, _multi_output.batch_size(x))

    def _update_metrics(self, loss, y, y_pred, sample_weight, batch):
        self._loss_tracker.update_state(loss, sample_weight=batch)
        outputs = self.__dict__.get("_outputs_compiled")
        if outputs is not None:
            outputs.update(y, y_pred, batch)
        for m in self._compiled_metrics if outputs is None else ():
            m.update_state(y, y_pred)
        for m in self._weighted_metrics:
            m.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}

    def _run_step(self, name, x, y, sample_weight):
        """train_step or test_step, traced unless run_eagerly; the logs as Python floats."""
        step = getattr(self, name)
        if not self.run_eagerly:
            traced = self._step_functions.get(name)
            if traced is None or traced.python_function != step:
                traced = self._step_functions[name] = tf.function(step)
            step = traced
        # tensors, as Keras gives train_step (and they take the Function's C++ cache lookup); float
        # targets in the model's float type
        def as_tensor(v):
            return tf.convert_to_tensor(v) if isinstance(v, np.ndarray) else v

        x, sample_weight = (_multi_output.nest_map(as_tensor, v) for v in (x, sample_weight))
        y = _multi_output.nest_map(lambda v: _as_float(as_tensor(v), self.dtype), y)
        if y is None and sample_weight is None:  # x alone, as Keras packs it (a tuple of inputs as (x,))
            data = (x,) if isinstance(x, (tuple, list)) else x
        else:
            data = (x, y) if sample_weight is None else (x, y, sample_weight)
        return {k: float(v) for k, v in self._replica_step(self, step, data).items()}

    # ---- loops
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1, **kwargs):
        """Trains for ``epochs`` passes over (x, y) in batches; returns a History of per-epoch logs.

        Logs hold "loss" (the batch-size-weighted mean of the training loss over the epoch) and each
        compiled metric, plus "val_..." entries when validation data is given.
        """
        self._check_compiled("fit")
        _batch_size(validation_batch_size, "fit", "validation_batch_size")  # before training, not after an epoch
        if data_adapter.is_dataset(x):
            batches = data_adapter.DatasetBatches(x, y, batch_size, steps_per_epoch, "fit", validation_split,
                                                  sample_weight)
            if class_weight is not None:
                batches.weigh = lambda y_batch: _class_weights(np.asarray(y_batch), class_weight)
        else:
            batches, validation_data = self._array_batches(x, y, sample_weight, batch_size, shuffle,
                                                           validation_split, validation_data, class_weight)
            batch_size = batches.batch_size
        steps = batches.steps
        cbs = _callback_list(callbacks, self, add_history=True, verbose=verbose, epochs=epochs, steps=steps)
        verbose = 1 if verbose == "auto" else verbose
        self.stop_training = False
        cbs.on_train_begin()
        training_logs = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cbs.on_epoch_begin(epoch)
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs}")
            bar = Progbar(steps, verbose=verbose, stateful_metrics=self.metrics_names)
            logs = {}
            step = -1
            for step, (bx, by, bsw) in enumerate(batches.epoch()):
                cbs.on_train_batch_begin(step)
                logs = self._run_step("train_step", bx, by, bsw)
                cbs.on_train_batch_end(step, logs)
                if self.stop_training:  # as in Keras, a callback can stop within an epoch
                    break
                if steps_per_epoch is not None and step + 1 >= steps_per_epoch:
                    break
                if steps is None or step + 1 < steps:
                    _show(bar, step + 1, logs)
            epoch_logs = dict(logs)
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                if data_adapter.is_dataset(validation_data):
                    val = self.evaluate(validation_data, steps=validation_steps, verbose=0, callbacks=cbs,
                                        return_dict=True)
                else:
                    vx, vy = validation_data[0], validation_data[1]
                    vsw = validation_data[2] if len(validation_data) > 2 else None
                    val = self.evaluate(vx, vy, batch_size=validation_batch_size or batch_size or 32, verbose=0,
                                        sample_weight=vsw, callbacks=cbs, return_dict=True)
                epoch_logs.update({"val_" + k: v for k, v in val.items()})
            _show(bar, steps if steps is not None else step + 1, epoch_logs, finalize=True)
            cbs.on_epoch_end(epoch, epoch_logs)
            training_logs = epoch_logs
            if self.stop_training:
                break
        cbs.on_train_end(training_logs)
        return self.history

    def _array_batches(self, x, y, sample_weight, batch_size, shuffle, validation_split, validation_data,
                       class_weight):
        """fit's batches of NumPy arrays (after validation_split and class_weight), and the validation data."""
        x, y = _as_array(x, "fit"), _as_array(y, "fit")
        sw = _as_array(sample_weight, "fit")
        n_x = _samples(x, y, "fit")
        if validation_split and validation_data is None:
            cut = _split_at(n_x, validation_split)
            head, tail = slice(None, cut), slice(cut, None)
            validation_data = (_multi_output.take(x, tail), _take_or_none(y, tail)) + (
                (sw[cut:],) if sw is not None else ())
            x, y = _multi_output.take(x, head), _take_or_none(y, head)
            sw = sw[:cut] if sw is not None else None
        if class_weight is not None:
            if y is None:
                raise ValueError("fit: class_weight needs targets y: it weighs the samples by their class")
            if _multi_output.is_structure(y):
                raise ValueError("fit: class_weight is not supported for a model with several outputs")
            cw = _class_weights(y, class_weight)
            sw = cw if sw is None else sw * cw
        return data_adapter.ArrayBatches(x, y, sw, _batch_size(batch_size, "fit"), shuffle), validation_data

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False, **kwargs):
        """The loss (and metrics) over (x, y): a scalar, a list [loss, *metrics], or a dict."""
        self._check_compiled("evaluate")
        if data_adapter.is_dataset(x):
            batches = data_adapter.DatasetBatches(x, y, batch_size, steps, "evaluate", sample_weight=sample_weight)
        else:
            x, y = _as_array(x, "evaluate"), _as_array(y, "evaluate")
            sw = _as_array(sample_weight, "evaluate")
            _samples(x, y, "evaluate")
            batches = data_adapter.ArrayBatches(x, y, sw, _batch_size(batch_size, "evaluate"))
        cbs = _callback_list(callbacks, self, verbose=verbose, epochs=1, steps=batches.steps)
        verbose = 1 if verbose == "auto" else verbose
        bar = Progbar(batches.steps, verbose=verbose, stateful_metrics=self.metrics_names)
        self.stop_evaluating = False
        cbs.on_test_begin()
        self.reset_metrics()
        logs = {}
        for step, (bx, by, bsw) in enumerate(batches.epoch()):
            cbs.on_test_batch_begin(step)
            logs = self._run_step("test_step", bx, by, bsw)
            cbs.on_test_batch_end(step, logs)
            _show(bar, step + 1, logs)
            if self.stop_evaluating:  # as in Keras, a callback can end the pass early
                break
        cbs.on_test_end(logs)  # the hooks see the logs sorted by name, as in Keras
        if return_dict:
            return logs
        return _flatten_logs(logs, self.metrics_names)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None, **kwargs):
        """The model's outputs for x (training=False), batch by batch, as one NumPy array."""
        if data_adapter.is_dataset(x):
            batches = data_adapter.DatasetBatches(x, None, batch_size, steps, "predict")
        else:
            batches = data_adapter.ArrayBatches(_as_array(x, "predict"), None, None,
                                                _batch_size(batch_size, "predict"))
        cbs = _callback_list(callbacks, self, verbose=verbose, epochs=1, steps=batches.steps)
        verbose = 1 if verbose == "auto" else verbose
        bar = Progbar(batches.steps, verbose=verbose)
        self.stop_predicting = False
        cbs.on_predict_begin()
        outs = []
        for step, (bx, _, _) in enumerate(batches.epoch()):
            cbs.on_predict_batch_begin(step)
            outs.append(self(bx, training=False))
            cbs.on_predict_batch_end(step, {"outputs": outs[-1]})
            bar.update(step + 1)
            if self.stop_predicting:
                break
        cbs.on_predict_end()
        if not outs:
            return np.zeros((0,))
        if isinstance(outs[0], (list, tuple, dict)):  # several outputs: each concatenated over the batches
            keys = list(outs[0]) if isinstance(outs[0], dict) else range(len(outs[0]))
            joined = [np.concatenate([np.asarray(o[k].numpy()) for o in outs], axis=0) for k in keys]
            return dict(zip(keys, joined)) if isinstance(outs[0], dict) else joined
        return np.concatenate([np.asarray(o.numpy()) for o in outs], axis=0)

    def predict_on_batch(self, x):
        return np.asarray(self(x, training=False).numpy())

    def train_on_batch(self, x, y, sample_weight=None, reset_metrics=True, return_dict=False):
        """One training step on one batch; the loss and metrics (over the batches since the last reset)."""
        return self._on_batch("train_on_batch", "train_step", x, y, sample_weight, reset_metrics, return_dict)

    def test_on_batch(self, x, y, sample_weight=None, reset_metrics=True, return_dict=False):
        """The loss and metrics of one batch (over the batches since the last reset), without training."""
        return self._on_batch("test_on_batch", "test_step", x, y, sample_weight, reset_metrics, return_dict)

    def _on_batch(self, what, step, x, y, sample_weight, reset_metrics, return_dict):
        self._check_compiled(what)
        if reset_metrics:
            self.reset_metrics()
        logs = self._run_step(step, _as_array(x, what), _as_array(y, what), _as_array(sample_weight, what))
        if return_dict:
            return logs
        return _flatten_logs(logs, self.metrics_names)
