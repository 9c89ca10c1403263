"""The inputs keras.ops is checked on against Keras 3 (test_tf_oracle_keras_ops.py): one row a name, each
either (args, kwargs) of NumPy values or a function of the ops module (for callables and structures)."""
import numpy as np

_rng = np.random.default_rng(0)
A = _rng.normal(size=(3, 4)).astype("float32")
A2 = _rng.normal(size=(3, 4)).astype("float32")
D = _rng.normal(size=(3, 4))  # float64
P = (np.abs(A) + 0.5).astype("float32")  # positive
U = _rng.uniform(-0.9, 0.9, size=(3, 4)).astype("float32")  # inside (-1, 1)
G = (np.abs(A) + 1.5).astype("float32")  # above 1
I = _rng.integers(-5, 6, size=(3, 4)).astype("int32")
I2 = _rng.integers(1, 4, size=(3, 4)).astype("int32")
L = _rng.integers(-5, 6, size=(3, 4)).astype("int64")
B = _rng.random((3, 4)) > 0.5
V = _rng.normal(size=(5,)).astype("float32")
V3, W3 = _rng.normal(size=(2, 3)).astype("float32"), _rng.normal(size=(2, 3)).astype("float32")
M = _rng.normal(size=(3, 3)).astype("float32")
SPD = (M @ M.T + 3 * np.eye(3)).astype("float32")
LOW = np.tril(M + 3 * np.eye(3)).astype("float32")
NAN = np.array([[1.0, np.nan, -2.0], [np.inf, 0.5, -np.inf]], "float32")
NAN_FINITE = np.array([[1.0, np.nan, -2.0], [3.0, 0.5, np.nan]], "float32")  # Keras's nancumsum clips infinities
X4 = _rng.normal(size=(2, 6, 6, 3)).astype("float32")
X3 = _rng.normal(size=(2, 7, 3)).astype("float32")
K2 = _rng.normal(size=(3, 3, 3, 4)).astype("float32")
K1 = _rng.normal(size=(3, 3, 4)).astype("float32")
DW = _rng.normal(size=(3, 3, 3, 2)).astype("float32")
PW = _rng.normal(size=(1, 1, 6, 5)).astype("float32")
IMG = _rng.random((2, 6, 8, 3)).astype("float32")
BIG = _rng.random((2, 16, 17, 3)).astype("float32")
BIG2 = np.clip(BIG + 0.1 * _rng.normal(size=BIG.shape), 0, 1).astype("float32")
Q, KEY, VAL = (_rng.normal(size=(2, 4, 2, 8)).astype("float32") for _ in range(3))
PROBS = (np.exp(A) / np.exp(A).sum(-1, keepdims=True)).astype("float32")
ONEHOT = np.eye(4, dtype="float32")[[0, 3, 1]]
SIG = (1 / (1 + np.exp(-A))).astype("float32")
LABELS = (A2 > 0).astype("float32")
SORTED = np.array([-1.0, 0.0, 0.5, 2.0], "float32")
INDEX = np.array([[0, 2], [3, 1], [1, 1]], "int32")

_UNARY_FLOAT = ["arccos", "arcsin", "arctanh", "erfinv"]  # on U
_UNARY_POSITIVE = ["log", "log1p", "log2", "log10", "sqrt", "rsqrt", "reciprocal"]  # on P
_UNARY = ["abs", "absolute", "negative", "square", "sign", "exp", "expm1", "cos", "cosh", "sin", "sinh", "tan",
          "tanh", "arctan", "arcsinh", "cbrt", "exp2", "floor", "ceil", "trunc", "deg2rad", "rad2deg", "sinc",
          "fabs", "angle", "round", "erf", "erfc", "copy", "conj", "conjugate", "real", "imag", "isreal",
          "signbit", "logical_not", "relu", "relu6", "sigmoid", "softplus", "softsign", "silu", "swish",
          "log_sigmoid", "selu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "tanh_shrink",
          "sparse_plus", "sparse_sigmoid", "elu", "celu", "leaky_relu", "gelu", "softmax", "log_softmax",
          "sparsemax", "hard_shrink", "soft_shrink", "squareplus", "glu", "ravel", "ndim", "size", "dtype",
          "shape", "stop_gradient", "convert_to_tensor", "array", "zeros_like", "ones_like", "empty_like",
          "flip", "fliplr", "flipud", "transpose", "squeeze", "sort", "argsort", "cumsum", "cumprod", "diff",
          "trapezoid", "is_tensor", "logsumexp", "count_nonzero", "median", "unstack"]
_REDUCTIONS = ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "argmax", "argmin", "all",
               "any", "ptp", "nansum", "nanprod", "nanmax", "nanmin", "nanmean"]
_BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "power", "mod",
           "floor_divide", "fmod", "arctan2", "hypot", "divide_no_nan", "logaddexp", "heaviside", "fmax", "fmin",
           "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
           "logical_xor", "isclose", "nextafter"]

CASES = {}
CASES.update({n: ((U,), {}) for n in _UNARY_FLOAT})
CASES.update({n: ((P,), {}) for n in _UNARY_POSITIVE})
CASES.update({n: ((A,), {}) for n in _UNARY})
CASES.update({"arccosh": ((G,), {}), "isnan": ((NAN,), {}), "isinf": ((NAN,), {}), "isfinite": ((NAN,), {}),
              "isposinf": ((NAN,), {}), "isneginf": ((NAN,), {}), "nan_to_num": ((NAN,), {"nan": 3.0})})
CASES.update({n: ((A,), {"axis": 1, "keepdims": True}) for n in _REDUCTIONS})
CASES.update({n: ((A, A2), {}) for n in _BINARY})
CASES.update({  # dtype promotion rows: int tensors with Python floats and float tensors
    "add": ((I, 1.5), {}), "multiply": ((I, A), {}), "subtract": ((L, A), {}), "power": ((I2, 2), {}),
    "divide": ((I, I2), {}), "floor_divide": ((I, I2), {}), "mod": ((I, I2), {}), "maximum": ((B, I), {}),
    "ldexp": ((A, I), {}), "allclose": ((A, A + 1e-9), {}),
})
CASES.update({
    "sqrt": ((I2,), {}), "mean": ((I,), {"axis": 0}), "sum": ((B,), {}), "exp": ((I,), {}), "abs": ((I,), {}),
    "clip": ((A, -0.5, 0.5), {}), "average": ((A,), {"axis": 1, "weights": np.array([1., 2., 3., 4.], "float32")}),
    "cast": ((A, "int32"), {}), "saturate_cast": ((D * 1e10, "int32"), {}),
    "arange": ((2, 11, 3), {}), "full": (((2, 3), 7), {}), "full_like": ((I, 2.5), {}), "eye": ((3, 4, 1), {}),
    "tri": ((3, 4, -1), {}), "identity": ((3,), {}), "zeros": (((2, 3),), {}), "ones": (((2,),), {"dtype": "int32"}),
    "empty": (((2, 3),), {}), "tril": ((A, -1), {}), "triu": ((A, 1), {}),
    "linspace": ((0.0, 1.0, 7), {"endpoint": False}), "logspace": ((0.0, 2.0, 5), {}),
    "geomspace": ((1.0, 1000.0, 4), {}), "hanning": ((7,), {}), "hamming": ((6,), {}), "blackman": ((5,), {}),
    "bartlett": ((7,), {}), "vander": ((V,), {"N": 3}),
    "reshape": ((A, (2, 6)), {}), "expand_dims": ((A, (0, 3)), {}), "moveaxis": ((X4, [0, 3], [3, 1]), {}),
    "swapaxes": ((X4, 1, 3), {}), "broadcast_to": ((V, (2, 5)), {}), "concatenate": (([A, I],), {"axis": 1}),
    "append": ((A, A2), {}), "stack": (([A, A2],), {"axis": 1}), "hstack": (([A, A2],), {}),
    "vstack": (([A, A2],), {}), "dstack": (([A, A2],), {}), "split": ((A, [1, 3]), {"axis": 1}),
    "array_split": ((V, 3), {}), "hsplit": ((A, 2), {}), "vsplit": ((A, 3), {}), "dsplit": ((X4, 3), {}),
    "tile": ((V3, (2, 1, 2)), {}), "repeat": ((A, 2), {"axis": 0}), "roll": ((A, 2), {}),
    "rot90": ((A,), {"k": 3}), "pad": ((A, ((1, 2), (0, 1))), {"mode": "reflect"}),
    "get_item": lambda ops: ops.get_item(A, (slice(1, None), 2)),
    "where": ((A > 0, A, A2), {}), "nonzero": ((I,), {}), "select": (([A > 0.5, A < -0.5], [A, A2]), {"default": 9.0}),
    "searchsorted": ((SORTED, V), {"side": "right"}), "digitize": ((V, SORTED), {}),
    "take": ((A, np.array([[0, -1], [2, 1]], "int32")), {"axis": 1}), "take_along_axis": ((A, INDEX), {"axis": 1}),
    "diagonal": ((X4, 1, 1, 2), {}), "diag": ((V, 1), {}), "diagflat": ((A,), {}), "trace": ((A, 1), {}),
    "matmul": ((A, A2.T), {}), "dot": ((X3, A), {}), "tensordot": ((A, A2), {"axes": [[1], [1]]}),
    "outer": ((V, V3), {}), "inner": ((A, A2), {}), "vdot": ((A, A2), {}), "kron": ((V3, W3), {}),
    "cross": ((V3, W3), {}), "isin": ((I, np.array([1, 2, 3], "int32")), {}), "unravel_index": ((I2 * 3, (4, 3)), {}),
    "bincount": ((I2,), {"minlength": 6}), "quantile": ((A, [0.25, 0.5]), {"axis": 1}),
    "percentile": ((A, 30.0), {}), "median": ((A,), {"axis": 0, "keepdims": True}), "slogdet": ((SPD,), {}),
    "einsum": (("ij,kj->ik", A, A2), {}), "meshgrid": ((V, V3[0]), {"indexing": "ij"}),
    "cumsum": ((A,), {"axis": 1}), "cumprod": ((I2,), {"axis": 0}), "diff": ((A,), {"n": 2, "axis": 0}),
    "trapezoid": ((A,), {"dx": 0.5, "axis": 0}), "round": ((A * 100,), {"decimals": -1}),
    "max": ((A,), {"axis": 0, "initial": 0.5}), "argmax": ((A,), {}), "std": ((A,), {}),
    "count_nonzero": ((I,), {"axis": 1}), "squeeze": ((A[None],), {"axis": 0}), "transpose": ((X4, (3, 0, 2, 1)), {}),
    "sort": ((A,), {"axis": 0}), "argsort": ((I,), {"axis": 0}), "flip": ((A,), {"axis": 1}),
    "softmax": ((A,), {"axis": 0}), "log_softmax": ((A,), {"axis": 0}), "gelu": ((A,), {"approximate": False}),
    "elu": ((A,), {"alpha": 0.5}), "celu": ((A,), {"alpha": 2.0}), "leaky_relu": ((A,), {"negative_slope": 0.1}),
    "threshold": ((A, 0.1, -5.0), {}), "squareplus": ((A,), {"b": 2}), "glu": ((A,), {"axis": 1}),
    "one_hot": ((INDEX, 4), {}), "multi_hot": ((INDEX, 4), {}),
    "moments": ((X4, (0, 1, 2)), {}), 
    "batch_normalization": ((X4, V[:3], P[0, :3], 3), {"offset": V[2:], "scale": A[0, :3]}),
    "binary_crossentropy": ((LABELS, SIG), {}), "categorical_crossentropy": ((ONEHOT, PROBS), {}),
    "sparse_categorical_crossentropy": ((np.array([0, 3, 1], "int32"), A), {"from_logits": True}),
    "layer_normalization": ((A,), {"gamma": P[0], "beta": V[:4]}), "rms_normalization": ((A,), {"scale": P[1]}),
    "normalize": ((A,), {"axis": 0}), "psnr": ((IMG, IMG[::-1], 1.0), {}),
    "dot_product_attention": ((Q, KEY, VAL), {"is_causal": True}),
    "conv": ((X4, K2), {"strides": 2, "padding": "same"}), "depthwise_conv": ((X4, DW), {"dilation_rate": 2}),
    "separable_conv": ((X4, DW, PW), {"padding": "same"}),
    "conv_transpose": ((X4, np.transpose(K2, (0, 1, 3, 2))[..., :4, :]), {"strides": 2, "padding": "same"}),
    "max_pool": ((X4, 2), {}), "average_pool": ((X3, 3), {"strides": 2, "padding": "same"}),
    "depth_to_space": ((np.tile(X4, (1, 1, 1, 4))[..., :12], 2), {}), "space_to_depth": ((X4, 2), {}),
    "cholesky": ((SPD,), {"upper": True}), "cholesky_inverse": ((LOW,), {}), "det": ((M,), {}), "inv": ((SPD,), {}),
    "solve": ((SPD, V[:3]), {}), "solve_triangular": ((LOW, M), {"lower": True}),
    "lstsq": ((A.T, V[:4]), {}), "pinv": ((A,), {}), "matrix_rank": ((A,), {}), "norm": ((A,), {"ord": "fro"}),
    "logdet": ((SPD,), {}),
    "eigh": lambda ops: ops.abs(ops.eigh(SPD)[0]),
    "svd": lambda ops: ops.svd(A, compute_uv=False),
    "jvp": lambda ops: ops.linalg.jvp(lambda x: ops.sin(x) * 2.0, (ops.convert_to_tensor(A),),
                                     (ops.convert_to_tensor(A2),)),
    "resize": ((IMG, (3, 5)), {}), "extract_patches": ((IMG, 2), {}),
    "affine_transform": ((IMG, np.array([1.2, 0.3, -1.5, -0.2, 0.9, 2.25, 0.0, 0.0], "float32")),
                         {"fill_mode": "reflect"}),
    "pad_images": ((IMG, 1, 2), {"target_height": 9, "target_width": 11}),
    "crop_images": ((IMG, 1, 2), {"bottom_cropping": 2, "right_cropping": 1}),
    "sobel_edges": ((IMG,), {"data_format": "channels_first"}), "ssim": ((BIG, BIG2), {"filter_size": 7}),
    "gaussian_blur": ((BIG,), {"kernel_size": (5, 5), "sigma": (2.0, 2.0)}),
    "associative_scan": lambda ops: ops.associative_scan(lambda a, b: a + b, A, axis=1),
    "rgb_to_grayscale": ((IMG,), {}), "rgb_to_hsv": ((IMG,), {}), "hsv_to_rgb": ((IMG,), {}),
    "convert_to_numpy": ((A,), {}), "convert_to_tensor": (([1, 2, 3],), {}),
    "cond": lambda ops: ops.cond(ops.sum(A) > 0, lambda: ops.sum(A), lambda: ops.sum(A2)),
    "while_loop": lambda ops: ops.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), (0, A)),
    "fori_loop": lambda ops: ops.fori_loop(0, 4, lambda i, x: x + ops.cast(i, "float32"), A),
    "scan": lambda ops: ops.scan(lambda c, x: (c + x, c * x), ops.zeros((4,)), A),
    "map": lambda ops: ops.map(lambda x: ops.sum(x), A),
    "switch": lambda ops: ops.switch(1, [lambda x: x + 1.0, lambda x: x * 3.0], A),
    "vectorized_map": lambda ops: ops.vectorized_map(lambda x: ops.sum(x * x), A),
    "custom_gradient": lambda ops: ops.custom_gradient(lambda x: (x * 2.0, lambda g: g))(ops.convert_to_tensor(A)),
    "slice": ((A, (1, 1), (2, 2)), {}), "slice_update": ((A, (1, 2), A2[:2, :2]), {}),
    "scatter": ((INDEX[:, :1], V[:3], (4,)), {}),
    "scatter_update": ((A, np.array([[0, 1], [2, 3]], "int32"), V[:2]), {}),
    "segment_sum": ((A, np.array([0, 0, 1], "int32")), {}), "segment_max": ((A, np.array([0, 2, 2], "int32")), {}),
    "segment_min": ((A, np.array([1, 1, 0], "int32")), {"num_segments": 3}),
    "segment_prod": ((A, np.array([0, 1, 1], "int32")), {}),
    "top_k": ((A, 2), {}), "in_top_k": ((np.array([0, 3, 1], "int32"), A, 2), {}),
    "nanvar": ((NAN,), {"axis": 1}), "nanstd": ((NAN,), {}), "nancumsum": ((NAN_FINITE,), {"axis": 1}),
    "nancumprod": ((NAN_FINITE,), {}), "nanargmax": ((NAN,), {"axis": 1}), "nanargmin": ((NAN,), {}),
    "nanquantile": ((NAN_FINITE, [0.2, 0.9]), {"axis": 1}), "nanpercentile": ((NAN_FINITE, 40.0), {}),
    "nanmedian": ((NAN_FINITE,), {"axis": 1, "keepdims": True}),
    "logaddexp2": ((A, A2), {}), "gcd": ((I * 6, I2 * 4), {}), "lcm": ((I, L), {}), "corrcoef": ((A,), {}),
    "histogram": ((V,), {"bins": 5}),
    "extract_sequences": ((A, 2, 1), {}), "cdist": ((A, A2), {}), "unstack": ((A,), {"axis": 1}),
})

# More argument forms of some names: (name, args, kwargs). Left out where Keras on TF fails (concatenate with
# axis=None, an uneven split, a scalar pad_width, bool + bool, conv channels_first on CPU), where its answer is
# the kernel's own (top_k with sorted=False) and prod's dtype argument, which Keras on TF ignores (tapegrad
# honours it, as NumPy and Keras's documentation do).
VARIANTS = [
    ("arange", (0, 1, 0.1), {}), ("arange", (5,), {"dtype": "float64"}), ("arange", (3.5,), {}),
    ("arange", (10, 2, -3), {}), ("sum", (A,), {"axis": (0, 1)}), ("sum", (I,), {"axis": -1}),
    ("mean", (D,), {"axis": [0]}), ("max", (I,), {"axis": 1}), ("argmin", (A,), {"axis": 0, "keepdims": True}),
    ("argmax", (A,), {"keepdims": True}),
    ("expand_dims", (A, -1), {}), ("squeeze", (A[:, None],), {}), ("transpose", (A,), {}),
    ("linspace", (2.0, 3.0, 5), {"retstep": True}), ("linspace", (0, 10, 6), {"dtype": "int32"}),
    ("eye", (3,), {"k": -1, "dtype": "int32"}), ("full", ((2, 2), 1.5), {"dtype": "float64"}),
    ("zeros", (3,), {"dtype": "bool"}), ("ones_like", (A,), {"dtype": "int64"}),
    ("take", (A, 5), {}), ("take", (A, np.array([0, 2]), 0), {}),
    ("take_along_axis", (A, np.argsort(A, 0)[:2]), {"axis": 0}),
    ("split", (V, [2, 3]), {}), ("repeat", (A, [1, 2, 0]), {"axis": 0}),
    ("tile", (A, 2), {}), ("roll", (A, -1), {"axis": 0}), ("pad", (A, ((1, 1), (1, 1))), {}),
    ("pad", (A, ((0, 1), (2, 0))), {"constant_values": 5.0}), ("pad", (A, ((2, 2), (2, 2))), {"mode": "symmetric"}),
    ("where", (A > 0, A, 0.0), {}), ("where", (B, 1, 2), {}), ("where", (B,), {}),
    ("clip", (I, -1, 2), {}), ("clip", (B, 0, 1), {}), ("round", (A,), {"decimals": 2}),
    ("cumsum", (B,), {}), ("cumsum", (I,), {"dtype": "float32"}), ("prod", (A,), {"axis": 1}),
    ("softmax", (A,), {"axis": (0, 1)}), ("one_hot", (INDEX, 3), {"axis": 0, "dtype": "int32"}),
    ("binary_crossentropy", (LABELS, A), {"from_logits": True}),
    ("categorical_crossentropy", (ONEHOT, A), {"from_logits": True}),
    ("sparse_categorical_crossentropy", (np.array([0, 3, 1], "int32"), PROBS), {}),
    ("conv", (X3, K1), {"dilation_rate": 2}),
    ("max_pool", (X4, (2, 3)), {"strides": 1, "padding": "same"}), ("average_pool", (X4, 2), {}),
    ("depthwise_conv", (X3, DW[0]), {"strides": 2}), ("norm", (A,), {}), ("norm", (A,), {"ord": 1, "axis": 1}),
    ("norm", (A,), {"ord": np.inf}), ("norm", (A,), {"ord": 2}), ("norm", (A,), {"ord": "nuc"}),
    ("norm", (V,), {"ord": 3}), ("norm", (X4,), {"axis": (1, 2), "keepdims": True}),
    ("resize", (IMG, (12, 16)), {"interpolation": "nearest"}), ("resize", (IMG, (12, 16)), {"antialias": True}),
    ("extract_patches", (IMG, (2, 3)), {"strides": 1, "padding": "same"}), ("moments", (A, 0), {"keepdims": True}),
    ("quantile", (A, 0.7), {"axis": 0, "keepdims": True}), ("percentile", (A, [10, 90]), {"axis": (0, 1)}),
    ("cross", (V3, W3), {"axis": 1}), ("dot", (V, V), {}), ("dot", (A, V[:4]), {}), ("matmul", (V[:4], A.T), {}),
    ("matmul", (X4[..., :1], np.ones((1, 2), "float32")), {}), ("solve", (SPD, M), {}),
    ("nonzero", (B,), {}), ("isin", (I, [0, -1]), {"invert": True}), ("digitize", (A, SORTED), {}),
    ("stack", ([I, L],), {}), ("add", (B, 1.5), {}), ("multiply", (L, 2), {}),
    ("divide", (L, L + 10), {}), ("subtract", (D, A), {}), ("power", (A, 2), {}), ("maximum", (A, 0), {}),
    ("equal", (I, 1), {}), ("logical_and", (B, I), {}), ("cast", (B, "float32"), {}),
    ("convert_to_tensor", (1.5,), {}), ("convert_to_tensor", ([[1.0, 2.0]],), {"dtype": "float64"}),
    ("shape", (X4,), {}), ("size", (X4,), {}), ("dtype", (D,), {}), ("ndim", (V,), {}),
    ("slice_update", (I, (0, 1), np.ones((3, 2), "int32")), {}), ("unstack", (A,), {}),
    ("scatter_update", (A, np.array([[0, 1]], "int32"), np.array([9.0], "float32")), {"reduction": "add"}),
    ("segment_sum", (A, np.array([0, 2, 2], "int32")), {"num_segments": 4}),
    ("top_k", (V, 3), {}), ("layer_normalization", (X4,), {"axis": -1, "epsilon": 1e-5}),
    ("rms_normalization", (X4,), {}), ("normalize", (A,), {"order": 1}), ("dot_product_attention", (Q, KEY, VAL),
     {"mask": np.tri(4, dtype=bool)[None, None], "scale": 0.3}), ("svd", (A,), {"compute_uv": False}),
    ("gaussian_blur", (IMG[0],), {}),
    ("affine_transform", (IMG, np.array([[0.8, 0.0, 1.5, 0.1, 1.1, -0.75, 0.0, 0.0]], "float32")),
     {"interpolation": "nearest", "fill_mode": "wrap"}),
    ("gaussian_blur", (np.transpose(BIG, (0, 3, 1, 2)),), {"data_format": "channels_first"}),
    ("quantile", (NAN_FINITE, 0.5), {"axis": 1}), ("median", (X4,), {"axis": (1, 2)}),
    ("nanmedian", (np.array([[np.nan, np.nan], [1.0, 2.0]], "float32"),), {"axis": 1}),
    ("swapaxes", (A, 0, -1), {}), ("average", (A,), {}), ("average", (A,), {"axis": 0, "weights": P}),
]
