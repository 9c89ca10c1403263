"""tf.image.resize (bilinear and nearest neighbour, TF 2's half-pixel centres), composed of gathers
along the height and width axes and a weighted sum, so that its gradient (a scatter-add of the
upstream gradient into the source pixels) comes from the registered ops and differentiates again.

Note [Resize coordinates]: for an output row y of out_h rows taken from in_h rows, with
scale = in_h / out_h computed in float32 as TF's kernels do:
  bilinear  src = (y + 0.5) * scale - 0.5; rows max(floor(src), 0) and min(ceil(src), in_h - 1),
            weight src - floor(src) on the second (so rows before the first centre repeat row 0);
  nearest   row min(floor((y + 0.5) * scale), in_h - 1).
Columns likewise. Bilinear interpolates along the width first, then along the height, in float32.
"""
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops.image._resize import ResizeMethod, resize_images

__all__ = ["resize", "ResizeMethod"]


@dispatch("images, size:any, method:any='bilinear', preserve_aspect_ratio:bool=False, antialias:bool=False")
def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """``images`` ([batch, height, width, channels] or [height, width, channels]) resized to ``size``
    ([new_height, new_width]), as TF 2's tf.image.resize: bilinear (the default; the result is
    float32) or nearest neighbour (the result keeps the images' dtype), pixel centres at half
    pixels (Note [Resize coordinates]). With ``preserve_aspect_ratio`` the image is scaled by one
    factor to fit within ``size``. Other methods, and ``antialias`` when an axis shrinks, raise
    UnimplementedError."""
    return resize_images(images, size, method, preserve_aspect_ratio, antialias)
