"""Whole-model HDF5 files: ``model.save("m.h5")`` and ``load_model("m.h5")`` (the suffix of Keras's
legacy format, common in older scripts and in checkpoint callbacks), through h5py (the ``h5``
extra).

Note [HDF5 model files]: the file holds what a ``.keras`` file holds (Note [Model file format] in
_model_file.py), laid out in HDF5:
  root attributes  "format" ("tapegrad-keras-v1"), "metadata" and "model_config" (the JSON texts of
                   metadata.json and config.json);
  "model_weights"  one dataset per weight, "w000000", ... in model.weights order, with an attribute
                   "paths" (the variables' paths, in that order);
  "optimizer_weights"  the optimizer's variables the same way, when the model was compiled.
Keras's own .h5 files (one group per layer) do not load here, nor these in Keras. The file is written
next to its target, synced and renamed over it, so a failed save leaves the previous file whole.

Note [HDF5 file digest]: HDF5 keeps no checksum of raw data, and a damaged file can make the HDF5
library read other numbers, fail deep inside, or loop forever (a flipped bit in a heap). So the file
starts with a 512-byte user block (HDF5's own room for application data; h5py and HDF5 tools skip
it) holding DIGEST_MAGIC, the SHA-256 and the length of every byte after it. Loading checks them
before HDF5 sees the file: a damaged file raises, no variable changes. A file with no digest (an older
one, or one Keras wrote) is read unchecked. The Keras 3 ``.weights.h5`` files tapegrad writes carry the
same user block (Keras and h5py skip it); inside a ``.keras`` zip the zip's CRC-32 does this work.
"""
import hashlib
import json
import os

import numpy as np
import io

from tapegrad.io._atomic import atomic_path
from tapegrad.keras.saving._keras_h5 import require_h5py
from tapegrad.keras.saving._serialization import loads_config

__all__ = ["SUFFIXES", "write", "read", "sealed", "seal", "check_digest"]

SUFFIXES = (".h5", ".hdf5")


_h5py = require_h5py  # one message for every HDF5 file


_USER_BLOCK = 512
DIGEST_MAGIC = b"tapegrad-h5-digest-v1\n"


def _digest(f):
    """(sha256 hex, length) of the open file's bytes after the user block."""
    f.seek(_USER_BLOCK)
    h, n = hashlib.sha256(), 0
    while True:
        chunk = f.read(1 << 20)
        if not chunk:
            return h.hexdigest(), n
        h.update(chunk)
        n += len(chunk)


def seal(path):
    """Writes the digest of the HDF5 data into the file's user block and syncs the file."""
    with open(path, "rb+") as f:
        sha, n = _digest(f)
        header = DIGEST_MAGIC + f"sha256={sha}\nlength={n}\n".encode()
        f.seek(0)
        f.write(header.ljust(_USER_BLOCK, b"\0"))
        f.flush()
        os.fsync(f.fileno())


def sealed(data):
    """HDF5 bytes written with a USER_BLOCK-byte user block, with the digest in it (as _seal)."""
    f = io.BytesIO(data)
    sha, n = _digest(f)
    return (DIGEST_MAGIC + f"sha256={sha}\nlength={n}\n".encode()).ljust(_USER_BLOCK, b"\0") + data[_USER_BLOCK:]


def check_digest(path):
    """_check_digest for other modules (Keras 3 weights files tapegrad wrote carry the digest too)."""
    _check_digest(path)


def _check_digest(path):
    """Raises ValueError when the file has a digest (Note [HDF5 file digest]) its bytes do not match."""
    with open(path, "rb") as f:
        block = f.read(_USER_BLOCK)
        if not block.startswith(DIGEST_MAGIC):
            return
        fields = dict(line.split("=", 1) for line in block[len(DIGEST_MAGIC):].rstrip(b"\0").decode(
            "ascii", "replace").splitlines() if "=" in line)
        sha, n = _digest(f)
        if fields.get("sha256") != sha or fields.get("length") != str(n):
            raise ValueError("the file is damaged: its bytes do not match the SHA-256 digest saved with it "
                             f"({n} bytes of HDF5 data, {'the length differs' if fields.get('length') != str(n) else 'the digest differs'})")


def _put(group, variables):
    for i, v in enumerate(variables):
        group.create_dataset(f"w{i:06d}", data=np.asarray(v.numpy()))
    group.attrs["paths"] = [str(getattr(v, "path", v.name)) for v in variables]


def _get(group):
    paths = [p.decode() if isinstance(p, bytes) else str(p) for p in group.attrs["paths"]]
    return paths, [group[f"w{i:06d}"][()] for i in range(len(paths))]


def write(filepath, fmt, metadata, config, weights, optimizer_variables):
    h5py = _h5py("save_model")
    with atomic_path(filepath) as tmp:
        with h5py.File(tmp, "w", userblock_size=_USER_BLOCK) as f:
            f.attrs["format"] = fmt
            f.attrs["metadata"] = json.dumps(metadata)
            f.attrs["model_config"] = json.dumps(config)
            _put(f.create_group("model_weights"), weights)
            if optimizer_variables is not None:
                _put(f.create_group("optimizer_weights"), optimizer_variables)
        seal(tmp)


def kind(filepath, where):
    """"keras" for a Keras legacy .h5 model file (Note [Keras legacy HDF5 layout]), "tapegrad" for one in
    tapegrad's earlier layout; checks the digest first. ValueError naming the file otherwise."""
    h5py = _h5py(where)
    if not os.path.isfile(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.h5` file.")
    try:
        _check_digest(filepath)
        with h5py.File(filepath, "r") as f:
            if "format" in f.attrs:
                return "tapegrad"
            if "model_config" in f.attrs:
                return "keras"
            raise ValueError("it holds no model_config (a weights-only file? load it with load_weights)")
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"{where} is not a readable .h5 model file: {e}") from None


def read(filepath, fmt):
    """(metadata, config, (paths, arrays), optimizer (paths, arrays) or None), or ValueError naming the file."""
    h5py = _h5py("load_model")
    if not os.path.isfile(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.h5` file.")
    try:
        _check_digest(filepath)
        with h5py.File(filepath, "r") as f:
            if f.attrs.get("format") != fmt:
                raise ValueError(f"it is not a {fmt} file (a Keras .h5 file? see the README)")
            try:
                metadata, config = loads_config(f.attrs["metadata"]), loads_config(f.attrs["model_config"])
            except ValueError as e:
                raise ValueError(f"its metadata or model_config {e}") from None
            weights = _get(f["model_weights"])
            optimizer = _get(f["optimizer_weights"]) if "optimizer_weights" in f else None
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"load_model: {filepath} is not a readable tapegrad .h5 model file: {e}") from None
    return metadata, config, weights, optimizer
