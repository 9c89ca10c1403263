"""Exception classes, as in ``tf.errors``: OpError, its subclasses, and the error-code constants.

Note [One set of error classes]
These classes are the only ones: the C++ engine raises them too (cpp/bindings/module.cpp imports
this module when ``_core`` loads and translates tg::OpFailure to the class of its code), and
``_core.InvalidArgumentError`` / ``_core.TapeError`` are the same objects as the ones here.
This module must therefore import nothing from tapegrad. ``InvalidArgumentError`` is also a
``ValueError`` (code that catches ValueError for bad shapes keeps working).
"""

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError",
    "NotFoundError", "AlreadyExistsError", "PermissionDeniedError", "UnauthenticatedError",
    "ResourceExhaustedError", "FailedPreconditionError", "AbortedError", "OutOfRangeError",
    "UnimplementedError", "InternalError", "UnavailableError", "DataLossError",
    "OperatorNotAllowedInGraphError",
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "UNAUTHENTICATED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE",
    "DATA_LOSS",
]

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """An op failed. ``OpError(node_def, op, message, error_code)`` as TF; a subclass also takes
    ``(node_def, op, message)`` or just ``(message)``."""

    def __init__(self, *args):
        node_def, op, message, error_code = _split_args(type(self), args)
        super().__init__(*args)
        self._node_def, self._op, self._message, self._error_code = node_def, op, message, error_code

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    @property
    def error_code(self):
        return self._error_code

    @property
    def experimental_payloads(self):
        return {}

    def __str__(self):
        return str(self._message)


def _split_args(cls, args):
    code = getattr(cls, "_code", UNKNOWN)
    if len(args) == 1:  # (message): how the engine and tapegrad's Python code raise
        return None, None, args[0], code
    if cls is OpError:
        if len(args) < 4:
            raise TypeError("OpError(node_def, op, message, error_code) takes 4 arguments")
        return args[0], args[1], args[2], args[3]
    if len(args) < 3:
        raise TypeError(f"{cls.__name__}(node_def, op, message) takes 3 arguments")
    return args[0], args[1], args[2], code


def _subclass(name, code, doc, bases=()):
    cls = type(name, (OpError,) + bases, {"__doc__": doc, "_code": code, "__module__": __name__})
    return cls


CancelledError = _subclass("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _subclass(
    "InvalidArgumentError", INVALID_ARGUMENT,
    "An op received an invalid argument (a bad shape, dtype, axis or value); also a ValueError.",
    (ValueError,))
DeadlineExceededError = _subclass("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _subclass("NotFoundError", NOT_FOUND, "A requested entity (a file, a key) was not found.")
AlreadyExistsError = _subclass("AlreadyExistsError", ALREADY_EXISTS, "An entity to create already exists.")
PermissionDeniedError = _subclass("PermissionDeniedError", PERMISSION_DENIED, "The caller may not do this.")
UnauthenticatedError = _subclass("UnauthenticatedError", UNAUTHENTICATED, "The request has no valid credentials.")
ResourceExhaustedError = _subclass(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource ran out (memory for a tensor: OOM).")
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a state the operation needs.")
AbortedError = _subclass("AbortedError", ABORTED, "An operation was aborted.")
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE, "An operation went past the valid range.")
UnimplementedError = _subclass("UnimplementedError", UNIMPLEMENTED, "An operation is not implemented for this input.")
InternalError = _subclass("InternalError", INTERNAL, "An internal invariant broke.")
UnavailableError = _subclass("UnavailableError", UNAVAILABLE, "A service is unavailable.")
DataLossError = _subclass("DataLossError", DATA_LOSS, "Data was lost or corrupted.")

# The class for each error code (the engine's tg::OpFailure carries one of these codes).
_CLASS_OF_CODE = {cls._code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, UnauthenticatedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError, InternalError,
    UnavailableError, DataLossError)}


class OperatorNotAllowedInGraphError(TypeError):
    """A traced tensor was used where Python needs a concrete value (``if``, ``int()``, ``.numpy()``)."""


class TapeError(RuntimeError):
    """A GradientTape was misused (gradient() twice on a non-persistent tape, ...): a RuntimeError as TF."""
