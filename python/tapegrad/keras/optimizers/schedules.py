"""keras.optimizers.schedules: learning rates as a function of the step.

A schedule takes the step as a Python number (eager optimizer steps) or as a float64 scalar tensor
(an optimizer step traced in a tf.function, so each call of the graph evaluates the schedule).
"""
import math

import tapegrad as tf

from tapegrad.keras.saving._serialization import AutoConfig

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay", "InverseTimeDecay", "CosineDecay"]


def _traced(step):
    return isinstance(step, tf.Tensor)


def _decay_progress(step, decay_steps, staircase):
    """step / decay_steps, floored when staircase: a tensor for a traced step, else a float."""
    if _traced(step):
        p = step / float(decay_steps)
        return tf.floor(p) if staircase else p
    p = float(step) / decay_steps
    return math.floor(p) if staircase else p


class LearningRateSchedule(AutoConfig):
    """Base class: ``schedule(step)`` returns the learning rate for that (0-based) optimizer step."""

    def __call__(self, step):
        raise NotImplementedError


class ExponentialDecay(LearningRateSchedule):
    """lr = initial_learning_rate * decay_rate ** (step / decay_steps), the exponent floored if staircase."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"ExponentialDecay: decay_steps must be positive, got {decay_steps}")
        self.initial_learning_rate, self.decay_steps = float(initial_learning_rate), decay_steps
        self.decay_rate, self.staircase, self.name = float(decay_rate), staircase, name

    def __call__(self, step):
        p = _decay_progress(step, self.decay_steps, self.staircase)
        if _traced(step):
            return self.initial_learning_rate * tf.pow(tf.constant(self.decay_rate, tf.float64), p)
        return self.initial_learning_rate * self.decay_rate ** p

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


class InverseTimeDecay(LearningRateSchedule):
    """lr = initial_learning_rate / (1 + decay_rate * step / decay_steps), the ratio floored if staircase."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name="InverseTimeDecay"):
        self.initial_learning_rate, self.decay_steps = float(initial_learning_rate), decay_steps
        self.decay_rate, self.staircase, self.name = float(decay_rate), staircase, name

    def __call__(self, step):
        p = _decay_progress(step, self.decay_steps, self.staircase)
        return self.initial_learning_rate / (1.0 + self.decay_rate * p)


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[i] for boundaries[i-1] < step <= boundaries[i]."""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseConstantDecay: values must have one more element than boundaries")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step):
        if _traced(step):
            lr = tf.constant(float(self.values[-1]), tf.float64)
            for b, v in reversed(list(zip(self.boundaries, self.values))):
                lr = tf.where(step <= float(b), tf.constant(float(v), tf.float64), lr)
            return lr
        for b, v in zip(self.boundaries, self.values):
            if step <= b:
                return float(v)
        return float(self.values[-1])


class CosineDecay(LearningRateSchedule):
    """lr = initial * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay", **kwargs):
        self.initial_learning_rate, self.decay_steps, self.alpha, self.name = \
            float(initial_learning_rate), decay_steps, alpha, name

    def __call__(self, step):
        if _traced(step):
            frac = tf.minimum(step, float(self.decay_steps)) / float(self.decay_steps)
            return self.initial_learning_rate * ((1 - self.alpha) * 0.5 * (1.0 + tf.cos(math.pi * frac)) + self.alpha)
        frac = min(float(step), self.decay_steps) / self.decay_steps
        return self.initial_learning_rate * ((1 - self.alpha) * 0.5 * (1 + math.cos(math.pi * frac)) + self.alpha)
