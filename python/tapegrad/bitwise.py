"""tf.bitwise: bitwise and, or, xor and not of integer tensors, and shifts (registry ops; int8 to int64
and uint8 to uint64, both operands of one dtype, broadcasting). A shift amount outside [0, bits - 1]
is clamped to it, as TF's kernels do."""
from tapegrad._ops._wrap import binary, unary

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

bitwise_and = binary("BitwiseAnd", "bitwise_and", "bitwise_and(x, y, name=None): x & y, elementwise.")
bitwise_or = binary("BitwiseOr", "bitwise_or", "bitwise_or(x, y, name=None): x | y, elementwise.")
bitwise_xor = binary("BitwiseXor", "bitwise_xor", "bitwise_xor(x, y, name=None): x ^ y, elementwise.")
invert = unary("Invert", "invert", "invert(x, name=None): ~x, every bit flipped.")
left_shift = binary("LeftShift", "left_shift",
                    "left_shift(x, y, name=None): x << y; bits shifted out are lost (unsigned wrap-around).")
right_shift = binary("RightShift", "right_shift",
                     "right_shift(x, y, name=None): x >> y, arithmetic (sign-filling) for signed types.")
