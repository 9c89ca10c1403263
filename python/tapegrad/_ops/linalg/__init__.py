"""tf.linalg: products, norms, einsum, square-matrix and SVD ops, diagonals."""
