"""CSV (Note [CSV records]): tf.io.decode_csv, tf.data.experimental.CsvDataset and make_csv_dataset give
TF 2.21's values, dtypes and error texts on quoting, defaults, na_value, column selection, type
inference and malformed records. Both sides on the same inputs: tests/oracle/test_tf_oracle_csv.py."""
import numpy as np
import pytest

import tapegrad as tf


def _decoded(*args, **kwargs):
    return [t.numpy().tolist() for t in tf.io.decode_csv(*args, **kwargs)]


def test_decode_csv_values_and_dtypes_as_tf():
    out = tf.io.decode_csv(["1,2.5,a", '3,,"b,c"'], [[0], [0.0], [""]])
    assert [t.dtype for t in out] == [tf.int32, tf.float32, tf.string]
    assert [t.numpy().tolist() for t in out] == [[1, 3], [2.5, 0.0], [b"a", b"b,c"]]
    assert _decoded("1,2", [[0], [0]]) == [1, 2]
    assert _decoded([" 1 , 2 "], [[0], [0.0]]) == [[1], [2.0]]
    assert _decoded(['"a""b",c'], [[""], [""]]) == [[b'a"b'], [b"c"]]
    assert _decoded(['"a""b",c'], [[""], [""]], use_quote_delim=False) == [[b'"a""b"'], [b"c"]]
    assert _decoded(["1;2"], [[0], [0]], field_delim=";") == [[1], [2]]
    assert _decoded(["NA,2"], [[7], [0]], na_value="NA") == [[7], [2]]
    assert _decoded(["1,2,3"], [[0], [0]], select_cols=[0, 2]) == [[1], [3]]
    assert _decoded(["99999999999,1"], [tf.constant([0], tf.int64), [0]]) == [[99999999999], [1]]
    wide = tf.io.decode_csv(["1e3,inf,nan,-0"], [[0.0], [0.0], [0.0], tf.constant([0.0], tf.float64)])
    assert wide[3].dtype == tf.float64 and np.signbit(wide[3].numpy()[0]) and np.isnan(wide[2].numpy()[0])
    assert tf.io.decode_csv([["1,2", "3,4"]], [[0], [0]])[0].shape == (1, 2)


@pytest.mark.parametrize("records,defaults,kwargs,error,text", [
    (["1,2"], [[0], [0], [0]], {}, tf.errors.InvalidArgumentError, r"^Expect 3 fields but have 2 in record 0$"),
    (["x,2"], [[0], [0]], {}, tf.errors.InvalidArgumentError, r"^Field 0 in record 0 is not a valid int32: x$"),
    (["1.5,2"], [[0], [0]], {}, tf.errors.InvalidArgumentError, r"not a valid int32: 1\.5"),
    (["1,abc"], [[0], [0.0]], {}, tf.errors.InvalidArgumentError, r"^Field 1 in record 0 is not a valid float: abc$"),
    (["1,"], [[0], []], {}, tf.errors.InvalidArgumentError, r"^Field 1 is required but missing in record 0!$"),
    (["1,1_0"], [[0], [0]], {}, tf.errors.InvalidArgumentError, r"not a valid int32: 1_0"),
    (["0x10,1"], [[0], [0]], {}, tf.errors.InvalidArgumentError, r"not a valid int32: 0x10"),
    (["99999999999,1"], [[0], [0]], {}, tf.errors.InvalidArgumentError, r"not a valid int32: 99999999999"),
    (['a"b,c'], [[""], [""]], {}, tf.errors.InvalidArgumentError, r"Unquoted fields cannot have quotes/CRLFs inside"),
    (['"ab,c'], [[""], [""]], {}, tf.errors.InvalidArgumentError, r"Quoted field has to end with quote followed by"),
    (["1,2,3"], [[0], [0]], {"select_cols": [2, 0]}, ValueError, r"select_cols is not strictly increasing"),
    (["1,2"], [[0], [True]], {}, tf.errors.InvalidArgumentError, r"'OUT_TYPE' of bool is not in the list"),
    ([""], [[0]], {}, tf.errors.InvalidArgumentError, r"Expect 1 fields but have 0 in record 0"),
    (["1,2"], [[0, 1], [0]], {}, tf.errors.InvalidArgumentError, r"only be 1 default per field but field 0 has 2"),
    (["1,2"], [[0], [0]], {"field_delim": ";;"}, tf.errors.InvalidArgumentError, r"field_delim should be only 1 char"),
])
def test_decode_csv_errors_as_tf(records, defaults, kwargs, error, text):
    with pytest.raises(error, match=text):
        tf.io.decode_csv(records, defaults, **kwargs)


def _csv(tmp_path, data, defaults, **kwargs):
    (tmp_path / "x.csv").write_bytes(data)
    return [tuple(np.asarray(v).tolist() for v in e) for e in
            tf.data.experimental.CsvDataset(str(tmp_path / "x.csv"), defaults, **kwargs)]


def test_csv_dataset_as_tf(tmp_path):
    assert _csv(tmp_path, b'1,"a\nb"\r\n3,c\r\n', [[0], [""]]) == [(1, b"a\nb"), (3, b"c")]
    assert _csv(tmp_path, b"4,\n", [[0], ["z"]]) == [(4, b"z")]
    assert _csv(tmp_path, b",5\n", [[9], [0]]) == [(9, 5)]
    assert _csv(tmp_path, b"h\n1,2\n", [[0], [0]], header=True) == [(1, 2)]
    assert _csv(tmp_path, b"1,2,3\n", [[0], [0]], select_cols=[0, 2]) == [(1, 3)]
    assert _csv(tmp_path, b"1,2,3\n", [[0], [0]], exclude_cols=[1]) == [(1, 3)]
    assert _csv(tmp_path, b"", [[0]]) == [] and _csv(tmp_path, b"1,2", [[0], [0]]) == [(1, 2)]
    assert _csv(tmp_path, b"NA,1\n", [[0], [0]], na_value="NA") == [(0, 1)]
    spec = tf.data.experimental.CsvDataset(str(tmp_path / "x.csv"), [[0], tf.constant([], tf.string)]).element_spec
    assert spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.string))
    for data, defaults, text in [(b"1,a\n\n3,c\n", [[0], [""]], "Expect 2 fields but have 1 in record"),
                                 (b"4,\n", [[0], tf.constant([], tf.string)], "Field 1 is required but missing"),
                                 (b'"x"y,1\n', [[""], [0]], "Quoted field has to end"),
                                 (b'1,"open\n', [[0], [""]], "end of file without closing quoted field")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=text):
            _csv(tmp_path, data, defaults)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Either select_cols or exclude_cols should be empty"):
        tf.data.experimental.CsvDataset("x", [[0]], select_cols=[0], exclude_cols=[1])


def test_make_csv_dataset_as_tf(tmp_path):
    (tmp_path / "f.csv").write_text("name,age,score\nann,30,1.5\nbob,,2.5\ncid,25,\n")
    ds = tf.data.experimental.make_csv_dataset(str(tmp_path / "f.csv"), batch_size=2, shuffle=False, num_epochs=1,
                                               label_name="score")
    batches = [({k: v.numpy().tolist() for k, v in f.items()}, label.numpy().tolist()) for f, label in ds]
    assert batches == [({"name": [b"ann", b"bob"], "age": [30, 0]}, [1.5, 2.5]), ({"name": [b"cid"], "age": [25]}, [0.0])]
    spec = tf.data.experimental.make_csv_dataset(str(tmp_path / "f.csv"), batch_size=2, num_epochs=1).element_spec
    assert list(spec) == ["name", "age", "score"]
    assert [s.dtype for s in spec.values()] == [tf.string, tf.int32, tf.float32]
    (tmp_path / "g.csv").write_text("a,b,c\n1,99999999999,x\n2,3.5e40,y\n")  # int64, float64, string
    spec = tf.data.experimental.make_csv_dataset(str(tmp_path / "g.csv"), batch_size=1, num_epochs=1).element_spec
    assert [s.dtype for s in spec.values()] == [tf.int32, tf.float64, tf.string]
    picked = tf.data.experimental.make_csv_dataset(str(tmp_path / "f.csv"), batch_size=5, num_epochs=2, shuffle=False,
                                                   select_columns=["age"])
    assert next(iter(picked))["age"].numpy().tolist() == [30, 0, 25, 30, 0]
    with pytest.raises(ValueError, match="`label_name` provided must be one of the columns"):
        tf.data.experimental.make_csv_dataset(str(tmp_path / "f.csv"), batch_size=1, label_name="nope")
