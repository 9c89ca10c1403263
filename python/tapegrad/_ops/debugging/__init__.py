"""tf.debugging's assertions: checks on values (at run time inside a tf.function) and on static shapes and dtypes."""
