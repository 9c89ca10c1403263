"""tf.image: resizing, colour, geometry, boxes, metrics and the random adjustments."""
