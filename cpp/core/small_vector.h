// small_vector.h -- a vector that holds up to N elements inline, without allocating.
//
// Used where a short list is made for every op, such as a tape entry's saved inputs and outputs
// (one or two tensors each): a heap block per list was a visible part of recording an op. Beyond
// N elements it moves to the heap like std::vector. Only what its users need is provided.
#pragma once
#include <cstddef>
#include <new>
#include <utility>

namespace tg {

template <class T, size_t N>
class SmallVector {
 public:
  SmallVector() = default;
  SmallVector(const SmallVector& o) { append(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      clear();
      append(o.begin(), o.end());
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      clear();
      free_heap();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() {
    clear();
    free_heap();
  }

  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

  void reserve(size_t n) {
    if (n > cap_) grow(n);
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (size_ == cap_) {  // built before growing: a may refer to an element
      T v(std::forward<A>(a)...);
      grow(2 * cap_);
      return *new (data_ + size_++) T(std::move(v));
    }
    return *new (data_ + size_++) T(std::forward<A>(a)...);
  }
  template <class It>
  void assign(It first, It last) {
    clear();
    append(first, last);
  }
  void clear() {  // keeps the capacity
    for (size_t i = 0; i < size_; ++i) data_[i].~T();
    size_ = 0;
  }

 private:
  T* local() { return reinterpret_cast<T*>(local_); }
  bool on_heap() const { return data_ != reinterpret_cast<const T*>(local_); }

  template <class It>
  void append(It first, It last) {
    for (; first != last; ++first) emplace_back(*first);
  }
  void grow(size_t n) {
    T* p = static_cast<T*>(::operator new(n * sizeof(T)));
    for (size_t i = 0; i < size_; ++i) {
      new (p + i) T(std::move(data_[i]));
      data_[i].~T();
    }
    free_heap();
    data_ = p;
    cap_ = n;
  }
  void free_heap() {
    if (on_heap()) ::operator delete(data_);
    data_ = local();
    cap_ = N;
  }
  // Takes o's elements (its heap block, or each inline element); this is empty and inline.
  void steal(SmallVector& o) noexcept {
    if (o.on_heap()) {
      data_ = o.data_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.data_ = o.local();
      o.cap_ = N;
    } else {
      for (size_t i = 0; i < o.size_; ++i) new (data_ + i) T(std::move(o.data_[i]));
      size_ = o.size_;
      o.clear();
    }
    o.size_ = 0;
  }

  alignas(T) unsigned char local_[N * sizeof(T)];
  T* data_ = local();
  size_t size_ = 0;
  size_t cap_ = N;
};

}  // namespace tg
