"""``import tapegrad.distribute.keras as hvd``: the module layout of ``horovod.tensorflow.keras``."""
from tapegrad.distribute import *  # noqa: F401,F403
from tapegrad.distribute import __all__, callbacks, stats  # noqa: F401
