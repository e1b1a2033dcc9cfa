// The exact reference for the topo policy's objective: the placement of a few
// whole-node jobs on a small cluster with the least summed shared step time
// (what `evaluate` reports as the plan's total, contention between the jobs
// included), found by branch and bound over how many nodes each job takes in
// each domain of one level (racks of an NVL72 or PCIe fleet, SUs of a DGX
// SuperPOD), priced by the library's own pricer.
//
// Nodes inside one such domain are interchangeable (node symmetry: every node
// is wired the same to the domain's switches; exact_symmetry_gap checks it on
// the instance), so a count per domain is a placement: each domain's nodes go
// to the jobs in the solver's job order, and a job's ranks follow accelerator
// order, as the planner's do. Domains are not assumed interchangeable (rank
// order crosses them differently), so every count vector is tried.
//
// Bound: a job never costs less with others sharing links than alone, so the
// sum of the placed jobs' alone prices plus each remaining job's cheapest
// alone price on the empty cluster is a lower bound; every leaf is checked
// against it (violations counts the leaves where sharing made a job cheaper,
// which would make the bound unsafe).
//
// Used by tests/unit/quality_gap_test.cpp and bench/quality_gap_bench.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "topoplan/model/node_size.hpp"
#include "topoplan/model/topology.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/placement/planner.hpp"

namespace topoplan::test {

struct ExactResult {
  bool found = false;
  double total = std::numeric_limits<double>::infinity();  // summed shared step seconds
  std::vector<std::vector<std::uint32_t>> counts;  // per job (input order), nodes per domain of the level
  std::vector<std::vector<DeviceId>> ranks;        // per job (input order), the optimum's devices
  std::size_t leaves = 0;                          // complete placements priced with contention
  std::size_t violations = 0;                      // leaves where a job cost less shared than alone
};

class ExactPlacement {
 public:
  /// Jobs are whole-node (`nodes: K`, or `gpus` a multiple of the node size);
  /// `level` is the level whose domains the counts are over. A job's
  /// `required` level, when coarser than or equal to `level`, keeps all its
  /// domains inside one domain of that level.
  ExactPlacement(const Topology& t, const std::vector<Job>& jobs, LevelIndex level, const PlanPricer& pricer)
      : t_(t), jobs_(jobs), pricer_(pricer) {
    const std::uint32_t node_size = typical_node_accelerators(t);
    auto [first, last] = t.domains_at(level);
    for (DomainId d = first; d < last; ++d) {
      std::vector<DomainId> nodes;
      auto [nf, nl] = t.descendants_at(d, t.host_level());
      for (DomainId n = nf; n < nl; ++n)
        if (t.domain(n).accelerator_count() > 0) nodes.push_back(n);
      domains_.push_back(d);
      nodes_.push_back(std::move(nodes));
    }
    for (const Job& j : jobs_) {
      need_.push_back(j.nodes ? j.nodes : j.per_replica / std::max(1u, node_size));
      std::optional<LevelIndex> req;
      if (j.required) req = t.find_level(*j.required);
      required_.push_back(req && *req <= level ? req : std::nullopt);
    }
  }

  /// Off: every complete placement is priced (to check the bound).
  bool prune = true;

  ExactResult solve() {
    // Largest jobs first: they constrain the rest most, and prune best.
    order_.resize(jobs_.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return need_[a] > need_[b]; });
    // Each job's cheapest alone price on the empty cluster.
    std::vector<std::uint32_t> free(domains_.size());
    for (std::size_t d = 0; d < domains_.size(); ++d) free[d] = static_cast<std::uint32_t>(nodes_[d].size());
    cheapest_.assign(jobs_.size(), std::numeric_limits<double>::infinity());
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      std::vector<std::uint32_t> c(domains_.size(), 0);
      compositions(j, 0, need_[j], free, c, [&](const std::vector<std::uint32_t>& v) {
        cheapest_[j] = std::min(cheapest_[j], alone(j, v));
      });
    }
    result_ = ExactResult();
    counts_.assign(jobs_.size(), std::vector<std::uint32_t>(domains_.size(), 0));
    search(0, free, 0);
    return result_;
  }

  /// The devices of every job when job j takes counts[j][d] nodes of domain
  /// d, nodes handed out in job order (input order) inside each domain.
  std::vector<std::vector<DeviceId>> devices(const std::vector<std::vector<std::uint32_t>>& counts) const {
    std::vector<std::vector<DeviceId>> out(jobs_.size());
    auto all = t_.accelerators();
    for (std::size_t d = 0; d < domains_.size(); ++d) {
      std::size_t next = 0;
      for (std::size_t j = 0; j < jobs_.size(); ++j)
        for (std::uint32_t k = 0; k < counts[j][d]; ++k, ++next) {
          const Domain& node = t_.domain(nodes_[d][next]);
          for (std::uint32_t a = node.accel_begin; a < node.accel_end; ++a) out[j].push_back(all[a]);
        }
    }
    for (auto& r : out) std::sort(r.begin(), r.end(), [&](DeviceId x, DeviceId y) {
      return t_.accelerator_index(x) < t_.accelerator_index(y);
    });
    return out;
  }

  /// Summed shared step seconds of the jobs on these devices.
  double price(const std::vector<std::vector<DeviceId>>& ranks) const {
    std::vector<const Job*> jobs;
    for (const Job& j : jobs_) jobs.push_back(&j);
    std::vector<double> shared = pricer_.shared_step_seconds(jobs, ranks);
    double total = 0;
    for (double s : shared) total += std::max(0.0, s);
    return total;
  }

  /// The largest relative change of the optimum's price when the nodes of
  /// every domain are handed out in reverse (last node to the first job):
  /// 0 when nodes inside a domain are interchangeable, as the search assumes.
  double symmetry_gap(const ExactResult& r) const {
    std::vector<std::vector<DeviceId>> reversed(jobs_.size());
    auto all = t_.accelerators();
    for (std::size_t d = 0; d < domains_.size(); ++d) {
      std::size_t next = nodes_[d].size();
      for (std::size_t j = 0; j < jobs_.size(); ++j)
        for (std::uint32_t k = 0; k < r.counts[j][d]; ++k) {
          const Domain& node = t_.domain(nodes_[d][--next]);
          for (std::uint32_t a = node.accel_begin; a < node.accel_end; ++a) reversed[j].push_back(all[a]);
        }
    }
    for (auto& v : reversed) std::sort(v.begin(), v.end(), [&](DeviceId x, DeviceId y) {
      return t_.accelerator_index(x) < t_.accelerator_index(y);
    });
    double other = price(reversed);
    return std::abs(other - r.total) / std::max(r.total, 1e-12);
  }

 private:
  using Visit = std::function<void(const std::vector<std::uint32_t>&)>;

  // Every way to spread `left` nodes of job j over domains d.. within `free`,
  // honouring its required level.
  void compositions(std::size_t j, std::size_t d, std::uint32_t left, const std::vector<std::uint32_t>& free,
                    std::vector<std::uint32_t>& c, const Visit& visit) const {
    if (left == 0) {
      if (within_required(j, c)) visit(c);
      return;
    }
    if (d == domains_.size()) return;
    std::uint32_t most = std::min(left, free[d]);
    for (std::uint32_t k = most + 1; k-- > 0;) {
      c[d] = k;
      compositions(j, d + 1, left - k, free, c, visit);
    }
    c[d] = 0;
  }

  bool within_required(std::size_t j, const std::vector<std::uint32_t>& c) const {
    if (!required_[j]) return true;
    DomainId shared = kNone;
    for (std::size_t d = 0; d < c.size(); ++d) {
      if (c[d] == 0) continue;
      DomainId a = t_.ancestor(domains_[d], *required_[j]);
      if (shared != kNone && a != shared) return false;
      shared = a;
    }
    return true;
  }

  std::vector<DeviceId> devices_of(const std::vector<std::uint32_t>& c) const {
    std::vector<DeviceId> out;
    auto all = t_.accelerators();
    for (std::size_t d = 0; d < domains_.size(); ++d)
      for (std::uint32_t k = 0; k < c[d]; ++k) {
        const Domain& node = t_.domain(nodes_[d][k]);
        for (std::uint32_t a = node.accel_begin; a < node.accel_end; ++a) out.push_back(all[a]);
      }
    return out;
  }

  // Job j alone on these counts (the first nodes of each domain: by node
  // symmetry, any nodes).
  double alone(std::size_t j, const std::vector<std::uint32_t>& c) {
    auto key = std::make_pair(j, c);
    auto it = alone_.find(key);
    if (it != alone_.end()) return it->second;
    std::vector<DeviceId> ranks = devices_of(c);
    double s = pricer_.step_seconds(jobs_[j], ranks);
    alone_.emplace(std::move(key), s);
    return s;
  }

  void search(std::size_t depth, std::vector<std::uint32_t>& free, double bound) {
    double rest = 0;
    for (std::size_t i = depth; i < order_.size(); ++i) rest += cheapest_[order_[i]];
    if (prune && result_.found && bound + rest >= result_.total * (1 - 1e-12)) return;
    if (depth == order_.size()) {
      leaf();
      return;
    }
    const std::size_t j = order_[depth];
    std::vector<std::uint32_t> c(domains_.size(), 0);
    // Cheapest alone first, so a good incumbent comes early.
    std::vector<std::pair<double, std::vector<std::uint32_t>>> options;
    compositions(j, 0, need_[j], free, c, [&](const std::vector<std::uint32_t>& v) {
      options.emplace_back(alone(j, v), v);
    });
    std::stable_sort(options.begin(), options.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [cost, v] : options) {
      for (std::size_t d = 0; d < v.size(); ++d) free[d] -= v[d];
      counts_[j] = v;
      search(depth + 1, free, bound + cost);
      for (std::size_t d = 0; d < v.size(); ++d) free[d] += v[d];
    }
    counts_[j].assign(domains_.size(), 0);
  }

  void leaf() {
    ++result_.leaves;
    std::vector<std::vector<DeviceId>> ranks = devices(counts_);
    std::vector<const Job*> jobs;
    for (const Job& j : jobs_) jobs.push_back(&j);
    std::vector<double> shared = pricer_.shared_step_seconds(jobs, ranks);
    double total = 0;
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      total += std::max(0.0, shared[j]);
      if (shared[j] < pricer_.step_seconds(jobs_[j], ranks[j]) * (1 - 1e-9)) ++result_.violations;
    }
    if (!result_.found || total < result_.total) {
      result_.found = true;
      result_.total = total;
      result_.counts = counts_;
      result_.ranks = std::move(ranks);
    }
  }

  const Topology& t_;
  const std::vector<Job>& jobs_;
  const PlanPricer& pricer_;
  std::vector<DomainId> domains_;
  std::vector<std::vector<DomainId>> nodes_;  // per domain, its nodes with accelerators
  std::vector<std::uint32_t> need_;           // nodes per job
  std::vector<std::optional<LevelIndex>> required_;
  std::vector<std::size_t> order_;
  std::vector<double> cheapest_;
  std::vector<std::vector<std::uint32_t>> counts_;
  std::map<std::pair<std::size_t, std::vector<std::uint32_t>>, double> alone_;
  ExactResult result_;
};

}  // namespace topoplan::test
