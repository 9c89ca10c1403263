"""tf.config: the devices there are (one CPU, no GPU), the kernels' thread counts, and running
tf.functions eagerly.

    tf.config.list_physical_devices("GPU")           # []
    tf.config.threading.set_intra_op_parallelism_threads(1)
"""
from tapegrad.config import experimental, threading
from tapegrad.config._devices import (LogicalDevice, PhysicalDevice, get_soft_device_placement,
                                      get_visible_devices, list_logical_devices, list_physical_devices,
                                      set_soft_device_placement, set_visible_devices)
from tapegrad.config._eager import (experimental_functions_run_eagerly, experimental_run_functions_eagerly,
                                    functions_run_eagerly, run_functions_eagerly)

__all__ = ["LogicalDevice", "PhysicalDevice", "experimental", "experimental_functions_run_eagerly",
           "experimental_run_functions_eagerly", "functions_run_eagerly", "get_soft_device_placement",
           "get_visible_devices", "list_logical_devices", "list_physical_devices", "run_functions_eagerly",
           "set_soft_device_placement", "set_visible_devices", "threading"]
