"""CRC-32C (Castagnoli), and the mask LevelDB and TensorFlow store it under: TF checkpoints' index
blocks and tensors (train/_bundle.py), TFRecord framing (io/_tfrecord.py)."""
import google_crc32c

__all__ = ["crc32c", "crc32c_py", "mask"]


def crc32c(data, crc=0):
    """crc32c of data continuing from crc (google-crc32c's C implementation)."""
    return google_crc32c.extend(crc, bytes(data))


def _table():
    out = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        out.append(c)
    return out


_CRC_TABLE = _table()


def crc32c_py(data, crc=0):
    """crc32c in Python (~7 MB/s): the definition the tests hold google-crc32c to."""
    crc ^= 0xFFFFFFFF
    table = _CRC_TABLE
    for b in bytes(data):
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def mask(crc):
    """Rotate right by 15 bits and add a constant: a CRC stored next to data that holds CRCs."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
