"""tf.types.experimental: the types of tf.function's objects and of its trace types.

A class whose instances are tf.function arguments can define ``__tf_tracing_type__(self, context)``
returning a ``TraceType``: calls whose TraceTypes are equal share one trace, which runs on the type's
``placeholder_value``.

    class FruitType(tf.types.experimental.TraceType):
        def __init__(self, kind): self.kind = kind
        def is_subtype_of(self, other): return self == other
        def most_specific_common_supertype(self, others): return self if all(self == o for o in others) else None
        def placeholder_value(self, placeholder_context): return Fruit(self.kind)
        def __eq__(self, other): return type(other) is FruitType and other.kind == self.kind
        def __hash__(self): return hash(self.kind)
"""
import typing

import numpy as np

from tapegrad._function.concrete_function import ConcreteFunction
from tapegrad._function.function import Function
from tapegrad._function.function_type import FunctionType, InferenceFunction
from tapegrad._function.trace_type import TraceType
from tapegrad._tensor.string_tensor import StringTensor
from tapegrad._tensor.tensor import Tensor

__all__ = ["AtomicFunction", "ConcreteFunction", "FunctionType", "GenericFunction", "PolymorphicFunction",
           "SupportsTracingProtocol", "TensorLike", "TraceType"]

PolymorphicFunction = Function  # what tf.function returns
GenericFunction = PolymorphicFunction  # its older name, as in TF
AtomicFunction = InferenceFunction  # ConcreteFunction.inference_fn


@typing.runtime_checkable
class SupportsTracingProtocol(typing.Protocol):
    """A class whose instances give their own TraceType to tf.function."""

    def __tf_tracing_type__(self, context) -> TraceType:
        ...


TensorLike = typing.Union[Tensor, StringTensor, int, float, bool, str, bytes, complex, tuple, list, np.ndarray,
                          np.generic]
