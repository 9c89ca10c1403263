"""tf.train.ExponentialMovingAverage: shadow variables that follow variables with exponential decay.

    ema = tf.train.ExponentialMovingAverage(decay=0.99)
    ema.apply([w])          # creates w's shadow (w's value), then every call:
                            #   shadow -= (1 - decay) * (shadow - w)
    ema.average(w)          # the shadow Variable, named "w/ExponentialMovingAverage"

As in TF, ``1 - decay`` is computed in float32 and then cast to the variable's dtype, and with
``num_updates`` the decay used is ``min(decay, (1 + num_updates) / (10 + num_updates))``, read at
every apply (a Variable step counter may change between calls; apply does not advance it).

Inside a tf.function apply creates its shadows eagerly (tf.init_scope) and the traced graph
updates them at every call. One difference: TF initialises a shadow from the variable's value
before the function runs, tapegrad's trace (which runs the body on real values) from its value at
the apply, after the function's earlier assignments of the first call. Calling apply once eagerly
before the first call makes the two agree.

``zero_debias`` is accepted and has no effect: TF 2 only averages Variables, and zero debiasing only
concerns averages that start from a tensor. The object is not trackable (nor is TF's); checkpoint
the shadows by attaching them to a Checkpoint.
"""
import weakref

import tapegrad as tf

__all__ = ["ExponentialMovingAverage"]

_FLOAT_TYPES = ("float16", "float32", "float64", "bfloat16")
# Every variable some average follows, in order (TF's MOVING_AVERAGE_VARIABLES collection), held weakly.
_averaged_variables = []
# How many shadows each name has had in this process: as TF, the second shadow named "w/EMA" is
# "w/EMA_1" (and so is its average_name).
_shadow_names = {}


def _unique_shadow_name(name):
    n = _shadow_names.get(name, 0)
    _shadow_names[name] = n + 1
    return name if n == 0 else f"{name}_{n}"


def _op_name(var):
    return var.name[:-2] if var.name.endswith(":0") else var.name


def _note_averaged(var):
    _averaged_variables[:] = [r for r in _averaged_variables if r() is not None]
    _averaged_variables.append(weakref.ref(var))


class ExponentialMovingAverage:
    """Maintains moving averages of variables (see the module's docstring).

    Args:
      decay: the decay, a float (or a float tensor / Variable, read at each apply).
      num_updates: None, or a step count (an int or integer Variable) that lowers the decay early on.
      zero_debias: accepted for TF's signature; no effect on Variables (see the module's docstring).
      name: the suffix of the shadows' names.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}  # id(variable) -> (variable, shadow)

    @property
    def name(self):
        return self._name

    def _decay_tensor(self):
        decay = tf.cast(self._decay, tf.float32)
        if self._num_updates is not None:
            n = tf.cast(self._num_updates, tf.float32)
            decay = tf.minimum(decay, (1.0 + n) / (10.0 + n))
        return decay

    def apply(self, var_list=None):
        """Creates the shadows of the variables that have none, then moves every shadow towards its
        variable. Returns None (TF 2 returns None eagerly too)."""
        var_list = [] if var_list is None else list(var_list)
        for var in var_list:
            if var.dtype.name not in _FLOAT_TYPES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if not isinstance(var, tf.Variable):
                raise TypeError("tf.train.ExponentialMovingAverage does not support non-Variable tensors when "
                                "eager execution is enabled.")
        for var in var_list:
            if id(var) not in self._averages:
                self._averages[id(var)] = (var, self._make_shadow(var))
        if not var_list:
            return None
        one_minus_decay = 1.0 - self._decay_tensor()
        for var in var_list:
            shadow = self._averages[id(var)][1]
            shadow.assign_sub((shadow - var) * tf.cast(one_minus_decay, var.dtype))
        return None

    def _make_shadow(self, var):
        with tf.init_scope():  # a Variable of its own even when apply is traced
            shadow = tf.Variable(var.read_value(), trainable=False,
                                 name=_unique_shadow_name(self.average_name(var)))
        _note_averaged(var)
        return shadow

    def average(self, var):
        """The shadow Variable of ``var``, or None if apply never saw it."""
        entry = self._averages.get(id(var))
        return entry[1] if entry is not None and entry[0] is var else None

    def average_name(self, var):
        """The name of ``var``'s shadow without ":0": its shadow's name if it has one (numbered when the
        name was taken), else "<var's name>/<this average's name>"."""
        shadow = self.average(var)
        return _op_name(shadow) if shadow is not None else f"{_op_name(var)}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None):
        """{shadow name: variable}, for a Saver-style restore of averages into the variables. By default
        every variable some ExponentialMovingAverage has averaged (named with this average's name)."""
        if moving_avg_variables is None:
            moving_avg_variables = [r() for r in _averaged_variables if r() is not None]
        return {self.average_name(v): v for v in moving_avg_variables}
