"""keras.mixed_precision: dtype policies ("mixed_float16", "mixed_bfloat16") and dynamic loss scaling."""
from tapegrad.keras._dtype_policy import (
                                          DTypePolicy,
                                          Policy,
                                          dtype_policy,
                                          global_policy,
                                          set_dtype_policy,
                                          set_global_policy,
)
from tapegrad.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer

__all__ = [
                                          "DTypePolicy",
                                          "LossScaleOptimizer",
                                          "Policy",
                                          "dtype_policy",
                                          "global_policy",
                                          "set_dtype_policy",
                                          "set_global_policy",
]
