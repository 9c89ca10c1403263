"""keras.ops: Keras 3's backend-neutral ops (the NumPy-like ops, nn, linalg, image and the core ops), each a
thin mapping onto tapegrad's ops with Keras's argument names, defaults and dtype rules.

    from tapegrad.keras import ops
    ops.sum(x, axis=0); ops.softmax(x); ops.numpy.arange(5); ops.nn.gelu(x); ops.linalg.inv(a)

OPS is the one table (Keras name -> function). Called with a Keras symbolic tensor (keras.Input) an op
records itself in the functional model being built. The names tapegrad has no op for are bound to
functions raising UnimplementedError (_unimplemented.py) and are not in __all__."""
from tapegrad.keras.ops import _names
from tapegrad.keras.ops._core import CORE
from tapegrad.keras.ops._image import IMAGE
from tapegrad.keras.ops._linalg import LINALG
from tapegrad.keras.ops._nn_activations import NN_ACTIVATIONS
from tapegrad.keras.ops._nn_layers import NN_LAYERS
from tapegrad.keras.ops._numpy_create import NUMPY_CREATE
from tapegrad.keras.ops._numpy_index import NUMPY_INDEX
from tapegrad.keras.ops._numpy_integer import NUMPY_INTEGER
from tapegrad.keras.ops._numpy_math import NUMPY_MATH
from tapegrad.keras.ops._numpy_nan import NUMPY_NAN
from tapegrad.keras.ops._numpy_quantile import NUMPY_QUANTILE
from tapegrad.keras.ops._numpy_shape import NUMPY_SHAPE
from tapegrad.keras.ops._registry import keras_op, unimplemented
from tapegrad.keras.ops._unimplemented import UNIMPLEMENTED

_TABLES = (NUMPY_MATH, NUMPY_NAN, NUMPY_CREATE, NUMPY_SHAPE, NUMPY_INDEX, NUMPY_INTEGER, NUMPY_QUANTILE,
           NN_ACTIVATIONS, NN_LAYERS, LINALG, IMAGE, CORE)
OPS = {name: keras_op(name, fn) for table in _TABLES for name, fn in table.items()}
KERAS_NAMES = set(_names.NUMPY + _names.NN + _names.LINALG + _names.IMAGE + _names.TOP_LEVEL_ONLY)
assert sum(map(len, _TABLES)) == len(OPS), "a name is in two tables"
assert set(OPS) <= KERAS_NAMES, sorted(set(OPS) - KERAS_NAMES)
assert set(UNIMPLEMENTED) == KERAS_NAMES - set(OPS), sorted((KERAS_NAMES - set(OPS)) ^ set(UNIMPLEMENTED))
ALL = {**OPS, **{name: unimplemented(name, why) for name, why in UNIMPLEMENTED.items()}}

_TOP_LEVEL = set(_names.NUMPY + _names.NN + _names.LINALG + _names.TOP_LEVEL_ONLY)  # image's are ops.image.*
globals().update({name: ALL[name] for name in _TOP_LEVEL})

from tapegrad.keras.ops import image, linalg, nn, numpy  # noqa: E402 -- the submodules read ALL

__all__ = sorted(name for name in _TOP_LEVEL if name in OPS) + ["image", "linalg", "nn", "numpy"]
