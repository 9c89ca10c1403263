"""Buffers come back for reuse when the last reference goes: no reference cycle keeps a step's
tensors until the cyclic collector runs (Note [No closures that recurse] in _nest.py), and a large
buffer freed on another thread is handed out again (Note [Shared large blocks] in core/allocator.cpp)."""
import gc
import threading

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras


def _cyclic_garbage(fn):
    """How many objects fn() leaves that only the cyclic collector can free."""
    gc.collect()
    gc.disable()
    try:
        fn()
        return gc.collect()
    finally:
        gc.enable()


def test_nest_walkers_leave_no_cycles():
    leaves = [tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)]
    structure = {"a": [leaves[0], (leaves[1],)], "b": leaves[2]}

    def use():
        flat = tf.nest.flatten(structure)
        tf.nest.pack_sequence_as(structure, flat)
        tf.nest.map_structure(lambda t: t * 2.0, structure)
        tf.nest.assert_same_structure(structure, structure)

    assert _cyclic_garbage(use) == 0


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "tf.function"])
def test_a_training_epoch_leaves_no_cyclic_garbage(traced):
    model = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dropout(0.1),
                              keras.layers.BatchNormalization(), keras.layers.Dense(3)])
    model.build((None, 8))
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = keras.optimizers.Adam(1e-3)
    accuracy = keras.metrics.SparseCategoricalAccuracy()
    rng = np.random.default_rng(0)
    ds = tf.data.Dataset.from_tensor_slices((rng.normal(size=(32, 8)).astype(np.float32),
                                             rng.integers(0, 3, 32))).shuffle(32).batch(8)

    def step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        accuracy.update_state(y, logits)
        return loss

    if traced:
        step = tf.function(step)

    def epoch():
        for x, y in ds:
            step(x, y)

    epoch()  # builds the optimizer's slots and traces
    assert _cyclic_garbage(epoch) == 0


def _asan():
    with open("/proc/self/maps") as f:
        return "libasan" in f.read()


@pytest.mark.skipif(_asan(), reason="the sanitizer build gives every tensor an exact heap block, never reused")
def test_a_large_buffer_freed_on_another_thread_is_reused():
    n = 1 << 18  # 1 MiB of float32
    values = np.ones(n, np.float32)
    held = [tf.constant(values)]
    address = np.asarray(held[0]).__array_interface__["data"][0]
    freeing = threading.Thread(target=held.clear)
    freeing.start()
    freeing.join()
    again = tf.constant(values)
    assert np.asarray(again).__array_interface__["data"][0] == address


def test_string_formatting_leaves_no_cycles():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert _cyclic_garbage(lambda: tf.strings.format("{}", x)) == 0
