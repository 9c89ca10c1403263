"""tapegrad.datasets: small datasets shipped inside the package (no download, no scikit-learn)."""
from tapegrad.datasets import diabetes  # noqa: F401

__all__ = ["diabetes"]
