"""tf.__version__ / tf.version.VERSION is the TF API version (scripts compare it, as TF's); tapegrad's own
version comes from the package metadata; show_config() reports both, ISA, threads, BLAS, build."""
import io
import re
from contextlib import redirect_stdout
from importlib import metadata

import pytest

import tapegrad as tf


def test_version_is_the_installed_metadata():
    assert tf.version.TAPEGRAD_VERSION == metadata.version("tapegrad")
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", tf.version.TAPEGRAD_VERSION)


def test_tf_version_is_the_tf_api_version():
    # Scripts assert `tf.__version__ >= "2.0"` or parse it; it was tapegrad's own 0.1.0.
    assert tf.__version__ == tf.version.VERSION == "2.21.0"
    assert tuple(int(p) for p in tf.__version__.split(".")[:2]) >= (2, 0) and tf.__version__ >= "2.0"
    assert tf.version.GIT_VERSION.startswith("v2.21.0") and tf.version.COMPILER_VERSION
    assert isinstance(tf.version.GRAPH_DEF_VERSION, int)


def test_show_config_dicts():
    config = tf.show_config(mode="dicts")
    assert config["tapegrad"]["version"] == tf.version.TAPEGRAD_VERSION
    assert config["tapegrad"]["tf_api_version"] == tf.__version__
    assert config["kernels"]["isa"] == tf._core.active_isa()
    assert config["kernels"]["isa_available"][0] == "baseline"
    assert config["kernels"]["isa"] in config["kernels"]["isa_available"]
    assert config["threads"]["openmp"] == tf._core._num_threads() >= 1
    assert config["threads"]["blas"] >= 1
    assert "OpenBLAS" in config["blas"]["config"]
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", config["blas"]["version"])
    assert config["build"]["compiler"] not in ("", "unknown")
    assert config["build"]["build_type"] in ("Release", "RelWithDebInfo", "Debug", "MinSizeRel")
    assert "-O" in config["build"]["flags"]


def test_show_config_prints_every_section():
    out = io.StringIO()
    with redirect_stdout(out):
        assert tf.show_config() is None
    text = out.getvalue()
    for section in ("tapegrad:", "kernels:", "threads:", "blas:", "build:"):
        assert section in text
    assert f"version: {tf.version.TAPEGRAD_VERSION}" in text and f"tf_api_version: {tf.__version__}" in text


def test_show_config_follows_thread_changes():
    before = tf._core._num_threads()
    try:
        tf._core._set_num_threads(1)
        assert tf.show_config(mode="dicts")["threads"] == {"openmp": 1, "blas": 1}
    finally:
        tf._core._set_num_threads(0)
    assert tf._core._num_threads() == before


def test_show_config_rejects_unknown_mode():
    with pytest.raises(ValueError, match="show_config"):
        tf.show_config(mode="json")
