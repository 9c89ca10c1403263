"""tf.config.experimental: the device functions under their older names, and memory growth (a GPU
setting: refused for the CPU, as TF refuses it)."""
from tapegrad.config._devices import (PhysicalDevice, get_visible_devices, list_logical_devices,
                                      list_physical_devices, set_visible_devices)

__all__ = ["get_memory_growth", "get_visible_devices", "list_logical_devices", "list_physical_devices",
           "set_memory_growth", "set_visible_devices", "enable_op_determinism"]


def _check_device(device, what):
    if not isinstance(device, PhysicalDevice) or device not in list_physical_devices():
        raise ValueError(f"{what}: unrecognized device {device!r} (the devices are {list_physical_devices()})")


def set_memory_growth(device, enable):
    """TF's memory growth applies to GPUs; tapegrad has none, and the CPU is refused as in TF (so the
    usual ``for gpu in list_physical_devices("GPU"): set_memory_growth(gpu, True)`` loop does nothing)."""
    _check_device(device, "set_memory_growth")
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")


def get_memory_growth(device):
    _check_device(device, "get_memory_growth")
    raise KeyError(device)


def enable_op_determinism():
    """Accepted, with nothing to switch: tapegrad's kernels split their work the same way at every call
    for a given thread count (no atomics, no dynamic schedules), so with seeded randomness
    (``keras.utils.set_random_seed``) a run repeats exactly."""
