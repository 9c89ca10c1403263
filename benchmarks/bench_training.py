"""Training steps: the book's custom-loop step (eager and traced), a wide MLP step, and an optimizer update of 1M parameters.

Workloads (every framework starts from the same NumPy weights and trains on one fixed batch, so the
first step's loss is compared across frameworks; later steps keep training):
  book step   Geron's chapter-12 step, batch 32 x 10 features: Dense(30, elu, he_normal, l2(0.05)) +
              Dense(1, l2(0.05)), MSE + the two penalties (add_n), Nadam(lr=0.01), then the loss Mean
              and the MAE metric updated. tapegrad runs the book's code as the book writes it
              (GradientTape, model.losses, apply_gradients, the constraint loop, metric calls);
              TensorFlow the same code with tf.keras. NumPy: forward, hand-written gradients and
              Nadam. PyTorch: nn.Linear layers, autograd, torch.optim.NAdam (its momentum schedule
              differs slightly from Keras's; the cost does not). JAX: one jax.jit of loss, gradient
              and a hand-written Nadam (the metrics read back outside, as a loop would).
  book step traced
              the same step, tapegrad and TensorFlow running the book's step function (model, loss,
              model.losses, apply_gradients, constraint loop, metric calls) wrapped in tf.function,
              traced on the first call and replayed after; beside them the same jax.jit case, NumPy
              by hand and PyTorch eager (torch.compile of the step compiled in 37 s here and then
              ran slower than eager).
  wide step   784-512-512-10 MLP, relu, batch 256, Adam, sparse categorical cross-entropy from
              logits: keras Sequential + SparseCategoricalCrossentropy(from_logits=True) for
              tapegrad and TensorFlow; NumPy by hand; torch.optim.Adam; jax.jit of the whole step.
              GFLOP/s counts the five GEMMs of a step (forward 3, weight gradients 3, input
              gradients 2; the first layer's input gradient is not needed).
  optimizer   Adam update of one 1M-element float32 variable: GB/s counts one pass over memory per
              state tensor (read variable, gradient, m, v; write variable, m, v: 28 bytes/element).
              tapegrad and TensorFlow: keras Adam.apply_gradients; NumPy: the formulas in place;
              torch.optim.Adam (foreach); jax.jit with donated buffers.
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_training.py
"""

import sys

try:
    from . import _harness as h
except ImportError:          # run as a script: python benchmarks/bench_training.py
    import _harness as h

import numpy as np  # noqa: E402  (after _harness, which configures NumPy's OpenBLAS)

GROUP = "training"

# ---------------------------------------------------------------------------------
# Shared data and initial weights

BOOK_BATCH, BOOK_FEATURES, BOOK_HIDDEN, L2 = 32, 10, 30, 0.05
WIDE_BATCH, WIDE_SIZES = 256, (784, 512, 512, 10)
OPT_N = 1 << 20


def _book_data():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((BOOK_BATCH, BOOK_FEATURES)).astype(np.float32)
    y = rng.standard_normal((BOOK_BATCH, 1)).astype(np.float32)
    w1 = (rng.standard_normal((BOOK_FEATURES, BOOK_HIDDEN)) * np.sqrt(2 / BOOK_FEATURES)).astype(np.float32)
    w2 = (rng.uniform(-1, 1, (BOOK_HIDDEN, 1)) * np.sqrt(6 / (BOOK_HIDDEN + 1))).astype(np.float32)
    return x, y, [w1, np.zeros(BOOK_HIDDEN, np.float32), w2, np.zeros(1, np.float32)]


def _wide_data():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((WIDE_BATCH, WIDE_SIZES[0])).astype(np.float32)
    labels = rng.integers(0, WIDE_SIZES[-1], WIDE_BATCH).astype(np.int64)
    weights = []
    for n_in, n_out in zip(WIDE_SIZES[:-1], WIDE_SIZES[1:]):
        limit = np.sqrt(6 / (n_in + n_out))
        weights += [rng.uniform(-limit, limit, (n_in, n_out)).astype(np.float32), np.zeros(n_out, np.float32)]
    return x, labels, weights


BOOK_X, BOOK_Y, BOOK_W = _book_data()
WIDE_X, WIDE_LABELS, WIDE_W = _wide_data()
WIDE_FLOPS = 2 * WIDE_BATCH * (2 * sum(a * b for a, b in zip(WIDE_SIZES[:-1], WIDE_SIZES[1:]))
                               + sum(a * b for a, b in zip(WIDE_SIZES[1:-1], WIDE_SIZES[2:])))

book = h.Workload(GROUP, "the book's step (custom loop), batch 32, 10-30-1, elu, l2, Nadam, metrics",
                  note="returns the step's loss (compared on the first step)", rtol=1e-4)
book_traced = h.Workload(GROUP, "the book's step traced (tf.function, jax.jit), batch 32, 10-30-1, elu, l2, "
                                "Nadam, metrics",
                         note="returns the step's loss (compared on the first step); tapegrad and TF: the book's "
                              "step in tf.function; jax: the book workload's jax.jit; numpy: by hand; torch: "
                              "eager (torch.compile took 37 s to compile it and ran slower than eager)",
                         rtol=1e-4)
wide = h.Workload(GROUP, "wide MLP step, batch 256, 784-512-512-10, relu, Adam, sparse cross-entropy",
                  flops=WIDE_FLOPS, note="GFLOP/s counts the step's GEMMs", rtol=1e-4)
wide_traced = h.Workload(GROUP, "wide MLP step traced (tf.function, jax.jit), batch 256, 784-512-512-10, relu, Adam",
                         flops=WIDE_FLOPS, rtol=1e-4,
                         note="tapegrad and TF: the keras step in tf.function; jax: jax.jit; numpy: by hand; "
                              "torch: eager")
optim = h.Workload(GROUP, "Adam update, 1M float32 parameters", nbytes=7 * 4 * OPT_N,
                   note="GB/s counts one pass per state tensor: 28 bytes/element "
                        "(torch adds eps after the bias correction: a 1e-4 relative difference)", rtol=3e-4)


# ---------------------------------------------------------------------------------
# The book's step

@book.case("tapegrad")
def _(tf):
    from tapegrad import keras
    return _book_keras(tf, keras, keras.optimizers.Nadam(lr=0.01))


@book.case("tensorflow")
def _(tf):
    return _book_keras(tf, tf.keras, tf.keras.optimizers.Nadam(learning_rate=0.01))


@book_traced.case("tapegrad")
def _(tf):
    from tapegrad import keras
    return _book_keras(tf, keras, keras.optimizers.Nadam(lr=0.01), traced=True)


@book_traced.case("tensorflow")
def _(tf):
    return _book_keras(tf, tf.keras, tf.keras.optimizers.Nadam(learning_rate=0.01), traced=True)


def _book_keras(tf, keras, optimizer, traced=False):
    """The chapter's loop body, as written in the book (the batch is fixed instead of random_batch).

    traced: the same body wrapped in tf.function (traced on the first call, replayed after).
    """
    l2_reg = keras.regularizers.l2(L2)
    model = keras.models.Sequential([
        keras.layers.Dense(30, activation="elu", kernel_initializer="he_normal",
                           kernel_regularizer=l2_reg),
        keras.layers.Dense(1, kernel_regularizer=l2_reg)
    ])
    model(BOOK_X[:1])
    model.set_weights(BOOK_W)
    loss_fn = getattr(keras.losses, "mean_squared_error", None) or keras.losses.mse  # tf.keras 3: mse only
    mean_loss = keras.metrics.Mean()
    metrics = [keras.metrics.MeanAbsoluteError()]
    X_batch, y_batch = BOOK_X, BOOK_Y

    def step():
        with tf.GradientTape() as tape:
            y_pred = model(X_batch, training=True)
            main_loss = tf.reduce_mean(loss_fn(y_batch, y_pred))
            loss = tf.add_n([main_loss] + model.losses)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        for variable in model.variables:
            if variable.constraint is not None:
                variable.assign(variable.constraint(variable))
        mean_loss(loss)
        for metric in metrics:
            metric(y_batch, y_pred)
        return loss
    return tf.function(step) if traced else step


class _NadamNumpy:
    """Keras's Nadam on NumPy arrays, in place (see tapegrad/keras/optimizers/nadam.py)."""

    def __init__(self, params, lr, b1=0.9, b2=0.999, eps=1e-7):
        self.params, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t, self.u_product = 0, 1.0

    def step(self, grads):
        self.t += 1
        u = lambda t: self.b1 * (1 - 0.5 * 0.96 ** t)  # noqa: E731
        self.u_product *= u(self.t)
        c_m = u(self.t + 1) / (1 - self.u_product * u(self.t + 1))
        c_g = (1 - u(self.t)) / (1 - self.u_product)
        scale = 1 / (1 - self.b2 ** self.t)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m += (g - m) * (1 - self.b1)
            v += (g * g - v) * (1 - self.b2)
            p -= self.lr * (c_m * m + c_g * g) / (np.sqrt(v * scale) + self.eps)


@book_traced.case("numpy")
@book.case("numpy")
def _(np):
    w1, b1, w2, b2 = params = [w.copy() for w in BOOK_W]
    opt = _NadamNumpy(params, 0.01)
    x, y = BOOK_X, BOOK_Y
    totals = [0.0, 0.0, 0.0]  # loss sum, MAE sum, steps

    def step():
        z = x @ w1 + b1
        e = np.expm1(np.minimum(z, 0))
        a = np.where(z > 0, z, e)
        pred = a @ w2 + b2
        err = pred - y
        loss = np.float32(np.mean(err * err) + L2 * np.sum(w1 * w1) + L2 * np.sum(w2 * w2))
        d_pred = err * (2 / err.size)
        d_a = d_pred @ w2.T
        d_z = np.where(z > 0, d_a, d_a * (e + 1))
        grads = [x.T @ d_z + 2 * L2 * w1, d_z.sum(0), a.T @ d_pred + 2 * L2 * w2, d_pred.sum(0)]
        opt.step(grads)
        totals[0] += float(loss)
        totals[1] += float(np.abs(err).mean())
        totals[2] += 1
        return loss
    return step


@book_traced.case("torch")
@book.case("torch")
def _(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(BOOK_FEATURES, BOOK_HIDDEN), nn.ELU(), nn.Linear(BOOK_HIDDEN, 1))
    with torch.no_grad():
        for layer, w, b in ((model[0], BOOK_W[0], BOOK_W[1]), (model[2], BOOK_W[2], BOOK_W[3])):
            layer.weight.copy_(torch.from_numpy(w.T.copy()))
            layer.bias.copy_(torch.from_numpy(b))
    opt = torch.optim.NAdam(model.parameters(), lr=0.01, eps=1e-7)
    x, y = torch.from_numpy(BOOK_X), torch.from_numpy(BOOK_Y)
    kernels = [model[0].weight, model[2].weight]
    totals = [0.0, 0.0, 0]

    def step():
        pred = model(x)
        loss = torch.mean((pred - y) ** 2) + sum(L2 * torch.sum(w * w) for w in kernels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            totals[0] += float(loss)
            totals[1] += float(torch.mean(torch.abs(pred - y)))
            totals[2] += 1
        return loss
    return step


def _jax_nadam(jnp, b1=0.9, b2=0.999, eps=1e-7):
    """Keras's Nadam as a pure function of (params, m, v, t, u_product, grads)."""
    def update(params, m, v, t, u_product, grads, lr):
        u_t = b1 * (1 - 0.5 * 0.96 ** t)
        u_next = b1 * (1 - 0.5 * 0.96 ** (t + 1))
        u_product = u_product * u_t
        c_m = u_next / (1 - u_product * u_next)
        c_g = (1 - u_t) / (1 - u_product)
        scale = 1 / (1 - b2 ** t)
        m = [mi + (g - mi) * (1 - b1) for mi, g in zip(m, grads)]
        v = [vi + (g * g - vi) * (1 - b2) for vi, g in zip(v, grads)]
        params = [p - lr * (c_m * mi + c_g * g) / (jnp.sqrt(vi * scale) + eps)
                  for p, mi, vi, g in zip(params, m, v, grads)]
        return params, m, v, u_product
    return update


@book_traced.case("jax")
@book.case("jax")
def _(jax):
    jnp = jax.numpy
    nadam = _jax_nadam(jnp)

    def loss_fn(params, x, y):
        w1, b1, w2, b2 = params
        pred = jax.nn.elu(x @ w1 + b1) @ w2 + b2
        main = jnp.mean((pred - y) ** 2)
        return main + L2 * jnp.sum(w1 * w1) + L2 * jnp.sum(w2 * w2), pred

    @jax.jit
    def train(params, m, v, t, u_product, x, y):
        (loss, pred), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
        params, m, v, u_product = nadam(params, m, v, t, u_product, grads, 0.01)
        return params, m, v, u_product, loss, jnp.mean(jnp.abs(pred - y))

    state = {"p": [jnp.asarray(w) for w in BOOK_W], "t": 0, "u": jnp.float32(1.0)}
    state["m"] = [jnp.zeros_like(p) for p in state["p"]]
    state["v"] = [jnp.zeros_like(p) for p in state["p"]]
    x, y = jnp.asarray(BOOK_X), jnp.asarray(BOOK_Y)
    totals = [0.0, 0.0, 0]

    def step():
        state["t"] += 1
        state["p"], state["m"], state["v"], state["u"], loss, mae = train(
            state["p"], state["m"], state["v"], jnp.float32(state["t"]), state["u"], x, y)
        totals[0] += float(loss)
        totals[1] += float(mae)
        totals[2] += 1
        return loss
    return step


# ---------------------------------------------------------------------------------
# The wide MLP step

@wide.case("tensorflow", "tapegrad")
def _(tf):
    return _wide_keras(tf)


@wide_traced.case("tensorflow", "tapegrad")
def _(tf):
    return _wide_keras(tf, traced=True)


def _wide_keras(tf, traced=False):
    keras = tf.keras
    model = keras.models.Sequential([keras.layers.Dense(512, activation="relu"),
                                     keras.layers.Dense(512, activation="relu"),
                                     keras.layers.Dense(10)])
    model(WIDE_X[:1])
    model.set_weights(WIDE_W)
    optimizer = keras.optimizers.Adam()
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x, labels = WIDE_X, WIDE_LABELS

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return tf.function(step) if traced else step


class _AdamNumpy:
    """Keras's Adam on NumPy arrays, in place (m, v updated with in-place ufuncs)."""

    def __init__(self, params, lr=0.001, b1=0.9, b2=0.999, eps=1e-7):
        self.params, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads):
        self.t += 1
        alpha = self.lr * np.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m += (g - m) * (1 - self.b1)
            v += (g * g - v) * (1 - self.b2)
            p -= (alpha * m) / (np.sqrt(v) + self.eps)


@wide_traced.case("numpy")
@wide.case("numpy")
def _(np):
    params = [w.copy() for w in WIDE_W]
    opt = _AdamNumpy(params)
    x, labels = WIDE_X, WIDE_LABELS
    rows = np.arange(WIDE_BATCH)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        z1 = x @ w1 + b1
        a1 = np.maximum(z1, 0)
        z2 = a1 @ w2 + b2
        a2 = np.maximum(z2, 0)
        logits = a2 @ w3 + b3
        shifted = logits - logits.max(1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(1, keepdims=True)
        loss = np.float32(np.mean(np.log(s[:, 0]) - shifted[rows, labels]))
        d = e / s
        d[rows, labels] -= 1
        d /= WIDE_BATCH
        g3 = a2.T @ d
        d2 = (d @ w3.T) * (z2 > 0)
        g2 = a1.T @ d2
        d1 = (d2 @ w2.T) * (z1 > 0)
        g1 = x.T @ d1
        opt.step([g1, d1.sum(0), g2, d2.sum(0), g3, d.sum(0)])
        return loss
    return step


@wide_traced.case("torch")
@wide.case("torch")
def _(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    with torch.no_grad():
        for layer, w, b in zip((model[0], model[2], model[4]), WIDE_W[0::2], WIDE_W[1::2]):
            layer.weight.copy_(torch.from_numpy(w.T.copy()))
            layer.bias.copy_(torch.from_numpy(b))
    opt = torch.optim.Adam(model.parameters(), lr=0.001, eps=1e-7)
    x, labels = torch.from_numpy(WIDE_X), torch.from_numpy(WIDE_LABELS)

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


@wide_traced.case("jax")
@wide.case("jax")
def _(jax):
    jnp = jax.numpy
    adam = _jax_adam(jnp)

    def loss_fn(params, x, labels):
        w1, b1, w2, b2, w3, b3 = params
        a = jax.nn.relu(x @ w1 + b1)
        a = jax.nn.relu(a @ w2 + b2)
        logits = a @ w3 + b3
        picked = jnp.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
        return jnp.mean(jax.nn.logsumexp(logits, axis=1) - picked)

    @jax.jit
    def train(params, m, v, t, x, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
        params, m, v = adam(params, m, v, t, grads)
        return params, m, v, loss

    state = {"p": [jnp.asarray(w) for w in WIDE_W], "t": 0}
    state["m"] = [jnp.zeros_like(p) for p in state["p"]]
    state["v"] = [jnp.zeros_like(p) for p in state["p"]]
    x, labels = jnp.asarray(WIDE_X), jnp.asarray(WIDE_LABELS.astype(np.int32))

    def step():
        state["t"] += 1
        state["p"], state["m"], state["v"], loss = train(state["p"], state["m"], state["v"],
                                                         jnp.float32(state["t"]), x, labels)
        return loss.block_until_ready()
    return step


# ---------------------------------------------------------------------------------
# Optimizer update, 1M float32 parameters (the result compared is the variable after one step)

def _opt_init():
    rng = np.random.default_rng(5)
    return rng.standard_normal(OPT_N).astype(np.float32), rng.standard_normal(OPT_N).astype(np.float32)


OPT_X, OPT_G = _opt_init()


@optim.case("tensorflow", "tapegrad")
def _(tf):
    var = tf.Variable(OPT_X)
    grad = tf.constant(OPT_G)
    opt = tf.keras.optimizers.Adam()
    pairs = [(grad, var)]

    def step():
        opt.apply_gradients(pairs)
        return var
    return step


@optim.case("numpy")
def _(np):
    x = OPT_X.copy()
    opt = _AdamNumpy([x])

    def step():
        opt.step([OPT_G])
        return x
    return step


@optim.case("torch")
def _(torch):
    x = torch.nn.Parameter(torch.from_numpy(OPT_X.copy()))
    x.grad = torch.from_numpy(OPT_G.copy())
    opt = torch.optim.Adam([x], lr=0.001, eps=1e-7)

    def step():
        opt.step()
        return x
    return step


@optim.case("jax")
def _(jax):
    jnp = jax.numpy
    adam = _jax_adam(jnp)
    train = jax.jit(lambda p, m, v, t, g: adam(p, m, v, t, g), donate_argnums=(0, 1, 2))
    state = {"p": [jnp.asarray(OPT_X)], "m": [jnp.zeros(OPT_N, jnp.float32)], "v": [jnp.zeros(OPT_N, jnp.float32)],
             "t": 0}
    g = [jnp.asarray(OPT_G)]

    def step():
        state["t"] += 1
        state["p"], state["m"], state["v"] = train(state["p"], state["m"], state["v"], jnp.float32(state["t"]), g)
        return state["p"][0].block_until_ready()
    return step


WORKLOADS = [book, book_traced, wide, wide_traced, optim]


def main(argv=None, print_env=True):
    return h.main(WORKLOADS, __doc__.splitlines()[0], argv, print_env)


if __name__ == "__main__":
    main(sys.argv[1:])
