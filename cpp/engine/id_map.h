// id_map.h -- an open-addressing map from tensor id to a value, inline up to 16 entries.
// The tape and the sweep look ids up several times per op: std::unordered_map's per-node
// allocations were most of the per-op cost on small tensors.
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace tg {

template <class V>
class IdMap {
 public:
  // User-provided, so that `IdMap m{}` (as in an aggregate) initialises the members once instead of
  // zeroing the whole object first.
  IdMap() {}
  V* find(int64_t id) {
    const size_t mask = cap() - 1;
    for (size_t i = hash(id) & mask;; i = (i + 1) & mask) {
      if (key(i) == id) return &val(i);
      if (key(i) == kEmpty) return nullptr;
    }
  }
  const V* find(int64_t id) const { return const_cast<IdMap*>(this)->find(id); }
  bool contains(int64_t id) const { return find(id) != nullptr; }

  // Returns the slot for id and whether it was inserted.
  std::pair<V*, bool> insert(int64_t id, V v = V()) {
    if ((size_ + 1) * 2 > cap()) grow();
    const size_t mask = cap() - 1;
    for (size_t i = hash(id) & mask;; i = (i + 1) & mask) {
      if (key(i) == id) return {&val(i), false};
      if (key(i) == kEmpty) {
        key(i) = id;
        val(i) = std::move(v);
        ++size_;
        return {&val(i), true};
      }
    }
  }
  size_t size() const { return size_; }
  void clear() {
    keys_.clear();
    vals_.clear();
    ikeys_.fill(kEmpty);
    ivals_.fill(V());
    size_ = 0;
  }

 private:
  static constexpr int64_t kEmpty = INT64_MIN;
  static constexpr size_t kInline = 16;
  static size_t hash(int64_t id) { return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 17); }
  size_t cap() const { return keys_.empty() ? kInline : keys_.size(); }
  int64_t& key(size_t i) { return keys_.empty() ? ikeys_[i] : keys_[i]; }
  V& val(size_t i) { return keys_.empty() ? ivals_[i] : vals_[i]; }
  void grow() {
    const size_t old = cap();
    std::vector<int64_t> k(old * 2, kEmpty);
    std::vector<V> v(old * 2);
    std::vector<std::pair<int64_t, V>> items;
    items.reserve(size_);
    for (size_t i = 0; i < old; ++i)
      if (key(i) != kEmpty) items.emplace_back(key(i), std::move(val(i)));
    keys_.swap(k);
    vals_.swap(v);
    ikeys_.fill(kEmpty);
    size_ = 0;
    for (auto& kv : items) insert(kv.first, std::move(kv.second));
  }
  std::array<int64_t, kInline> ikeys_ = filled();
  std::array<V, kInline> ivals_{};
  std::vector<int64_t> keys_;  // used once the table outgrows the inline arrays
  std::vector<V> vals_;
  size_t size_ = 0;
  static std::array<int64_t, kInline> filled() {
    std::array<int64_t, kInline> a;
    a.fill(kEmpty);
    return a;
  }
};

struct Unit {};
using IdSet = IdMap<Unit>;

}  // namespace tg
