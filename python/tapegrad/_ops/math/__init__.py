"""tf.math: elementwise ops, reductions, segment ops and ops composed of them."""
