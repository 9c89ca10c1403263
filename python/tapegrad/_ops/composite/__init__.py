"""The composite tensors: IndexedSlices, SparseTensor and RaggedTensor."""
