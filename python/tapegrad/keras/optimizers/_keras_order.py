"""An optimizer's variables in Keras 3's order, for the files Keras reads (Note [Keras 3 optimizer slots]
in keras/saving/_keras_h5.py): .keras and .weights.h5 files, legacy .h5 files and TF checkpoints."""
import numpy as np

from tapegrad import float32, int32

__all__ = ["keras_order", "KerasOnly"]


def _slot_groups(opt):
    """The optimizer's slot names in the groups Keras 3 makes them in."""
    cls = {c.__name__ for c in type(opt).__mro__}
    if "RMSprop" in cls:
        return [["velocity"]] + ([["momentum"]] if opt.momentum > 0 else []) + (
            [["average_gradient"]] if opt.centered else [])
    if "Adam" in cls and getattr(opt, "amsgrad", False):
        return [["m", "v"], ["vhat"]]
    return None  # one group: every slot of a variable in turn


class KerasOnly:
    """A variable Keras keeps that tapegrad computes: written with Keras's value, dropped when read."""

    def __init__(self, name, value, dtype=float32):
        self.name = self.path = name
        self._value = np.asarray(value, dtype.as_numpy_dtype)
        self.shape, self.dtype = self._value.shape, dtype

    def numpy(self):
        return self._value

    def assign(self, value):
        pass


def _nadam_u_product(opt):
    """Keras's Nadam u_product after ``iterations`` steps: prod over t of beta_1 (1 - 0.5 * 0.96^t)."""
    product, b1 = np.float32(1.0), np.float32(opt.beta_1)
    for t in range(1, int(opt.iterations) + 1):
        product = np.float32(product * b1 * (np.float32(1.0) - np.float32(0.5) * np.float32(0.96) ** np.float32(t)))
    return product


def _keras_only_before(opt, var):
    """Keras's variables that come before ``var``'s slots and that tapegrad does not keep."""
    if type(opt).__name__ == "Adafactor" and len(var.shape) < 2:
        return [KerasOnly(f"{opt.name}/{var.name}_r", 0, int32), KerasOnly(f"{opt.name}/{var.name}_c", 0, int32)]
    return []


def keras_order(opt, trainable):
    """The optimizer's variables as Keras 3 lists them, for ``trainable`` in Keras's order: iterations, the
    learning rate (none for a schedule), the slots in Keras's groups, then any other variable; each
    variable Keras keeps that tapegrad computes is a KerasOnly in its place."""
    trainable = [v for v in trainable if id(v) in opt._slots]
    groups = _slot_groups(opt)
    slots = []
    if groups is None:
        slots = [s for v in trainable for s in _keras_only_before(opt, v) + list(opt._slots[id(v)])]
    else:
        for group in groups:
            for v in trainable:
                named = dict(zip(opt._slot_names[id(v)], opt._slots[id(v)]))
                slots += [named[n] for n in group]
    every_slot = {id(s) for v in opt._slots.values() for s in v}
    rest = [v for v in opt.variables[1:] if id(v) not in every_slot]
    rate = [] if callable(opt._learning_rate) else [opt._lr_var]  # a schedule keeps no variable in Keras
    if type(opt).__name__ == "Nadam" and opt.variables[1:]:
        rest = rest + [KerasOnly(f"{opt.name}/u_product", _nadam_u_product(opt))]
    return [opt.variables[0]] + rate + slots + rest
