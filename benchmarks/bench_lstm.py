"""An LSTM training step: batch 32, 50 steps, 8 features, 64 units, Dense(1) on the last output, MSE, Adam.

Workloads (every framework starts from the same NumPy weights and trains on one fixed batch, so the
first step's loss is compared across frameworks; later steps keep training):
  lstm step   eager: tapegrad and TensorFlow run keras.layers.LSTM(64) + Dense(1) under a
              GradientTape with keras Adam (tapegrad's LSTM is one fused op over all 50 steps, its
              backward another); PyTorch: nn.LSTM + nn.Linear, torch.optim.Adam; JAX: one jax.jit of
              the loss (lax.scan over the steps), its gradient and Adam.
  lstm step traced
              the same step in tf.function for tapegrad and TensorFlow; beside them the same jax.jit
              and PyTorch eager cases.
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_lstm.py
"""

import sys

try:
    from . import _harness as h
    from ._jax_train import adam_step, lstm_last_state
except ImportError:          # run as a script: python benchmarks/bench_lstm.py
    import _harness as h
    from _jax_train import adam_step, lstm_last_state

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "lstm"
BATCH, STEPS, FEATURES, UNITS = 32, 50, 8, 64


def _data():
    """Inputs, targets and Keras-layout weights: kernel, recurrent_kernel, bias, dense kernel, dense bias."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((BATCH, STEPS, FEATURES)).astype(np.float32)
    y = rng.standard_normal((BATCH, 1)).astype(np.float32)
    limit = np.sqrt(6 / (FEATURES + 4 * UNITS))
    kernel = rng.uniform(-limit, limit, (FEATURES, 4 * UNITS)).astype(np.float32)
    q, _ = np.linalg.qr(rng.standard_normal((4 * UNITS, UNITS)))
    recurrent = q.T.astype(np.float32)
    bias = np.zeros(4 * UNITS, np.float32)
    bias[UNITS:2 * UNITS] = 1  # unit_forget_bias
    dense = rng.uniform(-0.3, 0.3, (UNITS, 1)).astype(np.float32)
    return x, y, [kernel, recurrent, bias, dense, np.zeros(1, np.float32)]


X, Y, WEIGHTS = _data()
# Per step: input projection 2*B*F*4U, recurrence 2*B*U*4U; backward about twice the forward.
FLOPS = 3 * STEPS * 2 * BATCH * 4 * UNITS * (FEATURES + UNITS)

eager = h.Workload(GROUP, "LSTM step, batch 32, 50 steps, 8 features, 64 units, Dense(1), MSE, Adam",
                   flops=FLOPS, note="returns the step's loss (compared on the first step); GFLOP/s counts the "
                                     "LSTM's GEMMs, forward and backward", rtol=1e-4)
traced = h.Workload(GROUP, "LSTM step traced (tf.function, jax.jit), batch 32, 50 steps, 8 features, 64 units",
                    flops=FLOPS, note="tapegrad and TF: the step in tf.function; jax: jax.jit with lax.scan; "
                                      "torch: eager", rtol=1e-4)


def _keras_step(tf, keras, traced_step):
    model = keras.Sequential([keras.layers.LSTM(UNITS), keras.layers.Dense(1)])
    model(X[:1])
    model.set_weights(WEIGHTS)
    optimizer = keras.optimizers.Adam(learning_rate=0.001)

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(X, training=True) - Y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return tf.function(step) if traced_step else step


@eager.case("tapegrad")
def _(tf):
    return _keras_step(tf, tf.keras, False)


@traced.case("tapegrad")
def _(tf):
    return _keras_step(tf, tf.keras, True)


@eager.case("tensorflow")
def _(tf):
    return _keras_step(tf, tf.keras, False)


@traced.case("tensorflow")
def _(tf):
    return _keras_step(tf, tf.keras, True)


@traced.case("torch")
@eager.case("torch")
def _(torch):
    lstm = torch.nn.LSTM(FEATURES, UNITS, batch_first=True)
    head = torch.nn.Linear(UNITS, 1)
    kernel, recurrent, bias, dense, dense_bias = WEIGHTS
    with torch.no_grad():  # torch's gate order i, f, g, o is Keras's; its matrices are transposed
        lstm.weight_ih_l0.copy_(torch.from_numpy(kernel.T.copy()))
        lstm.weight_hh_l0.copy_(torch.from_numpy(recurrent.T.copy()))
        lstm.bias_ih_l0.copy_(torch.from_numpy(bias))
        lstm.bias_hh_l0.zero_()
        head.weight.copy_(torch.from_numpy(dense.T.copy()))
        head.bias.copy_(torch.from_numpy(dense_bias))
    params = list(lstm.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=0.001, eps=1e-7)
    x, y = torch.from_numpy(X), torch.from_numpy(Y)

    def step():
        opt.zero_grad()
        out, _ = lstm(x)
        loss = torch.mean((head(out[:, -1]) - y) ** 2)
        loss.backward()
        opt.step()
        return loss.detach().numpy()
    return step


@traced.case("jax")
@eager.case("jax")
def _(jax):
    def loss_fn(params, x, y):
        kernel, recurrent, bias, dense, dense_bias = params
        h = lstm_last_state(jax, x, kernel, recurrent, bias)
        return jax.numpy.mean((h @ dense + dense_bias - y) ** 2)

    return adam_step(jax, loss_fn, WEIGHTS, X, Y)


WORKLOADS = [eager, traced]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
