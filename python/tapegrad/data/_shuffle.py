"""The shuffle buffer of tf.data, over row indices (vectorized) and over elements.

Note [Shuffle buffer]
tf.data's shuffle keeps a buffer of buffer_size elements: it fills the buffer from the input, then
each step outputs an element drawn uniformly from the buffer and refills that slot with the next
input; at the end of the input it outputs what the buffer holds, in random order. An element can
therefore leave at most buffer_size - 1 places earlier than it came, and a buffer at least as large
as the input gives a uniform permutation.

Over row indices the same process runs a chunk at a time without a Python step per element. Let
the buffer's slots be fixed and s[t] the slot drawn at step t. The element output at step t is the
input that last entered slot s[t]: the input of the previous step that drew the same slot, or the
slot's occupant from before the chunk when no earlier step of the chunk drew it. "The previous step
with the same slot" is the neighbour in a stable sort of s, a radix sort when slots fit 16 bits.
"""
import numpy as np

__all__ = ["shuffle_indices", "shuffle_elements"]


def _concat_until(chunks, pending, need):
    """Arrays from ``pending`` then ``chunks`` joined until ``need`` items (or the input ends)."""
    parts, have = [], 0
    for c in pending:
        parts.append(c)
        have += len(c)
    while have < need:
        c = next(chunks, None)
        if c is None:
            break
        parts.append(c)
        have += len(c)
    joined = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return joined[:need], joined[need:]


def shuffle_indices(chunks, buffer_size, rng):
    """Index arrays: the input index stream ``chunks`` passed through a shuffle buffer."""
    chunks = iter(chunks)
    slots, rest = _concat_until(chunks, [], buffer_size)
    size = len(slots)
    slot_dtype = np.uint16 if size <= 1 << 16 else np.int64
    if size == buffer_size:
        pending = [rest] if len(rest) else []
        while True:
            chunk = pending.pop() if pending else next(chunks, None)
            if chunk is None:
                break
            if not len(chunk):
                continue
            drawn = rng.integers(0, size, len(chunk), dtype=np.int64)
            order = np.argsort(drawn.astype(slot_dtype), kind="stable")
            ordered = drawn.take(order)
            repeat = np.flatnonzero(ordered[1:] == ordered[:-1])  # ordered[k + 1] is ordered[k]'s slot again
            taken = slots.take(ordered)  # in slot order: the occupant before the chunk, or ...
            taken[repeat + 1] = chunk.take(order.take(repeat))  # ... the input that last entered the slot
            out = np.empty_like(taken)
            out[order] = taken
            last = np.append(np.flatnonzero(ordered[1:] != ordered[:-1]), len(chunk) - 1)
            slots[ordered.take(last)] = chunk.take(order.take(last))
            yield out
    if size:
        yield slots[rng.permutation(size)]


def shuffle_elements(elements, buffer_size, rng):
    """Elements of any kind passed through a shuffle buffer (one step per element; the slots are
    drawn a block at a time)."""
    buffer, slots = [], iter(())
    for e in elements:
        if len(buffer) < buffer_size:
            buffer.append(e)
            continue
        j = next(slots, None)
        if j is None:
            slots = iter(rng.integers(0, buffer_size, 1024).tolist())
            j = next(slots)
        yield buffer[j]
        buffer[j] = e
    for j in rng.permutation(len(buffer)).tolist():
        yield buffer[j]
