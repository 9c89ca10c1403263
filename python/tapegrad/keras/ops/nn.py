"""keras.ops.nn: the names Keras 3 has in its keras.ops.nn, from keras.ops' table."""
from tapegrad.keras.ops import ALL, OPS, _names

globals().update({name: ALL[name] for name in _names.NN})
__all__ = sorted(name for name in _names.NN if name in OPS)
