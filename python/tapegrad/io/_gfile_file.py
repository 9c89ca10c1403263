"""tf.io.gfile.GFile: a local file opened lazily, read as str ("r") or bytes ("rb"), written from either."""
import os

from tapegrad import errors
from tapegrad.io._paths import local_path, os_error

__all__ = ["GFile"]

_MODES = {"r": "rb", "w": "wb", "a": "ab", "r+": "r+b", "w+": "w+b", "a+": "a+b"}


class GFile:
    """A file with TF's file API: ``GFile(name, mode="r")``, modes r, w, a, r+, w+, a+ (with b: bytes).

    As in TF the file opens at the first read or write (a "w" GFile never written creates no file,
    and opening errors appear there), reads return str (UTF-8) unless the mode has "b", ``write`` takes
    str or bytes, and ``tell``/``seek`` count bytes.
    """

    def __init__(self, name, mode="r"):
        self._path = local_path(name, "tf.io.gfile.GFile")
        if mode.replace("b", "") not in _MODES:
            raise errors.InvalidArgumentError(f"tf.io.gfile.GFile: mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or "
                                              f"'a+' (got {mode!r} for {self._path})")
        self.__name, self.__mode = name, mode
        self._binary = "b" in mode
        plain = mode.replace("b", "")
        self._readable, self._writable = plain != "w" and plain != "a", plain != "r"
        self._python_mode = _MODES[plain]
        self._file = None

    @property
    def name(self):
        return self.__name

    @property
    def mode(self):
        return self.__mode

    def _open(self, op):
        if self._file is None:
            try:
                self._file = open(self._path, self._python_mode)  # noqa: SIM115 -- kept open until close()
            except OSError as e:
                raise os_error(e, f"GFile.{op}", self._path) from None
        return self._file

    def _reader(self, op):
        if not self._readable:
            raise errors.PermissionDeniedError(f"GFile.{op}: File isn't open for reading ({self._path}, mode "
                                               f"{self.__mode!r})")
        return self._open(op)

    def _text(self, data):
        return data if self._binary else data.decode("utf-8")

    def read(self, n=-1):
        """``n`` bytes (all the rest for -1), decoded as UTF-8 unless the mode is binary."""
        return self._text(self._reader("read").read(-1 if n is None else n))

    def readline(self):
        return self._text(self._reader("readline").readline())

    def readlines(self):
        return [self._text(line) for line in self._reader("readlines").readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, file_content):
        """Writes str (as UTF-8) or bytes."""
        if not self._writable:
            raise errors.PermissionDeniedError(f"GFile.write: File isn't open for writing ({self._path}, mode "
                                               f"{self.__mode!r})")
        data = file_content.encode("utf-8") if isinstance(file_content, str) else bytes(file_content)
        try:
            self._open("write").write(data)
        except OSError as e:
            raise os_error(e, "GFile.write", self._path) from None

    def tell(self):
        return self._open("tell").tell()

    def seek(self, offset=None, whence=0, position=None):
        """Moves to byte ``offset`` from the start (whence 0), the current place (1) or the end (2);
        ``position`` is TF's deprecated name for ``offset``."""
        if position is not None:
            offset = position
        return self._open("seek").seek(0 if offset is None else offset, whence)

    def seekable(self):
        return True

    def size(self):
        """The file's length in bytes as stored now (unflushed writes not counted)."""
        try:
            return os.stat(self._path).st_size
        except OSError as e:
            raise os_error(e, "GFile.size", self._path) from None

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        """Closes the file; a later read or write opens it again, as TF's GFile does."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self):  # an unclosed GFile (``GFile(p).read()``) closes quietly, as TF's
        if getattr(self, "_file", None) is not None:
            self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<tf.io.gfile.GFile {self.__name!r} mode={self.__mode!r}>"
