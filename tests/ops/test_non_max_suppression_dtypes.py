"""tf.image.non_max_suppression casts float64 boxes and scores, as TF (the dtypes it refuses are the
NonMaxSuppressionV3 row's bad calls, in opinfo/sized_by_values_errors.py)."""
import numpy as np

import tapegrad as tf

f32 = np.float32


def test_non_max_suppression_casts_float64_boxes_and_scores():
    boxes, scores = np.array([[0, 0, 1, 1], [0, 0, 1, 1.1]], f32), np.array([0.9, 0.8], f32)
    nms = tf.image.non_max_suppression
    assert nms(boxes.astype(np.float64), scores.astype(np.float64), 2).numpy().tolist() == [0]  # TF casts these
