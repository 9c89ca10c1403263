"""Nested structures of values (lists, tuples, namedtuples, dicts) as the API takes and returns them."""


def sequence_like(like, items):
    """A list, tuple or namedtuple of ``like``'s type holding ``items`` (a namedtuple takes them as arguments)."""
    return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)
