"""tf.io.read_file, write_file and matching_files: whole files as scalar string tensors, and glob.

Strings live in Python (tapegrad._tensor.string_tensor), so inside a tf.function these run while the function
is traced, like any string op: a file read there is read once per trace, not once per call. A
tf.data map over file names runs its function eagerly per element and reads every time.
"""
import os

from tapegrad import errors
from tapegrad.io import gfile
from tapegrad.io._args import filename as _filename_arg, scalar_bytes, string_array, strings
from tapegrad.io._paths import local_path, os_error

__all__ = ["read_file", "write_file", "matching_files"]


def read_file(filename, name=None):
    """The bytes of file ``filename`` as a scalar string tensor (NotFoundError if it is missing)."""
    path = local_path(_filename_arg(filename, "read_file"), "read_file")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise os_error(e, "read_file", path) from None
    return strings([data], ())


def write_file(filename, contents, name=None):
    """Writes the scalar string ``contents`` to file ``filename``, creating missing parent directories,
    as TF does; returns None."""
    path = local_path(_filename_arg(filename, "write_file"), "write_file")
    data = scalar_bytes(contents, "write_file", "contents")
    try:
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise os_error(e, "write_file", path) from None


def matching_files(pattern, name=None):
    """The files matching the glob ``pattern`` (a string, or a 1-D tensor of patterns), as a sorted 1-D
    string tensor; empty when nothing matches."""
    patterns = string_array(pattern, "matching_files", "pattern")
    if patterns.ndim > 1:
        raise errors.InvalidArgumentError(f"matching_files: `pattern` must be a scalar or a vector, got shape "
                                          f"{list(patterns.shape)}")
    found = sorted(f for p in patterns.reshape(-1) for f in gfile.glob(os.fsdecode(p)))
    return strings([os.fsencode(f) for f in found], (len(found),))
