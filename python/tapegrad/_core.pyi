"""
tapegrad C++ engine
"""
from __future__ import annotations
import collections.abc
import numpy
from tapegrad import GradientTape
from tapegrad.errors import InvalidArgumentError
from tapegrad.errors import TapeError
import typing
__all__: list[str] = ['GradientTape', 'Graph', 'InvalidArgumentError', 'OpHandle', 'PythonOp', 'TapeError', 'Tensor', 'Variable', 'accumulators_active', 'active_isa', 'any_tape_recording', 'apply', 'best_isa', 'convert', 'convert_hint', 'fill', 'forward_custom', 'from_numpy', 'fusable_ops', 'is_differentiable', 'op', 'op_dtypes', 'record_custom', 'registered_ops', 'set_gradient', 'set_isa', 'should_record']
class Tensor:
    """
    An immutable n-dimensional array.
    """
    __array_priority__: typing.ClassVar[int] = 100
    device: typing.ClassVar[str] = '/job:localhost/replica:0/task:0/device:CPU:0'
    @staticmethod
    def _numpy_unchecked(*args, **kwargs):
        """
        numpy(self: tapegrad._core.Tensor) -> numpy.ndarray
        
        The value as a NumPy array (a read-only view of a Tensor; a copy for a Variable).
        """
    def __abs__(self) -> Tensor:
        ...
    def __add__(self, value: typing.Any) -> Tensor:
        ...
    def __and__(self, value: typing.Any) -> Tensor:
        ...
    def __array__(self, *args, **kwargs):
        """
        __array__(self: tapegrad._core.Tensor, dtype: object = None, copy: object = None) -> numpy.ndarray
        """
    def __bool__(self):
        ...
    def __copy__(self):
        ...
    def __deepcopy__(self, memo):
        ...
    def __eq__(self, value: typing.Any) -> Tensor:
        ...
    def __float__(self):
        ...
    def __floordiv__(self, value: typing.Any) -> Tensor:
        ...
    def __format__(self, spec):
        ...
    def __ge__(self, value: typing.Any) -> Tensor:
        ...
    def __getitem__(self, key):
        """
        x[key] as one StridedSlice (+ Reshape for new axes, + GatherV2 for an index list).
        """
    def __gt__(self, value: typing.Any) -> Tensor:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self):
        ...
    def __int__(self):
        ...
    def __invert__(self) -> Tensor:
        ...
    def __iter__(self):
        ...
    def __le__(self, value: typing.Any) -> Tensor:
        ...
    def __len__(self) -> int:
        ...
    def __lt__(self, value: typing.Any) -> Tensor:
        ...
    def __matmul__(self, value: typing.Any) -> Tensor:
        ...
    def __mod__(self, value: typing.Any) -> Tensor:
        ...
    def __mul__(self, value: typing.Any) -> Tensor:
        ...
    def __ne__(self, value: typing.Any) -> Tensor:
        ...
    def __neg__(self) -> Tensor:
        ...
    def __or__(self, value: typing.Any) -> Tensor:
        ...
    def __pow__(self, value: typing.Any, mod: None = None) -> Tensor:
        ...
    def __radd__(self, value: typing.Any) -> Tensor:
        ...
    def __rand__(self, value: typing.Any) -> Tensor:
        ...
    def __reduce__(self):
        ...
    def __repr__(self):
        ...
    def __rfloordiv__(self, value: typing.Any) -> Tensor:
        ...
    def __rmatmul__(self, value: typing.Any) -> Tensor:
        ...
    def __rmod__(self, value: typing.Any) -> Tensor:
        ...
    def __rmul__(self, value: typing.Any) -> Tensor:
        ...
    def __ror__(self, value: typing.Any) -> Tensor:
        ...
    def __rpow__(self, value: typing.Any, mod: None = None) -> Tensor:
        ...
    def __rsub__(self, value: typing.Any) -> Tensor:
        ...
    def __rtruediv__(self, value: typing.Any) -> Tensor:
        ...
    def __str__(self):
        ...
    def __sub__(self, value: typing.Any) -> Tensor:
        ...
    def __truediv__(self, value: typing.Any) -> Tensor:
        ...
    def _item(self) -> typing.Any:
        ...
    def get_shape(self, _varying_dims = ...):
        """
        TF's static shape: inside a tf.function a size computed from values at each call (the rows of
            tf.boolean_mask's result) is None, as in TF (Note [Varying dimensions] in cpp/graph/varying_dims.cpp).
        """
    def numpy(self):
        """
        numpy(self: tapegrad._core.Tensor) -> numpy.ndarray
        
        The value as a NumPy array (a read-only view of a Tensor; a copy for a Variable).
        """
    def set_shape(self, shape):
        """
        TF's set_shape: checks the given shape is compatible with the static shape (ValueError if not).
            A tensor here always has its actual sizes, so there is nothing to refine.
        """
    @property
    def dtype(self):
        """
        The element type.
        """
    @property
    def shape(self, _varying_dims = ...):
        """
        The shape, as a TensorShape (None for a size computed at each call).
        """
class Variable(Tensor):
    """
    """
    @staticmethod
    def __new__(type, *args, **kwargs):
        """
        Create and return a new object.  See help(type) for accurate signature.
        """
    def _assign(self: Tensor, arg0: typing.Any) -> None:
        ...
    def _assign_add(self: Tensor, arg0: typing.Any) -> None:
        ...
    def _assign_sub(self: Tensor, arg0: typing.Any) -> None:
        ...
    def read_value(self: Tensor) -> Tensor:
        ...
class OpHandle:
    @staticmethod
    def __call__(*args, **kwargs):
        """
        handle(*inputs, **attrs): runs the op.
        """
    def __repr__(self) -> str:
        ...
    @property
    def __signature__(self):
        """
        inspect.signature() of a public op: TF's argument names and defaults, and name=None.
        """
    @property
    def _signature_args(self) -> typing.Any:
        ...
    @property
    def differentiable(self) -> bool:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def num_inputs(self) -> int:
        ...
    @property
    def stateful(self) -> bool:
        ...
class _StopRecording:
    def __enter__(self) -> None:
        ...
    def __exit__(self, *args) -> None:
        ...
class _PauseAllTapes:
    def __enter__(self) -> None:
        ...
    def __exit__(self, *args) -> None:
        ...
    def __init__(self) -> None:
        ...
class _VariableWatcher:
    def __enter__(self) -> None:
        ...
    def __exit__(self, *args) -> None:
        ...
    def __init__(self) -> None:
        ...
    def variables(self) -> list:
        ...
class Graph:
    """
    A traced function: nodes in execution order.
    """
    def __str__(self) -> str:
        ...
    def export_nodes(self) -> list:
        """
        Note [Exported nodes]: per node a dict for writing TF's formats.
        """
    def nodes(self) -> list:
        """
        Per node: (name, type, inputs, shape, dtype code, has a value).
        """
    def relax(self, arg0: collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]], arg1: Graph) -> None:
        """
        Note [Relaxed graphs]: per placeholder the dims to keep (-1: any size).
        """
    def run(self, arg0: collections.abc.Sequence) -> list[Tensor]:
        ...
    def same_structure(self, arg0: Graph) -> tuple[bool, str]:
        ...
    def to_dot(self) -> str:
        """
        The graph in Graphviz DOT.
        """
    def to_text(self) -> str:
        """
        One line per node: op, inputs, attributes, shape and dtype.
        """
    @property
    def num_args(self) -> int:
        ...
    @property
    def num_nodes(self) -> int:
        ...
    @property
    def ops(self) -> list[str]:
        """
        The op of each node, in execution order.
        """
    @property
    def outputs(self) -> list[int]:
        ...
    @property
    def relaxed(self) -> bool:
        ...
class _Tracer:
    def __enter__(self) -> None:
        ...
    def __exit__(self, *args) -> None:
        ...
    def __init__(self, dry: bool = False, subgraph: bool = False) -> None:
        """
        The trace of a tf.function (dry: variables and random streams restored after), or of a branch or loop body (subgraph: dry, capturing the enclosing trace's values; Note [Control-flow nodes]).
        """
    def capture(self, arg0: Tensor) -> None:
        ...
    def finish(self, arg0: collections.abc.Sequence) -> tuple[Graph, dict]:
        ...
    def placeholder(self, x: Tensor, name: str = 'arg') -> None:
        ...
    def restore_variables(self) -> None:
        ...
    @property
    def captures(self) -> list[Tensor]:
        """
        A subgraph's captured outer values (its last arguments, in order).
        """
    @property
    def leak_use(self) -> str:
        """
        Note [Leaked tensors]: the first leaked tensor the trace used, or ''.
        """
    @property
    def traced_graph(self) -> Graph:
        """
        After finish(): the graph as recorded, before optimization.
        """
class _Concrete:
    def __init__(self, arg0: Graph, arg1: typing.Any, arg2: bool) -> None:
        ...
    def run(self, arg0: collections.abc.Sequence) -> typing.Any:
        ...
    @property
    def backward_graph(self) -> Graph:
        """
        The backward graph (Note [Backward graphs]), once a call under a tape built it; else None.
        """
    @property
    def graph(self) -> Graph:
        ...
class _FunctionBase:
    def __call__(self, *args, **kwargs) -> typing.Any:
        ...
    def __init__(self) -> None:
        ...
    def _memo_clear(self) -> None:
        ...
    def _memo_insert(self, arg0: _Concrete, *args) -> bool:
        ...
    @property
    def _memo_size(self) -> int:
        ...
    @property
    def _num_calls(self) -> int:
        ...
class _Accumulator:
    def __init__(self) -> None:
        ...
    def pop(self) -> None:
        ...
    def push(self) -> None:
        ...
    def tangent(self, arg0: Tensor) -> typing.Any:
        ...
    def watch(self, primal: Tensor, tangent: Tensor) -> None:
        ...
    @property
    def _num_tangents(self) -> int:
        ...
class _PauseAccumulators:
    def __enter__(self) -> None:
        ...
    def __exit__(self, *args) -> None:
        ...
    def __init__(self) -> None:
        ...
class PythonOp:
    """
    PythonOp(fn, signature=None): a public op written in Python, as @dispatch declares it (Note [Op dispatch] in tapegrad/_ops/_dispatch.py).
    """
    @staticmethod
    def __new__(type, *args, **kwargs):
        """
        Create and return a new object.  See help(type) for accurate signature.
        """
    @staticmethod
    def __reduce__(*args, **kwargs):
        ...
    def __call__(self, *args, **kwargs):
        """
        Call self as a function.
        """
    def __get__(self, instance, owner = None):
        """
        Return an attribute of instance, which is of type owner.
        """
    def __repr__(self) -> Tensor:
        ...
def _alias(arg0: Tensor) -> Tensor:
    """
    t's value under a new tensor id.
    """
def _build_info() -> dict:
    """
    Build and run-time facts for tapegrad.show_config().
    """
def _check_numerics_enabled() -> bool:
    ...
def _convert_arg(value: typing.Any, kind: str, fn: str, arg: str, dtype_hint: typing.SupportsInt | typing.SupportsIndex = -1) -> typing.Any:
    """
    _convert_arg(value, kind, fn, arg, dtype_hint=-1): converts one argument as a public op's signature would (Note [Op signatures]), raising errors that name fn and arg.
    """
def _describe_traced(arg0: Tensor) -> str:
    ...
def _empty_with_view(arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], arg1: typing.SupportsInt | typing.SupportsIndex) -> tuple[Tensor, numpy.ndarray]:
    ...
def _float16(arg0: numpy.ndarray, arg1: numpy.ndarray) -> None:
    """
    float16 conversions for Compression.fp16 (cpp/kernels/half.h).
    """
def _fresh_view(arg0: Tensor) -> Tensor:
    """
    A tensor with its own id and t's value: what a traced function receives for each tensor argument.
    """
def _in_place_writes() -> int:
    """
    Note [Donated loop variables]: rows written in place so far.
    """
def _is_traced(arg0: Tensor) -> bool:
    """
    True when t depends on a traced function's arguments or variables.
    """
def _jvp_kind(arg0: str) -> str:
    """
    How an op is pushed forward: its own JVP rule, the double VJP of its gradient rule, or not at all.
    """
def _leaked_name(arg0: Tensor) -> typing.Any:
    """
    Note [Leaked tensors]: TF's text for t if a trace computed it and Python kept it, else None.
    """
def _nest_flatten(arg0: typing.Any) -> list[typing.Any]:
    """
    The C++ walker of nested structures (tests compare it with tapegrad._nest).
    """
def _nest_pack(like: typing.Any, flat: collections.abc.Sequence[typing.Any], slot: typing.Any = None) -> typing.Any:
    """
    like with its leaves (with a slot: only the leaves that are it) replaced by flat's values in order.
    """
def _num_leaked() -> int:
    """
    Note [Leaked tensors]: how many leaked tensors are alive.
    """
def _num_threads() -> int:
    """
    The number of threads a parallel kernel uses.
    """
def _record_host_call(fn: collections.abc.Callable, tensors: collections.abc.Sequence, label: str, outs: collections.abc.Sequence = []) -> None:
    """
    Records a callback that runs with the given tensors' values at every call of the graph; a callback that returned `outs` while tracing returns such tensors at every call (later ops read them).
    """
def _run_if(then_g: Graph, else_g: Graph, pred: Tensor, operands: collections.abc.Sequence[Tensor]) -> list[Tensor]:
    """
    Runs (and records on the active tracers) an If node; returns its results.
    """
def _run_while(cond_g: Graph, body_g: Graph, loop_vars: collections.abc.Sequence[Tensor], captures: collections.abc.Sequence[Tensor], limit: Tensor | None) -> list[Tensor]:
    """
    Runs (and records on the active tracers) a While node; returns the final loop variables, then the trip count.
    """
def _set_check_numerics(arg0: bool) -> None:
    ...
def _set_failure_hook(arg0: typing.Any) -> None:
    """
    hook(error, op, args, kwargs), called when a public op fails (Note [When an op call fails]).
    """
def _set_list_packer(arg0: typing.Any) -> None:
    """
    Registers fn(list) -> Tensor or None, which packs a list holding tensors computed in a trace.
    """
def _set_num_threads(n: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Caps the kernels' OpenMP and OpenBLAS threads at n (n <= 0: the count at load time).
    """
def _set_package_dir(arg0: str) -> None:
    ...
def _set_random_seed(seed: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Sets the random ops' global seed and restarts their streams (tf.random.set_seed).
    """
def _set_sizes_at_run_time(on: typing.SupportsInt | typing.SupportsIndex) -> int:
    """
    Note [Sizes in traced rules]: sets whether gradient rules take sizes at run time (0 no, 1 or True yes, 2 also broadcasting gradients at run time); returns the old mode, to be passed back.
    """
def _set_symbolic_type(arg0: typing.Any, arg1: typing.Any) -> None:
    """
    Registers the type whose instances send a PythonOp's call to hook(op, args, kwargs).
    """
def _size_varies(arg0: Tensor) -> bool:
    """
    True when a trace sees t's shape vary from call to call (computed from a value-shaped op's result).
    """
def _traced_assign(arg0: Tensor, arg1: typing.Any, arg2: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Assigns a variable while tracing and records the assignment in the graph.
    """
def _traced_name(arg0: Tensor) -> str:
    """
    The name of t's value in the innermost trace ("add:0"), or '' when no trace saw it.
    """
def _tracing() -> bool:
    """
    True while a tf.function is being traced on this thread.
    """
def _usable_threads() -> int:
    """
    Threads a GEMM or convolution uses now (Note [Free CPUs]).
    """
def _varying_dims(*args, **kwargs):
    """
    Note [Varying dimensions]: bit d set when a trace sees t's dimension d vary from call to call (-1: all).
    """
def accumulators_active() -> bool:
    ...
def active_isa() -> str:
    ...
def any_tape_recording() -> bool:
    ...
def apply(name: str, inputs: collections.abc.Sequence, attrs: typing.Any = None) -> Tensor:
    ...
def best_isa() -> str:
    ...
def convert(value: typing.Any, dtype: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
    ...
def convert_hint(arg0: typing.Any, arg1: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    ...
def fill(arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], arg1: typing.SupportsFloat | typing.SupportsIndex, arg2: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    ...
def forward_custom(arg0: collections.abc.Sequence, arg1: collections.abc.Sequence, arg2: collections.abc.Callable) -> None:
    """
    Pushes a custom_gradient call forward: tangents by the double-VJP trick on fn (output grads -> input grads).
    """
def from_numpy(value: typing.Any, dtype: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
    ...
def fusable_ops() -> list[str]:
    """
    Registry ops that tf.function's fusion pass can fuse.
    """
def is_differentiable(arg0: str) -> bool:
    ...
def op(name: str, fn: typing.Any = None, signature: typing.Any = None) -> OpHandle:
    """
    op(name): an internal handle (inputs positional, attributes by keyword); op(name, fn, signature): the public op fn with TF's arguments (Note [Op signatures] in cpp/bindings/signature.h).
    """
def op_dtypes(arg0: str) -> int:
    """
    The element types an op's inputs may have, a bit (1 << code) per dtype (Note [Element types]).
    """
def record_custom(arg0: collections.abc.Sequence, arg1: collections.abc.Sequence, arg2: collections.abc.Callable) -> None:
    """
    Records one tape entry whose gradient is fn(list of output grads) -> list of input grads.
    """
def registered_ops() -> list[str]:
    """
    Names of every op in the C++ registry.
    """
def set_gradient(name: str, fn: typing.Any) -> None:
    """
    Replaces the gradient rule of a registered op with fn(inputs, output, grad, attrs) (None restores it).
    """
def set_isa(arg0: str) -> None:
    ...
def should_record(arg0: collections.abc.Sequence) -> bool:
    ...
_OUT: object
