"""``tf.image``: resizing; non-max suppression of boxes; flips, turns, crops, pads and patches; colour and dtype conversions and
adjustments; random augmentations; image measures (psnr, ssim, total variation, gradients); and tf.io's
image codecs under their tf.image names (decode_png, encode_jpeg, ...)."""
from tapegrad._ops.image import *  # noqa: F401,F403
from tapegrad._ops.image_boxes import *  # noqa: F401,F403
from tapegrad._ops.image_color import *  # noqa: F401,F403
from tapegrad._ops.image_dtype import *  # noqa: F401,F403
from tapegrad._ops.image_geometry import *  # noqa: F401,F403
from tapegrad._ops.image_hsv import *  # noqa: F401,F403
from tapegrad._ops.image_metrics import *  # noqa: F401,F403
from tapegrad._ops.image_random import *  # noqa: F401,F403
from tapegrad._ops.image_stateless import *  # noqa: F401,F403
from tapegrad.io._decode import decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png  # noqa: F401
from tapegrad.io._encode import encode_jpeg, encode_png  # noqa: F401
from tapegrad.io._jpeg import decode_and_crop_jpeg, extract_jpeg_shape, is_jpeg  # noqa: F401
