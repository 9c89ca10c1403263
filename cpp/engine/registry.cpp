// registry.cpp -- storage and lookup of the op table; attribute accessors.
#include "engine/registry.h"
#include <map>
#include <memory>
#include "core/error.h"

namespace tg {

int64_t Attrs::i(const char* n, int64_t d) const {
  auto* v = find(n);
  if (!v) return d;
  if (auto* p = std::get_if<int64_t>(v)) return *p;
  if (auto* p = std::get_if<bool>(v)) return *p;
  if (auto* p = std::get_if<double>(v)) return (int64_t)*p;
  throw InvalidArgument(cat("attribute '", n, "' must be an integer"));
}
double Attrs::f(const char* n, double d) const {
  auto* v = find(n);
  if (!v) return d;
  if (auto* p = std::get_if<double>(v)) return *p;
  if (auto* p = std::get_if<int64_t>(v)) return (double)*p;
  throw InvalidArgument(cat("attribute '", n, "' must be a number"));
}
bool Attrs::b(const char* n, bool d) const {
  auto* v = find(n);
  if (!v) return d;
  if (auto* p = std::get_if<bool>(v)) return *p;
  if (auto* p = std::get_if<int64_t>(v)) return *p != 0;
  throw InvalidArgument(cat("attribute '", n, "' must be a bool"));
}
std::vector<int64_t> Attrs::ints(const char* n) const {
  auto* v = find(n);
  if (!v) return {};
  if (auto* p = std::get_if<std::vector<int64_t>>(v)) return *p;
  if (auto* p = std::get_if<int64_t>(v)) return {*p};
  throw InvalidArgument(cat("attribute '", n, "' must be a list of integers"));
}
std::string Attrs::s(const char* n, const std::string& d) const {
  auto* v = find(n);
  if (!v) return d;
  if (auto* p = std::get_if<std::string>(v)) return *p;
  throw InvalidArgument(cat("attribute '", n, "' must be a string"));
}
Attrs& Attrs::set(const char* n, AttrValue v) {
  for (auto& kv : items)
    if (kv.first == n) { kv.second = std::move(v); return *this; }
  items.emplace_back(n, std::move(v));
  return *this;
}

static std::map<std::string, std::unique_ptr<OpDef>>& table() {
  static std::map<std::string, std::unique_ptr<OpDef>> t;
  return t;
}

OpDef& def_op(const char* name) {
  auto& slot = table()[name];
  if (!slot) {
    static int next_id = 0;
    slot = std::make_unique<OpDef>();
    slot->name = name;
    slot->id = next_id++;
  }
  return *slot;
}

const OpDef* find_op(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : it->second.get();
}

const OpDef& op_def(const char* name) {
  const OpDef* d = find_op(name);
  if (!d) throw InvalidArgument(cat("no op named '", name, "' is registered"));
  return *d;
}

OpDef& mutable_op(const std::string& name) {
  auto it = table().find(name);
  if (it == table().end()) throw InvalidArgument(cat("no op named '", name, "' is registered"));
  return *it->second;
}

void set_gradient_rule(const std::string& name, GradFn f) {
  static std::map<const OpDef*, bool> builtin_differentiable;  // ops whose rule was replaced
  OpDef& op = mutable_op(name);
  auto known = builtin_differentiable.emplace(&op, op.differentiable).first;
  if (f) {
    op.grad = std::move(f);
    op.grad_replaced = true;
    op.differentiable = true;
  } else {
    op.grad = op.builtin_grad;
    op.grad_replaced = false;
    op.differentiable = known->second;
  }
}

std::vector<std::string> registered_ops() {
  std::vector<std::string> names;
  for (auto& kv : table()) names.push_back(kv.first);
  return names;
}

}  // namespace tg
