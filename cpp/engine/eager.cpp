// eager.cpp -- the single entry point through which every op runs.
#include "engine/eager.h"
#include <atomic>
#include <cmath>
#include <memory>
#include "core/error.h"
#include "core/flush_denormal.h"
#include "engine/observer.h"

namespace tg {

bool g_check_numerics = false;
std::string (*g_call_site)() = nullptr;
thread_local const std::string* g_backward_context = nullptr;

namespace {

// This thread's observers in kind order (see Note [Op observers]). A trivial type, so the
// thread_local needs no guard: apply() reads one count.
struct ObserverList {
  static constexpr int kCapacity = 8;
  OpObserver* items[kCapacity];
  int n;
};
thread_local ObserverList t_observers{};

[[gnu::noinline]] void notify_before_stateful(const Tensors& x) {
  const ObserverList list = t_observers;  // an observer may open or close others
  for (int i = 0; i < list.n; ++i) list.items[i]->before_stateful_op(x);
}

[[gnu::noinline]] void notify_after(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out) {
  const ObserverList list = t_observers;
  for (int i = 0; i < list.n; ++i) list.items[i]->after_op(op, x, attrs, out);
}

}  // namespace

void add_observer(OpObserver* o) {
  ObserverList& l = t_observers;
  for (int i = 0; i < l.n; ++i)
    if (l.items[i] == o) return;
  if (l.n == ObserverList::kCapacity) throw InvalidArgument("too many kinds of op observers on one thread");
  int at = l.n;
  while (at > 0 && l.items[at - 1]->kind > o->kind) {
    l.items[at] = l.items[at - 1];
    --at;
  }
  l.items[at] = o;
  ++l.n;
}

void remove_observer(OpObserver* o) {
  ObserverList& l = t_observers;
  for (int i = 0; i < l.n; ++i)
    if (l.items[i] == o) {
      for (int j = i + 1; j < l.n; ++j) l.items[j - 1] = l.items[j];
      --l.n;
      return;
    }
}

bool any_observer() { return t_observers.n != 0; }

bool observed(OpObserver::Kind k) {
  const ObserverList& l = t_observers;
  for (int i = 0; i < l.n; ++i)
    if (l.items[i]->kind == k) return true;
  return false;
}

namespace {
thread_local int t_size_mode = 0;  // Note [Sizes in traced rules]
// How many threads have a mode set: the sweep asks for the mode several times per entry, and
// while no thread traces this spares it the thread-local lookup (a call from a shared object).
std::atomic<int> g_threads_with_size_mode{0};
}

bool sizes_at_run_time() {
  return g_threads_with_size_mode.load(std::memory_order_relaxed) != 0 && t_size_mode != 0;
}
bool sizes_vary_with_values() {
  return g_threads_with_size_mode.load(std::memory_order_relaxed) != 0 && t_size_mode == 2;
}

int set_sizes_at_run_time(int mode) {
  const int was = t_size_mode;
  t_size_mode = mode;
  if (!was != !mode) g_threads_with_size_mode.fetch_add(mode ? 1 : -1, std::memory_order_relaxed);
  return was;
}

// An input of a type the op's row does not list (Note [Element types]): TF's error for a type its op
// definition does not allow.
[[noreturn, gnu::noinline]] static void refuse_input_dtype(const OpDef& op, DType d) {
  if (op.no_cpu_kernel & dtype_bit(d))  // TF's op takes the type, its CPU kernels do not
    throw NotFound(cat(op.name, ": could not find a CPU kernel for T=", dtype_name(d)));
  throw InvalidArgument(cat(op.name, ": Value for attr 'T' of ", dtype_name(d), " is not in the list of allowed values"));
}

Tensor apply(const OpDef& op, const Tensors& x, const Attrs& attrs) {
  if (op.num_inputs >= 0 && (int)x.size() != op.num_inputs)
    throw InvalidArgument(cat(op.name, ": expected ", op.num_inputs, " inputs, got ", x.size()));
  for (auto& xi : x) {
    if (!xi) throw InvalidArgument(cat(op.name, ": an input is None"));
    if (__builtin_expect(!(op.dtypes & dtype_bit(xi->dtype)), 0)) refuse_input_dtype(op, xi->dtype);
  }
  Tensor out;
  try {  // Note [One set of error classes]: every failure of an op names it
    OutMeta m = op.infer(op, x, attrs);
    if (__builtin_expect(op.stateful && t_observers.n != 0, 0)) notify_before_stateful(x);
    ScopedFlushDenormal ftz;  // Note [Flush denormals]
    out = op.kernel(op, x, attrs, m);
  } catch (OpFailure& e) {
    e.name_op(op.name);
    throw;
  }
  if (g_check_numerics) check_finite(out, op.name);
  if (__builtin_expect(t_observers.n != 0, 0)) notify_after(op, x, attrs, out);  // Note [Op observers]
  return out;
}

Tensor apply(const char* op, const Tensors& x, const Attrs& attrs) { return apply(op_def(op), x, attrs); }

// Note [Spare input list]: apply() takes its inputs as a vector, and building one for each binary
// op (the rule vocabulary's x * y, Python's operators) was a malloc and a free per op. Each thread
// keeps one spare list: a call takes it (or makes one when a caller up the stack holds it, an
// observer running ops), and gives it back empty. A trivial thread_local, so reading it needs no
// guard; the list is freed at thread exit by an object made when the first one is given back.
namespace {
struct SpareInputs {
  Tensors* list;
  enum : char { kFresh, kReaped, kDead } state;
};
thread_local SpareInputs t_spare_inputs{};

struct SpareInputsReaper {
  ~SpareInputsReaper() {
    delete t_spare_inputs.list;
    t_spare_inputs = {nullptr, SpareInputs::kDead};
  }
};

[[gnu::noinline]] void reap_at_thread_exit(SpareInputs* s) {
  thread_local SpareInputsReaper reaper;
  (void)reaper;
  s->state = SpareInputs::kReaped;
}
}  // namespace

Tensor apply2(const OpDef& op, Tensor x, Tensor y) {
  SpareInputs* s = &t_spare_inputs;
  asm("" : "+r"(s));  // the thread_local's address once (see object_blocks() in allocator.cpp)
  std::unique_ptr<Tensors> v(s->list);
  s->list = nullptr;
  if (!v) {
    v = std::make_unique<Tensors>();
    v->reserve(2);
  }
  v->push_back(std::move(x));
  v->push_back(std::move(y));
  Tensor out = tg::apply(op, *v);
  v->clear();
  if (!s->list && s->state != SpareInputs::kDead) {
    if (s->state == SpareInputs::kFresh) reap_at_thread_exit(s);
    s->list = v.release();
  }
  return out;
}

void check_finite(const Tensor& t, const std::string& what) {
  if (!is_floating(t->dtype)) return;
  dispatch_dtype(t->dtype, [&](auto v) {
    using T = decltype(v);
    const T* p = t->data_as<T>();
    for (int64_t i = 0; i < t->size; ++i)
      if (!std::isfinite((double)p[i]))
        throw NumericsError(cat(what, " produced a non-finite value (", std::to_string((double)p[i]),
                                ") in a tensor of ", meta_str(t),
                                g_backward_context ? " while computing " + *g_backward_context
                                : what.find(" at ") == std::string::npos && g_call_site ? ", at " + g_call_site() : ""));
    return 0;
  });
}

}  // namespace tg
