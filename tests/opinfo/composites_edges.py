"""Edge samples of the rows composed in Python (opinfo/composites.py)."""
import math

import numpy as np

from opinfo.core import Edge

inf = float("inf")

EDGE_SAMPLES = {
    # TF's gradient: -0 at +-inf (the tail branch made inf * 0); erfc(50) underflows to 0
    "math.erfc": lambda: [Edge(np.array([inf, -inf, 3.0, 50.0])).gives([0.0, 2.0, math.erfc(3.0), 0.0], rtol=1e-14)
                          .and_grad([0.0, 0.0, -2 / np.sqrt(np.pi) * np.exp(-9.0), 0.0], rtol=1e-12)],
}
