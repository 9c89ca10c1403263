"""keras.ops.numpy: the names Keras 3 has in its keras.ops.numpy, from keras.ops' table."""
from tapegrad.keras.ops import ALL, OPS, _names

globals().update({name: ALL[name] for name in _names.NUMPY})
__all__ = sorted(name for name in _names.NUMPY if name in OPS)
