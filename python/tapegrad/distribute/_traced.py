"""Collectives met while a tf.function is traced: see Note [Eager fallback] in tapegrad/_function.py."""
from tapegrad import _core
from tapegrad._trace_context import run_eagerly_from_now

__all__ = ["run_eagerly_if_traced"]


def run_eagerly_if_traced(fn):
    """A collective runs on real values now; a function being traced runs eagerly from now on."""
    if _core._tracing():
        run_eagerly_from_now(f"it calls tapegrad.distribute.{fn}")
