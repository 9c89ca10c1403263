"""Integer ids to one-hot, multi-hot, count and tf-idf vectors (CategoryEncoding and the lookup layers)."""
import tapegrad as tf

__all__ = ["encode_ids", "OUTPUT_MODES"]

OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def encode_ids(ids, depth, output_mode, dtype, idf_weights=None):
    """``ids`` ([batch] or [batch, n] integers in [0, depth)) as ``output_mode`` vectors of ``dtype``.

    one_hot: one vector per id ([batch] -> [batch, depth]; a trailing axis of 1 is replaced);
    multi_hot / count: one vector per row, 1 (or the count) where an id occurs; a rank-1 input is one row;
    tf_idf: the counts times ``idf_weights``.
    """
    rank = len(ids.shape)
    if output_mode == "one_hot":
        if rank >= 1 and ids.shape[-1] == 1 and rank > 1:
            ids = tf.squeeze(ids, axis=-1)
        return tf.one_hot(tf.cast(ids, tf.int32), depth, dtype=dtype)
    one_row = rank <= 1
    if one_row:
        ids = tf.reshape(ids, [1, -1])
    hot = tf.one_hot(tf.cast(ids, tf.int32), depth, dtype=tf.float32)  # [batch, n, depth]
    counts = tf.reduce_sum(hot, axis=1)
    if output_mode == "multi_hot":
        counts = tf.minimum(counts, 1.0)
    elif output_mode == "tf_idf":
        counts = counts * tf.cast(idf_weights, tf.float32)
    out = tf.cast(counts, dtype)
    return tf.reshape(out, [depth]) if one_row else out
