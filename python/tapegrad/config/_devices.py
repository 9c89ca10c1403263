"""The devices tapegrad runs on: one CPU. GPU lists are empty; ``tf.device`` accepts TF's device
strings and places everything on the CPU, as TF does with soft placement and no GPU."""
import collections
import contextlib

from tapegrad import errors

__all__ = ["PhysicalDevice", "LogicalDevice", "list_physical_devices", "list_logical_devices",
           "get_visible_devices", "set_visible_devices", "get_soft_device_placement",
           "set_soft_device_placement", "device"]

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_CPU_LOGICAL = LogicalDevice("/device:CPU:0", "CPU")
_state = {"visible": [_CPU], "soft_placement": True}


def list_physical_devices(device_type=None):
    """The physical devices of ``device_type`` ("CPU", "GPU", ...; None for all): the CPU or nothing."""
    return [d for d in [_CPU] if device_type is None or d.device_type == device_type]


def list_logical_devices(device_type=None):
    return [_CPU_LOGICAL] if device_type in (None, "CPU") else []


def get_visible_devices(device_type=None):
    return [d for d in _state["visible"] if device_type is None or d.device_type == device_type]


def set_visible_devices(devices, device_type=None):
    """Which of the physical devices are visible; the CPU stays (TF refuses to hide it), and a device
    that is not one of list_physical_devices() (of ``device_type`` when given) raises ValueError."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        if d not in list_physical_devices(device_type):
            raise ValueError(f"Unrecognized device: {d!r}")
    _state["visible"] = [_CPU]


def get_soft_device_placement():
    return _state["soft_placement"]


def set_soft_device_placement(enabled):
    _state["soft_placement"] = bool(enabled)


_DEVICE_TYPES = ("CPU", "GPU", "TPU")


def _index(text):
    return text if text == "*" else int(text)


def _check_device_spec(spec):
    """Parses a device string as TF does ("/CPU:0", "/device:GPU:1", "/job:localhost/replica:0/task:0/
    device:CPU:0", "gpu"), raising ValueError for what TF refuses."""
    device_type = None
    for part in spec.split("/"):
        if not part:
            continue
        fields = part.split(":")
        if len(fields) == 2 and fields[0] == "job":
            if fields[1] != "localhost":
                raise errors.InvalidArgumentError(f"{spec}: unknown device (the only job is localhost)")
            continue
        if len(fields) == 2 and fields[0] in ("replica", "task"):
            _index(fields[1])
            continue
        if len(fields) <= 2 and fields[0].upper() in _DEVICE_TYPES:
            kind, index = fields[0].upper(), fields[1:]
        elif len(fields) == 3 and fields[0] == "device":
            kind, index = fields[1], fields[2:]
        else:
            raise ValueError(f"Unknown attribute '{fields[0]}' is encountered while parsing the device spec: '{spec}'.")
        for i in index:
            _index(i)
        if device_type is not None and device_type != kind:
            raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
        device_type = kind


@contextlib.contextmanager
def device(device_name):
    """Places the ops in its block on ``device_name``: every device string TF accepts is taken, and
    the ops run on the CPU (what TF does with soft placement when the device does not exist).

    >>> with tf.device("/GPU:0"):
    ...     x = tf.constant(1.0) + 1    # runs on the CPU
    """
    if device_name is not None and not callable(device_name):
        if not isinstance(device_name, str):
            raise ValueError(f"Expecting a string device name. Got {type(device_name)}({device_name})")
        _check_device_spec(device_name)
    yield
