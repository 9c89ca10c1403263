"""tf.io.gfile and tf.io.read_file / write_file / matching_files on the local filesystem: results, TF's
error classes with messages naming the function and the file, and (with TensorFlow) the same classes
as TF for the same calls."""
import os
import pathlib

import pytest

import tapegrad as tf

gfile = tf.io.gfile


def _write(path, data=b"x"):
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


def test_gfile_reads_text_and_bytes(tmp_path):
    p = str(tmp_path / "a.txt")
    with gfile.GFile(p, "w") as f:
        f.write("héllo\n")
        f.write(b"world\n")
        assert f.tell() == len("héllo\nworld\n".encode())
    with gfile.GFile(p) as f:
        assert f.name == p and f.mode == "r"
        assert f.read() == "héllo\nworld\n"
    assert gfile.GFile(p, "rb").read() == "héllo\nworld\n".encode()
    assert gfile.GFile(p).readlines() == ["héllo\n", "world\n"]
    assert list(gfile.GFile(p)) == ["héllo\n", "world\n"]
    assert list(gfile.GFile(p, "rb")) == ["héllo\n".encode(), b"world\n"]
    f = gfile.GFile(p)
    assert f.readline() == "héllo\n" and f.tell() == 7
    f.seek(1)
    assert f.read(2) == "\xe9" and f.tell() == 3  # n counts bytes
    f.seek(-2, 2)
    assert f.read() == "d\n"
    f.seek(position=0)
    assert f.read(1) == "h" and f.seekable() and f.size() == 13
    f.close()
    assert f.read(1) == "h"  # a closed GFile opens again, as TF's
    with gfile.GFile(p, "a") as f:
        f.write("more")
    assert gfile.GFile(p).read().endswith("world\nmore")
    with gfile.GFile(p, "w+") as f:
        f.write("abc")
        f.seek(0)
        assert f.read() == "abc"


def test_gfile_opens_at_first_use(tmp_path):
    missing = str(tmp_path / "no" / "file")
    f = gfile.GFile(missing)  # no error yet, as in TF
    with pytest.raises(tf.errors.NotFoundError, match="GFile.read: .*no/file; No such file or directory"):
        f.read()
    with gfile.GFile(str(tmp_path / "never"), "w"):
        pass
    assert not os.path.exists(tmp_path / "never")  # nothing written: no file, as in TF
    with pytest.raises(tf.errors.NotFoundError, match="GFile.write"):
        gfile.GFile(missing, "w").write("x")


def test_gfile_mode_errors(tmp_path):
    p = _write(tmp_path / "a")
    with pytest.raises(tf.errors.PermissionDeniedError, match="File isn't open for writing"):
        gfile.GFile(p).write("x")
    with pytest.raises(tf.errors.PermissionDeniedError, match="File isn't open for reading"):
        gfile.GFile(str(tmp_path / "b"), "w").read()
    with pytest.raises(tf.errors.InvalidArgumentError, match="mode is not 'r' or 'w'"):
        gfile.GFile(p, "x")
    with pytest.raises(tf.errors.FailedPreconditionError, match="Is a directory"):
        gfile.GFile(str(tmp_path)).read()
    with pytest.raises(tf.errors.NotFoundError, match="GFile.size"):
        gfile.GFile(str(tmp_path / "nope")).size()


def test_exists_isdir_listdir_glob(tmp_path, monkeypatch):
    for name in ["b.png", "a.png", "c.txt"]:
        _write(tmp_path / name)
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub" / "d.png")
    d = str(tmp_path)
    assert gfile.exists(d + "/a.png") and not gfile.exists(d + "/z.png") and not gfile.exists("")
    assert gfile.isdir(d) and gfile.isdir(d + "/sub/") and not gfile.isdir(d + "/a.png")
    assert gfile.listdir(d) == ["a.png", "b.png", "c.txt", "sub"]
    assert gfile.glob(d + "/*.png") == [d + "/a.png", d + "/b.png"]
    assert gfile.glob(d + "/*/*.png") == [d + "/sub/d.png"]
    assert gfile.glob(d + "/**/*.png") == [d + "/sub/d.png"]  # ** is *, as in TF
    assert gfile.glob([d + "/a*", d + "/*.png"]) == [d + "/a.png", d + "/a.png", d + "/b.png"]
    assert gfile.glob(d + "/?.txt") == [d + "/c.txt"] and gfile.glob(d + "/*.none") == []
    assert gfile.glob("file://" + d + "/a*") == ["file://" + d + "/a.png"]
    monkeypatch.chdir(d)
    assert gfile.glob("*.png") == ["./a.png", "./b.png"]  # TF's "./" for a pattern without a directory
    assert gfile.exists(pathlib.Path(d) / "a.png") and gfile.exists((d + "/a.png").encode())
    with pytest.raises(tf.errors.NotFoundError, match="gfile.listdir: Could not find directory .*a.png"):
        gfile.listdir(d + "/a.png")


def test_makedirs_and_mkdir(tmp_path):
    d = str(tmp_path)
    gfile.makedirs(d + "/x/y/z")
    gfile.makedirs(d + "/x/y")  # exists: nothing
    assert gfile.isdir(d + "/x/y/z")
    gfile.mkdir(d + "/m")
    gfile.mkdir(d + "/m")  # exists: nothing, as in TF
    with pytest.raises(tf.errors.NotFoundError, match="gfile.mkdir: .*q/r; No such file or directory"):
        gfile.mkdir(d + "/q/r")
    f = _write(tmp_path / "f")
    with pytest.raises(tf.errors.FailedPreconditionError, match="gfile.makedirs: .*f is not a directory"):
        gfile.makedirs(f)


def test_remove_rename_copy_rmtree(tmp_path):
    d = str(tmp_path)
    a, b = _write(tmp_path / "a", b"one"), _write(tmp_path / "b", b"two")
    with pytest.raises(tf.errors.AlreadyExistsError, match="gfile.rename: .*b; file already exists"):
        gfile.rename(a, b)
    gfile.rename(a, b, overwrite=True)
    assert not gfile.exists(a) and gfile.GFile(b, "rb").read() == b"one"
    with pytest.raises(tf.errors.NotFoundError, match="gfile.rename: .*a; No such file"):
        gfile.rename(a, d + "/c")
    gfile.copy(b, a)
    assert gfile.GFile(a, "rb").read() == b"one"
    with pytest.raises(tf.errors.AlreadyExistsError, match="gfile.copy: .*a; file already exists"):
        gfile.copy(b, a)
    _write(tmp_path / "b", b"three")
    gfile.copy(b, a, overwrite=True)
    assert gfile.GFile(a, "rb").read() == b"three"
    with pytest.raises(tf.errors.NotFoundError, match="gfile.copy: .*nope"):
        gfile.copy(d + "/nope", d + "/c")
    gfile.makedirs(d + "/t/u")
    with pytest.raises(tf.errors.InvalidArgumentError, match="gfile.copy: .*t is a directory"):
        gfile.copy(d + "/t", d + "/c")
    with pytest.raises(tf.errors.FailedPreconditionError, match="gfile.remove: .*t; Is a directory"):
        gfile.remove(d + "/t")
    gfile.remove(a)
    with pytest.raises(tf.errors.NotFoundError, match="gfile.remove: .*a; No such file or directory"):
        gfile.remove(a)
    gfile.rename(d + "/t", d + "/t2")
    gfile.rmtree(d + "/t2")
    assert not gfile.exists(d + "/t2")
    with pytest.raises(tf.errors.NotFoundError, match="gfile.rmtree: .*t2 not found"):
        gfile.rmtree(d + "/t2")
    gfile.rmtree(b)  # a file: removed, as in TF
    assert not gfile.exists(b)


def test_stat_walk_join(tmp_path):
    d = str(tmp_path)
    f = _write(tmp_path / "f", b"12345")
    gfile.makedirs(d + "/s/t")
    _write(tmp_path / "s" / "g")
    st = gfile.stat(f)
    assert (st.length, st.is_directory) == (5, False)
    assert st.mtime_nsec == int(os.stat(f).st_mtime) * 10 ** 9  # whole seconds, as TF's local filesystem
    assert gfile.stat(d).is_directory
    assert list(gfile.walk(d)) == [(d, ["s"], ["f"]), (d + "/s", ["t"], ["g"]), (d + "/s/t", [], [])]
    assert [top for top, _, _ in gfile.walk(d, topdown=False)] == [d + "/s/t", d + "/s", d]
    errors_seen = []
    assert list(gfile.walk(d + "/zz", onerror=errors_seen.append)) == []
    assert isinstance(errors_seen[0], tf.errors.NotFoundError)
    assert list(gfile.walk(f)) == []
    with pytest.raises(tf.errors.NotFoundError, match="gfile.stat: .*nope"):
        gfile.stat(d + "/nope")
    assert gfile.join("a", "b", "c") == "a/b/c" and gfile.join("a/", "/b") == "/b"
    assert gfile.join("gs://bucket", "x") == "gs://bucket/x"
    assert gfile.get_registered_schemes() == ["", "file"]


def test_url_schemes_and_path_types(tmp_path):
    f = _write(tmp_path / "f", b"abc")
    assert gfile.exists("file://" + f) and gfile.GFile("file://" + f, "rb").read() == b"abc"
    for call in (lambda: gfile.exists("gs://bucket/x"), lambda: gfile.GFile("s3://b/x"),
                 lambda: tf.io.read_file("hdfs://host/x")):
        with pytest.raises(tf.errors.UnimplementedError, match="File system scheme '(gs|s3|hdfs)' not implemented"):
            call()
    for bad in (3, None, tf.constant(f)):
        with pytest.raises(TypeError, match="gfile.exists: Expected binary or unicode string"):
            gfile.exists(bad)


def test_read_file_and_write_file(tmp_path):
    p = str(tmp_path / "new" / "dir" / "f.bin")
    assert tf.io.write_file(p, b"\x00\x01xyz") is None  # parent directories are created, as in TF
    t = tf.io.read_file(p)
    assert t.dtype == tf.string and t.shape == () and t.numpy() == b"\x00\x01xyz"
    tf.io.write_file(tf.constant(p), tf.constant("text"))
    assert tf.io.read_file(pathlib.Path(p)).numpy() == b"text"
    with pytest.raises(tf.errors.NotFoundError, match="read_file: .*missing; No such file or directory"):
        tf.io.read_file(str(tmp_path / "missing"))
    with pytest.raises(tf.errors.FailedPreconditionError, match="read_file: .*; Is a directory"):
        tf.io.read_file(str(tmp_path))
    with pytest.raises(tf.errors.InvalidArgumentError, match="read_file: `filename` must be scalar"):
        tf.io.read_file([p])
    with pytest.raises(tf.errors.InvalidArgumentError, match="write_file: `contents` must be scalar"):
        tf.io.write_file(p, ["a"])
    with pytest.raises(TypeError, match="write_file: `contents` must be a string tensor"):
        tf.io.write_file(p, 3)


def test_matching_files(tmp_path, monkeypatch):
    for name in ["b.png", "a.png", "c.txt"]:
        _write(tmp_path / name)
    d = str(tmp_path)
    m = tf.io.matching_files(d + "/*.png")
    assert m.dtype == tf.string and list(m.numpy()) == [(d + "/a.png").encode(), (d + "/b.png").encode()]
    both = tf.io.matching_files([d + "/*.png", d + "/a*"])  # sorted, duplicates kept, as in TF
    assert list(both.numpy()) == [(d + f"/{n}").encode() for n in ("a.png", "a.png", "b.png")]
    assert tf.io.matching_files(d + "/*.none").shape == (0,)
    monkeypatch.chdir(d)
    assert list(tf.io.matching_files("*.txt").numpy()) == [b"./c.txt"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="matching_files: `pattern` must be a scalar or a vector"):
        tf.io.matching_files([["*"]])


def test_list_files(tmp_path):
    for name in ["b.png", "a.png", "c.txt"]:
        _write(tmp_path / name)
    d = str(tmp_path)
    ds = tf.data.Dataset.list_files(d + "/*.png", shuffle=False)
    assert ds.element_spec == tf.TensorSpec([], tf.string) and int(ds.cardinality()) == 2
    assert list(ds.as_numpy_iterator()) == [(d + "/a.png").encode(), (d + "/b.png").encode()]
    assert [x.numpy() for x in ds] == [(d + "/a.png").encode(), (d + "/b.png").encode()]
    shuffled = tf.data.Dataset.list_files([d + "/*.png", d + "/*.txt"], seed=4)
    assert sorted(shuffled.as_numpy_iterator()) == sorted(f.encode() for f in gfile.glob(d + "/*"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern: .*none"):
        tf.data.Dataset.list_files(d + "/*.none")


def test_string_elements_in_pipelines(tmp_path):
    paths = [_write(tmp_path / f"{i}.txt", b"x" * (i + 1)) for i in range(4)]
    ds = tf.data.Dataset.from_tensor_slices((paths, [0, 1, 2, 3]))
    contents = ds.map(lambda p, label: (tf.io.read_file(p), label))
    assert contents.element_spec == (tf.TensorSpec([], tf.string), tf.TensorSpec([], tf.int32))
    lengths = contents.map(lambda c, label: tf.strings.length(c) + label)
    assert [int(x) for x in lengths] == [1, 3, 5, 7]
    batches = list(tf.data.Dataset.from_tensor_slices(paths).batch(3))
    assert [b.shape for b in batches] == [(3,), (1,)] and batches[1].numpy()[0] == paths[3].encode()
    picked = tf.data.Dataset.from_tensor_slices(paths).filter(lambda p: tf.strings.regex_full_match(p, r".*[02]\.txt"))
    assert [x.numpy() for x in picked] == [paths[0].encode(), paths[2].encode()]
    generated = tf.data.Dataset.from_generator(lambda: iter(paths), output_signature=tf.TensorSpec([], tf.string))
    assert [int(x) for x in generated.map(lambda p: tf.strings.length(tf.io.read_file(p)))] == [1, 2, 3, 4]


# the same calls in TF and here raise the same error classes

def _calls(io, d):
    g = io.gfile
    return {
        "GFile.read missing": lambda: g.GFile(d + "/missing").read(),
        "GFile.read dir": lambda: g.GFile(d).read(),
        "GFile.write on r": lambda: g.GFile(d + "/f").write("x"),
        "GFile.read on w": lambda: g.GFile(d + "/w", "w").read(),
        "GFile bad mode": lambda: g.GFile(d + "/f", "rw"),
        "listdir missing": lambda: g.listdir(d + "/missing"),
        "listdir file": lambda: g.listdir(d + "/f"),
        "makedirs over file": lambda: g.makedirs(d + "/f"),
        "mkdir no parent": lambda: g.mkdir(d + "/q/r"),
        "remove missing": lambda: g.remove(d + "/missing"),
        "remove dir": lambda: g.remove(d + "/sub"),
        "rename missing": lambda: g.rename(d + "/missing", d + "/x"),
        "rename exists": lambda: g.rename(d + "/f", d + "/f2"),
        "copy missing": lambda: g.copy(d + "/missing", d + "/x"),
        "copy exists": lambda: g.copy(d + "/f", d + "/f2"),
        "copy dir": lambda: g.copy(d + "/sub", d + "/x"),
        "stat missing": lambda: g.stat(d + "/missing"),
        "rmtree missing": lambda: g.rmtree(d + "/missing"),
        "unknown scheme": lambda: g.exists("foo://b/x"),
        "read_file missing": lambda: io.read_file(d + "/missing"),
        "read_file dir": lambda: io.read_file(d),
        "read_file vector": lambda: io.read_file([d + "/f"]),
        "write_file vector": lambda: io.write_file(d + "/x", ["a"]),
        "write_file number": lambda: io.write_file(d + "/x", 3),
        "matching_files rank 2": lambda: io.matching_files([[d + "/*"]]),
    }


def _error_class(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 -- the class is the result
        return type(e).__name__
    return None


def test_error_classes_match_tensorflow(tmp_path):
    from tf_oracle import import_tensorflow
    ref = import_tensorflow()
    d = str(tmp_path)
    for name in ("f", "f2"):
        _write(tmp_path / name)
    (tmp_path / "sub").mkdir()
    ours, theirs = _calls(tf.io, d), _calls(ref.io, d)
    for label in ours:
        assert _error_class(ours[label]) == _error_class(theirs[label]), label


def test_signatures_match_tensorflow():
    import inspect
    from tf_oracle import import_tensorflow
    ref = import_tensorflow()
    for name in ["read_file", "write_file", "matching_files"]:
        assert list(inspect.signature(getattr(tf.io, name)).parameters) == list(
            inspect.signature(getattr(ref.io, name)).parameters), name
    for name in ["copy", "exists", "glob", "isdir", "join", "listdir", "makedirs", "mkdir", "remove", "rename",
                 "rmtree", "stat", "walk", "get_registered_schemes", "GFile"]:
        assert list(inspect.signature(getattr(gfile, name)).parameters) == list(
            inspect.signature(getattr(ref.io.gfile, name)).parameters), name
    assert list(inspect.signature(tf.data.Dataset.list_files).parameters) == list(
        inspect.signature(ref.data.Dataset.list_files).parameters)
