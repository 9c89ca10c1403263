"""Dataset.window: elements that are themselves datasets, each of a window of consecutive elements."""
from tapegrad.data import _structure as st
from tapegrad.data._dataset import Dataset, check_positive_count

__all__ = ["Window", "Elements"]


class Elements(Dataset):
    """A dataset of a list of single-component elements held in memory (a window's component)."""

    def __init__(self, leaves, spec):
        self._leaves = list(leaves)
        super().__init__(spec)

    def _card(self):
        return len(self._leaves)

    def _flat(self):
        for leaf in self._leaves:
            yield (leaf,)


def _positive(value, what):
    return check_positive_count(value, what, "Dataset.window", f"Window {what}")


class Window(Dataset):
    def __init__(self, dataset, size, shift, stride, drop_remainder):
        self._input = dataset
        self._size = _positive(size, "size")
        self._shift = self._size if shift is None else _positive(shift, "shift")
        self._stride = _positive(stride, "stride")
        self._drop = bool(drop_remainder)
        super().__init__(st.structure_of(dataset.element_spec, [st.DatasetSpec(s) for s in dataset._specs]))

    def _card(self):
        n = self._input._card()
        if n < 0:
            return n
        if not self._drop:
            return -(-n // self._shift)
        span = (self._size - 1) * self._stride
        return (n - 1 - span) // self._shift + 1 if n > span else 0

    def _flat(self):
        buffer, first = [], 0  # buffer[i] is input element first + i
        source = self._input._flat()
        exhausted = False
        start = 0
        while True:
            last = start + (self._size - 1) * self._stride
            while not exhausted and first + len(buffer) <= last:
                item = next(source, None)
                if item is None:
                    exhausted = True
                else:
                    buffer.append(item)
            end = first + len(buffer)
            if start >= end or (self._drop and last >= end):
                return
            rows = [buffer[i - first] for i in range(start, min(last, end - 1) + 1, self._stride)]
            yield tuple(Elements([r[c] for r in rows], spec) for c, spec in enumerate(self._input._specs))
            start += self._shift
            del buffer[:max(0, min(start, end) - first)]
            first = max(first, min(start, end))
