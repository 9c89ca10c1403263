"""Keras masks: the boolean mask a tensor carries (Embedding(mask_zero=True), Masking) and how layers
pass it on.

Note [Keras masks]
Keras 3 keeps a tensor's mask on the tensor (``_keras_mask``). tapegrad tensors take no Python
attributes, so masks live in a side table keyed by the tensor's id, dropped with the tensor (a weak
reference's callback). Layer.__call__ reads the input's mask, hands it to ``call(..., mask=)`` when
call takes one, and sets the output's mask: ``compute_mask(inputs, mask)`` where the layer defines
it, the input's mask for a layer that ``supports_masking``, and none otherwise (with Keras's
warning that the mask is dropped). Losses weight their values by the prediction's mask. The table
is empty unless masks are used, and then costs one dict lookup per call.
"""
import warnings
import weakref

__all__ = ["get_keras_mask", "set_keras_mask", "masks_in_use", "mask_of", "warn_dropped"]

_MASKS = {}  # id(tensor) -> (weak reference to the tensor, mask)


def masks_in_use():
    return bool(_MASKS)


def get_keras_mask(tensor):
    """The mask set on tensor, or None."""
    entry = _MASKS.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1]


def set_keras_mask(tensor, mask):
    """Sets (or, with None, removes) tensor's mask."""
    key = id(tensor)
    if mask is None:
        _MASKS.pop(key, None)
        return
    try:
        ref = weakref.ref(tensor, lambda _, key=key: _MASKS.pop(key, None))
    except TypeError:  # not a tensor: nothing to carry a mask
        return
    _MASKS[key] = (ref, mask)


def mask_of(inputs):
    """The mask of a tensor, or the list of masks of a list of tensors (None where none)."""
    if isinstance(inputs, (list, tuple)):
        masks = [get_keras_mask(x) for x in inputs]
        return masks if any(m is not None for m in masks) else None
    return get_keras_mask(inputs)


_warned = set()


def warn_dropped(layer):
    key = type(layer).__name__
    if key in _warned:
        return
    _warned.add(key)
    warnings.warn(f"Layer '{layer.name}' (of type {key}) was passed an input with a mask attached to it. However, "
                  "this layer does not support masking and will therefore destroy the mask information. "
                  "Downstream layers will not see the mask.", UserWarning, stacklevel=3)
