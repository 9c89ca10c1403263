"""The book's custom training loop (examples/custom_training_loop.py) and the demo, end to end."""
import os
import re
import runpy
import subprocess
import sys

import numpy as np

from tapegrad import demo
from tapegrad.datasets import diabetes

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "custom_training_loop.py")


def test_dataset_splits_are_standardized_and_licensed():
    (X_train, y_train), (X_valid, y_valid), (X_test, y_test) = diabetes.load_data()
    assert X_train.shape == (266, 10) and y_train.shape == (266, 1)
    assert len(X_valid) == len(X_test) == 88
    np.testing.assert_allclose(X_train.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(X_train.std(0), 1, rtol=1e-4)
    here = os.path.dirname(diabetes.__file__)
    with open(os.path.join(here, "data", "LICENSE-diabetes.txt")) as f:
        assert "BSD 3-Clause" in f.read()


def test_book_loop_beats_least_squares_on_validation(capsys):
    runpy.run_path(EXAMPLE, run_name="__main__")
    out = capsys.readouterr().out
    assert "Epoch 20/20" in out and "mean_absolute_error:" in out
    mse, baseline = map(float, re.search(r"validation MSE: ([\d.]+) \(least-squares baseline: ([\d.]+)\)", out).groups())
    assert mse <= baseline


def test_demo_trains_prints_epochs_and_plots(tmp_path, capsys):
    plot = tmp_path / "curve.png"
    demo.main(["--epochs", "3", "--plot", str(plot)])
    out = capsys.readouterr().out
    assert out.count("Epoch ") == 3 and "loss:" in out and "mae:" in out and "least-squares baseline" in out
    try:
        import matplotlib  # noqa: F401
        assert plot.exists() and plot.stat().st_size > 1000
    except ImportError:
        assert "matplotlib is not installed" in out


def test_demo_matches_the_example_from_the_same_seed():
    _, history, valid_mse, baseline = demo.train(verbose=0)
    assert len(history["loss"]) == 20 and valid_mse <= baseline


def test_python_dash_m_demo_runs(tmp_path):
    result = subprocess.run([sys.executable, "-m", "tapegrad.demo", "--epochs", "1", "--plot",
                             str(tmp_path / "c.png")], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Epoch 1/1" in result.stdout
