"""keras.optimizers.Optimizer: slots, learning rate (float or schedule), clipping, weight decay, iterations.

Subclasses give ``build(var_list)`` (create slots with ``add_slots``) and an ``update_step(grad, var, lr)``
that calls one fused C++ kernel from tapegrad._core; everything shared happens here once, per step:
  1. drop (None, var) pairs with a warning naming the variables;
  2. clip: clipvalue, then clipnorm (per gradient), then global_clipnorm (all gradients together);
  3. lr = learning_rate(iterations) for a schedule, else the float;
  4. update_step per variable, with decoupled weight decay fused into the kernel (decay = lr * weight_decay);
  5. variable constraints (``var.constraint``) projected; iterations += 1.
"""
import math
import warnings

import numpy as np

from tapegrad import _core

import tapegrad as tf

from tapegrad.keras.optimizers.schedules import LearningRateSchedule

__all__ = ["Optimizer"]


class Optimizer:
    """Base optimizer.

    Args:
      learning_rate: a float, a LearningRateSchedule or a callable taking no arguments (``lr`` is an alias).
      weight_decay: decoupled weight decay (var -= lr * weight_decay * var before each update).
      clipnorm: clip each gradient to this L2 norm.
      clipvalue: clip each gradient element to [-clipvalue, clipvalue].
      global_clipnorm: clip all gradients together to this global L2 norm.
      name: the optimizer's name.
    """

    def __init__(self, learning_rate=0.001, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if "lr" in kwargs:
            learning_rate = kwargs.pop("lr")
        if kwargs.get("decay") in (None, 0, 0.0):  # Keras 2's time decay: only its "off" value is accepted
            kwargs.pop("decay", None)
        kwargs.pop("jit_compile", None)
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unexpected keyword argument(s) {sorted(kwargs)}")
        if clipnorm is not None and global_clipnorm is not None:
            raise ValueError("Only one of clipnorm and global_clipnorm can be set")
        for arg, value in (("clipnorm", clipnorm), ("clipvalue", clipvalue), ("global_clipnorm", global_clipnorm)):
            if value is not None and not value > 0:
                raise ValueError(f"{type(self).__name__}: {arg} must be positive, got {value}")
        if use_ema:
            raise NotImplementedError("use_ema is not supported")
        self.name = name or type(self).__name__
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self._iterations = tf.Variable(np.int64(0), trainable=False, name="iteration")
        self._step = 0
        self._slots = {}          # id(var) -> tuple of slot Variables
        self._variables = []
        self._exclude_ids, self._exclude_names = set(), ()
        self.built = False

    # ---- learning rate
    @property
    def learning_rate(self):
        """The current learning rate (a schedule is evaluated at ``iterations``)."""
        return self._current_lr()

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(value, tf.Tensor):
            value = float(value)
        if not (isinstance(value, LearningRateSchedule) or callable(value) or isinstance(value, (int, float))):
            raise TypeError(f"{type(self).__name__}: learning_rate must be a float, a schedule or a callable, "
                            f"got {value!r}")
        self._learning_rate = value

    lr = learning_rate

    def _current_lr(self):
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            return float(lr(self._step))
        if callable(lr):
            return float(lr())
        return float(lr)

    @property
    def iterations(self):
        """The number of steps taken (a Variable, as in Keras)."""
        return self._iterations

    @iterations.setter
    def iterations(self, value):
        self._step = int(value)
        self._iterations.assign(np.int64(self._step))

    # ---- slots
    def build(self, var_list):
        """Creates the slots of every variable; subclasses call ``add_slots``."""
        self.built = True

    def add_slots(self, var_list, names, initial_value=0.0):
        """One zero (or ``initial_value``) Variable per name for each variable in ``var_list``."""
        for var in var_list:
            if id(var) in self._slots:
                continue
            slots = tuple(tf.Variable(np.full(var.shape, initial_value, var.dtype.as_numpy_dtype), trainable=False,
                                      name=f"{_var_name(var)}_{n}") for n in names)
            self._slots[id(var)] = slots
            self._variables.extend(slots)

    def slots(self, var):
        return self._slots[id(var)]

    @property
    def variables(self):
        return [self._iterations] + list(self._variables)

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        self._exclude_ids |= {id(v) for v in var_list or ()}
        self._exclude_names = tuple(var_names or ())

    def _decay_for(self, var, lr):
        if not self.weight_decay or id(var) in self._exclude_ids:
            return 0.0
        if any(n in _var_name(var) for n in self._exclude_names):
            return 0.0
        return lr * self.weight_decay

    # ---- applying gradients
    def update_step(self, grad, var, lr):
        raise NotImplementedError

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False, **kwargs):
        """Applies one step: ``apply_gradients(zip(grads, vars))``. Returns ``iterations``."""
        if _core._tracing():  # the fused updates and the step counter are not graph nodes yet
            raise NotImplementedError(
                "optimizer.apply_gradients inside a tf.function is not supported yet: the update would run "
                "only while tracing. Call it outside the Function, or update with Variable.assign_sub inside it.")
        pairs = list(grads_and_vars)
        missing = [v for g, v in pairs if g is None]
        if missing:
            warnings.warn(f"Gradients do not exist for variables {[_var_name(v) for v in missing]} when minimizing "
                          "the loss. If using `model.compile()`, did you forget to provide a `loss` argument?",
                          UserWarning, stacklevel=2)
        pairs = [(g, v) for g, v in pairs if g is not None]
        if not pairs:
            return self._iterations
        grads, variables = [g for g, _ in pairs], [v for _, v in pairs]
        for v in variables:
            if not getattr(v, "_is_variable", False):
                raise TypeError(f"{self.name}: apply_gradients needs Variables, got {type(v).__name__}")
        if not self.built or any(id(v) not in self._slots for v in variables):
            self.build(variables)
            self.built = True
        grads = self._clip([self._as_grad(g, v) for g, v in pairs])
        lr = self._current_lr()
        self._before_step(lr)
        for g, v in zip(grads, variables):
            self.update_step(g, v, lr)
        for v in variables:  # as Keras: constraints project each variable right after its update
            if getattr(v, "constraint", None) is not None:
                v.assign(v.constraint(v))
        self._step += 1
        self._iterations.assign(np.int64(self._step))
        return self._iterations

    def minimize(self, loss, var_list, tape=None):
        """Computes the gradients of ``loss`` (a callable, or a tensor with ``tape``) and applies them."""
        if tape is None:
            with tf.GradientTape() as tape:
                value = loss()
        else:
            value = loss
        var_list = var_list() if callable(var_list) else list(var_list)
        grads = tape.gradient(value, var_list)
        self.apply_gradients(zip(grads, var_list))
        return self._iterations

    def _before_step(self, lr):
        """Hook for per-step (not per-variable) state, e.g. Nadam's momentum product."""

    @staticmethod
    def _as_grad(g, v):
        if isinstance(g, tf.Tensor) and g._dtype == v._dtype and g._shape == v._shape:
            return g
        g = tf.convert_to_tensor(g)
        if g.dtype != v.dtype:
            g = tf.cast(g, v.dtype)
        if tuple(g.shape) != tuple(v.shape):
            raise ValueError(f"apply_gradients: gradient of shape {tuple(g.shape)} does not match variable "
                             f"'{_var_name(v)}' of shape {tuple(v.shape)}")
        return g

    def _clip(self, grads):
        if self.clipvalue is not None:
            grads = [tf.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        if self.clipnorm is not None:
            grads = [_scaled(g, self.clipnorm, _norm(g)) for g in grads]
        if self.global_clipnorm is not None:
            total = math.sqrt(sum(_norm(g) ** 2 for g in grads))
            grads = [_scaled(g, self.global_clipnorm, total) for g in grads]
        return grads

    def get_config(self):
        lr = self._learning_rate
        return {"name": self.name, "learning_rate": lr if isinstance(lr, (int, float)) else lr.get_config(),
                "weight_decay": self.weight_decay, "clipnorm": self.clipnorm, "clipvalue": self.clipvalue,
                "global_clipnorm": self.global_clipnorm}


def _var_name(v):
    return getattr(v, "path", None) or v.name.split(":")[0]


def _norm(g):
    return float(np.linalg.norm(np.asarray(g.numpy(), dtype=np.float64)))


def _scaled(g, limit, norm):
    """g * limit / max(norm, limit): unchanged when within the limit."""
    return g if norm <= limit else g * tf.constant(limit / norm, dtype=g.dtype)
