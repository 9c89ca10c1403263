"""A text classifier training step: Embedding(10000, 64) + LSTM(128) + Dense(5), batch 64 of 40 tokens, Adam.

Every framework starts from the same NumPy weights and trains on one fixed batch of token ids and
labels; the loss is the mean sparse softmax cross-entropy of the logits; the step returns it
(compared on the first step).
Workloads:
  text step   eager: tapegrad and TensorFlow run keras.layers.Embedding, LSTM and Dense under a
              GradientTape with keras Adam (the embedding's gradient is a tf.IndexedSlices of the
              rows read); PyTorch: nn.Embedding + nn.LSTM + nn.Linear, torch.optim.Adam; JAX: one
              jax.jit of the loss (lax.scan over the tokens), its gradient and Adam.
  text step traced
              the same step in tf.function for tapegrad and TensorFlow; the same PyTorch and JAX cases.
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_text.py
"""

import sys

try:
    from . import _harness as h
    from ._jax_train import adam_step, lstm_last_state
except ImportError:          # run as a script: python benchmarks/bench_text.py
    import _harness as h
    from _jax_train import adam_step, lstm_last_state

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "text"
VOCAB, DIM, UNITS, CLASSES, BATCH, TOKENS = 10000, 64, 128, 5, 64, 40


def _data():
    """Token ids, labels and Keras-layout weights: embeddings, kernel, recurrent_kernel, bias, dense kernel, bias."""
    rng = np.random.default_rng(9)
    ids = rng.integers(0, VOCAB, (BATCH, TOKENS)).astype(np.int32)
    labels = rng.integers(0, CLASSES, BATCH).astype(np.int32)
    embeddings = rng.uniform(-0.05, 0.05, (VOCAB, DIM)).astype(np.float32)
    limit = np.sqrt(6 / (DIM + 4 * UNITS))
    kernel = rng.uniform(-limit, limit, (DIM, 4 * UNITS)).astype(np.float32)
    q, _ = np.linalg.qr(rng.standard_normal((4 * UNITS, UNITS)))
    bias = np.zeros(4 * UNITS, np.float32)
    bias[UNITS:2 * UNITS] = 1  # unit_forget_bias
    limit = np.sqrt(6 / (UNITS + CLASSES))
    dense = rng.uniform(-limit, limit, (UNITS, CLASSES)).astype(np.float32)
    return ids, labels, [embeddings, kernel, q.T.astype(np.float32), bias, dense, np.zeros(CLASSES, np.float32)]


IDS, LABELS, WEIGHTS = _data()
# Per token: input projection 2*B*D*4U, recurrence 2*B*U*4U; backward about twice the forward.
FLOPS = 3 * TOKENS * 2 * BATCH * 4 * UNITS * (DIM + UNITS)
NOTE = "returns the step's loss (compared on the first step); GFLOP/s counts the LSTM's GEMMs, forward and backward"

eager = h.Workload(GROUP, "text classifier step, Embedding(10000, 64) + LSTM(128) + Dense(5), batch 64 x 40",
                   flops=FLOPS, note=NOTE, rtol=1e-4)
traced = h.Workload(GROUP, "text classifier step traced (tf.function, jax.jit)", flops=FLOPS,
                    note=NOTE + "; torch: eager", rtol=1e-4)


def _keras_step(tf, traced_step):
    keras = tf.keras
    model = keras.Sequential([keras.layers.Embedding(VOCAB, DIM), keras.layers.LSTM(UNITS),
                              keras.layers.Dense(CLASSES)])
    model(IDS[:1])
    model.set_weights(WEIGHTS)
    optimizer = keras.optimizers.Adam(learning_rate=0.001)
    ids, labels = tf.constant(IDS), tf.constant(LABELS)

    def step():
        with tf.GradientTape() as tape:
            logits = model(ids, training=True)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return tf.function(step) if traced_step else step


eager.case("tensorflow", "tapegrad")(lambda tf: _keras_step(tf, False))
traced.case("tensorflow", "tapegrad")(lambda tf: _keras_step(tf, True))


@traced.case("torch")
@eager.case("torch")
def _(torch):
    embed = torch.nn.Embedding(VOCAB, DIM)
    lstm = torch.nn.LSTM(DIM, UNITS, batch_first=True)
    head = torch.nn.Linear(UNITS, CLASSES)
    embeddings, kernel, recurrent, bias, dense, dense_bias = WEIGHTS
    with torch.no_grad():  # torch's gate order i, f, g, o is Keras's; its matrices are transposed
        embed.weight.copy_(torch.from_numpy(embeddings))
        lstm.weight_ih_l0.copy_(torch.from_numpy(kernel.T.copy()))
        lstm.weight_hh_l0.copy_(torch.from_numpy(recurrent.T.copy()))
        lstm.bias_ih_l0.copy_(torch.from_numpy(bias))
        lstm.bias_hh_l0.zero_()
        head.weight.copy_(torch.from_numpy(dense.T.copy()))
        head.bias.copy_(torch.from_numpy(dense_bias))
    params = list(embed.parameters()) + list(lstm.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=0.001, eps=1e-7)
    ids, labels = torch.from_numpy(IDS).long(), torch.from_numpy(LABELS).long()

    def step():
        opt.zero_grad()
        out, _ = lstm(embed(ids))
        loss = torch.nn.functional.cross_entropy(head(out[:, -1]), labels)
        loss.backward()
        opt.step()
        return loss.detach().numpy()
    return step


@traced.case("jax")
@eager.case("jax")
def _(jax):
    jnp = jax.numpy

    def loss_fn(params, ids, labels):
        embeddings, kernel, recurrent, bias, dense, dense_bias = params
        h = lstm_last_state(jax, embeddings[ids], kernel, recurrent, bias)
        logp = jax.nn.log_softmax(h @ dense + dense_bias)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    return adam_step(jax, loss_fn, WEIGHTS, IDS, LABELS)


WORKLOADS = [eager, traced]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
