"""keras.optimizers.LossScaleOptimizer: dynamic loss scaling around another optimizer, for float16 training.

The loss is multiplied by a scale (``scale_loss``) before the gradients are taken, so small float16
gradients do not flush to zero; ``apply`` divides them by the scale again. A step whose gradients hold
an inf or a NaN is skipped (the inner optimizer, its slots and its ``iterations`` untouched) and halves
the scale; after ``dynamic_growth_steps`` finite steps in a row the scale doubles. Inside a tf.function
the choice is a tf.cond on the gradients, so each call of the traced step takes its own branch.
"""
import numpy as np

import tapegrad as tf
from tapegrad.keras.optimizers._sparse import divided
from tapegrad.keras.optimizers.base import Optimizer
from tapegrad.keras.saving._serialization import (
    deserialize_keras_object,
    serialize_keras_object,
)

__all__ = ["LossScaleOptimizer", "scaled_for_policy"]

# Optimizer arguments Keras lets through only at their defaults (old configs carry them).
_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
                  "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                  "loss_scale_factor": None, "gradient_accumulation_steps": None}


def _check_arguments(kwargs):
    if not kwargs.pop("dynamic", True):
        raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                         "`loss_scale_factor` directly on the `inner_optimizer`.")
    for arg, default in _BASE_DEFAULTS.items():
        if arg in kwargs and kwargs.pop(arg) != default:
            raise ValueError(f"LossScaleOptimizer does not support `{arg}`. Instead, set `{arg}` on the "
                             "`inner_optimizer`.")
    if kwargs:
        raise ValueError(f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs)}`.")


def _values(g):
    return g.values if isinstance(g, tf.IndexedSlices) else g


class LossScaleOptimizer(Optimizer):
    """Wraps ``inner_optimizer`` with a dynamic loss scale starting at ``initial_scale``."""

    def __init__(self, inner_optimizer, initial_scale=2.0 ** 15, dynamic_growth_steps=2000, name=None, **kwargs):
        _check_arguments(kwargs)
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(f"LossScaleOptimizer: inner_optimizer must be a keras Optimizer, got {inner_optimizer!r}")
        super().__init__(learning_rate=0.0, name=name or "loss_scale_optimizer")
        self.inner_optimizer = inner_optimizer
        self.initial_scale = float(initial_scale)
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        inner_optimizer.loss_scale_factor = None  # the gradients are unscaled here, once
        self.step_counter = tf.Variable(np.int32(0), trainable=False, name="step_counter")
        self.dynamic_scale = tf.Variable(np.float32(self.initial_scale), trainable=False, name="dynamic_scale")

    # ---- what the wrapper forwards
    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if "inner_optimizer" in self.__dict__:  # (the base constructor sets a rate before the inner exists)
            self.inner_optimizer.learning_rate = value
        else:
            Optimizer.learning_rate.fset(self, value)

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    @property
    def variables(self):
        return [self.step_counter, self.dynamic_scale] + list(self.inner_optimizer.variables)

    def build(self, var_list):
        self.inner_optimizer._build_for(var_list)
        self.built = True

    def scale_loss(self, loss):
        """The loss times the current scale (take the gradients of this)."""
        return loss * tf.cast(self.dynamic_scale, loss.dtype if isinstance(loss, tf.Tensor) else tf.float32)

    # ---- a step
    def apply(self, grads, trainable_variables=None):
        return self.apply_gradients(zip(grads, trainable_variables))

    def apply_gradients(self, grads_and_vars, name=None, **kwargs):
        pairs = [(g, v) for g, v in grads_and_vars]
        self.build([v for _, v in pairs])  # slots exist before a traced step's branches
        present = [_values(g) for g, _ in pairs if g is not None]
        finite = tf.reduce_all(tf.stack([tf.reduce_all(tf.math.is_finite(g)) for g in present])) if present \
            else tf.constant(True)
        if tf.inside_function():
            tf.cond(finite, lambda: self._finite_step(pairs), self._skipped_step)
        elif bool(finite):
            self._finite_step(pairs)
        else:
            self._skipped_step()
        return self.iterations

    def _finite_step(self, pairs):
        scale = self.dynamic_scale
        self.inner_optimizer.apply_gradients([(divided(g, scale), v) for g, v in pairs])
        grow = tf.equal(self.step_counter, self.dynamic_growth_steps - 1)
        self.step_counter.assign(tf.where(grow, tf.constant(0, tf.int32), self.step_counter + 1))
        self.dynamic_scale.assign(tf.where(grow, self.dynamic_scale * 2.0, self.dynamic_scale))

    def _skipped_step(self):
        self.step_counter.assign(tf.constant(0, tf.int32))
        self.dynamic_scale.assign(self.dynamic_scale * 0.5)

    def finalize_variable_values(self, var_list):
        finalize = getattr(self.inner_optimizer, "finalize_variable_values", None)
        if finalize is not None:
            finalize(var_list)

    # ---- configs
    def get_config(self):
        return {"name": self.name, "inner_optimizer": serialize_keras_object(self.inner_optimizer),
                "initial_scale": self.initial_scale, "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        inner = deserialize_keras_object(config.pop("inner_optimizer"), custom_objects=custom_objects)
        return cls(inner, **config)


def scaled_for_policy(model, optimizer, auto_scale_loss=True):
    """compile()'s optimizer: wrapped in a LossScaleOptimizer when the model computes in mixed_float16, as
    Keras does (auto_scale_loss=False keeps it as it is; bfloat16 needs no loss scale)."""
    policy = getattr(model, "dtype_policy", None)
    if auto_scale_loss and policy is not None and policy.name == "mixed_float16" and optimizer is not None \
            and not isinstance(optimizer, LossScaleOptimizer):
        return LossScaleOptimizer(optimizer, name="loss_scale_optimizer")
    return optimizer
