"""tapegrad: tape-based automatic differentiation with a C++ core and TensorFlow 2's eager API.

    import tapegrad as tf
    from tapegrad import keras
"""
import os as _os

# OpenMP and OpenBLAS threads spinning against each other slow alternating kernels down
# many times over; a short OpenBLAS spin timeout avoids it. Must be set before the load.
_os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
# The same from the other side: libgomp's idle threads spin 300,000 rounds by default and starve
# the BLAS threads of the next GEMM (a wide MLP step ran 10x slower on a busy 2-core machine).
_os.environ.setdefault("GOMP_SPINCOUNT", "10000")

from tapegrad import _core  # noqa: E402

from tapegrad import dtypes, errors  # noqa: E402
from tapegrad.dtypes import (DType, as_dtype, bfloat16, bool, double, float16, float32, float64, half, int8, int16, int32,  # noqa: E402,A004
                             int64, string, uint8, uint16, uint32, uint64)
from tapegrad._tensor.tensor import *  # noqa: E402,F401,F403
from tapegrad._ops.array.creation import *  # noqa: E402,F401,F403
from tapegrad._autodiff.tape import GradientTape, UnconnectedGradients  # noqa: E402
from tapegrad._autodiff.gradients import gradients  # noqa: E402
from tapegrad._autodiff.custom_gradient import custom_gradient  # noqa: E402
from tapegrad._autodiff.register_gradient import RegisterGradient  # noqa: E402
from tapegrad._autodiff.recompute import recompute_grad  # noqa: E402
from tapegrad._ops.math.elementwise import *  # noqa: E402,F401,F403
from tapegrad._ops.math.divide_where import *  # noqa: E402,F401,F403
from tapegrad._ops.math.reduction import *  # noqa: E402,F401,F403
from tapegrad._ops.math.reduce_composed import *  # noqa: E402,F401,F403
from tapegrad._ops.array.manipulation import *  # noqa: E402,F401,F403
from tapegrad._ops.array.slicing import *  # noqa: E402,F401,F403
from tapegrad._ops.array.one_hot import one_hot  # noqa: E402,F401
from tapegrad._ops.linalg.products_norms import *  # noqa: E402,F401,F403
from tapegrad._ops.linalg.einsum import einsum  # noqa: E402,F401
from tapegrad._ops.array.roll_repeat_mask import *  # noqa: E402,F401,F403
from tapegrad._ops.array.gather_scatter import *  # noqa: E402,F401,F403
from tapegrad._ops.array.unique_partition import *  # noqa: E402,F401,F403
from tapegrad._ops.array.space_batch import *  # noqa: E402,F401,F403
from tapegrad._ops.array.sorting import argsort, searchsorted, sort  # noqa: E402,F401
from tapegrad._ops.composite.indexed_slices import IndexedSlices, IndexedSlicesSpec  # noqa: E402,F401
from tapegrad._ops.composite.sparse_tensor import SparseTensor, SparseTensorSpec  # noqa: E402,F401
from tapegrad._ops.composite.ragged_tensor import RaggedTensor, RaggedTensorSpec  # noqa: E402,F401
from tapegrad._function.function import function  # noqa: E402
from tapegrad import autograph  # noqa: E402
from tapegrad._function.tensor_array import TensorArray  # noqa: E402
from tapegrad._function.trace_context import inside_function, is_symbolic_tensor  # noqa: E402
from tapegrad._debugging.printing import print  # noqa: E402,A004
from tapegrad._ops.debugging.asserts import Assert, assert_equal, assert_greater, assert_less  # noqa: E402,F401
from tapegrad._ops.debugging.assert_static import assert_rank  # noqa: E402,F401
from tapegrad._function.py_function import *  # noqa: E402,F401,F403
from tapegrad._ops.math.aggregates import scalar_mul  # noqa: E402,F401
from tapegrad._function.control_flow import case, cond, switch_case, while_loop  # noqa: E402
from tapegrad._function.functional_ops import foldl, foldr, map_fn, scan, vectorized_map  # noqa: E402
from tapegrad import math, nn, linalg, random, debugging, nest, image  # noqa: E402,F401
from tapegrad import bitwise, raw_ops  # noqa: E402,F401
from tapegrad import autodiff  # noqa: E402
from tapegrad import config, strings, summary, test  # noqa: E402
from tapegrad.config._devices import device  # noqa: E402
from tapegrad import data  # noqa: E402
from tapegrad import io  # noqa: E402
from tapegrad import ragged, sets, sparse  # noqa: E402
from tapegrad.io._tensor_proto import make_ndarray, make_tensor_proto  # noqa: E402

from tapegrad._debugging.show_config import show_config  # noqa: E402

from tapegrad import version  # noqa: E402

__version__ = version.VERSION  # the TF API version (scripts compare it); tapegrad's own is version.TAPEGRAD_VERSION
from tapegrad._name_scope import name_scope  # noqa: E402
from tapegrad._module import Module  # noqa: E402
from tapegrad import train  # noqa: E402
from tapegrad import saved_model  # noqa: E402
from tapegrad import types  # noqa: E402
from tapegrad._utilities import *  # noqa: E402,F401,F403

from tapegrad._install import install as _install  # noqa: E402

_install(_os.sys.modules[__name__])
del _install

# keras loads at its first use (tf.keras.layers, `from tapegrad import keras`), with TF's top-level
# aliases of its modules (tf.optimizers.Adam is tf.keras.optimizers.Adam): see lazy_module.
from tapegrad._install import lazy_module as _lazy  # noqa: E402

keras = _lazy("tapegrad.keras")
distribute = _lazy("tapegrad.distribute")  # tf.distribute's strategies (and Horovod's MPI names)
optimizers, losses, metrics, initializers = (_lazy(f"tapegrad.keras.{m}") for m in ("optimizers", "losses", "metrics",
                                                                                      "initializers"))
del _lazy
