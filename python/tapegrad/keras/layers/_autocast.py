"""A layer's dtype policy: its variable and compute dtypes, and its weights read in the compute dtype while
its ``call`` runs (Note [Mixed precision] in keras/_dtype_policy.py)."""
import contextlib
import functools

import tapegrad as tf
from tapegrad.keras import _dtype_policy as _policy
from tapegrad.keras import backend

__all__ = ["NO_CAST", "PolicyProperties", "in_float32", "init_policy", "weights_cast"]

_set = object.__setattr__  # the instance dict itself: no sublayer tracking, no checkpoint bookkeeping
NO_CAST = contextlib.nullcontext()  # a layer computing in its variables' dtype reads them as they are


def init_policy(layer, dtype, autocast):
    """Sets the layer's policy from its ``dtype`` argument: ``_dtype`` is the variable dtype (what weights
    and ``layer.dtype`` use), ``_compute_dtype`` what its inputs are cast to. With no dtype and no global
    policy set, floatx as it is now (so keras.backend.set_floatx affects layers made after it)."""
    if dtype is None and _policy._GLOBAL[0] is None:
        policy = _policy.DTypePolicy(backend.floatx())
    else:
        policy = _policy.policy_of(dtype)
    _set(layer, "_dtype_policy", policy)
    _set(layer, "_dtype", tf.as_dtype(policy.variable_dtype))
    _set(layer, "_compute_dtype", tf.as_dtype(policy.compute_dtype))
    _set(layer, "autocast", bool(autocast))


class PolicyProperties:
    """Keras's dtype properties of a layer."""

    @property
    def dtype_policy(self):
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        init_policy(self, value, self.autocast)

    @property
    def compute_dtype(self):
        return self._compute_dtype.name

    @property
    def variable_dtype(self):
        return self._dtype.name

    @property
    def input_dtype(self):
        return self._compute_dtype.name


def _cast_attributes(layer):
    """(owner, attribute, variable) of the floating weights made with autocast=True that the layer and its
    sublayers hold as attributes, where their dtype is not the owner's compute dtype (an RNN reads its
    cell's weights without calling the cell)."""
    found, stack, seen = [], [layer], set()
    while stack:
        owner = stack.pop()
        if id(owner) in seen or not owner.__dict__.get("autocast", False):
            continue
        seen.add(id(owner))
        compute = owner.__dict__.get("_compute_dtype")
        if compute is None or not compute.is_floating:
            continue
        found += [(owner, k, v) for k, v in vars(owner).items() if isinstance(v, tf.Variable) and v.dtype.is_floating
                  and v.dtype is not compute and getattr(v, "autocast", True)]
        stack += owner.__dict__.get("_layers", [])
    return found


@contextlib.contextmanager
def weights_cast(layer):
    """While the block runs, the autocast weights of the layer and its sublayers read as casts to their
    compute dtype (the tape sees the variables read by Cast, so gradients reach them in their own dtype)."""
    swapped = _cast_attributes(layer)
    for owner, k, v in swapped:
        _set(owner, k, tf.cast(v, owner._compute_dtype))
    try:
        yield
    finally:
        for owner, k, v in swapped:
            _set(owner, k, v)


def in_float32(call):
    """A normalization layer's call computing in float32 on half inputs, its result cast back to the
    inputs' dtype (Keras keeps its statistics and weights float32: the layer sets autocast = False)."""
    @functools.wraps(call)
    def wrapper(self, inputs, *args, **kwargs):
        if isinstance(inputs, tf.Tensor) and inputs.dtype in (tf.float16, tf.bfloat16):
            return tf.cast(call(self, tf.cast(inputs, tf.float32), *args, **kwargs), inputs.dtype)
        return call(self, inputs, *args, **kwargs)
    return wrapper
