"""AutoGraph: Python `if`, `while` and `for` on traced tensors become graph control flow (``tf.autograph``).

``tf.function`` converts the function it traces (unless ``autograph=False``): its source is
transformed once per function (see _convert.py), and the converted code decides at run time, per
statement, between plain Python (a Python or eager condition) and tf.cond / tf.while_loop (a
condition or iterable computed from the function's arguments or variables). Functions and
lambdas it calls are converted too when they are the user's own; ``int()``/``float()`` of a
traced tensor cast and ``range()`` of one counts in the graph, as in TF. ``to_code`` shows the
converted source.

Iteration protocol: ``for x in obj`` with ``type(obj)._autograph_for_stmt(obj, extra_test, body,
get_state, set_state, symbol_names, opts, lineno)`` defined hands the whole loop to that method
(``body(x)`` runs one iteration; ``extra_test()`` is False once the loop broke or returned;
``get_state``/``set_state`` read and write the variables the loop assigns). A dataset implements
it to loop in the graph.

>>> def f(x):
...     if x > 0:
...         x = x * 2
...     return x
>>> "if_stmt" in tf.autograph.to_code(f)
True
"""
import logging

from tapegrad.autograph import experimental
from tapegrad.autograph._api import to_code, to_graph

__all__ = ["to_code", "to_graph", "experimental", "set_verbosity", "trace"]


def set_verbosity(level, alsologtostdout=False):
    """Accepted for TF compatibility; conversion logs through the ``tapegrad.autograph`` logger."""
    logging.getLogger("tapegrad.autograph").setLevel(logging.DEBUG if level > 0 else logging.WARNING)


def trace(*args):
    """Prints its arguments when it runs (at tracing time inside a tf.function), as TF's does."""
    print(*args)
