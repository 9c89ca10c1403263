"""Pillow, imported when an image codec first runs: it is an optional dependency (tapegrad[image])."""

__all__ = ["pil_image"]


def pil_image(op):
    """PIL.Image, or ImportError saying how to install it."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f'tf.io.{op} needs Pillow to read and write images: pip install "tapegrad[image]" '
                          f'(or pip install pillow)') from None
    return Image
