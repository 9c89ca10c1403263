"""tf.random: the samplers and distributions behind the stateful, stateless and Generator APIs."""
