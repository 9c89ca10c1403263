"""``tf.nn``: activations, softmax and losses."""
from tapegrad._ops.elementwise import sigmoid, softplus  # noqa: F401
from tapegrad._ops.nn import *  # noqa: F401,F403
from tapegrad._ops.conv import *  # noqa: F401,F403,E402
from tapegrad._ops.nn_lookup_norm import *  # noqa: F401,F403,E402
from tapegrad._ops.sorting import in_top_k, top_k  # noqa: F401,E402
from tapegrad._ops.elementwise import tanh  # noqa: F401,E402
from tapegrad._ops.nn_more import *  # noqa: F401,F403,E402
from tapegrad._ops.array_space import space_to_batch  # noqa: F401,E402
from tapegrad._ops.nn_sampled import *  # noqa: F401,F403,E402
