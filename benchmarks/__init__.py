"""tapegrad benchmarks against NumPy, PyTorch, TensorFlow and JAX (see README.md)."""
