"""Checkpoint files: atomic writes, reading with validation, and the ``checkpoint`` state file.

Note [Checkpoint file format]: a checkpoint is in one of two formats, told apart by its files.
TF's format (what TensorFlow writes and reads): "dir/ckpt-3.index" and "dir/ckpt-3.data-00000-of-00001"
(Note [TensorBundle format] in _bundle.py), the values keyed "<path>/.ATTRIBUTES/VARIABLE_VALUE" and
matched to objects through the TrackableObjectGraph under "_CHECKPOINTABLE_OBJECT_GRAPH" (Note [Keras 3
object graph] in _keras3.py). ``WRITE_FORMAT`` below chooses what ``Checkpoint.write`` writes; both
formats are always read (a restore looks for the ".index" first).
tapegrad's earlier layout: a checkpoint with prefix "dir/ckpt-3" is one uncompressed NumPy
``.npz`` archive "dir/ckpt-3.npz" (a zip of ``.npy`` files; np.load reads it without tapegrad) holding
  "__format__"  the string "tapegrad-checkpoint-v1";
  "__keys__"    the object-graph keys as a string array, e.g. "model/layer-0/kernel", "save_counter",
                "model/layer-0/kernel/.OPTIMIZER_SLOT/optimizer/m" (a slot of that variable);
  "v000000", "v000001", ...  one array per key, in the order of "__keys__".
A key is the path of attribute names (list indices, dict keys, a layer's weight names) from the
Checkpoint to the variable; see Note [Checkpoint keys] in _graph.py. Next to the checkpoints, a text
file "checkpoint" in TF's format lists them (model_checkpoint_path, all_model_checkpoint_paths,
all_model_checkpoint_timestamps, last_preserved_timestamp), so tf.train.latest_checkpoint(dir) works.
Every file is written to a temporary file in the same directory, flushed to disk, then renamed over
the target (TF's two files both written before either is renamed, the data first; the state file
last): a failed or interrupted save leaves the previous files whole.
"""
import os
import zipfile

import numpy as np

from tapegrad import errors
from tapegrad.io._atomic import atomic_write, atomic_write_all
from tapegrad.train import _bundle

FORMAT = "tapegrad-checkpoint-v1"
STATE_FILE = "checkpoint"


def data_path(prefix):
    """The file holding the checkpoint with this prefix ("dir/ckpt-1" -> "dir/ckpt-1.npz")."""
    prefix = os.fspath(prefix)
    return prefix if prefix.endswith(".npz") else prefix + ".npz"


def write_arrays(prefix, arrays):
    """Writes {key: array} as a checkpoint file (atomically); returns the file's path."""
    path = data_path(prefix)
    keys = list(arrays)
    members = {f"v{i:06d}": np.asarray(arrays[k]) for i, k in enumerate(keys)}
    members["__format__"] = np.array(FORMAT)
    members["__keys__"] = np.array(keys, dtype=str)
    atomic_write(path, lambda f: np.savez(f, **members))
    return path


def read_arrays(prefix):
    """{key: array} from a checkpoint file, every member read and checked; clear errors naming the file."""
    path = data_path(prefix)
    if not os.path.isfile(path):
        raise errors.NotFoundError(None, None, f"Checkpoint: no checkpoint file at {path} (from {os.fspath(prefix)!r})")
    try:
        with open(path, "rb") as fh:  # our own handle, so it is closed when np.load fails
            data = np.load(fh, allow_pickle=False)
            if not hasattr(data, "files"):
                raise errors.DataLossError(None, None, f"Checkpoint: {path} holds a single array, not a {FORMAT} file")
            files = set(data.files)
            if "__format__" not in files or str(data["__format__"]) != FORMAT:
                raise errors.DataLossError(None, None, f"Checkpoint: {path} is not a {FORMAT} file "
                                                       "(no matching __format__ entry)")
            keys = [str(k) for k in data["__keys__"]]
            missing = [f"v{i:06d}" for i in range(len(keys)) if f"v{i:06d}" not in files]
            if missing:
                raise errors.DataLossError(None, None, f"Checkpoint: {path} lists {len(keys)} values but "
                                                       f"lacks {missing[:3]}")
            return {k: data[f"v{i:06d}"] for i, k in enumerate(keys)}
    except errors.OpError:
        raise
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as e:
        raise errors.DataLossError(None, None, f"Checkpoint: {path} is corrupted or truncated: "
                                               f"{type(e).__name__}: {e}") from None


# ---- the "checkpoint" state file (TF's text format)
def write_state(directory, latest, paths, timestamps, last_preserved):
    def rel(p):
        return os.path.relpath(p, directory) if os.path.dirname(os.path.abspath(p)) == os.path.abspath(directory) \
            else p
    lines = [f'model_checkpoint_path: "{rel(latest)}"']
    lines += [f'all_model_checkpoint_paths: "{rel(p)}"' for p in paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps]
    lines.append(f"last_preserved_timestamp: {last_preserved!r}")
    text = "\n".join(lines) + "\n"
    atomic_write(os.path.join(directory, STATE_FILE), lambda f: f.write(text.encode()))


def read_state(directory, latest_filename=None):
    """(latest, [paths], [timestamps], last_preserved) from the state file, paths made absolute-ish
    (joined to directory); None when there is no readable state file."""
    path = os.path.join(os.fspath(directory), latest_filename or STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    latest, paths, stamps, preserved = None, [], [], None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        value = value.strip()
        try:
            if key == "model_checkpoint_path":
                latest = value.strip('"')
            elif key == "all_model_checkpoint_paths":
                paths.append(value.strip('"'))
            elif key == "all_model_checkpoint_timestamps":
                stamps.append(float(value))
            elif key == "last_preserved_timestamp":
                preserved = float(value)
        except ValueError:
            continue
    if latest is None:
        return None
    join = lambda p: p if os.path.isabs(p) else os.path.join(os.fspath(directory), p)  # noqa: E731
    return join(latest), [join(p) for p in paths], stamps, preserved


# ---- TF's format (Note [TensorBundle format] in _bundle.py) next to the .npz one
# What Checkpoint.write writes: "tf" (TF's .index + .data-00000-of-00001, which TensorFlow reads) or
# "npz" (tapegrad's earlier layout above). Both are always read; with "tf", reading an .npz warns
# (DeprecationWarning). tests/io/test_checkpoint.py sets "npz" to keep checking the earlier layout, which
# old files still have.
WRITE_FORMAT = "tf"


def is_tf(prefix):
    return os.path.isfile(_bundle.index_path(prefix))


def exists(prefix):
    """Whether a checkpoint (either format) is at prefix."""
    return is_tf(prefix) or os.path.isfile(data_path(prefix))


def remove(prefix):
    """Deletes every file of the checkpoint at prefix (the index first, so no half-checkpoint is listed)."""
    for path in (_bundle.index_path(prefix), _bundle.data_file(prefix), data_path(prefix)):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def write_tf(prefix, tensors):
    """Writes {key: array} in TF's format: both files to temporary names first, then the data renamed
    before the index that names it (a crash between the renames leaves a pair whose crc32c fail)."""
    index, data = _bundle.encode(tensors)
    atomic_write_all([(_bundle.data_file(prefix), lambda f: f.write(data)),
                      (_bundle.index_path(prefix), lambda f: f.write(index))])
    return os.fspath(prefix)


def read_tf(prefix):
    return _bundle.read(prefix)
