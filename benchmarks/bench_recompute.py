"""recompute_grad: bytes a tape holds for a 20-layer MLP, tanh(x @ W_i + b_i), width 256, batch 64 (float32),
with and without every layer wrapped, and the time of one forward+backward step each way.

`tape.nbytes` counts every saved tensor's storage once, the layers' weights included (the tape
keeps a snapshot of each variable it read; the snapshot shares the variable's storage). The
activations line subtracts the weights, which any training step keeps alive anyway.

    python benchmarks/bench_recompute.py
"""
import time

import numpy as np

import tapegrad as tf

LAYERS, WIDTH, BATCH = 20, 256, 64


def build(rng):
    ws = [tf.Variable((rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)) for _ in range(LAYERS)]
    bs = [tf.Variable(np.zeros(WIDTH, np.float32)) for _ in range(LAYERS)]
    return ws, bs


def make_layers(ws, bs, recompute):
    layers = []
    for w, b in zip(ws, bs):
        def layer(x, w=w, b=b):
            return tf.tanh(x @ w + b)
        layers.append(tf.recompute_grad(layer) if recompute else layer)
    return layers


def step(layers, x, params):
    """One forward pass on a tape; returns (tape bytes before backward, gradients)."""
    with tf.GradientTape() as tape:
        h = x
        for layer in layers:
            h = layer(h)
        loss = tf.reduce_mean(h * h)
    held = tape.nbytes
    return held, tape.gradient(loss, params)


def measure(recompute, ws, bs, x, repeats=5):
    layers = make_layers(ws, bs, recompute)
    params = ws + bs
    held, grads = step(layers, x, params)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        step(layers, x, params)
        times.append(time.perf_counter() - t0)
    return held, grads, float(np.median(times))


def main():
    rng = np.random.default_rng(0)
    ws, bs = build(rng)
    x = tf.constant(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    weight_bytes = sum(int(np.prod(v.shape)) * 4 for v in ws + bs)
    plain, g_plain, t_plain = measure(False, ws, bs, x)
    recomp, g_recomp, t_recomp = measure(True, ws, bs, x)
    worst = max(float(np.max(np.abs(a.numpy() - b.numpy()))) for a, b in zip(g_plain, g_recomp))
    print(f"{LAYERS}-layer MLP tanh(x @ W + b), width {WIDTH}, batch {BATCH}, float32")
    print(f"{'':24}{'tape.nbytes':>14}{'activations':>14}{'step ms':>10}")
    for name, held, t in [("plain", plain, t_plain), ("recompute_grad", recomp, t_recomp)]:
        print(f"{name:24}{held:>14,}{held - weight_bytes:>14,}{t * 1e3:>10.2f}")
    print(f"saved bytes: {plain / recomp:.2f}x fewer in total, "
          f"{(plain - weight_bytes) / (recomp - weight_bytes):.2f}x fewer activation bytes "
          f"(weights: {weight_bytes:,} bytes); max |gradient difference| {worst:.2e}")


if __name__ == "__main__":
    main()
