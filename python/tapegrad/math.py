"""``tf.math``: elementwise math and reductions."""
from tapegrad._ops.elementwise import *  # noqa: F401,F403
from tapegrad._ops.reduction import *  # noqa: F401,F403
from tapegrad._ops.array import unsorted_segment_sum  # noqa: F401,E402
from tapegrad._ops.elementwise import digamma, divide_no_nan, erfinv, lgamma, polygamma, xdivy, xlogy  # noqa: F401,E402
from tapegrad._ops.special import lbeta  # noqa: F401,E402
from tapegrad._ops.nn import l2_normalize, log_sigmoid, softsign  # noqa: F401,E402
from tapegrad._ops.sorting import in_top_k, top_k  # noqa: F401,E402
from tapegrad._ops.classify import is_finite, is_inf, is_nan  # noqa: F401,E402
from tapegrad._ops.nn import log_softmax, softmax  # noqa: F401,E402
from tapegrad._ops.math_more import *  # noqa: F401,F403,E402
from tapegrad._ops.segments import *  # noqa: F401,F403,E402
from tapegrad._ops.math_extra import *  # noqa: F401,F403,E402
from tapegrad._ops.reduction import cumprod  # noqa: F401,E402
from tapegrad._ops.array_sets import nextafter  # noqa: F401,E402
