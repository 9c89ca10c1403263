"""Bad calls of the rows composed in Python (opinfo/composites.py): TF's classes, the message naming the op."""
import tapegrad as tf
from opinfo.core import BadCall

E = tf.errors.InvalidArgumentError
OOM = r"(Fill|Range|MatrixDiagV3): OOM when allocating tensor with "

ERROR_INPUTS = {
    "add_n": lambda: [
        BadCall(tf.add_n, [tf.ones([2, 3]), tf.ones([3])]).raises(E, r"AddN: .*float32\(2, 3\) and float32\(3,\)"),
        # a Python float among int tensors: TF's add_n converts it as float32 and the kernel refuses the dtypes
        BadCall(tf.add_n, [tf.constant([1, 2]), 1.5]).raises(E)],
    "eye": lambda: [BadCall(tf.eye, 10 ** 7).raises(tf.errors.ResourceExhaustedError,
                                                    OOM + r"shape\[10000000,10000000\]"),
                    BadCall(tf.eye, 2.5).raises(TypeError, r"eye: num_rows must be an int")],
    "linspace": lambda: [BadCall(tf.linspace, 0.0, 1.0, 3, axis=3).raises(E, r"LinSpace: axis 3 is out of range")],
    "linalg.diag_part": lambda: [  # an unsupported form is Unimplemented
        BadCall(tf.linalg.diag_part, tf.ones([2, 2]), k=1).raises(tf.errors.UnimplementedError, r"diag_part: ")],
}
