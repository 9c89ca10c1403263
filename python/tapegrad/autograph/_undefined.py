"""Values of variables a converted function has not (or not everywhere) assigned, and where errors point."""


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


def located(where, message):
    """The message prefixed with the converted statement's file and line (``where``)."""
    return f'File "{where[0]}", line {where[1]}: {message}'
