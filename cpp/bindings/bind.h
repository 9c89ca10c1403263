// bind.h -- binds Python arguments to a TF argument list (Note [Op signatures] in signature.h): for the
// public ops bound to a registry op (OpHandle, ops.cpp) and for those written in Python (PythonOp, dispatch.cpp).
#pragma once
#include "bindings/convert.h"
#include "bindings/signature.h"

namespace tg {

constexpr size_t kMaxArgs = 16;

[[noreturn]] void arg_error(bool type_error, const Signature& s, const ArgSpec& a, const std::string& what);

// Fills slot[j] (borrowed; null where not given) with the argument given for s.args[j], positionally or
// by keyword (names: the arguments' names interned, matched by pointer first). TF's `name=` is dropped.
void match_slots(const Signature& s, PyObject* const* names, PyObject* const* args, Py_ssize_t nargs,
                 PyObject* kwnames, PyObject** slot);

// The dtype a Python value takes when converted for an input: that of the first tensor input given.
int input_dtype_hint(const Signature& s, PyObject* const* slot);

// A registry op's inputs and attributes from the arguments.
void convert_arg(const Signature& s, const ArgSpec& a, py::handle v, int hint, Tensors& x, Attrs& attrs);
void bind_signature(const Signature& s, PyObject* const* names, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, Tensors& x, Attrs& attrs);

// The value a function written in Python receives for one argument (a Tensor, a list of them, an int,
// a list of ints, a float, a bool, a str, a DType, or the object itself for `any`); v null: not given.
py::object python_arg(const Signature& s, const ArgSpec& a, PyObject* v, int hint);

// (name, positional, required, default) per argument: what inspect.signature() is built from.
py::object signature_args(const Signature& s);

// TF's packing of a list that holds tensors computed inside a tf.function (tf.expand_dims([v[0], v[1]],
// 0) in a trace): value -> a Tensor, or None when the list holds none. Set by _set_list_packer
// (tapegrad/_install.py); input arguments call it when a list does not convert.
extern PyObject* g_list_packer;

}  // namespace tg
