"""Op-info rows, one module per op family (its rows' bad calls in <family>_errors.py); tests/op_db.py gathers
them."""
