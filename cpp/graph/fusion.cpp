// fusion.cpp -- the elementwise fusion pass and the runtime of fused nodes (Note [Fused nodes]).
//
// Grouping walks the nodes in execution order. An eligible node (an elementwise row, a
// broadcast of one element, an identity, or a Sum/Mean of a whole group value) joins the groups
// of its inputs with the same element count and float type -- all of them when that keeps the
// graph acyclic, else one. Acyclic means: no path leaves the joined set and comes back into it,
// counting every other group as one unit (it will run as one node). A group never spans a side
// effect, so reads of a variable and its assignments keep their order. The new node list is a
// topological order of the units that keeps side effects in their recorded order.
#include "graph/fusion.h"
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <unordered_map>
#include "core/error.h"
#include "engine/eager.h"
#include "kernels/elementwise.h"
#include "kernels/kernel_table.h"

namespace tg {
bool fused_run_baseline(const FusedCall& c);  // fused_kernels.cpp, one per ISA level
bool fused_run_v3(const FusedCall& c);
bool fused_run_v4(const FusedCall& c);
}  // namespace tg

namespace tg::graph {

const OpDef& fused_op() {
  static const OpDef* op = [] {
    auto* d = new OpDef;
    d->name = "Fused";
    d->differentiable = false;
    return d;
  }();
  return *op;
}

const OpDef& fused_output_op() {
  static const OpDef* op = [] {
    auto* d = new OpDef;
    d->name = "FusedOutput";
    d->differentiable = false;
    return d;
  }();
  return *op;
}

std::string FusedGroup::member_list() const {
  std::string s;
  for (size_t i = 0; i < members.size(); ++i) s += (i ? ", " : "") + members[i].op->name;
  return s;
}

namespace {

// Compute: an instruction; Alias: the input's value (Identity); Broadcast: one element to
// every element (BroadcastTo); Reduce: a sum over all elements (a group's terminal node).
enum class Role : uint8_t { Compute, Alias, Broadcast, Reduce };

struct OpEntry {
  int32_t code;
  int arity;
  Role role;
};

// The fusable ops: every row that has block kernels (the elementwise rows of cpp/ops, see
// op_macros.h) computes; identities, broadcasts and sums move data.
const std::unordered_map<std::string, OpEntry>& op_table() {
  static const auto* t = [] {
    auto* m = new std::unordered_map<std::string, OpEntry>{
        {"Identity", {kFCopy, 1, Role::Alias}}, {"StopGradient", {kFCopy, 1, Role::Alias}},
        {"BroadcastTo", {kFCopy, 1, Role::Broadcast}},
        {"Sum", {kFSum, 1, Role::Reduce}}, {"Mean", {kFSum, 1, Role::Reduce}},
    };
    for (const std::string& name : registered_ops()) {
      const OpDef& d = op_def(name.c_str());
      bool all = d.num_inputs >= 1 && d.num_inputs <= 3;
      for (int isa = 0; isa < kIsaLevels; ++isa)
        for (int dt = 0; dt < 2; ++dt) all = all && op_kernels(d).block[isa][dt];
      if (all) m->emplace(name, OpEntry{kFCompute, d.num_inputs, Role::Compute});
    }
    return m;
  }();
  return *t;
}


// What the pass knows about one node.
struct Info {
  const OpEntry* e = nullptr;  // null: not fusable
  int64_t n = 0;               // element count of the group it can join
  int ftype = -1;              // its float type, -1 for an all-bool node
};

Info node_info(const Graph& g, const Node& nd) {
  Info r;
  if (nd.kind != NodeKind::Op || nd.fused || !nd.op) return r;
  auto it = op_table().find(nd.op->name);
  if (it == op_table().end()) return r;
  const OpEntry& e = it->second;
  if ((int)nd.inputs.size() != e.arity) return r;
  int f = -1;
  auto see = [&](DType d) {
    if (d == DType::Bool) return true;
    if (!is_floating(d)) return false;
    if (f < 0) f = (int)d;
    return f == (int)d;
  };
  if (!see(nd.meta.dtype)) return r;
  for (int in : nd.inputs)
    if (!see(g.nodes[in].meta.dtype)) return r;
  for (int64_t d : nd.meta.shape)
    if (d < 0) return r;
  for (int in : nd.inputs)  // (an input's size unknown at the trace: a value-shaped op's, a loop's result)
    for (int64_t d : g.nodes[in].meta.shape)
      if (d < 0) return r;
  const int64_t out_n = num_elements(nd.meta.shape);
  auto in_n = [&](int k) { return num_elements(g.nodes[nd.inputs[k]].meta.shape); };
  switch (e.role) {
    case Role::Reduce:
      if (out_n != 1 || !is_floating(nd.meta.dtype) || g.nodes[nd.inputs[0]].meta.dtype != nd.meta.dtype) return r;
      r.n = in_n(0);
      break;
    case Role::Broadcast:
      if (in_n(0) != 1) return r;
      r.n = out_n;
      break;
    case Role::Alias:
      if (in_n(0) != out_n) return r;
      r.n = out_n;
      break;
    case Role::Compute:
      for (int k = 0; k < e.arity; ++k)
        if (in_n(k) != out_n && in_n(k) != 1) return r;
      r.n = out_n;
      break;
  }
  r.e = &e;
  r.ftype = f;
  return r;
}

struct Group {
  std::vector<int> members;  // node indices, increasing
  int64_t n = 0;
  int ftype = -1;
  bool alive = true;
};

struct Grouper {
  const Graph& g;
  std::vector<Info> info;
  std::vector<int> group_of;
  std::vector<Group> groups;
  std::vector<char> in_m, reach, greached;

  explicit Grouper(const Graph& graph) : g(graph) {
    const size_t n = g.nodes.size();
    info.resize(n);
    group_of.assign(n, -1);
    in_m.assign(n, 0);
    reach.assign(n, 0);
    for (size_t i = 0; i < n; ++i) info[i] = node_info(g, g.nodes[i]);
  }

  bool terminal(int v) const { return info[v].e && info[v].e->role == Role::Reduce; }

  bool reached(int u) const {
    return reach[u] || (group_of[u] >= 0 && !in_m[u] && greached[group_of[u]]);
  }

  // Whether {v} joined with groups gs keeps the graph acyclic (see the file comment).
  bool valid(int v, const std::vector<int>& gs) {
    int lo = v;
    std::vector<int> all = {v};
    for (int gi : gs)
      for (int m : groups[gi].members) all.push_back(m);
    for (int m : all) lo = std::min(lo, m);
    for (int w = lo + 1; w < v; ++w)
      if (g.nodes[w].side_effect()) return false;
    for (int m : all) in_m[m] = 1;
    bool ok = true;
    for (int m : all)
      for (int u : g.nodes[m].inputs)
        if (in_m[u] && terminal(u)) ok = false;  // a sum is known only after the whole pass
    greached.assign(groups.size(), 0);
    for (bool changed = ok; changed;) {
      changed = false;
      for (int w = lo; w < v; ++w) {
        if (in_m[w] || reach[w]) continue;
        bool r = group_of[w] >= 0 && greached[group_of[w]];
        for (int u : g.nodes[w].inputs) r = r || in_m[u] || reached(u);
        if (!r) continue;
        reach[w] = 1;
        changed = true;
        if (group_of[w] >= 0) greached[group_of[w]] = 1;
      }
    }
    for (int m : all)
      for (int u : g.nodes[m].inputs)
        if (!in_m[u] && reached(u)) ok = false;
    for (int m : all) in_m[m] = 0;
    std::fill(reach.begin() + lo, reach.begin() + v, 0);
    return ok;
  }

  void join(int v, const std::vector<int>& gs) {
    Group& first = groups[gs[0]];
    for (size_t k = 1; k < gs.size(); ++k) {
      Group& other = groups[gs[k]];
      for (int m : other.members) {
        first.members.push_back(m);
        group_of[m] = gs[0];
      }
      if (first.ftype < 0) first.ftype = other.ftype;
      other.members.clear();
      other.alive = false;
    }
    first.members.push_back(v);
    std::sort(first.members.begin(), first.members.end());
    group_of[v] = gs[0];
    if (first.ftype < 0) first.ftype = info[v].ftype;
  }

  void run() {
    for (int v = 0; v < (int)g.nodes.size(); ++v) {
      const Info& iv = info[v];
      if (!iv.e) continue;
      std::vector<int> cand;
      const Node& nd = g.nodes[v];
      const size_t nin = iv.e->role == Role::Reduce ? 1 : nd.inputs.size();
      for (size_t k = 0; k < nin; ++k) {
        int u = nd.inputs[k], gu = group_of[u];
        if (gu < 0 || terminal(u) || groups[gu].n != iv.n) continue;
        if (iv.ftype >= 0 && groups[gu].ftype >= 0 && groups[gu].ftype != iv.ftype) continue;
        if (std::find(cand.begin(), cand.end(), gu) != cand.end()) continue;
        // all candidates must agree on the float type
        int f = iv.ftype;
        for (int c : cand) f = f >= 0 ? f : groups[c].ftype;
        if (f >= 0 && groups[gu].ftype >= 0 && groups[gu].ftype != f) continue;
        cand.push_back(gu);
      }
      if (!cand.empty() && valid(v, cand)) {
        join(v, cand);
        continue;
      }
      bool joined = false;
      for (size_t k = 0; k < cand.size() && cand.size() > 1 && !joined; ++k)
        if (valid(v, {cand[k]})) {
          join(v, {cand[k]});
          joined = true;
        }
      if (joined || iv.e->role == Role::Reduce) continue;
      Group grp;
      grp.members = {v};
      grp.n = iv.n;
      grp.ftype = iv.ftype;
      group_of[v] = (int)groups.size();
      groups.push_back(std::move(grp));
    }
  }
};

// Note [Shared exponentials]: Sigmoid, Softplus and Tanh of one value x each start from an
// exponential of x. When two or more of them are members of one group (softplus(x) * tanh(x)
// and its gradient, which brings sigmoid(x), is the common case), the program computes
// t = ExpNegAbs(x) = exp(-|x|) once and runs each op's form given t (SigmoidOfExp, ...; rows in
// cpp/ops/unary.cpp). Members keep their own ops, so eager replays and the text are unchanged.
struct SharedForm {
  const char* op;
  const char* form;
};
constexpr SharedForm kSharedExp[] = {
    {"Sigmoid", "SigmoidOfExp"}, {"Softplus", "SoftplusOfExp"}, {"Tanh", "TanhOfExp"}};

const FusedBlockFn (*shared_exp_form(const std::string& op))[2] {
  for (const SharedForm& s : kSharedExp)
    if (op == s.op) return op_kernels(op_def(s.form)).block;
  return nullptr;
}

// Builds the program of f (members, inputs and outputs already filled in); see fused_program.h.
// A full-size float input is read where it is; a value that is a full-size float output is
// computed straight into the output; other values live in registers, freed after their last use.
// Steps: 1) values and their last uses; 2) inputs placed (splatted, loaded or read in place);
// 3) one instruction per member, registers freed after each; 4) refs numbered.
struct ProgramBuilder {
  // Refs are numbered once the register count is known: kIn + k and kOut + j until then.
  static constexpr int kIn = 1 << 20, kOut = 1 << 21;

  FusedGroup& f;
  const int E, M;
  // Values: input k is k, member m is E + m; an alias member stands for its input's value.
  std::vector<int> canon, last, out_of;
  std::vector<Role> role;
  // Per value: how many members use its shared exponential, the last one that does, its register.
  std::vector<int> exp_users, exp_last, exp_reg;
  std::vector<int> loc, free_regs;
  std::vector<char> permanent;

  explicit ProgramBuilder(FusedGroup& group)
      : f(group), E((int)group.scalar.size()), M((int)group.members.size()), canon(E + M), last(E + M, -1),
        out_of(M, -1), role(M), exp_users(E + M, 0), exp_last(E + M, -1), exp_reg(E + M, -1), loc(E + M, -1) {}

  int value_of(int ref) const { return ref < 0 ? canon[-1 - ref] : canon[E + ref]; }

  static FusedInstr instr(int32_t code, int dst, int a, int b = 0, int c = 0, int raw = 0, double alpha = 0) {
    return FusedInstr{code, dst, a, b, c, raw, alpha, nullptr};
  }

  int alloc(bool perm) {
    int r;
    if (!free_regs.empty()) {
      r = free_regs.back();
      free_regs.pop_back();
    } else {
      r = f.nregs++;
      permanent.push_back(0);
    }
    permanent[r] = perm;
    return r;
  }

  // 1. Values, their last uses, and the members whose shared exponential they feed.
  void find_values() {
    for (int k = 0; k < E; ++k) canon[k] = k;
    for (int m = 0; m < M; ++m) {
      role[m] = op_table().at(f.members[m].op->name).role;
      canon[E + m] = (role[m] == Role::Alias || role[m] == Role::Broadcast) ? value_of(f.members[m].inputs[0]) : E + m;
    }
    for (int m = 0; m < M; ++m)
      if (role[m] == Role::Compute || role[m] == Role::Reduce)
        for (int ref : f.members[m].inputs) last[value_of(ref)] = m;
    for (int o : f.outputs) last[canon[E + o]] = std::max(last[canon[E + o]], o);
    for (size_t k = 0; k < f.outputs.size(); ++k) out_of[f.outputs[k]] = (int)k;
    for (int m = 0; m < M; ++m)
      if (role[m] == Role::Compute && shared_exp_form(f.members[m].op->name)) {
        const int v = value_of(f.members[m].inputs[0]);
        ++exp_users[v];
        exp_last[v] = m;
      }
  }

  // 2. Scalars are splatted once per thread, booleans loaded, full-size floats read in place.
  void place_inputs() {
    for (int k = 0; k < E; ++k) {
      if (last[k] < 0) continue;
      const bool is_bool = f.in_dtype[k] == DType::Bool;
      if (f.scalar[k]) {
        loc[k] = alloc(true);
        f.prologue.push_back(instr(is_bool ? kFSplatBool : kFSplat, loc[k], 0, 0, 0, k));
      } else if (is_bool) {
        loc[k] = alloc(false);
        f.body.push_back(instr(kFLoadBool, loc[k], 0, 0, 0, k));
      } else {
        loc[k] = kIn + k;
      }
    }
  }

  // 3. A computing member: its block kernel on its operands' registers.
  void emit_compute(int m, int j) {
    const Node& nd = f.members[m];
    const OpEntry& e = op_table().at(nd.op->name);
    const bool out_bool = nd.meta.dtype == DType::Bool;
    int r[3] = {0, 0, 0};
    for (int k = 0; k < e.arity; ++k) r[k] = loc[value_of(nd.inputs[k])];
    const FusedBlockFn (*fn)[2] = op_kernels(*nd.op).block;
    const int v = value_of(nd.inputs[0]);
    if (exp_users[v] >= 2 && shared_exp_form(nd.op->name)) {  // Note [Shared exponentials]
      if (exp_reg[v] < 0) {
        exp_reg[v] = alloc(false);
        FusedInstr t = instr(kFCompute, exp_reg[v], r[0]);
        t.fn = op_kernels(op_def("ExpNegAbs")).block;
        f.body.push_back(t);
      }
      r[1] = exp_reg[v];
      fn = shared_exp_form(nd.op->name);
      ++f.shared_exp;
    }
    // The destination is never an operand: operands are still held while it is chosen.
    const int dst = j >= 0 && !out_bool ? kOut + j : alloc(false);
    FusedInstr in = instr(e.code, dst, r[0], r[1], r[2], 0, nd.attrs.f("alpha", 0.0));
    in.fn = fn;
    if (exp_last[v] == m && exp_reg[v] >= 0) free_regs.push_back(exp_reg[v]);
    f.body.push_back(in);
    loc[E + m] = dst;
    if (j >= 0 && out_bool) f.body.push_back(instr(kFStoreBool, 0, dst, 0, 0, j));
  }

  // 3. One member; then the registers of values whose last use it was are free.
  void emit_member(int m) {
    const Node& nd = f.members[m];
    const int j = out_of[m] >= 0 ? f.slot[out_of[m]] : -1;  // full-size output slot
    if (role[m] == Role::Reduce) {
      if (out_of[m] >= 0) f.body.push_back(instr(kFSum, 0, loc[value_of(nd.inputs[0])], 0, 0, -1 - f.slot[out_of[m]]));
    } else if (role[m] == Role::Compute) {
      emit_compute(m, j);
    } else if (j >= 0) {  // an alias or broadcast that leaves the group: copied out
      const int src = loc[canon[E + m]];
      f.body.push_back(nd.meta.dtype == DType::Bool ? instr(kFStoreBool, 0, src, 0, 0, j) : instr(kFCopy, kOut + j, src));
    }
    for (int val = 0; val < E + M; ++val)
      if (loc[val] >= 0 && loc[val] < kIn && last[val] <= m) {
        if (!permanent[loc[val]]) free_regs.push_back(loc[val]);
        loc[val] = -1;
      }
  }

  // 4. Number the refs; note where each input is last read and each output written (donation).
  void number_refs() {
    if (f.nregs == 0) f.nregs = 1;
    auto fix = [&](int32_t& ref) {
      if (ref >= kOut) ref = f.nregs + E + (ref - kOut);
      else if (ref >= kIn) ref = f.nregs + (ref - kIn);
    };
    f.last_read.assign(E, -1);
    f.written_at.assign(f.nfull, -1);
    for (size_t p = 0; p < f.body.size(); ++p) {
      FusedInstr& I = f.body[p];
      for (int32_t* ref : {&I.a, &I.b, &I.c})
        if (*ref >= kIn && *ref < kOut) f.last_read[*ref - kIn] = (int)p;
      if (I.code == kFLoadBool) f.last_read[I.raw] = (int)p;
      if (I.code == kFStoreBool) f.written_at[I.raw] = (int)p;
      else if (I.dst >= kOut) f.written_at[I.dst - kOut] = (int)p;
      fix(I.dst), fix(I.a), fix(I.b), fix(I.c);
    }
  }
};

void build_program(FusedGroup& f) {
  ProgramBuilder b(f);
  b.find_values();
  b.place_inputs();
  for (int m = 0; m < b.M; ++m) b.emit_member(m);
  b.number_refs();
}

// Makes the fused group of the given old nodes; ext receives the old indices of its inputs.
std::shared_ptr<FusedGroup> make_group(const Graph& g, const std::vector<int>& members, const std::vector<char>& outside,
                                       std::vector<int>& ext, DType dtype, int64_t n) {
  auto f = std::make_shared<FusedGroup>();
  std::unordered_map<int, int> local;
  for (size_t i = 0; i < members.size(); ++i) local[members[i]] = (int)i;
  f->dtype = dtype;
  f->n = n;
  bool first = true;
  for (int old : members) {
    Node m = g.nodes[old];
    const bool reduce = op_table().at(m.op->name).role == Role::Reduce;
    for (int& in : m.inputs) {
      auto it = local.find(in);
      if (it != local.end()) {
        in = it->second;
        continue;
      }
      auto pos = std::find(ext.begin(), ext.end(), in);
      int k = (int)(pos - ext.begin());
      if (pos == ext.end()) {
        ext.push_back(in);
        const OutMeta& im = g.nodes[in].meta;
        f->in_dtype.push_back(im.dtype);
        f->in_shape.push_back(im.shape);
        f->scalar.push_back(num_elements(im.shape) == 1 && n != 1);
      }
      in = -1 - k;
    }
    if (!reduce) {
      if (first) f->shape = m.meta.shape;
      else if (f->shape != m.meta.shape) f->uniform = false;
      first = false;
      f->has_broadcast |= op_table().at(m.op->name).role == Role::Broadcast;
    }
    if (outside[old]) {
      f->outputs.push_back((int)f->members.size());
      if (reduce) {
        f->slot.push_back(-1 - (int)f->mean.size());
        f->mean.push_back(m.op->name == "Mean");
      } else {
        f->slot.push_back(f->nfull++);
      }
    }
    f->members.push_back(std::move(m));
  }
  build_program(*f);
  return f;
}

enum class FusionMode { Off, Default, All };

FusionMode fusion_mode() {
  const char* env = std::getenv("TAPEGRAD_FUSION");
  if (!env) return FusionMode::Default;
  if (!std::strcmp(env, "off") || !std::strcmp(env, "0")) return FusionMode::Off;
  if (!std::strcmp(env, "all")) return FusionMode::All;
  return FusionMode::Default;
}

}  // namespace

bool fusion_off() { return fusion_mode() == FusionMode::Off; }

namespace {

// 1. The groups worth a kernel: two or more members, a float type, enough elements. The members
// of the others go back to being single nodes. Returns the number of nodes fused.
int keep_groups(Grouper& gr, FusionMode mode, std::vector<int>& kept) {
  int fused_ops = 0;
  for (size_t gi = 0; gi < gr.groups.size(); ++gi) {
    Group& grp = gr.groups[gi];
    bool work = false;
    for (int m : grp.members) work |= gr.info[m].e->role == Role::Compute || gr.info[m].e->role == Role::Reduce;
    bool keep = grp.alive && grp.members.size() >= 2 && grp.ftype >= 0 && work &&
                (mode == FusionMode::All || grp.n >= kFuseMinElements);
    if (!keep) {
      for (int m : grp.members) gr.group_of[m] = -1;
      continue;
    }
    kept.push_back((int)gi);
    fused_ops += (int)grp.members.size();
  }
  return fused_ops;
}

// 2. Units: every kept group, and every other node on its own, with the edges between them.
// Key: a node's index, a group's last member (the order units are emitted in when ready).
struct Units {
  std::vector<int> key, unit_of, indeg;
  std::vector<std::vector<int>> nodes, succ;
  std::vector<char> outside;  // per node: its value is read outside its unit (or is an output)

  Units(const Graph& g, const Grouper& gr, const std::vector<int>& kept) : unit_of(g.nodes.size(), -1) {
    const int N = (int)g.nodes.size();
    for (int v = 0; v < N; ++v) {
      if (gr.group_of[v] >= 0) continue;
      unit_of[v] = (int)key.size();
      key.push_back(v);
      nodes.push_back({v});
    }
    for (int gi : kept) {
      const auto& mem = gr.groups[gi].members;
      for (int m : mem) unit_of[m] = (int)key.size();
      key.push_back(mem.back());
      nodes.push_back(mem);
    }
    link(g);
  }

  void link(const Graph& g) {
    const int U = (int)key.size();
    succ.assign(U, {});
    indeg.assign(U, 0);
    outside.assign(g.nodes.size(), 0);
    std::vector<int> stamp(U, -1);
    for (int o : g.outputs) outside[o] = 1;
    for (int u = 0; u < U; ++u)
      for (int v : nodes[u])
        for (int in : g.nodes[v].inputs) {
          int p = unit_of[in];
          if (p == u) continue;
          outside[in] = 1;
          if (stamp[p] == u) continue;
          stamp[p] = u;
          succ[p].push_back(u);
          ++indeg[u];
        }
  }
};

// 3. A kept group as one fused node (plus one FusedOutput node per further output).
void emit_group(const Graph& g, const Grouper& gr, const std::vector<int>& nodes, const Units& units,
                std::vector<int>& new_index, std::vector<Node>& out) {
  std::vector<int> ext;
  const int gi = gr.group_of[nodes[0]];
  auto f = make_group(g, nodes, units.outside, ext, (DType)gr.groups[gi].ftype, gr.groups[gi].n);
  Node fn;
  fn.kind = NodeKind::Op;
  fn.op = &fused_op();
  for (int e : ext) {
    fn.inputs.push_back(new_index[e]);
    fn.dynamic |= g.nodes[e].dynamic;
  }
  const int base = (int)out.size();
  for (size_t k = 0; k < f->outputs.size(); ++k) new_index[nodes[f->outputs[k]]] = base + (int)k;
  fn.meta = f->members[f->outputs[0]].meta;
  const bool dyn = fn.dynamic;
  fn.fused = f;
  out.push_back(std::move(fn));
  for (size_t k = 1; k < f->outputs.size(); ++k) {
    Node on;
    on.kind = NodeKind::Op;
    on.op = &fused_output_op();
    on.attrs.set("index", (int64_t)k);
    on.inputs = {base};
    on.meta = f->members[f->outputs[k]].meta;
    on.dynamic = dyn;
    out.push_back(std::move(on));
  }
}

}  // namespace

int fuse_elementwise(Graph& g) {
  const FusionMode mode = fusion_mode();
  if (mode == FusionMode::Off || g.nodes.empty()) return 0;
  Grouper gr(g);
  gr.run();
  std::vector<int> kept;
  const int fused_ops = keep_groups(gr, mode, kept);
  if (kept.empty()) return 0;
  Units units(g, gr, kept);
  // 4. Units in topological order, the smallest key first among the ready ones.
  using Item = std::pair<int, int>;  // (key, unit)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  for (size_t u = 0; u < units.key.size(); ++u)
    if (!units.indeg[u]) ready.push({units.key[u], (int)u});
  std::vector<Node> out;
  out.reserve(g.nodes.size());
  std::vector<int> new_index(g.nodes.size(), -1);
  while (!ready.empty()) {
    const int u = ready.top().second;
    ready.pop();
    const auto& nodes = units.nodes[u];
    if (gr.group_of[nodes[0]] >= 0) {
      emit_group(g, gr, nodes, units, new_index, out);
    } else {
      Node nd = g.nodes[nodes[0]];
      for (int& in : nd.inputs) in = new_index[in];
      new_index[nodes[0]] = (int)out.size();
      out.push_back(std::move(nd));
    }
    for (int s : units.succ[u])
      if (!--units.indeg[s]) ready.push({units.key[s], s});
  }
  if (out.size() < units.key.size()) throw InvalidArgument("fusion: internal error, the fused graph has a cycle");
  for (int& o : g.outputs) o = new_index[o];
  g.nodes = std::move(out);
  return fused_ops;
}

// ---------------------------------------------------------------------------------------
// Running a fused node
// ---------------------------------------------------------------------------------------

namespace {

// The members one by one: through apply() (tapes and tracers see them) or the kernels.
Tensors run_members(const FusedGroup& f, const Tensors& x, bool eager) {
  Tensors vals(f.members.size()), in;
  for (size_t m = 0; m < f.members.size(); ++m) {
    const Node& nd = f.members[m];
    in.clear();
    for (int ref : nd.inputs) in.push_back(ref < 0 ? x[-1 - ref] : vals[ref]);
    vals[m] = eager ? apply(*nd.op, in, nd.attrs) : nd.op->kernel(*nd.op, in, nd.attrs, nd.op->infer(*nd.op, in, nd.attrs));
  }
  Tensors out;
  for (int o : f.outputs) out.push_back(vals[o]);
  return out;
}

bool run_kernel(const FusedCall& c) {
  switch (active_isa()) {
    case 2: return fused_run_v4(c);
    case 1: return fused_run_v3(c);
    default: return fused_run_baseline(c);
  }
}

}  // namespace

Tensors run_fused(const FusedGroup& f, const Tensors& x, bool eager, const std::vector<char>* donate) {
  if (eager) return run_members(f, x, true);
  if (f.epilogue) {
    Tensor y = run_epilogue(f, x);
    return y ? Tensors{y} : run_members(f, x, false);
  }
  // Input shapes other than the traced ones (a relaxed graph, Note [Relaxed graphs]) run the
  // program when every full-size input has one shape that every member has; else unfused.
  bool traced_shape = true;
  const Shape* rt = nullptr;
  for (size_t k = 0; k < x.size(); ++k) {
    if (x[k]->dtype != f.in_dtype[k] || (f.scalar[k] && x[k]->size != 1)) return run_members(f, x, false);
    if (x[k]->shape == f.in_shape[k]) continue;
    traced_shape = false;
    if (f.scalar[k]) continue;
    if (!rt) rt = &x[k]->shape;
    else if (*rt != x[k]->shape) return run_members(f, x, false);
  }
  int64_t n = f.n;
  if (!traced_shape) {
    if (!f.uniform || f.has_broadcast || !rt || rt->size() != f.shape.size()) return run_members(f, x, false);
    for (size_t k = 0; k < x.size(); ++k)
      if (!f.scalar[k] && x[k]->shape != *rt) return run_members(f, x, false);
    n = num_elements(*rt);
  }
  std::vector<char> taken(x.size(), 0);
  Tensors outs(f.outputs.size());
  std::vector<void*> out_ptr(f.nfull);
  std::vector<const void*> in_ptr(x.size());
  for (size_t k = 0; k < x.size(); ++k) in_ptr[k] = x[k]->data();
  for (size_t k = 0; k < f.outputs.size(); ++k) {
    if (f.slot[k] < 0) continue;
    const OutMeta& m = f.members[f.outputs[k]].meta;
    const Shape& shape = traced_shape ? m.shape : *rt;
    Tensor t;
    for (size_t j = 0; donate && j < x.size() && !t; ++j)
      if ((*donate)[j] && !taken[j] && !f.scalar[j] && x[j]->dtype == m.dtype && x[j]->size == n &&
          f.last_read[j] <= f.written_at[f.slot[k]]) {
        taken[j] = 1;
        t = view(x[j], shape);
      }
    if (!t) t = empty(shape, m.dtype);
    out_ptr[f.slot[k]] = t->data();
    outs[k] = std::move(t);
  }
  std::vector<double> sums(f.mean.size(), 0.0);
  FusedCall c{};
  c.prologue = f.prologue.data();
  c.nprologue = (int)f.prologue.size();
  c.body = f.body.data();
  c.nbody = (int)f.body.size();
  c.nregs = f.nregs;
  c.nin = (int)x.size();
  c.nout = f.nfull;
  c.dtype = f.dtype == DType::Float64 ? 1 : 0;
  c.n = n;
  c.in = in_ptr.data();
  c.out = out_ptr.data();
  c.sums = sums.data();
  c.nsums = (int)sums.size();
  if (!run_kernel(c)) throw std::bad_alloc();
  for (size_t k = 0; k < f.outputs.size(); ++k) {
    if (f.slot[k] >= 0) continue;
    const int acc = -1 - f.slot[k];
    Shape shape = f.members[f.outputs[k]].meta.shape;
    for (auto& d : shape) d = d < 0 ? 1 : d;
    const double v = f.mean[acc] ? sums[acc] / (double)n : sums[acc];
    outs[k] = full(shape, f.dtype, v);
  }
  return outs;
}

bool same_fused(const FusedGroup& a, const FusedGroup& b) {
  if (a.members.size() != b.members.size() || a.outputs != b.outputs || a.scalar != b.scalar) return false;
  for (size_t i = 0; i < a.members.size(); ++i) {
    const Node &x = a.members[i], &y = b.members[i];
    if (x.op != y.op || x.inputs != y.inputs || !(x.attrs.items == y.attrs.items) || x.meta.dtype != y.meta.dtype)
      return false;
  }
  return true;
}

std::vector<std::string> fusable_ops() {
  std::vector<std::string> r;
  for (const auto& [name, e] : op_table())
    if (e.role == Role::Compute) r.push_back(name);
  std::sort(r.begin(), r.end());
  return r;
}

}  // namespace tg::graph
