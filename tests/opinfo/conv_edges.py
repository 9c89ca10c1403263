"""Edge samples of the convolution and pooling rows (opinfo/conv.py): NaN and -inf propagate, an empty batch
gives an empty result."""
import numpy as np

from opinfo.core import Edge

NAN_WINDOW = np.array([[[[np.nan], [1.0]], [[2.0], [-np.inf]]]], np.float32)   # one 2x2 window holding NaN
ALL_NAN = np.full((1, 1, 1, 1), np.nan)

EDGE_SAMPLES = {
    "MaxPool": lambda: [Edge(NAN_WINDOW, 2, 2, "VALID").gives(ALL_NAN),
                        Edge(np.full((1, 2, 2, 1), -np.inf, np.float32), 2, 2, "VALID").gives([[[[-np.inf]]]])],
    "AvgPool": lambda: [Edge(NAN_WINDOW, 2, 2, "VALID").gives(ALL_NAN)],
    "Conv2D": lambda: [
        Edge(NAN_WINDOW, np.ones((2, 2, 1, 1), np.float32), 1, "VALID").gives(ALL_NAN),
        Edge(np.zeros((0, 4, 4, 3), np.float32), np.ones((3, 3, 3, 2), np.float32), 2, "SAME")
        .gives(np.zeros((0, 2, 2, 2)))],
}
