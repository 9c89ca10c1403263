"""The keras.ops names tapegrad has no honest mapping for, with why. Each is bound to a function that raises
UnimplementedError naming it (ops/_registry.py's ``unimplemented``), and none is in __all__."""

_COMPLEX = "tapegrad has no complex tensors"
_BITWISE = "tapegrad has no bitwise ops"

UNIMPLEMENTED = {
    **{name: _COMPLEX for name in ("fft", "fft2", "ifft2", "rfft", "irfft", "stft", "istft", "view_as_complex",
                                   "view_as_real", "polar", "eig")},
    **{name: _BITWISE for name in ("bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_not",
                                   "bitwise_or", "bitwise_right_shift", "bitwise_xor", "left_shift",
                                   "right_shift")},
    "view": "no bitcast op",
    "i0": "no Bessel function op",
    "kaiser": "no Bessel function op (the window needs i0)",
    "argpartition": "no partition op; the order of the unsorted part is the backend's own",
    "unique": "tf.unique is 1-D and unsorted; Keras's sorted, size and fill_value have no op",
    "correlate": "no 1-D correlation op with NumPy's modes",
    "vectorize": "not mapped yet (vectorized_map is)", "qr": "no QR decomposition op",
    "lu_factor": "no LU decomposition op",
    "adaptive_average_pool": "no adaptive pooling op", "adaptive_max_pool": "no adaptive pooling op",
    "ctc_loss": "no CTC op", "ctc_decode": "no CTC op", "fold": "no col2im op", "unfold": "no im2col op",
    "rearrange": "no einops pattern parser",
    "perspective_transform": "no projective transform op",
    "elastic_transform": "no projective transform op", "map_coordinates": "no coordinate interpolation op",
    "scale_and_translate": "no scale-and-translate op",
    "extract_patches_3d": "no 3-D patch extraction op",
}
