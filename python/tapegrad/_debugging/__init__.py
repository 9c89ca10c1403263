"""tf.debugging's machinery: assertions, tf.print, op-failure handling, show_config."""
