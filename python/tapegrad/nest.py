"""tf.nest: flatten, pack and map nested structures of lists, tuples, namedtuples and dicts."""
from tapegrad._nest import assert_same_structure, flatten, is_nested, map_structure, pack_sequence_as  # noqa: F401

__all__ = ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure", "is_nested"]
