"""Weight files: save_weights / load_weights in the tapegrad ``.weights.npz`` format.

Note [Weights file format]: an uncompressed NumPy ``.npz`` archive (a zip of ``.npy`` files) holding
  "__format__"  the string "tapegrad-weights-v1";
  "__paths__"   the variable paths ("dense/kernel", ...) as a string array, in ``model.weights`` order;
  "w000000", "w000001", ...  one array per variable, in that same order.
Loading matches by position and checks the count and every shape, naming the first mismatch, before
it assigns anything; the paths are kept for people and tools reading the file. np.load(path) reads it
with no tapegrad installed. The file is written to a temporary file next to the target and renamed
over it, so a failed save leaves the previous file whole. A ``.keras`` model file holds two of these
(see Note [Model file format] in saving/_model_file.py).
"""
import os
import tempfile
import zipfile

import numpy as np

FORMAT = "tapegrad-weights-v1"


def atomic_write(path, write):
    """Calls write(file) on a temporary file in path's directory, syncs it to disk, renames it to path."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def write_weights(f, variables):
    """Writes variables to the open binary file f in the weights format."""
    arrays = {f"w{i:06d}": np.asarray(w.numpy()) for i, w in enumerate(variables)}
    arrays["__format__"] = np.array(FORMAT)
    arrays["__paths__"] = np.array([getattr(w, "path", w.name) for w in variables], dtype=str)
    np.savez(f, **arrays)


def read_weights(f, where):
    """(paths, arrays) from an open weights file; ValueError naming ``where`` when it is not one."""
    try:
        data = np.load(f, allow_pickle=False)
        if not hasattr(data, "files"):
            raise ValueError("it holds a single array")
        with data:
            if "__format__" not in data.files or str(data["__format__"]) != FORMAT:
                raise ValueError(f"it is not a {FORMAT} file")
            paths = [str(p) for p in data["__paths__"]]
            return paths, [data[f"w{i:06d}"] for i in range(len(paths))]
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as e:
        raise ValueError(f"{where}: cannot read the weights ({type(e).__name__}: {e})") from None


def check_weights(paths, arrays, variables, where):
    """Raises ValueError naming the first mismatch between the file's arrays and the variables."""
    if len(arrays) != len(variables):
        raise ValueError(f"{where}: the file holds {len(arrays)} weights, the model has {len(variables)} "
                         "(build the model, e.g. by calling it once, before loading)")
    for path, arr, var in zip(paths, arrays, variables):
        if tuple(arr.shape) != tuple(var.shape):
            raise ValueError(f"{where}: weight '{path}' in the file has shape {arr.shape}, the model's "
                             f"'{getattr(var, 'path', var.name)}' has shape {tuple(var.shape)}")
        if arr.dtype.kind not in "biuf":  # strings would convert ("1.5" -> 1.5) or fail half-way
            raise ValueError(f"{where}: weight '{path}' in the file holds {arr.dtype} values, not numbers "
                             f"(the model's '{getattr(var, 'path', var.name)}' is {var.dtype.name})")


def assign_weights(arrays, variables):
    """Converts every array first, then assigns: a conversion that fails changes no variable."""
    values = [arr.astype(var.dtype.as_numpy_dtype) for arr, var in zip(arrays, variables)]
    for value, var in zip(values, variables):
        var.assign(value)


def save_weights(model, filepath, overwrite=True):
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"save_weights: {filepath} exists and overwrite=False")
    weights = model.weights
    atomic_write(filepath, lambda f: write_weights(f, weights))  # a file object: NumPy appends no ".npz"


def load_weights(model, filepath):
    filepath = os.fspath(filepath)
    with open(filepath, "rb") as f:
        paths, arrays = read_weights(f, f"load_weights: {filepath}")
    weights = model.weights
    check_weights(paths, arrays, weights, f"load_weights: {filepath}")
    assign_weights(arrays, weights)
