"""Edge samples of the reduction rows (opinfo/reduction.py): huge and infinite inputs, zeros and empty axes,
where the results and gradients stay finite and exact."""
import numpy as np

from opinfo.core import Edge

ZEROS = np.zeros((2, 2))

EDGE_SAMPLES = {
    "reduce_logsumexp": lambda: [
        Edge(np.array([1e30, 1e30, -1e30])).gives(1e30, rtol=1e-7).and_grad([0.5, 0.5, 0.0], rtol=1e-7),
        Edge(np.array([-np.inf, -np.inf], np.float32)).gives(-np.inf)],
    # with zeros the gradient is the product of the others
    "Prod": lambda: [Edge(np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]]), axis=1).gives([0.0, 0.0])
                     .and_grad([[0.0, 6.0, 0.0], [0.0, 0.0, 0.0]])],
    # over an empty axis, the identities
    "Any": lambda: [Edge(np.zeros((2, 0), bool), axis=1).gives([False, False])],
    "All": lambda: [Edge(np.zeros((2, 0), bool), axis=1).gives([True, True])],
    # the Euclidean norm's gradient at zero is exactly 0
    "reduce_euclidean_norm": lambda: [Edge(ZEROS).gives(0.0).and_grad(ZEROS)],
}
