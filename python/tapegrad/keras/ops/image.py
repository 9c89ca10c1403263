"""keras.ops.image: the names Keras 3 has in its keras.ops.image, from keras.ops' table."""
from tapegrad.keras.ops import ALL, OPS, _names

globals().update({name: ALL[name] for name in _names.IMAGE})
__all__ = sorted(name for name in _names.IMAGE if name in OPS)
