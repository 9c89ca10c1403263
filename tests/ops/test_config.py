"""tf.config, tf.device and tf.test as TF 2.21 answers on a machine without a GPU."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import _core, errors

CPU = tf.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")


def test_physical_and_logical_devices():
    assert tf.config.list_physical_devices() == [CPU]
    assert tf.config.list_physical_devices("CPU") == [CPU]
    assert tf.config.list_physical_devices("GPU") == [] == tf.config.experimental.list_physical_devices("GPU")
    assert tf.config.list_physical_devices("cpu") == []  # device types are case-sensitive, as in TF
    logical = tf.config.list_logical_devices()
    assert [(d.name, d.device_type) for d in logical] == [("/device:CPU:0", "CPU")]
    assert tf.config.list_logical_devices("GPU") == []
    assert repr(CPU) == "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"


def test_visible_devices():
    assert tf.config.get_visible_devices() == [CPU] and tf.config.get_visible_devices("GPU") == []
    tf.config.set_visible_devices(tf.config.list_physical_devices("CPU"))
    tf.config.set_visible_devices([], "GPU")
    assert tf.config.get_visible_devices() == [CPU]
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_visible_devices(CPU, "GPU")


def test_memory_growth_is_a_gpu_setting():
    for gpu in tf.config.list_physical_devices("GPU"):  # the usual script loop: nothing to do
        tf.config.experimental.set_memory_growth(gpu, True)
    with pytest.raises(ValueError, match="non-GPU"):
        tf.config.experimental.set_memory_growth(CPU, True)
    with pytest.raises(ValueError, match="unrecognized device"):
        tf.config.experimental.set_memory_growth("/GPU:0", True)


def test_intra_op_threads_set_the_kernels_thread_count():
    initial = _core._num_threads()
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    try:
        tf.config.threading.set_intra_op_parallelism_threads(1)
        assert tf.config.threading.get_intra_op_parallelism_threads() == 1
        assert _core._num_threads() == 1
        x = tf.random.normal([300, 300], seed=1)
        np.testing.assert_allclose((x @ x).numpy(), x.numpy() @ x.numpy(), rtol=1e-4, atol=1e-3)
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(0)
    assert _core._num_threads() == initial and tf.config.threading.get_intra_op_parallelism_threads() == 0


def test_inter_op_threads_are_recorded():
    try:
        tf.config.threading.set_inter_op_parallelism_threads(2)
        assert tf.config.threading.get_inter_op_parallelism_threads() == 2
    finally:
        tf.config.threading.set_inter_op_parallelism_threads(0)
    with pytest.raises(TypeError, match="num_threads"):
        tf.config.threading.set_intra_op_parallelism_threads("2")


@pytest.mark.parametrize("name", ["/CPU:0", "/cpu:0", "/GPU:0", "/gpu:*", "GPU", "/device:GPU:1", "/TPU:0",
                                  "/job:localhost/replica:0/task:0/device:CPU:0", "", None])
def test_device_places_on_the_cpu(name):
    with tf.device(name):
        x = tf.constant(1.0) + 1
    assert float(x) == 2.0 and x.device.endswith("CPU:0")


@pytest.mark.parametrize("name, error, match", [
    ("/XYZ:0", ValueError, "Unknown attribute 'XYZ'"), ("/device:CPU", ValueError, "Unknown attribute 'device'"),
    ("/CPU:x", ValueError, "invalid literal"), ("/CPU:0/GPU:0", ValueError, "Multiple device types"),
    ("/job:foo", errors.InvalidArgumentError, "unknown device"), (12, ValueError, "string device name"),
])
def test_device_refuses_what_tf_refuses(name, error, match):
    with pytest.raises(error, match=match):
        with tf.device(name):
            pass


def test_tf_test_reports_no_gpu():
    assert tf.test.is_gpu_available() is False and tf.test.is_built_with_cuda() is False
    assert tf.test.is_built_with_gpu_support() is False and tf.test.gpu_device_name() == ""


def test_run_functions_eagerly():
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        return x * 2.0

    f(tf.constant(1.0))
    f(tf.constant(1.0))
    assert len(traces) == 1 and not tf.config.functions_run_eagerly()
    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        assert float(f(tf.constant(2.0))) == 4.0 and float(f(tf.constant(2.0))) == 4.0
        assert len(traces) == 3  # the Python body ran at each call
    finally:
        tf.config.run_functions_eagerly(False)
    f(tf.constant(1.0))
    assert len(traces) == 3 and not tf.config.functions_run_eagerly()


def test_op_determinism_repeats_a_seeded_run():
    tf.config.experimental.enable_op_determinism()

    def run():
        tf.keras.utils.set_random_seed(3)
        x = tf.random.normal([64, 300])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.softmax(x @ tf.transpose(x)))
        return tape.gradient(y, x).numpy()

    np.testing.assert_array_equal(run(), run())


def test_thread_counts_out_of_range():
    import os
    initial = _core._num_threads()
    try:
        tf.config.threading.set_intra_op_parallelism_threads(10 ** 6)  # capped, never a million threads
        assert 1 <= _core._num_threads() <= 4 * os.cpu_count()
        x = tf.random.normal([200, 200], seed=2)
        assert np.isfinite((x @ x).numpy()).all()
        tf.config.threading.set_intra_op_parallelism_threads(-1)  # as TF: kept; the system chooses
        assert tf.config.threading.get_intra_op_parallelism_threads() == -1 and _core._num_threads() == initial
        with pytest.raises(ValueError, match="out of range"):
            tf.config.threading.set_intra_op_parallelism_threads(10 ** 12)
        with pytest.raises(TypeError, match="int"):
            tf.config.threading.set_intra_op_parallelism_threads(2.5)
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(0)
