"""Data-parallel training written as for Horovod; only the imports differ:

    import tensorflow as tf                 ->  import tapegrad as tf
    import horovod.tensorflow as hvd        ->  import tapegrad.distribute as hvd

Run with  mpirun -n 2 python examples/horovod_style_training.py  (pip install "tapegrad[mpi]").
Each rank trains on its shard of the data; gradients are averaged over the ranks while the backward
pass runs; rank 0 broadcasts the initial weights and prints.
"""
import numpy as np

import tapegrad as tf
import tapegrad.distribute as hvd

hvd.init()

# A synthetic, MNIST-shaped classification problem (784 features, 10 classes), the same on every rank.
rng = np.random.default_rng(0)
images = rng.normal(size=(4096, 784)).astype("float32")
labels = (images[:, :10] @ rng.normal(size=(10, 10))).argmax(axis=1).astype("int64")

dataset = tf.data.Dataset.from_tensor_slices((images, labels))
dataset = dataset.shard(hvd.size(), hvd.rank()).shuffle(1024, seed=hvd.rank()).repeat().batch(128)

model = tf.keras.Sequential([
    tf.keras.layers.Dense(512, activation="relu"),
    tf.keras.layers.Dense(512, activation="relu"),
    tf.keras.layers.Dense(10),
])
loss_fn = tf.losses.SparseCategoricalCrossentropy(from_logits=True)
# Horovod's advice: scale the learning rate by the number of ranks.
opt = tf.optimizers.Adam(0.001 * hvd.size())


@tf.function
def training_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    # Start every rank from rank 0's weights (after the first step, when the optimizer's slots exist).
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


# The number of steps is divided by the number of ranks: each step sees size() batches in all.
for batch, (x, y) in enumerate(dataset.take(120 // hvd.size())):
    loss = training_step(x, y, batch == 0)
    if batch % 10 == 0 and hvd.rank() == 0:
        print(f"step {batch}: loss {float(loss):.4f}")

accuracy = tf.reduce_mean(tf.cast(tf.argmax(model(images), axis=1) == labels, tf.float32))
accuracy = hvd.allreduce(accuracy)  # the same on every rank: shows the weights agree
if hvd.rank() == 0:
    print(f"ranks: {hvd.size()}, training accuracy {float(accuracy):.3f}")
