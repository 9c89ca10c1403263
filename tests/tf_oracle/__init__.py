"""TensorFlow as a differential oracle: rows (rows.py), sample inputs (samples.py), known differences
(differences.py); tests/test_tf_oracle.py runs them against TF and tests/test_tf_oracle_table.py
checks the table covers the public API."""
