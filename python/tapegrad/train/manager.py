"""tf.train.CheckpointManager: numbered checkpoints in one directory, the oldest deleted past max_to_keep."""
import os
import time

from tapegrad.train import _files
from tapegrad.train.checkpoint import Checkpoint

__all__ = ["CheckpointManager"]


class CheckpointManager:
    """Saves ``checkpoint`` as "<directory>/<checkpoint_name>-<n>" and keeps the newest ``max_to_keep``.

    Args:
      checkpoint: the tf.train.Checkpoint to save.
      directory: where the checkpoints and the "checkpoint" state file go.
      max_to_keep: how many to keep (None keeps all).
      keep_checkpoint_every_n_hours: also keep (outside the list) one checkpoint per this many hours.
      checkpoint_name: the file prefix ("ckpt").
      step_counter, checkpoint_interval: with both, ``save`` writes only when step_counter has advanced
        checkpoint_interval steps since the last checkpoint.
      init_fn: called by ``restore_or_initialize`` when there is no checkpoint.
      last_checkpoint_step: the step of the last checkpoint, for checkpoint_interval (None: the next save writes).

    A manager made on a directory that already holds checkpoints continues their list.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None,
                 last_checkpoint_step=None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager: checkpoint must be a tf.train.Checkpoint, got {checkpoint!r}")
        if max_to_keep is not None and max_to_keep < 0:
            raise ValueError(f"CheckpointManager: max_to_keep must be None or >= 0, got {max_to_keep}")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter, self._checkpoint_interval = step_counter, checkpoint_interval
        self._init_fn = init_fn
        self._last_step = None if last_checkpoint_step is None else int(last_checkpoint_step)
        self._latest, self._paths, self._stamps, self._last_preserved = None, [], [], time.time()
        state = _files.read_state(self._directory)
        if state is not None:
            latest, paths, stamps, preserved = state
            stamps = stamps if len(stamps) == len(paths) else [time.time()] * len(paths)
            kept = [(p, t) for p, t in zip(paths, stamps) if _files.exists(p)]
            self._paths, self._stamps = [p for p, _ in kept], [t for _, t in kept]
            self._latest = latest if _files.exists(latest) else None
            self._last_preserved = preserved if preserved is not None else self._last_preserved

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoints(self):
        """The managed checkpoints, oldest first."""
        return list(self._paths)

    @property
    def latest_checkpoint(self):
        """The newest checkpoint's path, or None."""
        return self._latest

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Writes a new checkpoint and returns its path (None when the interval has not passed)."""
        if self._checkpoint_interval is not None and check_interval:
            step = int(self._step_counter.numpy() if hasattr(self._step_counter, "numpy") else self._step_counter)
            if self._last_step is not None and step < self._last_step + self._checkpoint_interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = f"{self._prefix}-{number}"
        try:
            self._checkpoint.write(path)
        except BaseException:
            counter.assign_sub(1)
            raise
        now = time.time()
        if path in self._paths:
            i = self._paths.index(path)
            del self._paths[i], self._stamps[i]
        self._paths.append(path)
        self._stamps.append(now)
        self._latest = path
        # The state file names the new checkpoint before any old one goes: a process killed between
        # the two steps leaves an extra file on disk, never a state file that points at nothing.
        dropped = self._sweep()
        _files.write_state(self._directory, path, self._paths, self._stamps, self._last_preserved)
        for old in dropped:
            _files.remove(old)
        return path

    def _sweep(self):
        """Drops the oldest checkpoints past max_to_keep from the managed list and returns those to
        delete (keep_checkpoint_every_n_hours preserves some on disk)."""
        dropped = []
        if self._max_to_keep is None:
            return dropped
        while len(self._paths) > self._max_to_keep:
            path, stamp = self._paths.pop(0), self._stamps.pop(0)
            if self._keep_hours is not None and stamp - self._last_preserved >= self._keep_hours * 3600:
                self._last_preserved = stamp
                continue
            dropped.append(path)
        return dropped

    def restore_or_initialize(self):
        """Restores the latest checkpoint and returns its path, or calls init_fn and returns None."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None
