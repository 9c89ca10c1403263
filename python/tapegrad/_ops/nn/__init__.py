"""tf.nn: activations, losses, convolution and pooling, normalisation, sampled losses."""
