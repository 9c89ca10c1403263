"""Convolutions: a LeNet-style CNN training step (eager and traced) and conv2d's forward and backward alone.

Workloads (every framework starts from the same NumPy weights and trains on one fixed batch, so the
first step's loss is compared across frameworks; later steps keep training):
  cnn step    28x28x1 images, batch 64: Conv2D(32, 3x3, relu) -> MaxPooling2D(2) -> Conv2D(64, 3x3,
              relu) -> MaxPooling2D(2) -> Flatten -> Dense(128, relu) -> Dense(10), sparse softmax
              cross-entropy from logits, Adam. tapegrad and TensorFlow: the same keras code (Sequential,
              GradientTape, apply_gradients); PyTorch: nn.Sequential in NCHW with the same weights
              (the first Dense's rows permuted to its channel-first flatten order), torch.optim.Adam;
              JAX: one jax.jit of loss, gradient and a hand-written Adam (lax.conv_general_dilated in
              NHWC, reduce_window max pooling). About 1 GFLOP per step.
  cnn step traced
              the same step in tf.function for tapegrad and TensorFlow; beside them the same jax.jit
              and PyTorch eager cases.
  conv2d fwd  the second convolution alone: [64, 13, 13, 32] * [3, 3, 32, 64] -> [64, 11, 11, 64], VALID.
  conv2d fwd+bwd
              the same convolution with the gradients of <dy, conv2d(x, w)> with respect to x and w
              (tape.gradient with output_gradients, torch backward(dy), jax.vjp); returns dw.
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_cnn.py
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_cnn.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "cnn"
BATCH, SIDE, CLASSES = 64, 28, 10


def _glorot(rng, shape):
    fan_in, fan_out = np.prod(shape[:-1]), np.prod(shape[:-2]) * shape[-1]
    limit = np.sqrt(6 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape).astype(np.float32)


def _cnn_data():
    rng = np.random.default_rng(6)
    x = rng.uniform(0, 1, (BATCH, SIDE, SIDE, 1)).astype(np.float32)
    labels = rng.integers(0, CLASSES, BATCH).astype(np.int64)
    shapes = [(3, 3, 1, 32), (32,), (3, 3, 32, 64), (64,), (5 * 5 * 64, 128), (128,), (128, CLASSES), (CLASSES,)]
    weights = [_glorot(rng, s) if len(s) > 1 else np.zeros(s, np.float32) for s in shapes]
    return x, labels, weights


CNN_X, CNN_LABELS, CNN_W = _cnn_data()
_CONV_FLOPS = 2 * BATCH * (26 * 26 * 32 * 9 + 11 * 11 * 64 * 9 * 32)
_DENSE_FLOPS = 2 * BATCH * (1600 * 128 + 128 * CLASSES)
# forward; weight gradients; input gradients (all but the first layer's)
CNN_FLOPS = 2 * (_CONV_FLOPS + _DENSE_FLOPS) + (_CONV_FLOPS - 2 * BATCH * 26 * 26 * 32 * 9) + _DENSE_FLOPS

CONV_X_SHAPE, CONV_W_SHAPE, CONV_Y_SHAPE = (BATCH, 13, 13, 32), (3, 3, 32, 64), (BATCH, 11, 11, 64)
CONV_FLOPS = int(2 * np.prod(CONV_Y_SHAPE) * 9 * 32)


def _conv_data():
    rng = np.random.default_rng(7)
    return [rng.standard_normal(s).astype(np.float32) for s in (CONV_X_SHAPE, CONV_W_SHAPE, CONV_Y_SHAPE)]


CONV_X, CONV_W, CONV_DY = _conv_data()

step_eager = h.Workload(GROUP, "LeNet step, batch 64, 28x28x1, conv32-pool-conv64-pool-dense128-dense10, Adam",
                        flops=CNN_FLOPS, note="returns the step's loss (compared on the first step); tapegrad and "
                                              "TF: the same keras code, eager", rtol=1e-4)
step_traced = h.Workload(GROUP, "LeNet step traced (tf.function, jax.jit), batch 64, 28x28x1, Adam",
                         flops=CNN_FLOPS, note="tapegrad and TF: the keras step in tf.function; jax: jax.jit; torch: "
                                               "eager", rtol=1e-4)
conv_fwd = h.Workload(GROUP, "conv2d forward, [64, 13, 13, 32] * [3, 3, 32, 64], VALID", flops=CONV_FLOPS,
                      note="returns the output", rtol=1e-4)
conv_bwd = h.Workload(GROUP, "conv2d forward + backward (dx and dw), [64, 13, 13, 32] * [3, 3, 32, 64], VALID",
                      flops=3 * CONV_FLOPS, note="returns dw; GFLOP/s counts forward, dx and dw", rtol=1e-4)


# ---------------------------------------------------------------------------------
# The LeNet step

def _keras_step(tf, traced):
    keras = tf.keras
    layers = keras.layers
    model = keras.models.Sequential([
        layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(2),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(2),
        layers.Flatten(), layers.Dense(128, activation="relu"), layers.Dense(CLASSES)])
    model(CNN_X[:1])
    model.set_weights(CNN_W)
    optimizer = keras.optimizers.Adam()
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x, labels = tf.constant(CNN_X), tf.constant(CNN_LABELS)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return tf.function(step) if traced else step


@step_eager.case("tensorflow", "tapegrad")
def _(tf):
    return _keras_step(tf, traced=False)


@step_traced.case("tensorflow", "tapegrad")
def _(tf):
    return _keras_step(tf, traced=True)


@step_traced.case("torch")
@step_eager.case("torch")
def _(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(1600, 128), nn.ReLU(), nn.Linear(128, CLASSES))
    w = CNN_W
    dense1 = w[4].reshape(5, 5, 64, 128).transpose(2, 0, 1, 3).reshape(1600, 128)  # (h, w, c) rows -> (c, h, w)
    with torch.no_grad():
        for layer, kernel, bias in [(model[0], w[0].transpose(3, 2, 0, 1), w[1]), (model[3], w[2].transpose(3, 2, 0, 1),
                                                                                  w[3]),
                                    (model[7], dense1.T, w[5]), (model[9], w[6].T, w[7])]:
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(kernel)))
            layer.bias.copy_(torch.from_numpy(bias))
    opt = torch.optim.Adam(model.parameters(), lr=0.001, eps=1e-7)
    x = torch.from_numpy(np.ascontiguousarray(CNN_X.transpose(0, 3, 1, 2)))
    labels = torch.from_numpy(CNN_LABELS)

    def step():
        loss = torch.nn.functional.cross_entropy(model(x), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step


def _jax_adam(jnp, lr=0.001, b1=0.9, b2=0.999, eps=1e-7):
    def update(params, m, v, t, grads):
        alpha = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = [mi + (g - mi) * (1 - b1) for mi, g in zip(m, grads)]
        v = [vi + (g * g - vi) * (1 - b2) for vi, g in zip(v, grads)]
        return [p - alpha * mi / (jnp.sqrt(vi) + eps) for p, mi, vi in zip(params, m, v)], m, v
    return update


@step_traced.case("jax")
@step_eager.case("jax")
def _(jax):
    jnp, lax = jax.numpy, jax.lax
    adam = _jax_adam(jnp)

    def conv(x, w, b):
        y = lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jax.nn.relu(y + b)

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def loss_fn(params, x, labels):
        c1, b1, c2, b2, d1, e1, d2, e2 = params
        a = pool(conv(pool(conv(x, c1, b1)), c2, b2)).reshape(x.shape[0], -1)
        logits = jax.nn.relu(a @ d1 + e1) @ d2 + e2
        picked = jnp.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
        return jnp.mean(jax.nn.logsumexp(logits, axis=1) - picked)

    @jax.jit
    def train(params, m, v, t, x, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
        params, m, v = adam(params, m, v, t, grads)
        return params, m, v, loss

    state = {"p": [jnp.asarray(w) for w in CNN_W], "t": 0}
    state["m"] = [jnp.zeros_like(p) for p in state["p"]]
    state["v"] = [jnp.zeros_like(p) for p in state["p"]]
    x, labels = jnp.asarray(CNN_X), jnp.asarray(CNN_LABELS.astype(np.int32))

    def step():
        state["t"] += 1
        state["p"], state["m"], state["v"], loss = train(state["p"], state["m"], state["v"],
                                                         jnp.float32(state["t"]), x, labels)
        return loss.block_until_ready()
    return step


# ---------------------------------------------------------------------------------
# conv2d alone

@conv_fwd.case("tensorflow", "tapegrad")
def _(tf):
    x, w = tf.constant(CONV_X), tf.constant(CONV_W)
    return lambda: tf.nn.conv2d(x, w, 1, "VALID")


@conv_bwd.case("tensorflow", "tapegrad")
def _(tf):
    x, w, dy = tf.constant(CONV_X), tf.constant(CONV_W), tf.constant(CONV_DY)

    def step():
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            y = tf.nn.conv2d(x, w, 1, "VALID")
        return tape.gradient(y, [x, w], output_gradients=dy)[1]
    return step


def _torch_conv(torch):
    x = torch.from_numpy(np.ascontiguousarray(CONV_X.transpose(0, 3, 1, 2)))
    w = torch.from_numpy(np.ascontiguousarray(CONV_W.transpose(3, 2, 0, 1)))
    dy = torch.from_numpy(np.ascontiguousarray(CONV_DY.transpose(0, 3, 1, 2)))
    return x, w, dy


@conv_fwd.case("torch")
def _(torch):
    x, w, _ = _torch_conv(torch)

    def step():
        with torch.no_grad():
            return torch.nn.functional.conv2d(x, w).permute(0, 2, 3, 1)
    return step


@conv_bwd.case("torch")
def _(torch):
    x, w, dy = _torch_conv(torch)
    x.requires_grad_(True)
    w.requires_grad_(True)

    def step():
        x.grad = w.grad = None
        torch.nn.functional.conv2d(x, w).backward(dy)
        return w.grad.permute(2, 3, 1, 0)
    return step


def _jax_conv(jax):
    return lambda x, w: jax.lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))


@conv_fwd.case("jax")
def _(jax):
    f = jax.jit(_jax_conv(jax))
    x, w = jax.numpy.asarray(CONV_X), jax.numpy.asarray(CONV_W)
    return lambda: f(x, w).block_until_ready()


@conv_bwd.case("jax")
def _(jax):
    conv = _jax_conv(jax)

    @jax.jit
    def grads(x, w, dy):
        _, pullback = jax.vjp(conv, x, w)
        return pullback(dy)

    x, w, dy = (jax.numpy.asarray(a) for a in (CONV_X, CONV_W, CONV_DY))
    return lambda: grads(x, w, dy)[1].block_until_ready()


WORKLOADS = [step_eager, step_traced, conv_fwd, conv_bwd]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
