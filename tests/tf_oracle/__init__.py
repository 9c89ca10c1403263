"""TensorFlow as a differential oracle: rows (rows.py), sample inputs (samples.py), known differences
(differences.py); tests/oracle/test_tf_oracle.py runs them against TF and tests/oracle/test_tf_oracle_table.py
checks the table covers the public API."""
import os
import warnings


def import_tensorflow():
    """TensorFlow, the oracle: the test module is skipped when it does not import, unless
    TAPEGRAD_REQUIRE_TF is set (then the import error fails the run). Call at module level."""
    import pytest
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if os.environ.get("TAPEGRAD_REQUIRE_TF", "") not in ("", "0"):
            import tensorflow
            return tensorflow
        return pytest.importorskip("tensorflow")
