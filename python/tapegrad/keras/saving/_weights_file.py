"""Weight files: save_weights / load_weights, Keras 3's ``.weights.h5`` (and tapegrad's older ``.weights.npz``).

A path ending in ``.weights.h5`` (or ``.h5``) holds Keras 3's layout (Note [Keras 3 weights layout] in
saving/_keras_h5.py): the model's variables and, when it is compiled, the optimizer's, which Keras reads
and writes too, behind a user block holding its digest (Note [HDF5 file digest] in saving/_h5_file.py).
Any other path holds tapegrad's older NumPy layout, still written when asked for by its
name and read as before:

Note [Weights file format]: an uncompressed NumPy ``.npz`` archive (a zip of ``.npy`` files) holding
  "__format__"  the string "tapegrad-weights-v1";
  "__paths__"   the variable paths ("dense/kernel", ...) as a string array, in ``model.weights`` order;
  "w000000", "w000001", ...  one array per variable, in that same order.
Loading matches by position and checks the count and every shape, naming the first mismatch, before
it assigns anything; the paths are kept for people and tools reading the file. np.load(path) reads it
with no tapegrad installed. The file is written to a temporary file next to the target and renamed
over it, so a failed save leaves the previous file whole. tapegrad's older ``.keras`` files hold two of
these (see Note [Model file format] in saving/_model_file.py). Such a file found under an ``.h5`` name
(tapegrad's ModelCheckpoint wrote them so) loads with a DeprecationWarning.
"""
import os
import warnings
import zipfile

import numpy as np

from tapegrad.io._atomic import atomic_write
from tapegrad.keras.saving import _h5_file, _keras_h5, _legacy_h5

FORMAT = "tapegrad-weights-v1"


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


def _is_npz(filepath):
    """Whether the file is a zip (tapegrad's older weights layout, once written under .weights.h5 names too)."""
    try:
        return zipfile.is_zipfile(filepath)
    except OSError:
        return False


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
    if filepath.endswith(".h5") and not filepath.endswith(".weights.h5"):
        return _legacy_h5.write_weights(filepath, model)  # Keras 2's weights-only layout
    if filepath.endswith(".h5"):
        _keras_h5.require_h5py("save_weights")
        data = _h5_file.sealed(_keras_h5.to_bytes(model, _compiled_optimizer(model), userblock_size=512))
        atomic_write(filepath, lambda f: f.write(data), make_parents=False)
        return
    weights = model.weights
    atomic_write(filepath, lambda f: write_weights(f, weights), make_parents=False)  # a file object: NumPy appends no ".npz"


def _compiled_optimizer(model):
    """The model's optimizer when compile() gave it one (Keras saves it with the weights)."""
    return getattr(model, "optimizer", None) if getattr(model, "compiled", False) else None


def load_weights(model, filepath):
    filepath = os.fspath(filepath)
    if filepath.endswith(".h5") and not _is_npz(filepath):
        where = f"load_weights: {filepath}"
        if not os.path.isfile(filepath):
            raise ValueError(f"{where}: no such file")
        try:
            _h5_file.check_digest(filepath)  # see Note [HDF5 file digest]
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        h5py = _keras_h5.require_h5py(where)
        try:
            with h5py.File(filepath, "r") as f:
                legacy = _legacy_h5.is_weights_file(f) or _legacy_h5.is_legacy(f)
                if legacy:
                    _legacy_h5.read_weights_into(f, model, where)
        except ValueError:
            raise
        except Exception as e:  # noqa: BLE001 -- whatever h5py raises on damaged bytes is a damaged file
            raise ValueError(f"{where}: not a readable Keras weights file ({type(e).__name__}: {e})") from None
        if legacy:
            return
        opt = _compiled_optimizer(model)
        if opt is not None and not opt.variables[1:] and \
                _keras_h5.optimizer_count(filepath, where) > len(_keras_h5.optimizer_variables(opt, model)):
            opt.build(model.trainable_variables)  # the file's slots need slots to go into
            opt.built = True
        _keras_h5.read_into(filepath, model, where, opt)
        return
    if filepath.endswith(".h5"):
        warnings.warn(f"load_weights: {filepath} is in tapegrad's old NumPy weights layout; save it again to "
                      "write Keras 3's .weights.h5, which Keras reads too", DeprecationWarning, stacklevel=3)
    with open(filepath, "rb") as f:
        paths, arrays = read_weights(f, f"load_weights: {filepath}")
    weights = model.weights
    check_weights(paths, arrays, weights, f"load_weights: {filepath}")
    assign_weights(arrays, weights)
