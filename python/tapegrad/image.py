"""``tf.image``: resizing; flips, turns, crops, pads and patches; colour and dtype conversions and
adjustments; random augmentations; image measures (psnr, ssim, total variation, gradients)."""
from tapegrad._ops.image import *  # noqa: F401,F403
from tapegrad._ops.image_color import *  # noqa: F401,F403
from tapegrad._ops.image_dtype import *  # noqa: F401,F403
from tapegrad._ops.image_geometry import *  # noqa: F401,F403
from tapegrad._ops.image_hsv import *  # noqa: F401,F403
from tapegrad._ops.image_metrics import *  # noqa: F401,F403
from tapegrad._ops.image_random import *  # noqa: F401,F403
