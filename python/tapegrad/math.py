"""``tf.math``: elementwise math and reductions."""
from tapegrad._ops.math.elementwise import *  # noqa: F401,F403
from tapegrad._ops.math.divide_where import *  # noqa: F401,F403
from tapegrad._ops.math.reduction import *  # noqa: F401,F403
from tapegrad._ops.math.reduce_composed import *  # noqa: F401,F403
from tapegrad._ops.array.manipulation import unsorted_segment_sum  # noqa: F401,E402
from tapegrad._ops.math.elementwise import digamma, erfinv, lgamma, polygamma, xdivy, xlogy  # noqa: F401,E402
from tapegrad._ops.math.divide_where import divide_no_nan  # noqa: F401,E402
from tapegrad._ops.math.special import lbeta  # noqa: F401,E402
from tapegrad._ops.nn.activations_losses import l2_normalize, log_sigmoid, softsign  # noqa: F401,E402
from tapegrad._ops.array.sorting import in_top_k, top_k  # noqa: F401,E402
from tapegrad._ops.math.classify import is_finite, is_inf, is_nan  # noqa: F401,E402
from tapegrad._ops.nn.activations_losses import log_softmax, softmax  # noqa: F401,E402
from tapegrad._ops.math.aggregates import *  # noqa: F401,F403,E402
from tapegrad._ops.math.segments import *  # noqa: F401,F403,E402
from tapegrad._ops.math.tails_and_counts import *  # noqa: F401,F403,E402
from tapegrad._ops.math.reduction import cumprod  # noqa: F401,E402
from tapegrad._ops.array.unique_partition import nextafter  # noqa: F401,E402
