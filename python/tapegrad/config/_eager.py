"""run_functions_eagerly: tf.function calls the Python function itself, for debugging."""
__all__ = ["run_functions_eagerly", "functions_run_eagerly", "experimental_run_functions_eagerly",
           "experimental_functions_run_eagerly"]

_state = {"eager": False}


def _call_eagerly(self, *args, **kwargs):
    return self.python_function(*args, **kwargs)


def run_functions_eagerly(run_eagerly):
    """With True, every tf.function runs its Python function at each call instead of a traced graph
    (breakpoints and prints work); False restores graphs. Switching costs traced calls nothing: the
    override is a class attribute, present only while enabled."""
    from tapegrad._function.function import Function
    run_eagerly = bool(run_eagerly)
    if run_eagerly and not _state["eager"]:
        Function.__call__ = _call_eagerly
    elif not run_eagerly and _state["eager"]:
        del Function.__call__  # back to the C++ base's cached call
    _state["eager"] = run_eagerly


def functions_run_eagerly():
    return _state["eager"]


experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly
