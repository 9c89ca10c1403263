"""tf.nn.embedding_lookup and tf.nn.batch_normalization, composed of registered ops (so their
gradients differentiate again)."""
from tapegrad._ops._dispatch import dispatch
from tapegrad import _core
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import concat
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.nn._common import clip_by_norm
from tapegrad._tensor.tensor import Tensor, convert_to_tensor

__all__ = ["embedding_lookup", "batch_normalization"]


@dispatch
def embedding_lookup(params, ids, max_norm=None, name=None):
    """``params[ids]``: one row of ``params`` per id, for ``ids`` of any shape and an integer dtype.

    The result has shape ``ids.shape + params.shape[1:]``. Ids outside ``[0, len(params))`` raise
    ``InvalidArgumentError``. ``params`` may be a list of tensors sharded along axis 0 ("div"
    strategy: shard ``k`` holds a contiguous block of rows), which is looked up as their
    concatenation. With ``max_norm``, each looked-up embedding whose L2 norm (over all axes but
    those of ``ids``) exceeds ``max_norm`` is scaled down to norm ``max_norm``.
    """
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("embedding_lookup: params must be a tensor or a non-empty list of tensors, got []")
        shards = [convert_arg(p, "tensor", "embedding_lookup", "params") for p in params]
        table = concat(shards, 0)
    else:
        table = convert_arg(params, "tensor", "embedding_lookup", "params")
    ids = ids if isinstance(ids, Tensor) else convert_to_tensor(ids)  # as TF: a NumPy int64 id stays int64
    if not ids.dtype.is_integer:
        raise _core.InvalidArgumentError(
            f"embedding_lookup: ids must be an int16, int32 or int64 tensor, got {ids.dtype.name}{tuple(ids.shape)}")
    if table.shape.rank == 0:
        raise _core.InvalidArgumentError("embedding_lookup: params must have rank >= 1, got a scalar")
    try:
        result = _raw.GatherV2(table, ids, axis=0, batch_dims=0)
    except _core.InvalidArgumentError as error:
        raise _core.InvalidArgumentError(
            f"embedding_lookup: ids of shape {tuple(ids.shape)} must be in [0, {table.shape[0]}) for params of "
            f"shape {tuple(table.shape)}: {error}") from None
    if max_norm is None:
        return result
    ids_rank = ids.shape.rank
    return clip_by_norm(result, max_norm, axes=list(range(ids_rank, result.shape.rank)))


@dispatch("x, mean:any, variance:any, offset:any, scale:any, variance_epsilon:any")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``, broadcasting ``mean``,
    ``variance``, ``offset`` and ``scale`` against ``x``; ``offset`` and ``scale`` may be None.

    Computed as ``x * inv + (offset - mean * inv)`` with ``inv = scale * rsqrt(variance + eps)``.
    """
    def arg(value, arg_name):  # x's dtype a preference (TF's), then checked
        t = convert_to_tensor(value, dtype_hint=x.dtype)
        if t.dtype != x.dtype:
            raise _core.InvalidArgumentError(
                f"batch_normalization: {arg_name} must have x's dtype {x.dtype.name}, "
                f"got {t.dtype.name}{tuple(t.shape)}")
        return t

    mean, variance = arg(mean, "mean"), arg(variance, "variance")
    try:
        inv = _raw.Rsqrt(variance + arg(variance_epsilon, "variance_epsilon"))
        if scale is not None:
            inv = inv * arg(scale, "scale")
        shift = -mean * inv if offset is None else arg(offset, "offset") - mean * inv
        return x * inv + shift
    except _core.InvalidArgumentError as error:
        raise _core.InvalidArgumentError(
            f"batch_normalization: mean {tuple(mean.shape)}, variance {tuple(variance.shape)}, offset "
            f"{None if offset is None else tuple(convert_to_tensor(offset).shape)} and scale "
            f"{None if scale is None else tuple(convert_to_tensor(scale).shape)} must broadcast against x "
            f"{tuple(x.shape)}: {error}") from None
