"""NumPy samplers behind tf.random's distributions, with TF's answers at invalid parameters, and the
derivative of a gamma sample with respect to its shape parameter (for alpha's gradient)."""
import math

import numpy as np


def truncated_normal(rng, shape, np_dtype):
    """Standard normal values, those beyond two standard deviations drawn again (as TF)."""
    z = rng.standard_normal(shape, dtype=np_dtype)
    bad = np.abs(z) > 2.0
    while bad.any():
        z[bad] = rng.standard_normal(int(bad.sum()), dtype=np_dtype)
        bad = np.abs(z) > 2.0
    return z


def full_int(rng, shape, np_dtype):
    info = np.iinfo(np_dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=np_dtype, endpoint=True)


def gamma(rng, a):
    """Gamma(a, 1) samples in float64: NaN where a < 0 or is NaN, 0 where a == 0 (TF's answers)."""
    ok = a > 0
    x = rng.standard_gamma(np.where(ok, a, 1.0))
    return np.where(ok, x, np.where(a == 0, 0.0, np.nan))


def poisson(rng, lam):
    """Poisson samples in float64: 0 where lam <= 0; a NaN or infinite lam stays as it is (TF's kernel
    does not return there); beyond 1e18 the draw's spread is below float64's resolution: lam itself."""
    ok = (lam > 0) & (lam < 1e18)
    k = np.asarray(rng.poisson(np.where(ok, lam, 0.0)), np.float64)  # a 0-d lam gives a Python int
    return np.where(ok, k, np.where(np.isnan(lam) | (lam >= 1e18), np.round(lam), 0.0))


def binomial(rng, n, p):
    """Binomial samples in float64, as TF's kernel: n rounded down, and 0 successes where n <= 0 or p is
    NaN; p outside [0, 1] is clipped to it."""
    n = np.floor(np.nan_to_num(np.clip(n, 0, 2.0 ** 62), nan=0.0))
    q = np.nan_to_num(np.clip(p, 0.0, 1.0), nan=0.0)
    return np.asarray(rng.binomial(np.asarray(n, np.int64), q), np.float64)


# Note [Gamma's implicit gradient]
# A gamma sample x of shape a solves P(a, x) = u for a fixed uniform u (P: the regularized lower
# incomplete gamma function), so dx/da = -(dP/da)(a, x) / p(x; a), p the density: TF's "implicit
# reparameterization" gradient. dP/da is a central difference of P (a series below x = a + 1, a
# continued fraction for 1 - P above, each in float64: about 1e-9 relative error); beyond a = 2000 the
# Wilson-Hilferty approximation x = a (1 - 1/(9a) + z / (3 sqrt(a)))^3, z held fixed, is differentiated.

def _lgamma(a):
    return np.vectorize(math.lgamma, otypes=[np.float64])(a)


def _series(a, x):
    """sum over n >= 0 of x^n / ((a+1)...(a+n)), each element iterated until its terms stop counting."""
    out = np.empty_like(x)
    idx, term, total, ap, xs = np.arange(x.size), np.ones_like(x), np.ones_like(x), a.copy(), x.copy()
    for k in range(1, 20000):
        ap += 1.0
        term *= xs / ap
        total += term
        if k % 8 == 0:  # the finished elements leave the loop
            done = term <= total * 1e-16
            out[idx[done]] = total[done]
            keep = ~done
            idx, term, total, ap, xs = idx[keep], term[keep], total[keep], ap[keep], xs[keep]
            if not idx.size:
                break
    out[idx] = total
    return out


def _fraction(a, x):
    """The continued fraction of 1 - P(a, x) = exp(-x) x^a / Gamma(a) * fraction, by Lentz's method."""
    tiny = 1e-300
    out = np.empty_like(x)
    idx, ac, b = np.arange(x.size), a.copy(), x + 1.0 - a
    c, d = np.full_like(x, 1.0 / tiny), 1.0 / b
    h = d.copy()
    for i in range(1, 20000):
        an = -i * (i - ac)
        b += 2.0
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        delta = d * c
        h *= delta
        if i % 8 == 0:
            done = np.abs(delta - 1.0) < 1e-16
            out[idx[done]] = h[done]
            keep = ~done
            idx, ac, b, c, d, h = idx[keep], ac[keep], b[keep], c[keep], d[keep], h[keep]
            if not idx.size:
                break
    out[idx] = h
    return out


def _lower_or_minus_upper(a, x, lga, use_series):
    """P(a, x) where use_series, else -(1 - P(a, x)): the same derivative in a, each side accurate."""
    out = np.empty_like(x)
    a_s, x_s = a[use_series], x[use_series]
    out[use_series] = _series(a_s, x_s) * np.exp(a_s * np.log(x_s) - x_s - lga[use_series] - np.log(a_s))
    a_c, x_c = a[~use_series], x[~use_series]
    out[~use_series] = -np.exp(a_c * np.log(x_c) - x_c - lga[~use_series]) * _fraction(a_c, x_c)
    return out


def gamma_dx_da(x, alpha, shape):
    """d x / d alpha for gamma samples x (Gamma(alpha, 1), alpha broadcast to ``shape``), float64;
    0 where it is not finite (x = 0, invalid alpha). Note [Gamma's implicit gradient]."""
    alpha = np.asarray(alpha, np.float64)
    a = np.broadcast_to(alpha, shape).reshape(-1)
    x = np.asarray(x, np.float64).reshape(-1)
    out = np.zeros_like(x)
    with np.errstate(all="ignore"):
        ok = (a > 0) & (x > 0) & np.isfinite(x)
        big = ok & (a >= 2000)
        t = np.cbrt(x[big] / a[big])
        ab = a[big]
        z = (t - 1.0 + 1.0 / (9.0 * ab)) * 3.0 * np.sqrt(ab)
        out[big] = t ** 3 + 3.0 * ab * t * t * (1.0 / (9.0 * ab * ab) - z / (6.0 * ab ** 1.5))
        small = ok & ~big
        a_k, x_k = a[small], x[small]
        h = a_k * 1e-5
        series = x_k < a_k + 1.0
        # lgamma once per distinct alpha: alpha usually has far fewer values than the samples
        values, where = np.unique(a_k, return_inverse=True)
        lg = [_lgamma(values + d)[where] for d in (-1e-5 * values, 1e-5 * values, 0.0 * values)]
        dp = (_lower_or_minus_upper(a_k + h, x_k, lg[1], series)
              - _lower_or_minus_upper(a_k - h, x_k, lg[0], series)) / (2.0 * h)
        density = np.exp((a_k - 1.0) * np.log(x_k) - x_k - lg[2])
        out[small] = -dp / density
    out[~np.isfinite(out)] = 0.0
    return out.reshape(shape)
