"""A transformer encoder block training step: batch 32, 64 tokens, width 128, 4 heads, FFN 512, Adam.

The block is post-norm, as Keras's examples build it: h = LayerNorm(x + MHA(x, x)), out =
LayerNorm(h + Dense(128)(relu(Dense(512)(h)))), loss = mean((out - y)^2). Every framework starts
from the same NumPy weights (Keras's layouts) and trains on one fixed batch; the step returns its
loss (compared on the first step).
Workloads:
  transformer step   eager: tapegrad and TensorFlow run keras.layers.MultiHeadAttention,
              LayerNormalization and Dense under a GradientTape with keras Adam; PyTorch and JAX
              write the same block with their tensor ops (torch.optim.Adam; JAX one jax.jit of the
              loss, its gradient and Adam).
  transformer step traced
              the same step in tf.function for tapegrad and TensorFlow; the same PyTorch and JAX cases.
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_transformer.py
"""

import sys

try:
    from . import _harness as h
    from ._jax_train import adam_step
except ImportError:          # run as a script: python benchmarks/bench_transformer.py
    import _harness as h
    from _jax_train import adam_step

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "transformer"
BATCH, TOKENS, WIDTH, HEADS, FFN = 32, 64, 128, 4, 512
KEY = WIDTH // HEADS
EPS = 1e-3  # Keras LayerNormalization's default epsilon


def _data():
    """Inputs, targets and weights in the order of the Keras layers' get_weights()."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((BATCH, TOKENS, WIDTH)).astype(np.float32)
    y = rng.standard_normal((BATCH, TOKENS, WIDTH)).astype(np.float32)

    def glorot(*shape, fan_in, fan_out):
        limit = np.sqrt(6 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, shape).astype(np.float32)
    attention = []
    for _ in range(3):  # query, key, value: kernel (width, heads, key), bias (heads, key)
        attention += [glorot(WIDTH, HEADS, KEY, fan_in=WIDTH, fan_out=WIDTH), np.zeros((HEADS, KEY), np.float32)]
    attention += [glorot(HEADS, KEY, WIDTH, fan_in=WIDTH, fan_out=WIDTH), np.zeros(WIDTH, np.float32)]
    norm = [np.ones(WIDTH, np.float32), np.zeros(WIDTH, np.float32)]
    ffn = [glorot(WIDTH, FFN, fan_in=WIDTH, fan_out=FFN), np.zeros(FFN, np.float32),
           glorot(FFN, WIDTH, fan_in=FFN, fan_out=WIDTH), np.zeros(WIDTH, np.float32)]
    return x, y, {"attention": attention, "norm1": norm, "ffn": ffn, "norm2": [w.copy() for w in norm]}


X, Y, WEIGHTS = _data()
FLAT = WEIGHTS["attention"] + WEIGHTS["norm1"] + WEIGHTS["ffn"] + WEIGHTS["norm2"]
# Forward GEMMs: 4 projections 2*B*T*W*W, scores and mixing 2 * 2*B*T*T*W, FFN 2 * 2*B*T*W*F; backward twice.
FLOPS = 3 * (4 * 2 * BATCH * TOKENS * WIDTH * WIDTH + 2 * 2 * BATCH * TOKENS * TOKENS * WIDTH
             + 2 * 2 * BATCH * TOKENS * WIDTH * FFN)
NOTE = "returns the step's loss (compared on the first step); GFLOP/s counts the GEMMs, forward and backward"

eager = h.Workload(GROUP, "transformer encoder block step, 32 x 64 x 128, 4 heads, FFN 512, Adam",
                   flops=FLOPS, note=NOTE, rtol=1e-3)
traced = h.Workload(GROUP, "transformer encoder block step traced (tf.function, jax.jit)", flops=FLOPS,
                    note=NOTE + "; torch: eager", rtol=1e-3)


def _keras_step(tf, traced_step):
    keras = tf.keras
    layers = keras.layers
    attention = layers.MultiHeadAttention(num_heads=HEADS, key_dim=KEY)
    norm1, norm2 = layers.LayerNormalization(epsilon=EPS), layers.LayerNormalization(epsilon=EPS)
    up, down = layers.Dense(FFN, activation="relu"), layers.Dense(WIDTH)

    def block(x):
        h = norm1(x + attention(x, x))
        return norm2(h + down(up(h)))
    block(X[:1])
    attention.set_weights(WEIGHTS["attention"])
    norm1.set_weights(WEIGHTS["norm1"])
    up.set_weights(WEIGHTS["ffn"][:2])
    down.set_weights(WEIGHTS["ffn"][2:])
    norm2.set_weights(WEIGHTS["norm2"])
    variables = [v for layer in (attention, norm1, up, down, norm2) for v in layer.trainable_variables]
    optimizer = keras.optimizers.Adam(learning_rate=0.001)
    x, y = tf.constant(X), tf.constant(Y)

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(block(x) - y))
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
    return tf.function(step) if traced_step else step


eager.case("tensorflow", "tapegrad")(lambda tf: _keras_step(tf, False))
traced.case("tensorflow", "tapegrad")(lambda tf: _keras_step(tf, True))


def _block(ops, params, x):
    """The block in a framework's tensor ops: ops has einsum, softmax, relu, mean, sqrt (torch, jax.numpy)."""
    wq, bq, wk, bk, wv, bv, wo, bo, g1, b1, w_up, b_up, w_down, b_down, g2, b2 = params

    def norm(z, gamma, beta):
        mu = ops.mean(z, -1, keepdims=True)
        var = ops.mean((z - mu) ** 2, -1, keepdims=True)
        return (z - mu) / ops.sqrt(var + EPS) * gamma + beta
    q = ops.einsum("btw,whk->bhtk", x, wq) + bq[None, :, None, :]
    k = ops.einsum("btw,whk->bhtk", x, wk) + bk[None, :, None, :]
    v = ops.einsum("btw,whk->bhtk", x, wv) + bv[None, :, None, :]
    scores = ops.softmax(ops.einsum("bhtk,bhsk->bhts", q, k) / np.float32(np.sqrt(KEY)), -1)
    a = ops.einsum("bhts,bhsk,hkw->btw", scores, v, wo) + bo
    h = norm(x + a, g1, b1)
    return norm(h + ops.relu(h @ w_up + b_up) @ w_down + b_down, g2, b2)


class _TorchOps:
    def __init__(self, torch):
        self.torch = torch
        self.einsum, self.sqrt, self.relu = torch.einsum, torch.sqrt, torch.relu

    def mean(self, z, axis, keepdims):
        return self.torch.mean(z, axis, keepdim=keepdims)

    def softmax(self, z, axis):
        return self.torch.softmax(z, axis)


@traced.case("torch")
@eager.case("torch")
def _(torch):
    params = [torch.tensor(w, requires_grad=True) for w in FLAT]
    opt = torch.optim.Adam(params, lr=0.001, eps=1e-7)
    ops, x, y = _TorchOps(torch), torch.from_numpy(X), torch.from_numpy(Y)

    def step():
        opt.zero_grad()
        loss = torch.mean((_block(ops, params, x) - y) ** 2)
        loss.backward()
        opt.step()
        return loss.detach().numpy()
    return step


@traced.case("jax")
@eager.case("jax")
def _(jax):
    jnp = jax.numpy

    class ops:
        einsum, mean, sqrt = jnp.einsum, jnp.mean, jnp.sqrt
        relu, softmax = jax.nn.relu, jax.nn.softmax

    def loss_fn(params, x, y):
        return jnp.mean((_block(ops, params, x) - y) ** 2)

    return adam_step(jax, loss_fn, FLAT, X, Y)


WORKLOADS = [eager, traced]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
