"""tapegrad.train: tf.train's checkpoints (Checkpoint, CheckpointManager, latest_checkpoint)."""
from tapegrad.train.checkpoint import (Checkpoint, CheckpointLoadStatus, latest_checkpoint,  # noqa: F401
                                       list_variables, load_checkpoint)
from tapegrad.train.manager import CheckpointManager  # noqa: F401

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint", "list_variables", "load_checkpoint"]
