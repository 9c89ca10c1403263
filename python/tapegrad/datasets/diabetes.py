"""The diabetes regression data (442 patients, 10 features), shipped with its BSD licence in data/.

``load_data`` gives train / validation / test splits standardized with the training statistics, the
way the book prepares California housing (train_test_split twice, then StandardScaler).
"""
import os

import numpy as np

__all__ = ["load_raw", "load_data", "least_squares_mse"]

_DIR = os.path.join(os.path.dirname(__file__), "data")
FEATURE_NAMES = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]


def load_raw():
    """(X, y): X float64 (442, 10) raw features, y float64 (442,) disease progression."""
    X = np.loadtxt(os.path.join(_DIR, "diabetes_data_raw.csv.gz"))
    y = np.loadtxt(os.path.join(_DIR, "diabetes_target.csv.gz"))
    return X, y


def load_data(valid_fraction=0.2, test_fraction=0.2, seed=42, standardize_target=True, dtype="float32"):
    """((X_train, y_train), (X_valid, y_valid), (X_test, y_test)), shuffled with ``seed``.

    Features are standardized with the training split's mean and standard deviation; so is the target
    when ``standardize_target`` (MSE then reads as a fraction of the target's variance). y has shape (n, 1).
    """
    if not (0 <= valid_fraction < 1 and 0 <= test_fraction < 1 and valid_fraction + test_fraction < 1):
        raise ValueError("load_data: valid_fraction and test_fraction must be in [0, 1) and sum to less than 1")
    X, y = load_raw()
    order = np.random.default_rng(seed).permutation(len(X))
    n_test, n_valid = int(round(len(X) * test_fraction)), int(round(len(X) * valid_fraction))
    test, valid, train = order[:n_test], order[n_test:n_test + n_valid], order[n_test + n_valid:]
    mean, std = X[train].mean(axis=0), X[train].std(axis=0)
    y = y.reshape(-1, 1)
    if standardize_target:
        y = (y - y[train].mean()) / y[train].std()
    scale = lambda idx: ((X[idx] - mean) / std).astype(dtype)  # noqa: E731
    return tuple((scale(idx), y[idx].astype(dtype)) for idx in (train, valid, test))


def least_squares_mse(X_train, y_train, X_eval, y_eval):
    """The MSE on (X_eval, y_eval) of the ordinary least-squares fit (with intercept) on the training split."""
    A = np.hstack([X_train, np.ones((len(X_train), 1))]).astype(np.float64)
    coef, *_ = np.linalg.lstsq(A, y_train.astype(np.float64), rcond=None)
    pred = np.hstack([X_eval, np.ones((len(X_eval), 1))]) @ coef
    return float(np.mean((pred - y_eval) ** 2))
