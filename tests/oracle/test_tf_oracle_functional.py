"""tf.map_fn, tf.scan, tf.foldl, tf.foldr and tf.vectorized_map run by TensorFlow and by tapegrad on
the same inputs, eagerly and inside tf.function: the same values, dtypes, shapes and gradients.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()


# Each case: (name, fn(lib, x, h) -> result structure, x shape). x is differentiated, h (a row-shaped
# tensor) too where the case uses it; fns use only names both libraries share.
CASES = [
    ("map_square", lambda lib, x, h: lib.map_fn(lambda r: r * r + h, x), (4, 3)),
    ("map_reduce", lambda lib, x, h: lib.map_fn(lambda r: lib.reduce_sum(lib.sin(r)), x), (5, 2)),
    ("map_matrix_rows", lambda lib, x, h: lib.map_fn(lambda r: lib.matmul(r, r, transpose_b=True), x), (3, 2, 4)),
    ("map_nested_sig", lambda lib, x, h: lib.map_fn(
        lambda p: {"s": p[0] * p[1], "i": lib.cast(p[0] > 0, lib.int32)}, (x, x[::-1]),
        fn_output_signature={"s": x.dtype, "i": lib.int32}), (4, 3)),
    ("map_spec", lambda lib, x, h: lib.map_fn(lambda r: (r[:2], lib.reduce_max(r)), x,
                                              fn_output_signature=(lib.TensorSpec([2], x.dtype), x.dtype)), (3, 3)),
    ("scan_cumsum", lambda lib, x, h: lib.scan(lambda a, r: a + r, x), (5,)),
    ("scan_rnn", lambda lib, x, h: lib.scan(lambda a, r: lib.tanh(a * 0.8 + r), x, initializer=h), (6, 3)),
    ("scan_reverse", lambda lib, x, h: lib.scan(lambda a, r: a * r + 1.0, x, initializer=h, reverse=True), (4, 3)),
    ("scan_reverse_no_init", lambda lib, x, h: lib.scan(lambda a, r: a * 0.5 - r, x, reverse=True), (4, 2)),
    ("scan_tuple", lambda lib, x, h: lib.scan(lambda a, r: (a[0] + r, a[1] * r), x, initializer=(h, h)), (3, 3)),
    ("scan_dict_elems", lambda lib, x, h: lib.scan(lambda a, d: a + d["u"] * d["v"], {"u": x, "v": x * 2.0},
                                                   initializer=h), (4, 3)),
    ("foldl", lambda lib, x, h: lib.foldl(lambda a, r: lib.sin(a) + r * a, x, initializer=h), (5, 3)),
    ("foldl_no_init", lambda lib, x, h: lib.foldl(lambda a, r: a * r + r, x), (4,)),
    ("foldr", lambda lib, x, h: lib.foldr(lambda a, r: lib.sin(a) + r * a, x, initializer=h), (5, 3)),
    ("foldr_no_init", lambda lib, x, h: lib.foldr(lambda a, r: a * 10.0 + r, x), (4,)),
    ("foldl_tuple", lambda lib, x, h: lib.foldl(lambda a, r: (a[0] + r, a[1] * lib.exp(r)), x,
                                                initializer=(h, h)), (3, 3)),
    ("vectorized_map", lambda lib, x, h: lib.vectorized_map(lambda r: lib.reduce_prod(r) * r + h, x), (4, 3)),
    ("vectorized_map_struct", lambda lib, x, h: lib.vectorized_map(
        lambda p: {"a": p[0] * p[1], "b": lib.reduce_sum(p[0])}, (x, x * x)), (3, 2)),
]


def _run(lib, fn, x_np, h_np, dtype, traced):
    x, h = lib.constant(x_np, dtype), lib.constant(h_np, dtype)
    call = lib.function(lambda x, h: fn(lib, x, h)) if traced else (lambda x, h: fn(lib, x, h))
    with lib.GradientTape() as tape:
        tape.watch([x, h])
        out = call(x, h)
        floats = [t for t in lib.nest.flatten(out) if t.dtype.is_floating]
        loss = lib.add_n([lib.reduce_sum(t * t) for t in floats])
    gx, gh = tape.gradient(loss, [x, h])
    return out, gx, gh


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,fn,shape", CASES, ids=[c[0] for c in CASES])
def test_matches_tf(name, fn, shape, dtype, traced):
    rng = np.random.default_rng(len(name))
    x_np = rng.uniform(-1, 1, shape).astype(dtype)
    h_np = rng.uniform(-1, 1, shape[1:]).astype(dtype)
    got = _run(tg, fn, x_np, h_np, getattr(tg, dtype), traced)
    want = _run(ref, fn, x_np, h_np, getattr(ref, dtype), traced)
    got_out, want_out = tg.nest.flatten(got[0]), ref.nest.flatten(want[0])
    assert len(got_out) == len(want_out)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for g, w in zip(got_out, want_out):
        assert g.dtype.name == w.dtype.name and tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=tol, atol=tol)
    for g, w in zip(got[1:], want[1:]):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("n", [0, 1, 3, 7])
def test_traced_lengths_match_tf(n):
    # one function per library, called with each length: TF's graph serves every length, so must ours
    def body(lib):
        def f(x):
            return (lib.map_fn(lambda r: r * 2.0, x), lib.scan(lambda a, r: a + r, x, initializer=lib.zeros([2])),
                    lib.foldr(lambda a, r: a * 0.5 + r, x, initializer=lib.ones([2])))
        return f

    x_np = np.arange(2 * n, dtype="float32").reshape(n, 2)
    for lib_out, ref_out in zip(tg.function(body(tg))(tg.constant(x_np)), ref.function(body(ref))(ref.constant(x_np))):
        assert tuple(lib_out.shape) == tuple(ref_out.shape)
        np.testing.assert_allclose(lib_out.numpy(), ref_out.numpy())


def test_empty_eager_shapes_match_tf():
    e = np.zeros((0, 3), "float32")
    for lib_fn in (lambda lib: lib.map_fn(lambda r: r * 2.0, lib.constant(e)),
                   lambda lib: lib.map_fn(lambda r: r, lib.constant(e), fn_output_signature=lib.TensorSpec([3])),
                   lambda lib: lib.scan(lambda a, r: a + r, lib.constant(e), initializer=lib.ones([3])),
                   lambda lib: lib.foldl(lambda a, r: a + r, lib.constant(e), initializer=lib.ones([3])),
                   lambda lib: lib.vectorized_map(lambda r: r * 2.0, lib.constant(e))):
        got, want = lib_fn(tg), lib_fn(ref)
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy())


ERRORS = [
    ("different_rows", lambda lib: lib.map_fn(lambda p: p[0] + p[1], (lib.ones([2]), lib.ones([3])))),
    ("scalar_elems", lambda lib: lib.map_fn(lambda r: r, lib.constant(1.0))),
    ("scan_structure", lambda lib: lib.scan(lambda a, r: (a, a), lib.ones([3]))),
    ("scan_sequence_type", lambda lib: lib.scan(lambda a, r: [a[0]], lib.ones([3]), initializer=(0.0,))),
    ("map_structure", lambda lib: lib.map_fn(lambda r: (r, r), lib.ones([3]))),
    ("map_dtype", lambda lib: lib.map_fn(lambda r: lib.cast(r, lib.int32), lib.ones([3]))),
    ("map_spec_shape", lambda lib: lib.map_fn(lambda r: r, lib.ones([3, 2]), fn_output_signature=lib.TensorSpec([3]))),
    ("scan_dtype", lambda lib: lib.scan(lambda a, r: lib.cast(a, lib.int32), lib.ones([3]))),
    ("scan_shape", lambda lib: lib.scan(lambda a, r: lib.concat([a, r], 0), lib.ones([3, 2]))),
    ("scan_empty", lambda lib: lib.scan(lambda a, r: a + r, lib.zeros([0, 2]))),
    ("foldl_empty", lambda lib: lib.foldl(lambda a, r: a + r, lib.zeros([0, 2]))),
    ("foldr_empty", lambda lib: lib.foldr(lambda a, r: a + r, lib.zeros([0, 2]))),
]


@pytest.mark.parametrize("name,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_error_classes_match_tf(name, call):
    with pytest.raises(Exception) as want:
        call(ref)
    expected = getattr(tg.errors, type(want.value).__name__, None) or type(want.value)
    with pytest.raises(expected):
        call(tg)
