"""keras.optimizers: SGD, Adam, AdamW, Nadam, RMSprop, Adagrad (fused C++ updates), Adamax, Ftrl, Lion,
Adafactor (updates written in ops) and schedules."""
from tapegrad.keras.optimizers import schedules
from tapegrad.keras.optimizers.adafactor import Adafactor
from tapegrad.keras.optimizers.adagrad import Adagrad
from tapegrad.keras.optimizers.adam import Adam, AdamW
from tapegrad.keras.optimizers.adamax import Adamax
from tapegrad.keras.optimizers.base import Optimizer
from tapegrad.keras.optimizers.ftrl import Ftrl
from tapegrad.keras.optimizers.lion import Lion
from tapegrad.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
from tapegrad.keras.optimizers.nadam import Nadam
from tapegrad.keras.optimizers.rmsprop import RMSprop
from tapegrad.keras.optimizers.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Nadam", "RMSprop", "Adagrad", "Adamax", "Ftrl", "Lion", "Adafactor",
           "LossScaleOptimizer", "schedules", "get"]

_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "nadam": Nadam, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adamax": Adamax, "ftrl": Ftrl, "lion": Lion, "adafactor": Adafactor}


def get(identifier):
    """An optimizer from a name ("adam") or an instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError(f"Unknown optimizer: '{identifier}'; known: {sorted(_BY_NAME)}")
        return cls()
    raise TypeError(f"Could not interpret optimizer identifier: {identifier!r}")
