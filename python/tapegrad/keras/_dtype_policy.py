"""keras.DTypePolicy and the global policy: the dtype a layer's variables are kept in and the dtype it
computes in ("mixed_float16": float16 computations on float32 variables).

Note [Mixed precision]: a layer whose policy computes in another dtype than its variables are kept in
casts its floating inputs to the compute dtype, and reads its own weights cast to it while its ``call``
runs (layers/_autocast.py), as Keras reads autocast variables in its autocast scope; the variables and
so their gradients stay float32 (Cast's gradient casts back). Weights made with ``autocast=False``
(normalization layers' statistics) are read as they are. The half types compute through float32 in
the kernels (Note [Half types through float32] in cpp/ops/half_rows.h), so a mixed step moves half the
bytes of activations at float32's arithmetic.
"""
import tapegrad as tf
from tapegrad.keras import backend

__all__ = [
    "DTypePolicy",
    "FloatDTypePolicy",
    "Policy",
    "dtype_policy",
    "global_policy",
    "policy_of",
    "set_dtype_policy",
    "set_global_policy",
]

_GLOBAL = [None]  # the policy set by set_dtype_policy; None: floatx's


class DTypePolicy:
    """A name ("float32", "mixed_float16", "mixed_bfloat16", any dtype name) and the dtypes it gives:
    ``compute_dtype`` for the layer's computations and ``variable_dtype`` for its weights."""

    def __init__(self, name=None):
        if name is None:
            name = dtype_policy().name
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse(name)
        self._quantization_mode = None

    @property
    def name(self):
        return self._name

    @property
    def compute_dtype(self):
        return self._compute_dtype

    @property
    def variable_dtype(self):
        return self._variable_dtype

    @property
    def quantization_mode(self):
        return self._quantization_mode

    def convert_input(self, x, autocast, dtype):
        """x as a tensor, cast to ``dtype`` when it is floating and ``autocast`` is set (integers stay)."""
        if not isinstance(x, tf.Tensor):
            if not hasattr(x, "__array__"):
                return x
            x = tf.convert_to_tensor(x)
        return tf.cast(x, dtype) if autocast and x.dtype.is_floating and x.dtype.name != dtype else x

    def get_config(self):
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other):
        return type(other) in (DTypePolicy, FloatDTypePolicy) and other._name == self._name

    def __hash__(self):
        return hash(self._name)


class FloatDTypePolicy(DTypePolicy):
    """Keras's older name for a DTypePolicy of float dtypes."""


Policy = DTypePolicy  # keras.mixed_precision.Policy


def _parse(name):
    """(compute dtype name, variable dtype name) of a policy name, with Keras's errors."""
    if not isinstance(name, str):
        raise TypeError(f"'name' must be a string, such as 'mixed_float16'. Received: name={name} (of type "
                        f"{type(name)})")
    if name in ("mixed_float16", "mixed_bfloat16"):
        return name[len("mixed_"):], "float32"
    try:
        dtype = tf.as_dtype(name)
    except TypeError:
        dtype = None
    if dtype is None:
        raise ValueError(f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies include "
                         "'mixed_float16', 'mixed_bfloat16', and the name of any float dtype such as 'float32'.")
    return dtype.name, dtype.name


def set_dtype_policy(policy):
    """Sets the policy layers built afterwards take when they are given no dtype."""
    if not isinstance(policy, DTypePolicy):
        if not isinstance(policy, str):
            raise ValueError("Invalid `policy` argument. Expected the string name of a policy (such as "
                             f"'mixed_float16') or a `DTypePolicy` instance. Received: policy={policy} (of type "
                             f"{type(policy)})")
        policy = DTypePolicy(policy)
    _GLOBAL[0] = policy


def dtype_policy():
    """The global policy (floatx's when none was set)."""
    if _GLOBAL[0] is None:
        _GLOBAL[0] = DTypePolicy(backend.floatx())
    return _GLOBAL[0]


set_global_policy = set_dtype_policy
global_policy = dtype_policy


def policy_of(dtype):
    """A layer's ``dtype`` argument as a policy: None gives the global one; a policy, its name, a policy
    config dict (as .keras files hold it) or a DType give their own."""
    if dtype is None:
        return dtype_policy()
    if isinstance(dtype, DTypePolicy):
        return dtype
    if isinstance(dtype, dict):
        config = dtype.get("config", dtype)
        return DTypePolicy(config.get("name"))
    if isinstance(dtype, tf.DType):
        return DTypePolicy(dtype.name)
    name = getattr(dtype, "name", dtype)
    return DTypePolicy(name if isinstance(name, str) else tf.as_dtype(dtype).name)
