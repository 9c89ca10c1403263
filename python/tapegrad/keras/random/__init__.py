"""keras.random: Keras 3's seeded random functions and SeedGenerator (see seed_generator.py for how
seeds advance, random.py for why the values are not TF's)."""
from tapegrad.keras.random.random import (beta, binomial, categorical, dropout, gamma, normal,  # noqa: F401
                                          randint, shuffle, truncated_normal, uniform)
from tapegrad.keras.random.seed_generator import SeedGenerator  # noqa: F401

__all__ = ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma", "normal", "randint", "shuffle",
           "truncated_normal", "uniform"]
