"""keras.dtype_policies: the dtype policy classes and their (de)serialization."""
from tapegrad.keras._dtype_policy import DTypePolicy, FloatDTypePolicy, policy_of

__all__ = ["DTypePolicy", "FloatDTypePolicy", "deserialize", "get", "serialize"]


def get(identifier):
    """A DTypePolicy from None (the global one), a name, a config dict or a policy."""
    return policy_of(identifier)


def serialize(policy):
    return {"module": "keras", "class_name": "DTypePolicy", "config": policy.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    return policy_of(config)
