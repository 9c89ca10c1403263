"""ConcreteFunction: one traced graph of a tf.function, for one input signature."""
from tapegrad import _core
from tapegrad._tensor import Tensor, TensorSpec, constant

__all__ = ["ConcreteFunction"]


class ConcreteFunction:
    """One traced graph for one signature. ``graph`` prints as text and exports ``to_dot()``."""

    def __init__(self, function, concrete, call, stats):
        self._function = function
        self._concrete = concrete
        self.graph = concrete.graph
        self.optimizations = stats  # nodes folded, simplified, merged, pruned and fused by the passes
        self._paths = list(call.paths)
        self._specs = [TensorSpec(t._shape, t.dtype, name=p) for t, p in zip(call.tensors, call.paths)]
        self._python_desc = {p: d for p, d in call.desc.items() if d[0] != "tensor"}

    @property
    def structured_input_signature(self):
        return tuple(self._specs)

    @property
    def inputs(self):
        return list(self._specs)

    @property
    def backward_graph(self):
        """The graph computing this function's gradients, built at the first call under a
        GradientTape after the trace (None before, and for graphs whose calls replay op by op)."""
        return self._concrete.backward_graph

    def _relax(self, shapes, other):
        self._specs = [TensorSpec(s, spec.dtype, name=spec.name) for s, spec in zip(shapes, self._specs)]
        self.graph.relax([[-1 if d is None else d for d in s] for s in shapes], other.graph)

    def _run(self, tensors):
        return self._concrete.run(tensors)

    def __call__(self, *args):
        """Runs the graph on its tensor arguments (Python arguments were fixed by the trace)."""
        if len(args) != len(self._specs):
            raise TypeError(f"this concrete function takes {len(self._specs)} tensor arguments "
                            f"({', '.join(self._paths)}), got {len(args)}")
        tensors = []
        for a, spec in zip(args, self._specs):
            t = a if isinstance(a, Tensor) else constant(a, dtype=spec.dtype)
            if t.dtype != spec.dtype or not spec.shape.is_compatible_with(t.shape):
                raise _core.InvalidArgumentError(
                    f"concrete function of {self._function.__name__}: argument {spec.name} must be "
                    f"{spec.dtype.name}{spec.shape}, got {t.dtype.name}{t.shape}")
            tensors.append(t)
        return self._run(tensors)

    def pretty_printed_graph(self):
        return str(self.graph)

    def __repr__(self):
        specs = ", ".join(f"{s.name}: {s.dtype.name}{s.shape}" for s in self._specs)
        return f"<ConcreteFunction {self._function.__name__}({specs}) with {self.graph.num_nodes} nodes>"
