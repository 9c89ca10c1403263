"""The fused recurrent ops (LSTMSequence, GRUSequence, RNNSequence) written as TF ops, one step after another.

TF has no op for a whole recurrent loop; its Keras layers write a While loop of the cell's ops. Here the
loop is unrolled: the number of steps must be known (a None time dimension is refused), the batch may be
None. Each step is the cell's formula as the fused kernels compute it (cpp/kernels/recurrent.h), and the
result keeps the fused op's layout, so the slices the layer takes of it are written unchanged: LSTMSequence
gives out[:, t] = [h_t, c_t, i_t, f_t, c~_t, o_t], GRUSequence and RNNSequence out[:, t] = h_t.
"""
import numpy as np


def _step_input(ctx, x, t):
    """x[:, t, :] (the batch and features whole, whatever their sizes)."""
    return ctx.emit("StridedSlice", [x] + [ctx.ints(v) for v in ([0, t, 0], [0, t + 1, 0], [1, 1, 1])],
                    begin_mask=5, end_mask=5, shrink_axis_mask=2)


def _columns(ctx, z, lo, hi):
    """z[:, lo:hi]."""
    return ctx.emit("StridedSlice", [z] + [ctx.ints(v) for v in ([0, lo], [0, hi], [1, 1])], begin_mask=1, end_mask=1)


def _row(ctx, b, i):
    """b[i] of a 2-D bias."""
    return ctx.emit("StridedSlice", [b] + [ctx.ints(v) for v in ([i], [i + 1], [1])], shrink_axis_mask=1)


def _sequence(ctx, steps):
    return ctx.emit("Pack", steps, N=len(steps), axis=1)


def lstm(node, ctx):
    x, h, c, W, R, b = (ctx.input(i) for i in range(6))
    T, U = ctx.static_dim(0, 1), ctx.static_dim(4, 0)
    steps = []
    for t in range(T):
        z = ctx.emit("AddV2", [ctx.emit("AddV2", [ctx.emit("MatMul", [_step_input(ctx, x, t), W]), b]),
                               ctx.emit("MatMul", [h, R])])
        i, f, cc, o = (_columns(ctx, z, k * U, (k + 1) * U) for k in range(4))
        i, f, o = (ctx.emit("Sigmoid", [g]) for g in (i, f, o))
        cc = ctx.emit("Tanh", [cc])
        c = ctx.emit("AddV2", [ctx.emit("Mul", [f, c]), ctx.emit("Mul", [i, cc])])
        h = ctx.emit("Mul", [o, ctx.emit("Tanh", [c])])
        steps.append(ctx.emit("ConcatV2", [h, c, i, f, cc, o, ctx.ints(1)], N=6))
    return _sequence(ctx, steps)


def gru(node, ctx):
    x, h, W, R, b = (ctx.input(i) for i in range(5))
    T, U = ctx.static_dim(0, 1), ctx.static_dim(3, 0)
    b_in, b_rec = _row(ctx, b, 0), _row(ctx, b, 1)
    one = ctx.const(np.asarray(1, ctx.numpy_dtype(0)))
    steps = []
    for t in range(T):
        xz = ctx.emit("AddV2", [ctx.emit("MatMul", [_step_input(ctx, x, t), W]), b_in])
        hz = ctx.emit("AddV2", [ctx.emit("MatMul", [h, R]), b_rec])
        (xz_z, xz_r, xz_h), (hz_z, hz_r, hz_h) = ([_columns(ctx, v, k * U, (k + 1) * U) for k in range(3)]
                                                  for v in (xz, hz))
        z = ctx.emit("Sigmoid", [ctx.emit("AddV2", [xz_z, hz_z])])
        r = ctx.emit("Sigmoid", [ctx.emit("AddV2", [xz_r, hz_r])])
        hh = ctx.emit("Tanh", [ctx.emit("AddV2", [xz_h, ctx.emit("Mul", [r, hz_h])])])
        h = ctx.emit("AddV2", [ctx.emit("Mul", [z, h]), ctx.emit("Mul", [ctx.emit("Sub", [one, z]), hh])])
        steps.append(h)
    return _sequence(ctx, steps)


def rnn(node, ctx):
    x, h, W, R, b = (ctx.input(i) for i in range(5))
    steps = []
    for t in range(ctx.static_dim(0, 1)):
        h = ctx.emit("Tanh", [ctx.emit("AddV2", [ctx.emit("AddV2", [ctx.emit("MatMul", [_step_input(ctx, x, t), W]),
                                                                      ctx.emit("MatMul", [h, R])]), b])])
        steps.append(h)
    return _sequence(ctx, steps)


RULES = {"LSTMSequence": lstm, "GRUSequence": gru, "RNNSequence": rnn}
