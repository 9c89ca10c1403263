"""``tf.nn``: activations, softmax and losses."""
from tapegrad._ops.math.elementwise import sigmoid, softplus  # noqa: F401
from tapegrad._ops.nn.activations_losses import *  # noqa: F401,F403
from tapegrad._ops.nn.conv_pool import *  # noqa: F401,F403,E402
from tapegrad._ops.nn.embedding_batchnorm import *  # noqa: F401,F403,E402
from tapegrad._ops.array.sorting import in_top_k, top_k  # noqa: F401,E402
from tapegrad._ops.math.elementwise import tanh  # noqa: F401,E402
from tapegrad._ops.nn.statistics_losses import *  # noqa: F401,F403,E402
from tapegrad._ops.math.aggregates import zero_fraction  # noqa: F401,E402
from tapegrad._ops.array.space_batch import space_to_batch  # noqa: F401,E402
from tapegrad._ops.nn.sampled_losses import *  # noqa: F401,F403,E402
