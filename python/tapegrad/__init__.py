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

_core._set_package_dir(_os.path.dirname(_os.path.abspath(__file__)) + _os.sep)
from tapegrad import dtypes, errors  # noqa: E402
from tapegrad.dtypes import DType, as_dtype, bool, float32, float64, int32, int64  # noqa: E402,A004
from tapegrad._tensor import *  # noqa: E402,F401,F403
from tapegrad._creation import *  # noqa: E402,F401,F403
from tapegrad._tape import GradientTape, UnconnectedGradients  # noqa: E402
from tapegrad._custom_gradient import custom_gradient  # noqa: E402
from tapegrad._register_gradient import RegisterGradient  # noqa: E402
from tapegrad._recompute import recompute_grad  # noqa: E402
from tapegrad._ops.elementwise import *  # noqa: E402,F401,F403
from tapegrad._ops.reduction import *  # noqa: E402,F401,F403
from tapegrad._ops.array import *  # noqa: E402,F401,F403
from tapegrad._ops.linalg import *  # noqa: E402,F401,F403
from tapegrad._tensor import install_tensor_surface as _install_tensor_surface  # noqa: E402

_install_tensor_surface()
from tapegrad._function import function  # noqa: E402
from tapegrad._trace_context import inside_function, is_symbolic_tensor  # noqa: E402
from tapegrad._print import print  # noqa: E402,A004
from tapegrad._control_flow import cond, while_loop  # noqa: E402
from tapegrad import math, nn, linalg, random, debugging, nest  # noqa: E402
from tapegrad import raw_ops  # noqa: E402,F401
from tapegrad import autodiff  # noqa: E402

__version__ = "0.1.0"
from tapegrad import keras  # noqa: E402
