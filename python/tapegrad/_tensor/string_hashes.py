"""The 64-bit string hashes behind tf.strings.to_hash_bucket*, written from the published algorithms and
vectorized over a batch with NumPy uint64 arithmetic (which wraps modulo 2**64, as C++'s uint64 does):

- fingerprint64: FarmHash's Fingerprint64 (farmhashna's Hash64, the CityHash v1.1 layout), TF's
  Fingerprint64 and so to_hash_bucket_fast;
- siphash24: SipHash-2-4 keyed by two uint64 words, TF's StrongKeyedHash (to_hash_bucket_strong);
- murmur64: MurmurHash64A seeded with 0xDECAFCAFFE, TF's legacy Hash64 (to_hash_bucket).

Each takes a flat sequence of bytes objects and returns a uint64 array. The control flow of all three
depends only on the length, so strings are hashed in groups of one length, each group a uint8 matrix
(see by_length).
"""
import numpy as np

# Hashing by length: a group of n strings of length L is an (n, L) uint8 matrix; "fetch 8 bytes at
# offset o" is one little-endian uint64 column. The loops below run over blocks of a length, never over
# strings, so a batch of any size takes one pass per distinct length.

_U = np.uint64
K0, K1, K2 = _U(0xc3a5c85c97cb3127), _U(0xb492b66fbe98f273), _U(0x9ae16a3b2f90404f)  # FarmHash's primes
MURMUR_MUL, MURMUR_SEED = _U(0xc6a4a7935bd1e995), 0xDECAFCAFFE


def _fetch64(rows, offset):
    return np.ascontiguousarray(rows[:, offset:offset + 8]).view("<u8")[:, 0].astype(np.uint64)


def _fetch32(rows, offset):
    return np.ascontiguousarray(rows[:, offset:offset + 4]).view("<u4")[:, 0].astype(np.uint64)


def _rotate(v, shift):
    """Rotate right by ``shift`` bits."""
    return v if shift == 0 else (v >> _U(shift)) | (v << _U(64 - shift))


def _rotl(v, shift):
    return (v << _U(shift)) | (v >> _U(64 - shift))


def _shift_mix(v):
    return v ^ (v >> _U(47))


def by_length(values, hash_rows):
    """hash_rows((n, L) uint8 matrix, L) -> uint64[n], applied to each group of equal-length strings."""
    out = np.zeros(len(values), dtype=np.uint64)
    lengths = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
    for size in np.unique(lengths):
        where = np.flatnonzero(lengths == size)
        rows = np.frombuffer(b"".join(values[i] for i in where), dtype=np.uint8).reshape(len(where), int(size))
        out[where] = hash_rows(rows, int(size))
    return out


# -- FarmHash Fingerprint64 (farmhashna::Hash64) --

def _hash_len16(u, v, mul):
    a = (u ^ v) * mul
    a ^= a >> _U(47)
    b = (v ^ a) * mul
    b ^= b >> _U(47)
    return b * mul


def _len_0_to_16(s, n):
    count = s.shape[0]
    if n >= 8:
        mul = K2 + _U(n * 2)
        a = _fetch64(s, 0) + K2
        b = _fetch64(s, n - 8)
        c = _rotate(b, 37) * mul + a
        d = (_rotate(a, 25) + b) * mul
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = K2 + _U(n * 2)
        return _hash_len16(_U(n) + (_fetch32(s, 0) << _U(3)), _fetch32(s, n - 4), mul)
    if n > 0:
        a, b, c = (s[:, i].astype(np.uint64) for i in (0, n >> 1, n - 1))
        y = (a + (b << _U(8))) & _U(0xFFFFFFFF)
        z = (_U(n) + (c << _U(2))) & _U(0xFFFFFFFF)
        return _shift_mix(y * K2 ^ z * K0) * K2
    return np.full(count, K2, dtype=np.uint64)


def _len_17_to_32(s, n):
    mul = K2 + _U(n * 2)
    a = _fetch64(s, 0) * K1
    b = _fetch64(s, 8)
    c = _fetch64(s, n - 8) * mul
    d = _fetch64(s, n - 16) * K2
    return _hash_len16(_rotate(a + b, 43) + _rotate(c, 30) + d, a + _rotate(b + K2, 18) + c, mul)


def _len_33_to_64(s, n):
    mul = K2 + _U(n * 2)
    a = _fetch64(s, 0) * K2
    b = _fetch64(s, 8)
    c = _fetch64(s, n - 8) * mul
    d = _fetch64(s, n - 16) * K2
    y = _rotate(a + b, 43) + _rotate(c, 30) + d
    z = _hash_len16(y, a + _rotate(b + K2, 18) + c, mul)
    e = _fetch64(s, 16) * mul
    f = _fetch64(s, 24)
    g = (y + _fetch64(s, n - 32)) * mul
    h = (z + _fetch64(s, n - 24)) * mul
    return _hash_len16(_rotate(e + f, 43) + _rotate(g, 30) + h, e + _rotate(f + a, 18) + g, mul)


def _weak_len32_with_seeds(s, offset, a, b):
    """FarmHash's WeakHashLen32WithSeeds over the 32 bytes at ``offset``: a pair of uint64 arrays."""
    w, x, y, z = (_fetch64(s, offset + 8 * i) for i in range(4))
    a = a + w
    b = _rotate(b + a + z, 21)
    c = a
    a = a + x + y
    b = b + _rotate(a, 44)
    return a + z, b + c


def _len_over_64(s, n):
    zero = np.zeros(s.shape[0], dtype=np.uint64)
    seed = zero + _U(81)
    y = seed * K1 + _U(113)
    z = _shift_mix(y * K2 + _U(113)) * K2
    x = seed * K2 + _fetch64(s, 0)
    v, w = (zero, zero), (zero, zero)
    for at in range(0, ((n - 1) // 64) * 64, 64):  # every whole 64-byte block but the last bytes
        x = _rotate(x + y + v[0] + _fetch64(s, at + 8), 37) * K1
        y = _rotate(y + v[1] + _fetch64(s, at + 48), 42) * K1
        x = x ^ w[1]
        y = y + v[0] + _fetch64(s, at + 40)
        z = _rotate(z + w[0], 33) * K1
        v = _weak_len32_with_seeds(s, at, v[1] * K1, x + w[0])
        w = _weak_len32_with_seeds(s, at + 32, z + w[1], y + _fetch64(s, at + 16))
        z, x = x, z
    last = n - 64  # the final block is the last 64 bytes, overlapping the previous one
    mul = K1 + ((z & _U(0xFF)) << _U(1))
    w = (w[0] + _U((n - 1) & 63), w[1])
    v = (v[0] + w[0], v[1])
    w = (w[0] + v[0], w[1])
    x = _rotate(x + y + v[0] + _fetch64(s, last + 8), 37) * mul
    y = _rotate(y + v[1] + _fetch64(s, last + 48), 42) * mul
    x = x ^ (w[1] * _U(9))
    y = y + v[0] * _U(9) + _fetch64(s, last + 40)
    z = _rotate(z + w[0], 33) * mul
    v = _weak_len32_with_seeds(s, last, v[1] * mul, x + w[0])
    w = _weak_len32_with_seeds(s, last + 32, z + w[1], y + _fetch64(s, last + 16))
    z, x = x, z
    return _hash_len16(_hash_len16(v[0], w[0], mul) + _shift_mix(y) * K0 + z,
                       _hash_len16(v[1], w[1], mul) + x, mul)


def _fingerprint_rows(s, n):
    if n <= 16:
        return _len_0_to_16(s, n)
    if n <= 32:
        return _len_17_to_32(s, n)
    return _len_33_to_64(s, n) if n <= 64 else _len_over_64(s, n)


def fingerprint64(values):
    """FarmHash Fingerprint64 of each bytes object in ``values``: uint64 array."""
    return by_length(values, _fingerprint_rows)


# -- SipHash-2-4 --

# "somepseudorandomlygeneratedbytes", SipHash's initial state
_SIP_INIT = (0x736f6d6570736575, 0x646f72616e646f6d, 0x6c7967656e657261, 0x7465646279746573)


def _sip_rounds(v, count):
    v0, v1, v2, v3 = v
    for _ in range(count):
        v0 = v0 + v1
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = v2 + v3
        v3 = _rotl(v3, 16) ^ v2
        v0 = v0 + v3
        v3 = _rotl(v3, 21) ^ v0
        v2 = v2 + v1
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    return [v0, v1, v2, v3]


def siphash24(values, key0, key1):
    """SipHash-2-4 of each bytes object under the 128-bit key (key0, key1), both uint64: uint64 array."""
    def rows_hash(s, n):
        zero = np.zeros(s.shape[0], dtype=np.uint64)
        keys = (key0, key1, key0, key1)
        v = [zero + (_U(k) ^ _U(c)) for k, c in zip(keys, _SIP_INIT)]
        whole = n - n % 8
        tail = np.zeros((s.shape[0], 8), dtype=np.uint8)
        tail[:, :n - whole] = s[:, whole:]
        tail[:, 7] = n & 0xFF  # the last word carries the length's low byte
        words = [_fetch64(s, at) for at in range(0, whole, 8)] + [_fetch64(tail, 0)]
        for m in words:
            v[3] = v[3] ^ m
            v = _sip_rounds(v, 2)
            v[0] = v[0] ^ m
        v[2] = v[2] ^ _U(0xFF)
        v = _sip_rounds(v, 4)
        return v[0] ^ v[1] ^ v[2] ^ v[3]
    return by_length(values, rows_hash)


# -- MurmurHash64A (TF's legacy Hash64) --

def _murmur_rows(s, n):
    m, r = MURMUR_MUL, _U(47)
    h = np.zeros(s.shape[0], dtype=np.uint64) + _U(MURMUR_SEED ^ (n * int(m) % 2 ** 64))
    whole = n - n % 8
    for at in range(0, whole, 8):
        k = _fetch64(s, at) * m
        k = (k ^ (k >> r)) * m
        h = (h ^ k) * m
    if n > whole:  # the 1..7 trailing bytes, little-endian
        tail = np.zeros((s.shape[0], 8), dtype=np.uint8)
        tail[:, :n - whole] = s[:, whole:]
        h = (h ^ _fetch64(tail, 0)) * m
    h = (h ^ (h >> r)) * m
    return h ^ (h >> r)


def murmur64(values):
    """TF's legacy Hash64 (MurmurHash64A, seed 0xDECAFCAFFE) of each bytes object: uint64 array."""
    return by_length(values, _murmur_rows)
