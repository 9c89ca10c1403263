"""``import tapegrad.distribute.keras as hvd``: the module layout of ``horovod.tensorflow.keras``."""
from tapegrad.distribute import *  # noqa: F401,F403
from tapegrad.distribute import __all__ as _all, callbacks, stats  # noqa: F401

__all__ = _all + ["load_model"]


def load_model(filepath, custom_optimizers=None, custom_objects=None, compression=None):
    """A saved model (``keras.models.load_model``) whose optimizer, restored with its state, averages
    its gradients over the ranks before applying them (Horovod's ``hvd.load_model``): how a training
    run resumes from a checkpoint on every rank. ``custom_optimizers``: optimizer classes the file may
    name, besides Keras's own."""
    from tapegrad import keras
    from tapegrad.distribute import _runtime
    from tapegrad.distribute._collectives import _wire_dtype
    from tapegrad.distribute._optimizer import distribute_in_place
    _runtime.state()
    _wire_dtype(compression, "load_model")
    objects = dict(custom_objects or {})
    for cls in custom_optimizers or ():
        objects[cls.__name__] = cls
    model = keras.models.load_model(filepath, custom_objects=objects or None)
    if getattr(model, "optimizer", None) is not None:
        distribute_in_place(model.optimizer, compression)
    return model
