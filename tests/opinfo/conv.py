"""Rows for the convolution and pooling ops, against NumPy references built from explicit windows."""
import numpy as np

import tapegrad as tf
from opinfo import conv_edges, conv_errors
from opinfo.core import OpInfo, SampleInput, attach_edge_samples, attach_error_inputs

_op = tf._core.op


# ---- NumPy references: every window op is a view of the zero-padded input's patches.
def _axis_geometry(size, k, s, d, padding, pads):
    """(output size, padding before, padding after) of one spatial axis, as TF computes them."""
    ek = (k - 1) * d + 1
    if padding == "SAME":
        out = -(-size // s)
        total = max((out - 1) * s + ek - size, 0)
        return out, total // 2, total - total // 2
    before, after = pads if pads is not None else (0, 0)
    return (size + before + after - ek) // s + 1, before, after


def _pair(v):
    return [v, v] if isinstance(v, int) else list(v)[-3:-1] if len(v) == 4 else list(v)


def _geometry(shape, kh, kw, strides=1, padding="VALID", dilations=1):
    (sh, sw), (dh, dw) = _pair(strides), _pair(dilations)
    pads = (None, None) if isinstance(padding, str) else (padding[1], padding[2])
    mode = padding if isinstance(padding, str) else "EXPLICIT"
    oh, pt, pb = _axis_geometry(shape[1], kh, sh, dh, mode, pads[0])
    ow, pl, pr = _axis_geometry(shape[2], kw, sw, dw, mode, pads[1])
    return dict(oh=oh, ow=ow, pt=pt, pb=pb, pl=pl, pr=pr, sh=sh, sw=sw, dh=dh, dw=dw, kh=kh, kw=kw)


def _taps(g):
    """For each tap (ky, kx): the slices of the padded input it reads for every output pixel."""
    for ky in range(g["kh"]):
        for kx in range(g["kw"]):
            ys = slice(ky * g["dh"], ky * g["dh"] + (g["oh"] - 1) * g["sh"] + 1, g["sh"])
            xs = slice(kx * g["dw"], kx * g["dw"] + (g["ow"] - 1) * g["sw"] + 1, g["sw"])
            yield ky, kx, ys, xs


def _padded(x, g, value=0.0):
    return np.pad(x, [(0, 0), (g["pt"], g["pb"]), (g["pl"], g["pr"]), (0, 0)], constant_values=value)


def _patches(x, g, value=0.0):
    """[n, oh, ow, kh, kw, c] windows of x (padding filled with value)."""
    p = _padded(x, g, value)
    out = np.empty((x.shape[0], g["oh"], g["ow"], g["kh"], g["kw"], x.shape[3]), x.dtype)
    for ky, kx, ys, xs in _taps(g):
        out[:, :, :, ky, kx] = p[:, ys, xs]
    return out


def _unpatch(patches, shape, g):
    """The adjoint of _patches: each window entry added back where it was read."""
    p = np.zeros((shape[0], shape[1] + g["pt"] + g["pb"], shape[2] + g["pl"] + g["pr"], shape[3]), patches.dtype)
    for ky, kx, ys, xs in _taps(g):
        p[:, ys, xs] += patches[:, :, :, ky, kx]
    return p[:, g["pt"]:g["pt"] + shape[1], g["pl"]:g["pl"] + shape[2]]


def conv2d_ref(x, w, strides=1, padding="VALID", dilations=1):
    g = _geometry(x.shape, w.shape[0], w.shape[1], strides, padding, dilations)
    return np.einsum("nhwijc,ijco->nhwo", _patches(x, g), w)


def conv2d_transpose_ref(dy, w, output_shape, strides=1, padding="SAME", dilations=1):
    g = _geometry(output_shape, w.shape[0], w.shape[1], strides, padding, dilations)
    return _unpatch(np.einsum("nhwo,ijco->nhwijc", dy, w), output_shape, g)


def conv2d_filter_ref(x, dy, filter_sizes, strides=1, padding="VALID", dilations=1):
    g = _geometry(x.shape, filter_sizes[0], filter_sizes[1], strides, padding, dilations)
    return np.einsum("nhwijc,nhwo->ijco", _patches(x, g), dy)


def depthwise_ref(x, w, strides=1, padding="VALID", dilations=1):
    g = _geometry(x.shape, w.shape[0], w.shape[1], strides, padding, dilations)
    y = np.einsum("nhwijc,ijcm->nhwcm", _patches(x, g), w)
    return y.reshape(y.shape[:3] + (w.shape[2] * w.shape[3],))


def depthwise_input_ref(w, dy, input_sizes, strides=1, padding="VALID", dilations=1):
    g = _geometry(input_sizes, w.shape[0], w.shape[1], strides, padding, dilations)
    d = dy.reshape(dy.shape[:3] + w.shape[2:])
    return _unpatch(np.einsum("nhwcm,ijcm->nhwijc", d, w), input_sizes, g)


def depthwise_filter_ref(x, dy, filter_sizes, strides=1, padding="VALID", dilations=1):
    g = _geometry(x.shape, filter_sizes[0], filter_sizes[1], strides, padding, dilations)
    d = dy.reshape(dy.shape[:3] + tuple(filter_sizes[2:]))
    return np.einsum("nhwijc,nhwcm->ijcm", _patches(x, g), d)


def _pool_geometry(x, ksize, strides, padding):
    kh, kw = _pair(ksize)
    return _geometry(x.shape, kh, kw, strides, padding)


def max_pool_ref(x, ksize, strides, padding):
    p = _patches(x, _pool_geometry(x, ksize, strides, padding), -np.inf)
    return p.max(axis=(3, 4))


def _first_max(x, g):
    """One-hot [n, oh, ow, kh, kw, c] of each window's first maximum."""
    p = _patches(x, g, -np.inf)
    flat = p.transpose(0, 1, 2, 5, 3, 4).reshape(p.shape[:3] + (p.shape[5], p.shape[3] * p.shape[4]))
    hot = np.zeros_like(flat)
    np.put_along_axis(hot, flat.argmax(-1)[..., None], 1.0, -1)
    return hot.reshape(p.shape[:3] + (p.shape[5], p.shape[3], p.shape[4])).transpose(0, 1, 2, 4, 5, 3)


def max_pool_grad_ref(x, dy, ksize, strides, padding):
    g = _pool_geometry(x, ksize, strides, padding)
    return _unpatch(_first_max(x, g) * dy[:, :, :, None, None, :], x.shape, g)


def max_pool_grad_grad_ref(x, t, ksize, strides, padding):
    g = _pool_geometry(x, ksize, strides, padding)
    return (_first_max(x, g) * _patches(t, g)).sum(axis=(3, 4))


def _counts(shape, g):
    return _patches(np.ones((1,) + tuple(shape[1:3]) + (1,)), g).sum(axis=(3, 4))


def avg_pool_ref(x, ksize, strides, padding):
    g = _pool_geometry(x, ksize, strides, padding)
    return _patches(x, g).sum(axis=(3, 4)) / _counts(x.shape, g)


def avg_pool_grad_ref(dy, orig_input_shape, ksize, strides, padding):
    g = _geometry(orig_input_shape, *_pair(ksize), strides, padding)
    d = dy / _counts(orig_input_shape, g)
    return _unpatch(np.broadcast_to(d[:, :, :, None, None, :], d.shape[:3] + (g["kh"], g["kw"], d.shape[3])),
                    orig_input_shape, g)


# ---- sample inputs: odd sizes, strides, dilations, SAME / VALID / explicit padding, empty batch.
CONV_CASES = [
    ((2, 5, 5, 3), (3, 3, 3, 4), dict(strides=1, padding="VALID")),
    ((1, 6, 7, 2), (2, 3, 2, 3), dict(strides=2, padding="SAME")),
    ((2, 5, 4, 2), (3, 2, 2, 2), dict(strides=[1, 2], padding="SAME")),
    ((1, 7, 6, 1), (3, 3, 1, 2), dict(strides=1, padding="SAME", dilations=2)),
    ((1, 7, 8, 2), (2, 2, 2, 2), dict(strides=[1, 3, 2, 1], padding="VALID", dilations=[2, 1])),
    ((1, 4, 5, 2), (3, 2, 2, 2), dict(strides=2, padding=[[0, 0], [1, 2], [0, 1], [0, 0]])),
    ((2, 3, 3, 4), (1, 1, 4, 2), dict(strides=1, padding="VALID")),      # pointwise: one GEMM
    ((0, 4, 4, 2), (3, 3, 2, 3), dict(strides=1, padding="SAME")),       # empty batch
    ((1, 2, 2, 1), (3, 3, 1, 2), dict(strides=1, padding="VALID")),      # filter larger than the input
    # few values per patch and filters in blocks of 16: the direct kernels (Note [Direct small-K convolution])
    ((2, 6, 5, 2), (3, 3, 2, 16), dict(strides=2, padding="SAME")),
    ((1, 5, 6, 1), (2, 3, 1, 32), dict(strides=1, padding=[[0, 0], [1, 0], [2, 1], [0, 0]], dilations=[2, 1])),
    ((1, 4, 3, 1), (2, 2, 1, 64), dict(strides=1, padding="SAME")),
]


def _u(rng, shape, dtype):
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def _distinct(rng, shape, dtype):
    """Values 0.1 apart in random order: no ties, so max pooling is differentiable at them."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.1 - n * 0.05).astype(dtype)


def _conv_samples(rng, dtype):
    for xs, ws, kw in CONV_CASES:
        yield SampleInput([_u(rng, xs, dtype), _u(rng, ws, dtype)], kw)


def _out_shape(xs, ws, kw, depthwise=False):
    g = _geometry(xs, ws[0], ws[1], kw.get("strides", 1), kw["padding"], kw.get("dilations", 1))
    return (xs[0], g["oh"], g["ow"], ws[2] * ws[3] if depthwise else ws[3])


def _conv_transpose_samples(rng, dtype):
    for xs, ws, kw in CONV_CASES:
        yield SampleInput([_u(rng, _out_shape(xs, ws, kw), dtype), _u(rng, ws, dtype), list(xs)], kw)


def _backprop_samples(depthwise, which):
    def samples(rng, dtype):
        for i, (xs, ws, kw) in enumerate(CONV_CASES):
            ws = ws[:2] + (ws[2], 1 + i % 2) if depthwise else ws
            dy = _u(rng, _out_shape(xs, ws, kw, depthwise), dtype)
            if which == "input":
                yield SampleInput([_u(rng, ws, dtype), dy, list(xs)], kw)
            else:
                yield SampleInput([_u(rng, xs, dtype), dy, list(ws)], kw)
    return samples


def _depthwise_samples(rng, dtype):
    for i, (xs, ws, kw) in enumerate(CONV_CASES):  # multipliers 2 and 1 (its own loops)
        yield SampleInput([_u(rng, xs, dtype), _u(rng, ws[:2] + (ws[2], 1 + i % 2), dtype)], kw)


POOL_CASES = [
    ((2, 4, 4, 3), dict(ksize=2, strides=2, padding="VALID")),
    ((1, 5, 7, 2), dict(ksize=3, strides=2, padding="SAME")),
    ((1, 5, 4, 1), dict(ksize=[2, 3], strides=[1, 2], padding="SAME")),
    ((2, 3, 3, 2), dict(ksize=[1, 3, 2, 1], strides=1, padding="VALID")),
    ((0, 4, 4, 2), dict(ksize=2, strides=2, padding="SAME")),
]


def _pool_samples(rng, dtype):
    for xs, kw in POOL_CASES:
        yield SampleInput([_distinct(rng, xs, dtype)], kw)


def _explicit_pool_samples(rng, dtype):
    yield from _pool_samples(rng, dtype)
    yield SampleInput([_distinct(rng, (1, 4, 5, 2), dtype)],
                      dict(ksize=2, strides=2, padding=[[0, 0], [1, 0], [1, 1], [0, 0]]))


def _pooled_shape(xs, kw):
    g = _pool_geometry(np.empty(xs), kw["ksize"], kw["strides"], kw["padding"])
    return (xs[0], g["oh"], g["ow"], xs[3])


def _max_grad_samples(which):
    def samples(rng, dtype):
        for xs, kw in POOL_CASES:
            t = _u(rng, _pooled_shape(xs, kw) if which == "scatter" else xs, dtype)
            yield SampleInput([_distinct(rng, xs, dtype), t], kw, grad_args=[1])
    return samples


def _avg_grad_samples(rng, dtype):
    for xs, kw in POOL_CASES:
        yield SampleInput([_u(rng, _pooled_shape(xs, kw), dtype), list(xs)], kw)


def _avg_grad_like_samples(rng, dtype):  # (the like input's values are not read: no gradient to it)
    for xs, kw in POOL_CASES:
        yield SampleInput([_u(rng, _pooled_shape(xs, kw), dtype), _u(rng, xs, dtype)], kw, grad_args=[0])


# ---- calling the ops: the public API where TF has one, the registry op otherwise.
def _window_attrs(strides=1, padding="VALID", dilations=1, ksize=None):
    a = {"strides": _pair(strides), "dilations": _pair(dilations)}
    if isinstance(padding, str):
        a["padding"] = padding
    else:
        a["padding"], a["explicit_paddings"] = "EXPLICIT", list(padding[1]) + list(padding[2])
    if ksize is not None:
        a["ksize"] = _pair(ksize)
        del a["dilations"]
    return a


def _registry(name, size_attr=None):
    op = _op(name)
    if size_attr is None:
        return lambda *xs, **kw: op(*xs, **_window_attrs(**kw))
    return lambda a, b, sizes, **kw: op(a, b, **{size_attr: list(sizes)}, **_window_attrs(**kw))


def _conv2d_transpose(dy, w, output_shape, **kw):
    return tf.nn.conv2d_transpose(dy, w, output_shape, kw.get("strides", 1), kw["padding"],
                                  dilations=kw.get("dilations"))


_avg_pool_grad = _op("AvgPoolGrad")

def _bias_add_samples(rng, dtype):
    yield SampleInput([_u(rng, (2, 3, 4), dtype), _u(rng, (4,), dtype)])
    yield SampleInput([_u(rng, (2, 3, 2, 2), dtype), _u(rng, (3,), dtype)], {"data_format": "NCHW"})


def _bias_add_ref(value, bias, data_format=None):
    return value + (bias.reshape((-1,) + (1,) * (value.ndim - 2)) if data_format == "NCHW" else bias)


_CONV_TOL = dict(fwd_rtol32=2e-5, atol=1e-5, rtol=1e-4)
rows = [
    OpInfo("Conv2D", tf.nn.conv2d, conv2d_ref, samples=_conv_samples, order=2, **_CONV_TOL),
    OpInfo("Conv2DBackpropInput", _conv2d_transpose, lambda dy, w, s, **kw: conv2d_transpose_ref(dy, w, s, **kw),
           samples=_conv_transpose_samples, order=2, public=(tf.nn.conv2d_transpose,), **_CONV_TOL),
    OpInfo("Conv2DBackpropFilter", _registry("Conv2DBackpropFilter", "filter_sizes"), conv2d_filter_ref,
           samples=_backprop_samples(False, "filter"), order=2, **_CONV_TOL),
    OpInfo("DepthwiseConv2dNative", tf.nn.depthwise_conv2d, depthwise_ref, samples=_depthwise_samples, order=2,
           **_CONV_TOL),
    OpInfo("DepthwiseConv2dNativeBackpropInput", _registry("DepthwiseConv2dNativeBackpropInput", "input_sizes"),
           depthwise_input_ref, samples=_backprop_samples(True, "input"), order=2, **_CONV_TOL),
    OpInfo("DepthwiseConv2dNativeBackpropFilter", _registry("DepthwiseConv2dNativeBackpropFilter", "filter_sizes"),
           depthwise_filter_ref, samples=_backprop_samples(True, "filter"), order=2, **_CONV_TOL),
    OpInfo("MaxPool", tf.nn.max_pool2d, max_pool_ref, samples=_explicit_pool_samples, order=2),
    OpInfo("MaxPoolGrad", _registry("MaxPoolGrad"), max_pool_grad_ref, samples=_max_grad_samples("scatter"), order=2),
    OpInfo("MaxPoolGradGrad", _registry("MaxPoolGradGrad"), max_pool_grad_grad_ref,
           samples=_max_grad_samples("gather"), order=2),
    OpInfo("AvgPool", tf.nn.avg_pool2d, avg_pool_ref, samples=_pool_samples, order=2),
    OpInfo("AvgPoolGrad", lambda dy, shape, **kw: _avg_pool_grad(dy, orig_input_shape=list(shape), **_window_attrs(**kw)),
           avg_pool_grad_ref, samples=_avg_grad_samples, order=2),
    # AvgPool's gradient in a trace whose sizes vary with values: the input's shape read at run time
    OpInfo("AvgPoolGradLike", lambda dy, like, **kw: _op("AvgPoolGradLike")(dy, like, **_window_attrs(**kw)),
           lambda dy, like, **kw: avg_pool_grad_ref(dy, like.shape, **kw), samples=_avg_grad_like_samples, order=2),
    OpInfo("bias_add", tf.nn.bias_add, _bias_add_ref, samples=_bias_add_samples, order=2, op=None),
]

attach_error_inputs(rows, conv_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/conv_errors.py
attach_edge_samples(rows, conv_edges.EDGE_SAMPLES)  # their edge values, in opinfo/conv_edges.py
