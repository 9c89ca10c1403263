"""tf.autograph.experimental: opting out of conversion and loop options."""
from tapegrad.autograph._api import do_not_convert

__all__ = ["do_not_convert", "set_loop_options", "Feature"]


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """Options of the loop whose body starts with this call (moved into the loop by the conversion;
    does nothing when it runs unconverted). ``shape_invariants``: a list of ``(variable, shape)``
    pairs, None dimensions may change between iterations."""


class Feature:
    """Optional conversion features (accepted; every feature tapegrad has is always on)."""
    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"
