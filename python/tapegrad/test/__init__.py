"""tf.test: what scripts ask about the build (tapegrad runs on the CPU only)."""
__all__ = ["is_gpu_available", "is_built_with_cuda", "is_built_with_gpu_support", "is_built_with_rocm",
           "gpu_device_name"]


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    return False


def is_built_with_cuda():
    return False


def is_built_with_gpu_support():
    return False


def is_built_with_rocm():
    return False


def gpu_device_name():
    """The name of a GPU device, or '' when there is none (always)."""
    return ""
