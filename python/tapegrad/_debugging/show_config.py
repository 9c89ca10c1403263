"""tapegrad.show_config(): the version, kernel ISA levels, thread counts, BLAS and build flags."""
import platform
import sys
from importlib import metadata

from tapegrad import _core

_ISA_LEVELS = ("baseline", "avx2", "avx512")
_TF_API_VERSION = "2.21.0"  # tf.version.VERSION: the TF release whose API tapegrad follows


def _package_version():
    try:
        return metadata.version("tapegrad")
    except metadata.PackageNotFoundError:  # imported from a source tree that was never installed
        return "0+unknown"


def _config():
    info = _core._build_info()
    best = _core.best_isa()
    return {
        "tapegrad": {"version": _package_version(), "tf_api_version": _TF_API_VERSION, "path": __file__.rsplit("/", 2)[0]},
        "python": {"version": platform.python_version(), "implementation": platform.python_implementation(),
                   "platform": platform.platform()},
        "kernels": {"isa": _core.active_isa(),
                    "isa_available": list(_ISA_LEVELS[:_ISA_LEVELS.index(best) + 1])},
        "threads": {"openmp": info["openmp_threads"], "blas": info["blas_threads"]},
        "blas": {"name": "OpenBLAS (scipy-openblas32)", "version": _blas_version(),
                 "config": info["blas_config"].strip(), "core": info["blas_core"].strip()},
        "build": {"compiler": info["compiler"], "build_type": info["build_type"],
                  "flags": " ".join(info["flags"].split()), "openmp_spec": info["openmp"]},
    }


def _blas_version():
    try:
        import scipy_openblas32
        return scipy_openblas32.__version__
    except ImportError:
        return "unknown"


def show_config(mode="stdout"):
    """Prints tapegrad's version, kernel ISA levels, threads, BLAS and build flags (numpy.show_config's modes)."""
    if not isinstance(mode, str) or mode not in ("stdout", "dicts"):
        raise ValueError(f"show_config: mode must be 'stdout' or 'dicts', got {mode!r}")
    config = _config()
    if mode == "dicts":
        return config
    for section, items in config.items():
        sys.stdout.write(f"{section}:\n")
        for key, value in items.items():
            sys.stdout.write(f"  {key}: {value}\n")
    return None
