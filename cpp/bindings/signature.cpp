// signature.cpp -- parses the TF argument lists of public ops (Note [Op signatures] in signature.h).
#include "bindings/signature.h"
#include <cstdlib>
#include "core/error.h"

namespace tg {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct KindName { const char* name; ArgKind kind; };
constexpr KindName kKinds[] = {
    {"tensor", ArgKind::Tensor}, {"tensors", ArgKind::Tensors}, {"int", ArgKind::Int},
    {"ints", ArgKind::Ints},     {"axes", ArgKind::Axes},       {"float", ArgKind::Float},
    {"bool", ArgKind::Bool},     {"str", ArgKind::Str},         {"dtype", ArgKind::DType},
    {"tensor_own_dtype", ArgKind::OwnTensor}, {"any", ArgKind::Any},
};

// A default written in the table: None, True, False, an int, a float or a quoted string.
void parse_default(ArgSpec& a, const std::string& text, const std::string& where) {
  a.required = false;
  if (text == "None") return;
  a.has_default = true;
  if (text == "True" || text == "False") { a.fallback = text == "True"; return; }
  if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"')) { a.fallback = text.substr(1, text.size() - 2); return; }
  char* end = nullptr;
  long long i = std::strtoll(text.c_str(), &end, 10);
  if (*end == '\0') { a.fallback = (int64_t)i; return; }
  double d = std::strtod(text.c_str(), &end);
  if (*end == '\0') { a.fallback = d; return; }
  throw InvalidArgument(cat(where, ": cannot read the default '", text, "'"));
}

ArgSpec parse_arg(const std::string& item, const std::string& fn) {
  ArgSpec a;
  std::string rest = item;
  size_t eq = rest.find('=');
  std::string dflt = eq == std::string::npos ? "" : trim(rest.substr(eq + 1));
  rest = trim(rest.substr(0, eq));
  size_t gt = rest.find('>');
  if (gt != std::string::npos) { a.attr = trim(rest.substr(gt + 1)); rest = trim(rest.substr(0, gt)); }
  size_t colon = rest.find(':');
  a.name = trim(rest.substr(0, colon));
  if (colon != std::string::npos) {
    a.kind = arg_kind_of(trim(rest.substr(colon + 1)), fn);
  }
  if (a.name.empty()) throw InvalidArgument(cat("signature of ", fn, ": an argument has no name"));
  if (a.attr.empty()) a.attr = a.name;
  if (eq != std::string::npos) parse_default(a, dflt, "signature of " + fn + ", argument " + a.name);
  return a;
}

}  // namespace

const char* arg_kind_name(ArgKind k) {
  for (const KindName& n : kKinds)
    if (n.kind == k) return n.name;
  return "?";
}

ArgKind arg_kind_of(const std::string& kind, const std::string& fn) {
  for (const KindName& k : kKinds)
    if (kind == k.name) return k.kind;
  throw InvalidArgument(cat("signature of ", fn, ": unknown argument kind '", kind, "'"));
}

bool is_input_kind(ArgKind k) { return k == ArgKind::Tensor || k == ArgKind::Tensors || k == ArgKind::OwnTensor; }

Signature parse_signature(const std::string& fn, const std::string& text) {
  Signature s;
  s.fn = fn;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item == "*") {
      s.positional = s.args.size();
      s.only_tensors = false;
    } else if (!item.empty()) {
      s.args.push_back(parse_arg(item, fn));
      if (s.args.back().kind != ArgKind::Tensor) s.only_tensors = false;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return s;
}

}  // namespace tg
