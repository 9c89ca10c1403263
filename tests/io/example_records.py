"""Serialized tf.train.Examples for the parsing tests: one Feature per keyword, its kind from its values."""
import tapegrad as tf


def feature(values):
    """A Feature of floats, ints or bytes (an empty list: a Feature of no kind)."""
    if not values:
        return tf.train.Feature()
    if isinstance(values[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    if isinstance(values[0], int):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))


def example(**features):
    return tf.train.Example(features=tf.train.Features(feature={k: feature(v) for k, v in features.items()})
                            ).SerializeToString()
