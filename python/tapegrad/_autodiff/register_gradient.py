"""RegisterGradient: replace or define the gradient rule of a primitive op in the C++ registry."""
from tapegrad import _core

__all__ = ["RegisterGradient"]


class _OpView:
    """What a registered gradient function sees of the op: TF's ``op.inputs``, ``op.outputs``,
    ``op.type`` and ``op.get_attr(name)``."""

    __slots__ = ("type", "inputs", "outputs", "_attrs")

    def __init__(self, op_type, inputs, output, attrs):
        self.type = op_type
        self.inputs = list(inputs)
        self.outputs = [output]
        self._attrs = attrs

    @property
    def name(self):
        return self.type

    def get_attr(self, name):
        if name not in self._attrs:
            raise ValueError(f"op {self.type} has no attribute {name!r} (it has {sorted(self._attrs)})")
        return self._attrs[name]


# Rules registered under names no registered op has (TF allows that): kept, by name, so that
# registering is never an error; no op runs them.
_unbound_rules = {}


class RegisterGradient:
    """Decorator: ``@tf.RegisterGradient("Exp")`` makes ``fn(op, grad)`` the gradient of op ``Exp``.

    ``fn`` returns one gradient per input (a single tensor when the op has one input, None for
    no gradient). It replaces the built-in rule for every tape, nested tape and jacobian until
    ``RegisterGradient.restore("Exp")`` puts the built-in rule back. A name no op has is
    registered too, as TF does; no op uses that rule.

    >>> @tf.RegisterGradient("Exp")
    ... def _exp_grad(op, grad):
    ...     return grad * op.outputs[0]
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("RegisterGradient: op_type must be a string, the op's registry name, e.g. 'Exp'")
        self._op_type = op_type

    def __call__(self, fn):
        op_type = self._op_type
        if op_type not in _core.registered_ops():
            _unbound_rules[op_type] = fn
            return fn

        def rule(inputs, output, grad, attrs):
            return fn(_OpView(op_type, inputs, output, attrs), grad)

        _core.set_gradient(op_type, rule)
        return fn

    @staticmethod
    def restore(op_type):
        """Puts back the built-in gradient rule of ``op_type``."""
        if _unbound_rules.pop(op_type, None) is None:
            _core.set_gradient(op_type, None)
