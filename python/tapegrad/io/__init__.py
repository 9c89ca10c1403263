"""``tf.io``: files (read_file, write_file, matching_files, the gfile module, TFRecordWriter), image codecs
(decode_png, decode_jpeg, decode_bmp, decode_gif, decode_image, encode_png, encode_jpeg), decode_raw, and
tf.train.Example and SequenceExample parsing (parse_single_example, parse_example, parse_sequence_example,
parse_single_sequence_example, FixedLenFeature, ...), decode_csv, and
serialize_tensor / parse_tensor.

    image = tf.io.decode_png(tf.io.read_file(path), channels=3)        # uint8
    image = tf.image.convert_image_dtype(image, tf.float32)             # [0, 1]

The image codecs need Pillow (``pip install "tapegrad[image]"``).
"""
from tapegrad.io import gfile
from tapegrad.io._csv import decode_csv
from tapegrad.io._decode import decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png
from tapegrad.io._encode import encode_jpeg, encode_png
from tapegrad.io._files import matching_files, read_file, write_file
from tapegrad.io._jpeg import decode_and_crop_jpeg, extract_jpeg_shape, is_jpeg
from tapegrad.io._raw import decode_raw
from tapegrad.io._tensor_proto import parse_tensor, serialize_tensor
from tapegrad.io._tfrecord import TFRecordCompressionType, TFRecordOptions, TFRecordWriter
from tapegrad.io._example import (FixedLenFeature, FixedLenSequenceFeature, RaggedFeature, SparseFeature,
                                  VarLenFeature, parse_example, parse_single_example)
from tapegrad.io._sequence_example import parse_sequence_example, parse_single_sequence_example

__all__ = ["gfile", "read_file", "write_file", "matching_files", "decode_png", "decode_jpeg", "decode_bmp",
           "decode_gif", "decode_image", "encode_png", "encode_jpeg", "decode_raw", "is_jpeg",
           "extract_jpeg_shape", "decode_and_crop_jpeg", "TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType",
           "parse_single_example", "parse_example", "FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature",
           "SparseFeature", "RaggedFeature", "parse_sequence_example", "parse_single_sequence_example", "decode_csv",
           "serialize_tensor", "parse_tensor"]
