"""DistributedOptimizer: a Keras optimizer whose apply_gradients all-reduces the gradients first."""
from tapegrad.distribute import _runtime
from tapegrad.distribute._collectives import _wire_dtype, grouped_allreduce
from tapegrad.distribute._reduce import Average, resolve_op
from tapegrad.errors import UnimplementedError

__all__ = ["DistributedOptimizer"]


def DistributedOptimizer(optimizer, name=None, use_locking=False, device_dense="", device_sparse="",  # noqa: N802
                         compression=None, sparse_as_dense=False, backward_passes_per_step=1, op=Average,
                         gradient_predivide_factor=1.0, average_aggregated_gradients=False, num_groups=0,
                         groups=None, process_set=None):
    """A new optimizer of ``optimizer``'s class and configuration (Horovod's ``hvd.DistributedOptimizer``)
    whose ``apply_gradients`` first combines the gradients over all ranks (averages them unless
    ``op=Sum``), in one group: small gradients share fusion buffers. Use it with ``model.fit`` or a
    custom loop; a loop that already uses DistributedGradientTape needs a plain optimizer."""
    _runtime.state()
    _wire_dtype(compression, "DistributedOptimizer")
    op = resolve_op(op, None, "DistributedOptimizer")
    if backward_passes_per_step != 1:
        raise UnimplementedError(None, None, "DistributedOptimizer: backward_passes_per_step other than 1 is not "
                                 "supported")
    if not gradient_predivide_factor > 0:
        raise ValueError(f"DistributedOptimizer: gradient_predivide_factor must be > 0, got {gradient_predivide_factor}")
    cls = _distributed_class(type(optimizer), op, compression, float(gradient_predivide_factor))
    config = optimizer.get_config()
    if name is not None:
        config["name"] = name
    return cls.from_config(config)


def _distributed_class(base, op, compression, predivide):
    """A subclass of the optimizer class `base` whose apply_gradients reduces the gradients first."""
    compressed = _wire_dtype(compression, "DistributedOptimizer")

    def apply_gradients(self, grads_and_vars, *args, **kwargs):
        pairs = list(grads_and_vars)
        if _runtime.state().size == 1 and predivide == 1.0 and compressed is None:  # Note [One rank] in _tape.py
            return base.apply_gradients(self, pairs, *args, **kwargs)
        present = [i for i, (g, _) in enumerate(pairs) if g is not None]
        reduced = grouped_allreduce([pairs[i][0] for i in present], op=op, prescale_factor=1.0 / predivide,
                                    postscale_factor=predivide, compression=compression)
        for i, g in zip(present, reduced):
            pairs[i] = (g, pairs[i][1])
        return base.apply_gradients(self, pairs, *args, **kwargs)

    return type(base.__name__, (base,), {"apply_gradients": apply_gradients, "__module__": base.__module__,
                                         "_distributed": True})


def distribute_in_place(optimizer, compression=None):
    """Makes ``optimizer`` itself distributed (averaging), keeping its state: its slots and step count
    (hvd.load_model's optimizer, restored from the file)."""
    if not getattr(optimizer, "_distributed", False):
        optimizer.__class__ = _distributed_class(type(optimizer), Average, compression, 1.0)
    return optimizer
