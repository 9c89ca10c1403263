"""CSV against TF 2.21: tf.io.decode_csv, tf.data.experimental.CsvDataset and make_csv_dataset on the same
records and files give the same values and dtypes, or the same error class. Skipped when TensorFlow
does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import warnings

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()


def _outcome(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 -- the classes are compared
        return type(e).__name__
    return out


def _plain(values):
    return [(v.dtype.name, np.asarray(v.numpy()).tolist()) for v in values]


def _defaults(side, spec):
    dt = {"i": side.int32, "l": side.int64, "f": side.float32, "d": side.float64, "s": side.string}
    out = []
    for kind, value in spec:
        out.append(side.constant([] if value is None else [value], dt[kind]))
    return out


RECORDS = [
    (["1,2.5,a", '3,,"b,c"'], [("i", 0), ("f", 0.0), ("s", "")], {}),
    ([" 1 , 2 "], [("i", 0), ("d", 0.0)], {}),
    (['"a""b",c'], [("s", ""), ("s", "")], {}),
    (['"a""b",c'], [("s", ""), ("s", "")], {"use_quote_delim": False}),
    (["NA,2"], [("i", 7), ("i", 0)], {"na_value": "NA"}),
    (["1,2,3"], [("i", 0), ("i", 0)], {"select_cols": [0, 2]}),
    (["1e3,inf,nan,-0,1.5e-45"], [("f", 0.0)] * 5, {}),
    (["99999999999,-9223372036854775808"], [("l", 0), ("l", 0)], {}),
    (["1,2"], [("i", 0), ("i", 0), ("i", 0)], {}),
    (["x,2"], [("i", 0), ("i", 0)], {}),
    (["1,"], [("i", 0), ("f", None)], {}),
    (['a"b,c'], [("s", ""), ("s", "")], {}),
    (['"ab,c'], [("s", ""), ("s", "")], {}),
    ([""], [("i", 0)], {}),
    (["2147483648"], [("i", 0)], {}),
    (["+5,-7"], [("i", 0), ("i", 0)], {}),
]


@pytest.mark.parametrize("records,spec,kwargs", RECORDS)
def test_decode_csv_as_tf(records, spec, kwargs):
    ours = _outcome(lambda: _plain(tg.io.decode_csv(records, _defaults(tg, spec), **kwargs)))
    theirs = _outcome(lambda: _plain(ref.io.decode_csv(records, _defaults(ref, spec), **kwargs)))
    if isinstance(theirs, list):
        for (d1, v1), (d2, v2) in zip(ours, theirs):
            assert d1 == d2
            np.testing.assert_array_equal(np.asarray(v1, dtype=object if d1 == "string" else None),
                                          np.asarray(v2, dtype=object if d2 == "string" else None))
    else:
        assert ours == theirs


FILES = [b'1,"a\nb"\r\n3,c\r\n', b"4,\n", b",5\n", b"h,i\n1,2\n", b"1,a\n\n3,c\n", b'"x"y,1\n', b"", b"1,2"]


@pytest.mark.parametrize("data", FILES)
@pytest.mark.parametrize("header", [False, True])
def test_csv_dataset_as_tf(tmp_path, data, header):
    (tmp_path / "x.csv").write_bytes(data)

    def read(side):
        ds = side.data.experimental.CsvDataset(str(tmp_path / "x.csv"), [side.constant([0]), side.constant(["z"])],
                                               header=header)
        return [tuple(np.asarray(v.numpy()).tolist() for v in e) for e in ds]
    assert _outcome(lambda: read(tg)) == _outcome(lambda: read(ref))


TABLES = ["name,age,score\nann,30,1.5\nbob,,2.5\ncid,25,\n", "a,b,c\n1,99999999999,x\n2,3.5e40,y\n",
          "p,q\n1,2\n3,4\n5,6\n7,8\n9,10\n", "u,v\n,\n,\n"]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("label", [None, "last"])
def test_make_csv_dataset_as_tf(tmp_path, table, label):
    (tmp_path / "t.csv").write_text(table)
    label_name = table.split("\n")[0].split(",")[-1] if label else None

    def read(side):
        ds = side.data.experimental.make_csv_dataset(str(tmp_path / "t.csv"), batch_size=2, shuffle=False,
                                                     num_epochs=1, label_name=label_name)
        rows = []
        for element in ds:
            features, labels = element if label_name else (element, None)
            rows.append(({k: (v.dtype.name, v.numpy().tolist()) for k, v in features.items()},
                         None if labels is None else (labels.dtype.name, labels.numpy().tolist())))
        return rows
    with warnings.catch_warnings():  # TF's type inference casts 3.5e40 to float32 to see that it overflows
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs = read(ref)
    assert read(tg) == theirs
