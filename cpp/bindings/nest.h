// nest.h -- nested lists, tuples, namedtuples and dicts walked in C++ by the rules of tapegrad._nest.
#pragma once
#include <vector>
#include <pybind11/pybind11.h>

namespace tg {

namespace py = pybind11;

// See Note [Nest order] in python/tapegrad/_nest.py: depth-first, dicts in sorted key order.
void nest_flatten(py::handle structure, std::vector<py::object>& out);
// `like` with its leaves replaced in order by flat[i], flat[i + 1], ...; advances i. Given a `slot`,
// only the leaves that are it are replaced and the others kept (tf.function's output templates).
py::object nest_pack(py::handle like, const std::vector<py::object>& flat, size_t& i, py::handle slot = {});

}  // namespace tg
