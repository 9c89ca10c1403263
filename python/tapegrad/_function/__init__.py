"""tf.function's machinery: tracing, concrete functions, control flow, py_function, TensorArray."""
