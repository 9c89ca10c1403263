"""Tensor, Variable, TensorShape and string tensors: the Python side of the C++ tensor."""
