"""tapegrad.train: tf.train's checkpoints (Checkpoint, CheckpointManager, latest_checkpoint),
ExponentialMovingAverage and the tf.train.Example protos (Example, Features, Feature, BytesList, FloatList,
Int64List, SequenceExample)."""
from tapegrad._protos import (BytesList, Example, Feature, FeatureList, FeatureLists, Features,  # noqa: F401
                              FloatList, Int64List, SequenceExample)
from tapegrad.train.checkpoint import (Checkpoint, CheckpointLoadStatus, latest_checkpoint,  # noqa: F401
                                       list_variables, load_checkpoint)
from tapegrad.train.manager import CheckpointManager  # noqa: F401
from tapegrad.train.moving_averages import ExponentialMovingAverage  # noqa: F401

__all__ = ["Checkpoint", "CheckpointManager", "ExponentialMovingAverage", "latest_checkpoint", "list_variables",
           "load_checkpoint", "Example", "Features", "Feature", "BytesList", "FloatList", "Int64List", "FeatureList",
           "FeatureLists", "SequenceExample"]
