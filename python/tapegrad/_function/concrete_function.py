"""ConcreteFunction: one traced graph of a tf.function, for one input signature."""
import inspect

import numpy as np

from tapegrad import _core
from tapegrad._function.func_graph import FuncGraph
from tapegrad._nest import sequence_like
from tapegrad._tensor.tensor import Tensor, TensorShape, TensorSpec, constant
from tapegrad._function.trace_context import graph_name

__all__ = ["ConcreteFunction"]


class ConcreteFunction:
    """One traced graph for one signature. ``graph`` has TF's inspection API (get_operations,
    get_tensor_by_name, as_graph_def) and prints the optimized graph as text (``to_dot()`` too)."""

    def __init__(self, function, concrete, call, stats, traced_graph, template, single):
        self._function = function
        self._concrete = concrete
        self._graph = concrete.graph            # the optimized graph that runs
        self._traced_graph = traced_graph       # the graph as recorded (inspection)
        self._func_graph = None
        self._template, self._single = template, single
        self.optimizations = stats  # nodes folded, simplified, merged, pruned and fused by the passes
        self._paths = list(call.paths)
        self._specs = [TensorSpec(t._shape, t.dtype, name=p) for t, p in zip(call.tensors, call.paths)]
        self._python_desc = {p: d for p, d in call.desc.items() if d[0] != "tensor"}
        self._shown = None  # the signature's shapes when it leaves dims unknown (_show_signature)
        # The bound arguments with each tensor as its TensorSpec (no tensor kept alive); the specs
        # are filled in from self._specs when asked for, as relaxing changes them.
        it = iter(self._specs)
        if call.bound is None:
            self._skeleton, self._py_signature = {f"arg{i}": _specs_like(s, it) for i, s in enumerate(self._specs)}, None
        else:
            self._skeleton = {n: _specs_like(v, it) for n, v in call.bound.arguments.items()}
            self._py_signature = call.bound.signature

    @property
    def graph(self):
        if self._func_graph is None:
            self._func_graph = FuncGraph(self._function.__name__, self._traced_graph, self._graph)
        return self._func_graph

    @property
    def name(self):
        return self._function.__name__

    @property
    def structured_input_signature(self):
        """(args, kwargs) as TF gives them: a TensorSpec (named after its parameter) per tensor
        argument, Python arguments as the values they were traced with."""
        args, kwargs, _ = self._structured_inputs()
        return args, kwargs

    def _structured_inputs(self):
        """(args, kwargs, [(parameter, kind, value)]) with each tensor argument as its TensorSpec."""
        shown = self._specs if self._shown is None else [
            TensorSpec(shape, s.dtype, name=s.name) for shape, s in zip(self._shown, self._specs)]
        it = iter(shown)
        values = {n: _specs_like(v, it) for n, v in self._skeleton.items()}
        if self._py_signature is None:
            return tuple(values.values()), {}, [(n, "POSITIONAL_ONLY", v) for n, v in values.items()]
        bound = inspect.BoundArguments(self._py_signature, values)
        params = self._py_signature.parameters
        return bound.args, bound.kwargs, [(n, params[n].kind.name, v) for n, v in values.items()]

    @property
    def structured_outputs(self):
        """The outputs' structure with the graph's symbolic output tensors ("Identity:0", ...)."""
        outs = iter(self.graph.outputs)
        if self._single:
            return next(outs)
        return _fill(self._template, outs)

    @property
    def inputs(self):
        return list(self.graph.inputs)

    @property
    def outputs(self):
        return list(self.graph.outputs)

    @property
    def backward_graph(self):
        """The graph computing this function's gradients, built at the first call under a
        GradientTape after the trace (None before, and for graphs whose calls replay op by op)."""
        return self._concrete.backward_graph

    def _relax(self, shapes, other):
        self._specs = [TensorSpec(s, spec.dtype, name=spec.name) for s, spec in zip(shapes, self._specs)]
        dims = [[-1 if d is None else d for d in s] for s in shapes]
        self._graph.relax(dims, other._graph)
        self._traced_graph.relax(dims, other._traced_graph)
        self._func_graph = None

    def _show_signature(self, shapes):
        """The shapes the signature allows (None: any size), as structured_input_signature shows them;
        the placeholders of the inspected graph show them too. Calls still need verified shapes."""
        self._shown = [TensorShape(s) for s in shapes]
        dims = [[-1 if d is None else d for d in s] for s in shapes]
        self._traced_graph.relax(dims, self._traced_graph)
        self._func_graph = None

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

    def pretty_printed_signature(self, verbose=True):
        """TF's text: "Input Parameters:", one line per parameter, "Output Type:", "Captures:"."""
        lines = ["Input Parameters:"]
        lines.extend(f"  {name} ({kind}): {_spec_text(value)}" for name, kind, value in self._structured_inputs()[2])
        lines.append("Output Type:")
        lines.append(f"  {_spec_text(_output_specs(self.structured_outputs))}")
        captures = [op for op in self.graph.get_operations() if op.type == "ReadVariableOp"]
        lines.append("Captures:")
        lines.extend(f"  {id(op)}: TensorSpec(shape=(), dtype=tf.resource, name=None)" for op in captures)
        if not captures:
            lines.append("  None")
        return "\n".join(lines)

    def pretty_printed_graph(self):
        return str(self._graph)

    def __repr__(self):
        specs = ", ".join(f"{s.name}: {s.dtype.name}{s.shape}" for s in self._specs)
        return f"<ConcreteFunction {self._function.__name__}({specs}) with {self._graph.num_nodes} nodes>"


def _specs_like(value, it):
    """A bound argument with each tensor replaced by its spec (in placeholder order)."""
    if isinstance(value, TensorSpec) or (isinstance(value, Tensor) and not value._is_variable):
        spec = next(it)
        return TensorSpec(spec.shape, spec.dtype, name=graph_name(spec.name))
    if isinstance(value, np.ndarray):
        return _specs_like(constant(value), it)
    if isinstance(value, (list, tuple)):
        return sequence_like(value, [_specs_like(v, it) for v in value])
    if isinstance(value, dict):
        return {k: _specs_like(value[k], it) for k in _sorted(value)}
    return value


def _sorted(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _fill(template, outs):
    """template with its _core._OUT slots filled by outs in order (Note [Nest order])."""
    return _core._nest_pack(template, list(outs), _core._OUT)


def _output_specs(value):
    if hasattr(value, "op") and hasattr(value, "shape") and hasattr(value, "dtype"):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, (list, tuple)):
        return sequence_like(value, [_output_specs(v) for v in value])
    if isinstance(value, dict):
        return {k: _output_specs(v) for k, v in value.items()}
    return value


def _spec_text(value):
    """As TF prints a parameter or the output type: TensorSpecs without their names."""
    if isinstance(value, TensorSpec):
        return repr(TensorSpec(value.shape, value.dtype))
    if isinstance(value, (list, tuple)):
        items = ", ".join(_spec_text(v) for v in value)
        return f"{type(value).__name__.capitalize()}[{items}]"
    if isinstance(value, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {_spec_text(v)}]" for k, v in value.items()) + "]"
    return repr(value)
