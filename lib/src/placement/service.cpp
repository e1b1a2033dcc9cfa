#include "topoplan/placement/service.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "topoplan/io/hostlist.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/placement/job.hpp"

namespace topoplan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The ranks one copy of the KV cache is split over: TP shards heads, but
// only down to one KV head per rank (GQA heads are replicated when tp >
// kv_heads), and the MLA latent is whole on every TP rank
// (shared/reference/inference.md, "Sizes").
double kv_split(const ServiceWorkload& w, std::uint32_t tp) {
  if (w.kv_latent > 0) return 1;
  if (w.kv_heads > 0) return std::min<double>(tp, w.kv_heads);
  return tp;
}

double weights_at(const Service& s, const ServiceRole& role, std::uint32_t tp) {
  const ServiceWorkload& w = s.workload;
  const double pp = role.parallelism.pp;
  const double ep = role.parallelism.ep;
  const double dense = std::max(0.0, w.parameters - w.expert_parameters);
  return (dense / (tp * pp) + w.expert_parameters / (tp * pp * ep)) * w.bytes_per_parameter;
}

double kv_at(const Service& s, const ServiceRole& role, std::uint32_t tp) {
  const ServiceWorkload& w = s.workload;
  // A prefill replica holds its prompts' KV until handed over; everything
  // else holds prompt and output of every request in flight.
  double tokens = w.tokens_in_flight;
  if (tokens <= 0)
    tokens = static_cast<double>(role.batch ? role.batch : w.batch) *
             (role.is_prefill() ? w.prompt_tokens : static_cast<double>(w.prompt_tokens) + w.output_tokens);
  // Data-parallel ranks of one replica (DP attention) hold their own requests.
  const double dp = role.parallelism.dp;
  return tokens / dp * derive_kv_bytes_per_token(w) / kv_split(w, tp) / role.parallelism.pp;
}

double memory_at(const Service& s, const ServiceRole& role, std::uint32_t tp) {
  return weights_at(s, role, tp) + kv_at(s, role, tp) + s.workload.activation_bytes;
}

}  // namespace

std::string_view isolation_name(Isolation isolation) {
  switch (isolation) {
    case Isolation::node: return "node";
    case Isolation::nvlink_domain: return "nvlink-domain";
    case Isolation::rack: return "rack";
    case Isolation::none: break;
  }
  return "none";
}

void attach_service(Job& job, std::shared_ptr<Service> service) {
  const Service& s = *service;
  job.replicas = s.slices;
  job.per_replica = s.slice_accelerators();
  if (s.roles.size() == 1 && s.roles.front().replicas == 1) {
    job.parallelism = s.roles.front().parallelism;
  } else {
    // The planner keeps runs of the largest common TP size in one node.
    job.parallelism = Parallelism{};
    job.parallelism.tp = s.granule();
    job.parallelism.dp = job.per_replica / job.parallelism.tp;
  }
  if (s.workload.parameters > 0) {
    job.workload.parameters = s.workload.parameters;
    job.workload.bytes_per_parameter = s.workload.bytes_per_parameter;
    job.workload.layers = s.workload.layers;
    job.workload.moe_layers = s.workload.moe_layers;
  }
  job.service = std::move(service);
}

std::uint32_t Service::slice_accelerators() const {
  std::uint32_t n = 0;
  for (const ServiceRole& r : roles) n += r.accelerators();
  return n;
}

std::uint32_t Service::granule() const {
  std::uint32_t best = 1;
  for (const ServiceRole& r : roles) {
    const std::uint32_t tp = r.parallelism.tp;
    bool divides = true;
    for (const ServiceRole& other : roles) divides = divides && other.per_replica % tp == 0;
    if (divides) best = std::max(best, tp);
  }
  return best;
}

bool Service::disaggregated() const {
  return std::any_of(roles.begin(), roles.end(), [](const ServiceRole& r) { return r.is_prefill(); }) &&
         std::any_of(roles.begin(), roles.end(), [](const ServiceRole& r) { return r.is_decode(); });
}

double derive_kv_bytes_per_token(const ServiceWorkload& w) {
  if (w.kv_bytes_per_token > 0) return w.kv_bytes_per_token;
  if (w.layers == 0) return 0;
  if (w.kv_latent > 0) return static_cast<double>(w.layers) * w.kv_latent * w.kv_bytes_per_element;
  if (w.kv_heads > 0 && w.head_dim > 0)
    return 2.0 * w.layers * w.kv_heads * w.head_dim * w.kv_bytes_per_element;
  return 0;
}

double role_memory_bytes(const Service& service, const ServiceRole& role) {
  return memory_at(service, role, role.parallelism.tp);
}

double role_weight_bytes(const Service& service, const ServiceRole& role) {
  return weights_at(service, role, role.parallelism.tp);
}

double role_kv_bytes(const Service& service, const ServiceRole& role) {
  return kv_at(service, role, role.parallelism.tp);
}

std::uint32_t tp_that_fits(const Service& service, const ServiceRole& role, double have_gib) {
  for (std::uint32_t tp = 1; tp <= 64; tp *= 2)
    if (memory_at(service, role, tp) <= have_gib * kGiB) return tp;
  return 0;
}

std::string memory_refusal(const Topology& t, const Job& job) {
  if (!job.service || job.service->workload.parameters <= 0) return "";
  // The largest HBM of an accelerator the job may use, and its model's name.
  double have = 0;
  std::string model;
  NamePattern wanted;
  std::string error;
  const bool any_model = job.accelerator_model.empty() || !wanted.parse(job.accelerator_model, error);
  for (DeviceId d : t.accelerators()) {
    const Device& dev = t.device(d);
    const auto memory = static_cast<double>(dev.memory_gib);
    if (memory <= have) continue;
    if (!any_model && !wanted.matches(t.str(dev.model))) continue;
    have = memory;
    model = std::string(t.str(dev.model));
  }
  if (have <= 0) return "";
  for (const ServiceRole& role : job.service->roles) {
    const double need = role_memory_bytes(*job.service, role) / kGiB;
    if (need <= have) continue;
    const std::uint32_t tp = tp_that_fits(*job.service, role, have);
    const std::string kind = t.device(t.accelerators().front()).kind == DeviceKind::gpu ? "GPU" : "accelerator";
    return fmt::format("role '{}' needs {:.1f} GiB per {} at tp {}; {} {} has {:.0f}: {}", role.name, need, kind,
                       role.parallelism.tp, model.empty() ? "the largest" : "a", model.empty() ? "accelerator" : model,
                       have, tp ? fmt::format("use tp {}", tp) : "no tp up to 64 fits; add pp or quantize");
  }
  return "";
}

namespace {

// Deals `role`'s replicas from `pool`, from `next` on: runs of consecutive
// devices.
void deal_role(const Service& service, std::uint32_t r, const std::vector<DeviceId>& pool, std::size_t& next,
               std::vector<RoleReplica>& out) {
  const ServiceRole& role = service.roles[r];
  for (std::uint32_t k = 0; k < role.replicas && next < pool.size(); ++k) {
    RoleReplica rr{r, k, {}};
    for (std::uint32_t g = 0; g < role.per_replica && next < pool.size(); ++g) rr.devices.push_back(pool[next++]);
    out.push_back(std::move(rr));
  }
}

// The nodes of `devices` (in topology order) that prefill is dealt from when
// KV may not stay on a node: whole nodes holding between `prefill` and
// size - `decode` of the slice's devices, so that no node holds both. The
// smallest such count, and for it the set a 0/1 subset-sum over the nodes in
// order finds first. Empty when no set of nodes does.
std::vector<DomainId> prefill_nodes(const Topology& t, const std::vector<DeviceId>& devices, std::size_t prefill,
                                    std::size_t decode) {
  std::vector<std::pair<DomainId, std::size_t>> nodes;  // node, devices of the slice on it
  for (DeviceId d : devices) {
    const DomainId node = t.device(d).domain;
    if (nodes.empty() || nodes.back().first != node) nodes.emplace_back(node, 0);
    ++nodes.back().second;
  }
  const std::size_t n = devices.size();
  if (nodes.size() < 2 || prefill == 0 || decode == 0 || prefill + decode > n) return {};
  // by[s]: the node whose adding first reached s devices (kNone: not reached).
  std::vector<std::uint32_t> by(n + 1, kNone);
  for (std::uint32_t i = 0; i < nodes.size(); ++i)
    for (std::size_t s = n; s >= nodes[i].second; --s)
      if (by[s] == kNone && (s == nodes[i].second || by[s - nodes[i].second] != kNone)) by[s] = i;
  for (std::size_t s = prefill; s + decode <= n; ++s) {
    if (by[s] == kNone) continue;
    std::vector<DomainId> out;
    for (std::size_t left = s; left > 0; left -= nodes[by[left]].second) out.push_back(nodes[by[left]].first);
    return out;
  }
  return {};
}

}  // namespace

std::vector<RoleReplica> assign_roles(const Topology& t, const Service& service, const std::vector<DeviceId>& slice) {
  auto in_topology_order = [&](DeviceId a, DeviceId b) { return t.accelerator_index(a) < t.accelerator_index(b); };
  std::vector<DeviceId> devices = slice;
  std::sort(devices.begin(), devices.end(), in_topology_order);
  std::vector<std::uint32_t> order(service.roles.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return service.roles[a].per_replica > service.roles[b].per_replica;
  });
  std::vector<std::vector<RoleReplica>> by_role(service.roles.size());
  std::vector<DomainId> apart;
  if (!service.kv_same_host && service.disaggregated()) {
    std::size_t prefill = 0, decode = 0;
    for (const ServiceRole& role : service.roles) {
      if (role.is_prefill()) prefill += role.accelerators();
      if (role.is_decode()) decode += role.accelerators();
    }
    apart = prefill_nodes(t, devices, prefill, decode);
  }
  if (apart.empty()) {
    std::size_t next = 0;
    for (std::uint32_t r : order) deal_role(service, r, devices, next, by_role[r]);
  } else {
    // Prefill from its nodes, decode from the others, the rest from what is
    // left of both. In each, the nodes holding most of the slice come first
    // (then topology order), so replicas keep to as few nodes as they can.
    std::vector<DeviceId> first, second;
    for (DeviceId d : devices)
      (std::find(apart.begin(), apart.end(), t.device(d).domain) != apart.end() ? first : second).push_back(d);
    auto fullest_first = [&](std::vector<DeviceId>& pool) {
      std::map<DomainId, std::size_t> on;
      for (DeviceId d : pool) ++on[t.device(d).domain];
      std::stable_sort(pool.begin(), pool.end(),
                       [&](DeviceId a, DeviceId b) { return on[t.device(a).domain] > on[t.device(b).domain]; });
    };
    fullest_first(first);
    fullest_first(second);
    std::size_t next_first = 0, next_second = 0;
    for (std::uint32_t r : order)
      if (service.roles[r].is_prefill()) deal_role(service, r, first, next_first, by_role[r]);
    for (std::uint32_t r : order)
      if (service.roles[r].is_decode()) deal_role(service, r, second, next_second, by_role[r]);
    std::vector<DeviceId> rest(first.begin() + static_cast<std::ptrdiff_t>(next_first), first.end());
    rest.insert(rest.end(), second.begin() + static_cast<std::ptrdiff_t>(next_second), second.end());
    std::sort(rest.begin(), rest.end(), in_topology_order);
    std::size_t next = 0;
    for (std::uint32_t r : order)
      if (service.roles[r].phase == RolePhase::other) deal_role(service, r, rest, next, by_role[r]);
  }
  std::vector<RoleReplica> out;
  for (auto& replicas : by_role)
    for (auto& rr : replicas) out.push_back(std::move(rr));
  return out;
}

DomainId shared_node(const Topology& t, std::span<const DeviceId> a, std::span<const DeviceId> b) {
  for (DeviceId x : a)
    for (DeviceId y : b)
      if (t.device(x).domain == t.device(y).domain) return t.device(x).domain;
  return kNone;
}

std::optional<SharedKvNode> prefill_decode_shared_node(const Topology& t, const Service& service,
                                                       const std::vector<RoleReplica>& roles) {
  for (const RoleReplica& pre : roles) {
    if (!service.roles[pre.role].is_prefill()) continue;
    for (const RoleReplica& dec : roles) {
      if (!service.roles[dec.role].is_decode()) continue;
      if (const DomainId node = shared_node(t, pre.devices, dec.devices); node != kNone)
        return SharedKvNode{&pre, &dec, node};
    }
  }
  return std::nullopt;
}

LevelIndex nvlink_domain_level(const Topology& t) {
  const ScaleUpIslands islands = find_scale_up_islands(t);
  if (islands.level == kNone || islands.level == 0 || islands.size.empty()) return t.host_level();
  return islands.level;
}

std::optional<LevelIndex> isolation_level(const Topology& t, const Service& service,
                                          std::optional<LevelIndex> nvlink_level) {
  switch (service.isolation) {
    case Isolation::none: return std::nullopt;
    case Isolation::node: return t.host_level();
    case Isolation::rack: return t.find_level("rack");
    case Isolation::nvlink_domain: return nvlink_level ? *nvlink_level : nvlink_domain_level(t);
  }
  return std::nullopt;
}

}  // namespace topoplan
