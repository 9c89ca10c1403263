"""keras.ops.linalg: the names Keras 3 has in its keras.ops.linalg, from keras.ops' table."""
from tapegrad.keras.ops import ALL, OPS, _names

globals().update({name: ALL[name] for name in _names.LINALG})
__all__ = sorted(name for name in _names.LINALG if name in OPS)
