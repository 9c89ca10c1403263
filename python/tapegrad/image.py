"""``tf.image``: resizing; non-max suppression of boxes; flips, turns, crops, pads and patches; colour and dtype conversions and
adjustments; random augmentations; image measures (psnr, ssim, total variation, gradients); and tf.io's
image codecs under their tf.image names (decode_png, encode_jpeg, ...)."""
from tapegrad._ops.image.resize import *  # noqa: F401,F403
from tapegrad._ops.image.boxes import *  # noqa: F401,F403
from tapegrad._ops.image.color import *  # noqa: F401,F403
from tapegrad._ops.image.convert_dtype import *  # noqa: F401,F403
from tapegrad._ops.image.geometry import *  # noqa: F401,F403
from tapegrad._ops.image.hsv import *  # noqa: F401,F403
from tapegrad._ops.image.metrics import *  # noqa: F401,F403
from tapegrad._ops.image.random_adjust import *  # noqa: F401,F403
from tapegrad._ops.image.stateless_random import *  # noqa: F401,F403
from tapegrad.io._decode import decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png  # noqa: F401
from tapegrad.io._encode import encode_jpeg, encode_png  # noqa: F401
from tapegrad.io._jpeg import decode_and_crop_jpeg, extract_jpeg_shape, is_jpeg  # noqa: F401
