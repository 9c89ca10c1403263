"""Values of variables a converted function has not (or not everywhere) assigned, and where errors point."""
import os
import sys

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Undefined:
    """A variable with no value yet. ``reason`` says why when a branch or a loop left it undefined;
    reading it (``ag__.ld``) raises then, naming the file and line."""

    __slots__ = ("symbol_name", "reason")

    def __init__(self, symbol_name, reason=None):
        self.symbol_name, self.reason = symbol_name, reason

    def __repr__(self):
        return f"Undefined({self.symbol_name!r})"


class UndefinedReturnValue(Undefined):
    """``retval_`` before a return statement ran."""

    def __init__(self):
        super().__init__("retval_")


def undefined_error(value):
    if value.reason is not None:
        return ValueError(value.reason)
    return UnboundLocalError(f"local variable '{value.symbol_name}' referenced before assignment")


def user_file():
    """The file of the innermost frame outside tapegrad: the converted code's own file."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
    return frame.f_code.co_filename if frame is not None else "<unknown>"


def located(lineno, message):
    """The message prefixed with the user's file and the statement's line."""
    return f'File "{user_file()}", line {lineno}: {message}'
