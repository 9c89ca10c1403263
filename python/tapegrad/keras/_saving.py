"""Weight files: save_weights / load_weights in the tapegrad ``.weights.npz`` format.

Note [Weights file format]: an uncompressed NumPy ``.npz`` archive (a zip of ``.npy`` files) holding
  "__format__"  the string "tapegrad-weights-v1";
  "__paths__"   the variable paths ("dense/kernel", ...) as a string array, in ``model.weights`` order;
  "w000000", "w000001", ...  one array per variable, in that same order.
Loading matches by position and checks the count and every shape, naming the first mismatch; the
paths are kept for people and tools reading the file. np.load(path) reads it with no tapegrad installed.
"""
import numpy as np

FORMAT = "tapegrad-weights-v1"


def save_weights(model, filepath, overwrite=True):
    import os
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"save_weights: {filepath} exists and overwrite=False")
    weights = model.weights
    arrays = {f"w{i:06d}": np.asarray(w.numpy()) for i, w in enumerate(weights)}
    arrays["__format__"] = np.array(FORMAT)
    arrays["__paths__"] = np.array([getattr(w, "path", w.name) for w in weights], dtype=str)
    with open(filepath, "wb") as f:  # a file object keeps NumPy from appending ".npz"
        np.savez(f, **arrays)


def load_weights(model, filepath):
    import os
    with np.load(os.fspath(filepath), allow_pickle=False) as data:
        if "__format__" not in data.files or str(data["__format__"]) != FORMAT:
            raise ValueError(f"load_weights: {filepath} is not a {FORMAT} file")
        paths = list(data["__paths__"])
        arrays = [data[f"w{i:06d}"] for i in range(len(paths))]
    weights = model.weights
    if len(arrays) != len(weights):
        raise ValueError(f"load_weights: the file holds {len(arrays)} weights, the model has {len(weights)} "
                         "(build the model, e.g. by calling it once, before loading)")
    for path, arr, var in zip(paths, arrays, weights):
        if tuple(arr.shape) != tuple(var.shape):
            raise ValueError(f"load_weights: weight '{path}' in the file has shape {arr.shape}, the model's "
                             f"'{getattr(var, 'path', var.name)}' has shape {tuple(var.shape)}")
    for arr, var in zip(arrays, weights):
        var.assign(arr.astype(var.dtype.as_numpy_dtype))
