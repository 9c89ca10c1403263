"""tf's array ops: shapes, slicing and indexing, gather/scatter, creation, sorting."""
