"""Mixed precision: the wide MLP step (784-512-512-10, relu, batch 256, Adam) under Keras's float32,
mixed_float16 and mixed_bfloat16 policies, eager and traced, tapegrad beside TensorFlow.

Workloads (one per policy and mode; both frameworks build the same Keras Sequential from the same NumPy
weights under the policy, the last Dense in float32 as Keras's guide asks, and train on one fixed batch):
  wide step <policy>         keras layers under a GradientTape, the loss scaled and the gradients unscaled
                             by a keras.mixed_precision.LossScaleOptimizer(Adam) under mixed_float16 (as
                             compile() does), plain Adam otherwise.
  wide step <policy> traced  the same step in tf.function.
The first step's loss is compared across the frameworks (to 1e-2 under the half types). Each row's
ratio to its own float32 row is the mixed step's cost (the goal: at most 1.2x). bench_memory.py measures
the traced steps' peak memory under each policy (--filter mixed).
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_mixed_precision.py
"""

import sys

try:
    from . import _harness as h
    from .bench_training import WIDE_FLOPS, WIDE_LABELS, WIDE_W, WIDE_X
except ImportError:          # run as a script: python benchmarks/bench_mixed_precision.py
    import _harness as h
    from bench_training import WIDE_FLOPS, WIDE_LABELS, WIDE_W, WIDE_X

GROUP = "mixed precision"
POLICIES = ("float32", "mixed_float16", "mixed_bfloat16")
NOTE = "returns the step's loss (compared on the first step); GFLOP/s counts the step's GEMMs"


def wide_step(tf, policy, traced):
    """The wide MLP step of ``tf`` (tapegrad or TensorFlow) under a Keras dtype policy."""
    keras = tf.keras
    keras.mixed_precision.set_global_policy(policy)
    try:
        model = keras.models.Sequential([keras.layers.Dense(512, activation="relu"),
                                         keras.layers.Dense(512, activation="relu"),
                                         keras.layers.Dense(10, dtype="float32")])
        model(WIDE_X[:1])
    finally:
        keras.mixed_precision.set_global_policy("float32")
    model.set_weights(WIDE_W)
    optimizer = keras.optimizers.Adam()
    if policy == "mixed_float16":
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x, labels = tf.constant(WIDE_X), tf.constant(WIDE_LABELS)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(x, training=True))
            scaled = optimizer.scale_loss(loss) if policy == "mixed_float16" else loss
        grads = tape.gradient(scaled, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return tf.function(step) if traced else step


WORKLOADS = []
for _policy in POLICIES:
    for _traced in (False, True):
        _w = h.Workload(GROUP, f"wide MLP step {_policy}{' traced' if _traced else ''}, batch 256, 784-512-512-10",
                        flops=WIDE_FLOPS, note=NOTE, rtol=2e-3 if _policy == "float32" else 1e-2)
        _w.case("tensorflow", "tapegrad")(lambda tf, p=_policy, t=_traced: wide_step(tf, p, t))
        WORKLOADS.append(_w)
        globals()[f"wide_{_policy}{'_traced' if _traced else ''}"] = _w  # bench_memory.py names them


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
