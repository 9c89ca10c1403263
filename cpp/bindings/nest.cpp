// nest.cpp -- nested structures in C++, the counterpart of tapegrad._nest (tests/ops/test_nest.py compares them).
#include "bindings/nest.h"
#include "bindings/convert.h"

namespace tg {

namespace {

bool is_mapping(py::handle s) {
  if (PyDict_Check(s.ptr())) return true;
  if (is_tensor(s) || PyList_Check(s.ptr()) || PyTuple_Check(s.ptr())) return false;  // the common cases, no ABC check
  static py::handle mapping = py::object(py::module_::import("collections.abc").attr("Mapping")).release();
  return PyObject_IsInstance(s.ptr(), mapping.ptr()) == 1;
}

bool is_nested(py::handle s) { return PyList_Check(s.ptr()) || PyTuple_Check(s.ptr()) || is_mapping(s); }

py::list sorted_keys(py::handle mapping) {
  py::list keys = py::module_::import("builtins").attr("sorted")(mapping);
  return keys;
}

}  // namespace

void nest_flatten(py::handle s, std::vector<py::object>& out) {
  if (is_mapping(s)) {
    for (py::handle k : sorted_keys(s)) nest_flatten(s[k], out);
  } else if (PyList_Check(s.ptr()) || PyTuple_Check(s.ptr())) {
    for (py::handle item : s) nest_flatten(item, out);
  } else {
    out.push_back(py::reinterpret_borrow<py::object>(s));
  }
}

py::object nest_pack(py::handle like, const std::vector<py::object>& flat, size_t& i, py::handle slot) {
  if (!is_nested(like)) {
    if (slot && !like.is(slot)) return py::reinterpret_borrow<py::object>(like);
    if (i >= flat.size()) throw py::value_error("nest: the structure has more leaves than values given");
    return flat[i++];
  }
  if (is_mapping(like)) {
    py::dict by_key;
    for (py::handle k : sorted_keys(like)) by_key[k] = nest_pack(like[k], flat, i, slot);
    if (PyDict_CheckExact(like.ptr())) {
      py::dict d;
      for (py::handle k : like) d[k] = by_key[k];
      return std::move(d);
    }
    py::list pairs;
    for (py::handle k : like) pairs.append(py::make_tuple(k, by_key[k]));
    return like.get_type()(pairs);
  }
  py::list items;
  for (py::handle item : like) items.append(nest_pack(item, flat, i, slot));
  if (PyList_CheckExact(like.ptr())) return std::move(items);
  py::tuple t(items);
  if (py::hasattr(like, "_fields")) return like.get_type()(*t);  // namedtuple
  if (PyTuple_CheckExact(like.ptr())) return std::move(t);
  return like.get_type()(t);
}

}  // namespace tg
