"""Op-info rows, one module per op family; tests/op_db.py gathers them."""
