// signature.h -- a public op's TF argument list, parsed once: which arguments are inputs, which set attributes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "engine/attrs.h"

namespace tg {

// Note [Op signatures]: a public op is a registry op plus TF's argument list, written as text in
// the Python table that exports it, e.g.
//     "input_tensor, axis:axes=None, keepdims:bool=False"
// Each item is `name[:kind][>attr][=default]`. Kinds: tensor (an input, the default), tensors (a
// list of inputs), int, ints, axes (None, an int, a list or a tensor of ints), float, bool, str,
// dtype (attribute kinds); tensor_own_dtype (an input whose Python value keeps its own dtype, as
// labels or indices beside float inputs) and any (passed on as given: ops written in Python only).
// `>attr` names the registry attribute when it differs from TF's argument
// name. A default of None leaves the attribute unset. A `*` item makes the arguments after it
// keyword-only (TF's raw_ops take keywords only). Every signature also takes TF's `name=`.
// The bindings bind Python arguments to it (positional and keyword) in one place, bind.cpp: for a
// registry op (OpHandle, ops.cpp) into inputs and attributes; for an op written in Python (PythonOp,
// dispatch.cpp, declared with @dispatch("signature")) into the values its function is called with.
enum class ArgKind : unsigned char { Tensor, Tensors, Int, Ints, Axes, Float, Bool, Str, DType, OwnTensor, Any };

struct ArgSpec {
  std::string name;        // TF's argument name
  std::string attr;        // the registry attribute it sets (attribute kinds only)
  ArgKind kind = ArgKind::Tensor;
  bool required = true;
  bool has_default = false;  // false with !required: a default of None (attribute left unset)
  AttrValue fallback;
};

struct Signature {
  std::string fn;  // the Python name, for messages: "reduce_sum"
  std::vector<ArgSpec> args;
  size_t positional = SIZE_MAX;  // how many arguments may be given positionally (those before `*`)
  bool only_tensors = true;  // every argument is a Tensor input, all positional (elementwise ops): the fast path
                             // binds them as is
};

// Throws InvalidArgument on a malformed text (a bug in the table, found at import).
Signature parse_signature(const std::string& fn, const std::string& text);
const char* arg_kind_name(ArgKind k);
ArgKind arg_kind_of(const std::string& kind, const std::string& fn);  // "ints" -> ArgKind::Ints
bool is_input_kind(ArgKind k);

}  // namespace tg
