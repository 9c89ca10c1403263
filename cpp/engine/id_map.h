// id_map.h -- an open-addressing map from tensor id to a value (two allocations per table).
// The tape and the sweep look ids up several times per op: std::unordered_map's per-node
// allocations were most of the per-op cost on small tensors.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace tg {

template <class V>
class IdMap {
 public:
  IdMap() : keys_(kInline, kEmpty), vals_(kInline) {}

  V* find(int64_t id) {
    size_t mask = keys_.size() - 1;
    for (size_t i = hash(id) & mask;; i = (i + 1) & mask) {
      if (keys_[i] == id) return &vals_[i];
      if (keys_[i] == kEmpty) return nullptr;
    }
  }
  const V* find(int64_t id) const { return const_cast<IdMap*>(this)->find(id); }
  bool contains(int64_t id) const { return find(id) != nullptr; }

  // Returns the slot for id and whether it was inserted.
  std::pair<V*, bool> insert(int64_t id, V v = V()) {
    if ((size_ + 1) * 2 > keys_.size()) grow();
    size_t mask = keys_.size() - 1;
    for (size_t i = hash(id) & mask;; i = (i + 1) & mask) {
      if (keys_[i] == id) return {&vals_[i], false};
      if (keys_[i] == kEmpty) {
        keys_[i] = id;
        vals_[i] = std::move(v);
        ++size_;
        return {&vals_[i], true};
      }
    }
  }
  // Drops the value but keeps the key as present (ids are never reused, so no tombstones needed).
  void release(int64_t id) {
    if (V* v = find(id)) *v = V();
  }
  size_t size() const { return size_; }
  void clear() {
    keys_.assign(kInline, kEmpty);
    vals_.assign(kInline, V());
    size_ = 0;
  }

 private:
  static constexpr int64_t kEmpty = INT64_MIN;
  static constexpr size_t kInline = 16;
  static size_t hash(int64_t id) { return (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull >> 20); }
  void grow() {
    std::vector<int64_t> k(keys_.size() * 2, kEmpty);
    std::vector<V> v(keys_.size() * 2);
    std::swap(k, keys_);
    std::swap(v, vals_);
    size_ = 0;
    for (size_t i = 0; i < k.size(); ++i)
      if (k[i] != kEmpty) insert(k[i], std::move(v[i]));
  }
  std::vector<int64_t> keys_;
  std::vector<V> vals_;
  size_t size_ = 0;
};

struct Unit {};
using IdSet = IdMap<Unit>;

}  // namespace tg
