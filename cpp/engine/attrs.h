// attrs.h -- an op's attributes: a small ordered list of named values.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tg {

using AttrValue = std::variant<int64_t, double, bool, std::vector<int64_t>, std::string>;

struct Attrs {
  std::vector<std::pair<std::string, AttrValue>> items;

  const AttrValue* find(const char* name) const {
    for (auto& kv : items)
      if (kv.first == name) return &kv.second;
    return nullptr;
  }
  bool has(const char* name) const { return find(name) != nullptr; }
  int64_t i(const char* name, int64_t dflt = 0) const;
  double f(const char* name, double dflt = 0.0) const;
  bool b(const char* name, bool dflt = false) const;
  std::vector<int64_t> ints(const char* name) const;  // empty if absent
  std::string s(const char* name, const std::string& dflt = "") const;
  Attrs& set(const char* name, AttrValue v);
};

}  // namespace tg
