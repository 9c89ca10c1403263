"""tf.train.Checkpoint: saves and restores the Variables reachable from the objects it is given.

File layout: Note [Checkpoint file format] in _files.py (TF's: Note [TensorBundle format] in _bundle.py);
keys: Note [Checkpoint keys] in _graph.py, and in TF's files Note [Keras 3 object graph] in _keras3.py;
values for objects created later: Note [Deferred restoration] in _restore.py.
"""
import os
import time
import warnings

import numpy as np

import tapegrad as tf
from tapegrad.train import _bundle, _files, _graph, _restore

__all__ = ["Checkpoint", "CheckpointLoadStatus", "InitializationOnlyStatus", "latest_checkpoint",
           "list_variables", "load_checkpoint"]


def _check_trackable(name, value):
    if not (_graph.is_trackable(value) or isinstance(value, (list, tuple, dict))):
        raise ValueError(f"Checkpoint was expecting a trackable object (a Variable, tf.Module, keras Layer, "
                         f"Model or Optimizer) for '{name}', got {value!r}")


class Checkpoint:
    """Groups trackable objects and saves or restores their variables.

    Args:
      root: an object whose children become the checkpoint's own children.
      **kwargs: the objects to save (``model=model, optimizer=opt``).

    >>> ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    >>> path = ckpt.save("/tmp/run/ckpt")           # "/tmp/run/ckpt-1" (its files: Note [Checkpoint file format])
    >>> ckpt.restore(path).assert_consumed()
    """

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_children", {})
        object.__setattr__(self, "_save_counter", None)
        if root is not None:
            _check_trackable("root", root)
            for name, child in _graph.children(root):
                self._children[name] = child
        for name, value in kwargs.items():
            _check_trackable(name, value)
            self._children[name] = value

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if not name.startswith("_") and (_graph.is_trackable(value) or isinstance(value, (list, tuple, dict))):
            self._children[name] = value
            _restore.deliver(self, name, value)

    def __getattr__(self, name):
        children = self.__dict__.get("_children", {})
        if name in children:
            return children[name]
        raise AttributeError(f"'Checkpoint' object has no attribute '{name}'")

    def _checkpoint_children(self):
        items = list(self._children.items())
        return items + ([("save_counter", self._save_counter)] if self._save_counter is not None else [])

    @property
    def save_counter(self):
        """The number of ``save`` calls (an int64 Variable, created on first use)."""
        if self._save_counter is None:
            object.__setattr__(self, "_save_counter", tf.Variable(np.int64(0), trainable=False, name="save_counter"))
            _restore.deliver(self, "save_counter", self._save_counter)
        return self._save_counter

    def _arrays(self):
        variables, objects = _graph.walk(self)
        arrays = {k: v.numpy() for k, v in variables.items()}
        arrays.update({k: v.numpy() for k, v in _graph.slot_variables(variables, objects).items()})
        return arrays

    def write(self, file_prefix, options=None):
        """Writes a checkpoint at ``file_prefix`` and returns file_prefix; unlike ``save`` it neither
        numbers the files nor updates the directory's state file. In TF's format (``file_prefix +
        ".index"`` and ``".data-00000-of-00001"``, which TensorFlow restores) when
        ``_files.WRITE_FORMAT`` is "tf", else tapegrad's ``file_prefix + ".npz"``."""
        file_prefix = os.fspath(file_prefix)
        if _files.WRITE_FORMAT == "tf":
            nodes, tensors = _graph.tf_object_graph(self)
            tensors[_bundle.OBJECT_GRAPH_KEY] = np.array(_bundle.encode_object_graph(nodes), dtype=object)
            _files.write_tf(file_prefix, tensors)
        else:
            _files.write_arrays(file_prefix, self._arrays())
        return file_prefix

    def save(self, file_prefix, options=None):
        """Increments ``save_counter``, writes "<file_prefix>-<save_counter>" and records it in the
        directory's "checkpoint" state file; returns that path (usable with ``restore``)."""
        self.save_counter.assign_add(1)
        path = f"{os.fspath(file_prefix)}-{int(self.save_counter.numpy())}"
        try:
            self.write(path)
        except BaseException:
            self.save_counter.assign_sub(1)
            raise
        now = time.time()
        _files.write_state(os.path.dirname(os.path.abspath(path)), path, [path], [now], now)
        return path

    def read(self, save_path, options=None):
        """Restores the values saved at save_path; returns a CheckpointLoadStatus."""
        return self.restore(save_path, options)

    def restore(self, save_path, options=None):
        """Restores the values saved at ``save_path`` (a ``save``/``write`` path, or one TensorFlow
        wrote: matched by its object graph, as TF does) into the objects.

        Values of variables that exist are checked (every shape and dtype) before any is assigned; the
        values of objects not created yet are assigned when they are (a model built later, an
        optimizer's slots). Returns a status with ``assert_consumed``, ``assert_existing_objects_matched``
        and ``expect_partial``; ``save_path=None`` restores nothing.
        """
        if save_path is None:
            return InitializationOnlyStatus()
        save_path = os.fspath(save_path)
        if os.path.isdir(save_path):
            latest = latest_checkpoint(save_path)
            if latest is None:
                raise tf.errors.NotFoundError(None, None, f"Checkpoint.restore: no checkpoint in directory {save_path}")
            save_path = latest
        if _files.is_tf(save_path):
            return self._restore_tf(save_path)
        arrays = _files.read_arrays(save_path)
        if _files.WRITE_FORMAT == "tf":
            warnings.warn(f"Checkpoint.restore: {_files.data_path(save_path)} is in tapegrad's old .npz layout; "
                          "save again to write TF's format", DeprecationWarning, stacklevel=2)
        if "save_counter" in arrays:
            self.save_counter  # noqa: B018 -- created so that it is restored too
        session = _restore.Session(_files.data_path(save_path), self)
        session.unconsumed = set(arrays)
        _restore.apply(self, {k: _restore.Entry(k, a, session) for k, a in arrays.items()})
        return CheckpointLoadStatus(session)

    def _restore_tf(self, save_path):
        """Restores a checkpoint in TF's format by its object graph (see entries_from_tf_graph)."""
        arrays = _files.read_tf(save_path)
        index = _bundle.index_path(save_path)
        if _bundle.OBJECT_GRAPH_KEY not in arrays:
            raise tf.errors.NotFoundError(None, None, f"Checkpoint.restore: {index} has no object graph "
                                          f"({_bundle.OBJECT_GRAPH_KEY}); it is a name-based (TF1) checkpoint, "
                                          "which tapegrad does not restore")
        try:
            nodes = _bundle.decode_object_graph(arrays.pop(_bundle.OBJECT_GRAPH_KEY).item())
        except (ValueError, UnicodeDecodeError) as e:
            raise tf.errors.DataLossError(None, None, f"Checkpoint: {index}: the object graph is damaged: {e}") \
                from None
        if any(name == "save_counter" for _, name in nodes[0]["children"]):
            self.save_counter  # noqa: B018 -- created so that it is restored too
        keys, direct = _graph.entries_from_tf_graph(nodes, arrays, self)
        session = _restore.Session(index, self)
        session.unconsumed = set(arrays)
        values = {key: _restore._checked(_restore.Entry(key, arrays[key], session), var, "variable")
                  for key, var in direct.items()}  # checked with the rest, before anything changes
        _restore.apply(self, {rel: _restore.Entry(key, arrays[key], session) for rel, key in keys.items()})
        for key, var in direct.items():
            var.assign(values[key])
            session.matched.add(id(var))
            session.unconsumed.discard(key)
        return CheckpointLoadStatus(session)


class CheckpointLoadStatus:
    """What a restore matched: assertions about it (AssertionError when they fail)."""

    def __init__(self, session):
        self._session = session

    def _unmatched_objects(self):
        variables, objects = _graph.walk(self._session.root)
        every = list(variables.values()) + list(_graph.slot_variables(variables, objects).values())
        return [v for v in every if id(v) not in self._session.matched]

    def assert_consumed(self):
        """Every value in the file found its object and every variable of the objects got a value."""
        self.assert_existing_objects_matched()
        left = sorted(self._session.unconsumed)
        if left:
            raise AssertionError(f"Unresolved values in checkpoint {self._session.path}: {len(left)} value(s) "
                                 f"found no object, e.g. {left[:5]}")
        return self

    def assert_existing_objects_matched(self):
        """Every variable that exists now got a value from the file."""
        missing = self._unmatched_objects()
        if missing:
            raise AssertionError(f"Found {len(missing)} Python objects that were not bound to checkpointed "
                                 f"values in {self._session.path}, likely due to changes in the Python program. "
                                 f"Showing up to 5: {[v.name for v in missing[:5]]}")
        return self

    def assert_nontrivial_match(self):
        if not self._session.matched:
            raise AssertionError(f"Nothing was restored from {self._session.path}")
        return self

    def expect_partial(self):
        """Silences the warnings about values left unrestored (none are printed here); returns self."""
        return self

    def run_restore_ops(self, session=None):
        return None


class InitializationOnlyStatus:
    """The status of ``restore(None)``: nothing was restored."""

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        return None


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The path of the newest checkpoint recorded in checkpoint_dir's state file, or None."""
    state = _files.read_state(os.fspath(checkpoint_dir), latest_filename)
    if state is None or not _files.exists(state[0]):
        return None
    return state[0]


def list_variables(ckpt_dir_or_file):
    """[(key, shape)] of the values in a checkpoint (a path or a directory), sorted by key."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        path = latest_checkpoint(path)
        if path is None:
            raise tf.errors.NotFoundError(None, None, f"list_variables: no checkpoint in {ckpt_dir_or_file}")
    return sorted((k, list(a.shape)) for k, a in _read_any(path).items())


def load_checkpoint(ckpt_dir_or_file):
    """A reader with ``get_tensor(key)``, ``get_variable_to_shape_map()`` and ``get_variable_to_dtype_map()``."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        path = latest_checkpoint(path) or path
    return _Reader(_read_any(path))


def _read_any(path):
    return _files.read_tf(path) if _files.is_tf(path) else _files.read_arrays(path)


class _Reader:
    def __init__(self, arrays):
        self._arrays = arrays

    def get_tensor(self, name):
        if name not in self._arrays:
            raise tf.errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return self._arrays[name]

    def has_tensor(self, name):
        return name in self._arrays

    def get_variable_to_shape_map(self):
        return {k: list(a.shape) for k, a in self._arrays.items()}

    def get_variable_to_dtype_map(self):
        return {k: tf.string if a.dtype == object else tf.as_dtype(a.dtype.name) for k, a in self._arrays.items()}
