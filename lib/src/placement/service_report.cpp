#include "topoplan/placement/service_report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/cost/cost_model.hpp"
#include "topoplan/io/hostlist.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/model/node_size.hpp"
#include "topoplan/placement/service_latency.hpp"
#include "topoplan/placement/straggler_model.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The domains of `level` each slice touches, as counts per domain.
LevelSurvival survival_at(const Topology& t, const std::vector<std::vector<DeviceId>>& slices, LevelIndex level,
                          std::uint32_t min_slices) {
  std::map<DomainId, std::uint32_t> hit;
  for (const std::vector<DeviceId>& slice : slices) {
    std::vector<DomainId> domains;
    for (DeviceId d : slice) domains.push_back(t.ancestor(t.device(d).domain, level));
    std::sort(domains.begin(), domains.end());
    domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
    for (DomainId d : domains) ++hit[d];
  }
  LevelSurvival out;
  out.level = level;
  const auto n = static_cast<std::uint32_t>(slices.size());
  std::vector<std::uint32_t> counts;
  for (const auto& [domain, c] : hit) {
    counts.push_back(c);
    if (c > out.worst_slices) {
      out.worst_slices = c;
      out.worst = domain;
    }
  }
  out.slices_after_worst = n - out.worst_slices;
  // Losing k domains takes at most the k largest counts (exactly that when
  // every slice sits in one domain of the level): a safe bound.
  std::sort(counts.rbegin(), counts.rend());
  std::uint32_t lost = 0;
  for (std::uint32_t c : counts) {
    if (lost + c > n || n - lost - c < min_slices) break;
    lost += c;
    ++out.survives;
  }
  return out;
}

// The finest level whose one domain holds every device of both lists.
LevelIndex common_level(const Topology& t, std::span<const DeviceId> a, std::span<const DeviceId> b) {
  for (LevelIndex l = t.host_level();; --l) {
    const DomainId first = t.ancestor(t.device(a.front()).domain, l);
    bool same = true;
    for (DeviceId d : a) same = same && t.ancestor(t.device(d).domain, l) == first;
    for (DeviceId d : b) same = same && t.ancestor(t.device(d).domain, l) == first;
    if (same || l == 0) return l;
  }
}

std::string ms_text(double ms) {
  if (ms >= 100) return fmt::format("{:.0f} ms", ms);
  if (ms >= 1) return fmt::format("{:.2f} ms", ms);
  return fmt::format("{:.3f} ms", ms);
}

std::string devices_text(const Topology& t, const std::vector<DeviceId>& devices) {
  std::vector<std::string> names;
  for (DeviceId d : devices) names.push_back(t.device_name(d));
  return compress_hostlist(names);
}

}  // namespace

ServiceReport service_report(const Topology& t, const Plan& plan, std::size_t j, const CostModel* model) {
  ServiceReport r;
  const Job& job = plan.jobs[j];
  const JobPlacement& p = plan.placements[j];
  if (!job.service || !p.placed) return r;
  const Service& s = *job.service;
  const std::uint32_t min_slices = s.availability ? s.availability->min_slices : 1;

  // Which device serves which role of which slice.
  std::vector<std::vector<RoleReplica>> slices;
  for (std::size_t k = 0; k < p.replicas.size(); ++k) {
    slices.push_back(assign_roles(t, s, p.replicas[k]));
    for (const RoleReplica& rr : slices.back())
      for (DeviceId d : rr.devices) r.placement.push_back({d, static_cast<std::uint32_t>(k), rr.role, rr.replica});
  }

  for (LevelIndex l = 1; l <= t.host_level(); ++l) r.levels.push_back(survival_at(t, p.replicas, l, min_slices));
  if (s.availability)
    if (auto level = t.find_level(s.availability->level); level && *level > 0) {
      r.guarantee = r.levels[*level - 1];
      r.guarantee_ok = r.guarantee->survives >= s.availability->survive;
    }

  // Memory per accelerator of each role against the smallest HBM it got.
  if (s.workload.parameters > 0)
    for (std::uint32_t role = 0; role < s.roles.size(); ++role) {
      RoleMemoryFit fit;
      fit.role = role;
      fit.need_gib = role_memory_bytes(s, s.roles[role]) / kGiB;
      double have = 0;
      for (const auto& slice : slices)
        for (const RoleReplica& rr : slice)
          if (rr.role == role)
            for (DeviceId d : rr.devices) {
              const auto m = static_cast<double>(t.device(d).memory_gib);
              have = have == 0 ? m : std::min(have, m);
            }
      fit.have_gib = have;
      fit.fits = have <= 0 || fit.need_gib <= have;
      r.memory.push_back(fit);
    }

  const ServiceWorkload& w = s.workload;
  const double kv_per_token = derive_kv_bytes_per_token(w);
  // KV hand-over: each prefill replica to the nearest decode replica of its
  // slice; the worst slice's worst prefill replica is what a request may see.
  if (model && s.disaggregated() && kv_per_token > 0 && w.prompt_tokens > 0) {
    r.kv.known = true;
    r.kv.bytes = kv_per_token * w.prompt_tokens;
    r.kv.seconds = -1;
    const auto bytes = static_cast<std::uint64_t>(std::ceil(r.kv.bytes));
    for (std::uint32_t k = 0; k < slices.size(); ++k)
      for (const RoleReplica& pre : slices[k]) {
        if (!s.roles[pre.role].is_prefill() || pre.devices.empty()) continue;
        KvPath best;
        best.seconds = -1;
        for (const RoleReplica& dec : slices[k]) {
          if (!s.roles[dec.role].is_decode() || dec.devices.empty()) continue;
          // A transfer engine that refuses same-node transfers cannot hand
          // over to a decode replica on a node the prefill replica uses.
          if (!s.kv_same_host && shared_node(t, pre.devices, dec.devices) != kNone) continue;
          const KvTransferCost c = model->kv_transfer(pre.devices, dec.devices, bytes);
          if (best.seconds >= 0 && c.seconds >= best.seconds) continue;
          best.seconds = c.reachable ? c.seconds : std::numeric_limits<double>::infinity();
          best.gbps = c.bandwidth_gbps;
          best.scale_up = c.scale_up;
          best.level = common_level(t, pre.devices, dec.devices);
          best.slice = k;
        }
        if (best.seconds >= 0 && best.seconds > r.kv.seconds) {
          best.known = true;
          best.bytes = r.kv.bytes;
          r.kv = best;
        }
      }
    if (r.kv.seconds < 0) r.kv.known = false;
  }

  // Every role replica's latency (service_latency.hpp); the service's
  // figures are its worst replica's.
  const SpeedClass* speeds = speed_class_of(t, job);
  for (std::uint32_t k = 0; k < slices.size(); ++k) {
    std::vector<ReplicaLatency> l = slice_latency(t, s, k, slices[k], model, speeds, &job.workload);
    r.replicas.insert(r.replicas.end(), l.begin(), l.end());
  }
  auto worst_of = [&](double ReplicaLatency::*part, bool ReplicaLatency::*answers) {
    double out = -1;
    for (const ReplicaLatency& l : r.replicas)
      if (l.*answers) out = std::max(out, l.*part);
    return out < 0 ? -1 : out * 1e3;
  };
  r.ttft_comm_ms = w.prompt_tokens > 0 ? worst_of(&ReplicaLatency::ttft_comm, &ReplicaLatency::answers_ttft) : -1;
  r.tpot_comm_ms = worst_of(&ReplicaLatency::tpot_comm, &ReplicaLatency::answers_tpot);
  r.ttft_compute_ms = worst_of(&ReplicaLatency::ttft_compute, &ReplicaLatency::answers_ttft);
  r.tpot_compute_ms = worst_of(&ReplicaLatency::tpot_compute, &ReplicaLatency::answers_tpot);
  auto verdict = [&](const char* target, double target_ms, bool ttft) {
    SloVerdict v{target, target_ms, -1, true};
    for (const ReplicaLatency& l : r.replicas) {
      if (!(ttft ? l.answers_ttft : l.answers_tpot)) continue;
      const double sec = ttft ? l.ttft() : l.tpot();
      if (sec < 0 || sec * 1e3 <= v.estimate_ms) continue;
      v.estimate_ms = sec * 1e3;
      v.compute_ms = (ttft ? l.ttft_compute : l.tpot_compute) * 1e3;
      v.comm_ms = (ttft ? l.ttft_comm : l.tpot_comm) * 1e3;
      v.kv_ms = ttft ? l.ttft_kv * 1e3 : 0;
    }
    if (v.estimate_ms >= 0) v.ok = v.estimate_ms <= v.target_ms;
    r.slo.push_back(v);
  };
  if (s.ttft_ms) verdict("ttft_ms", *s.ttft_ms, true);
  if (s.tpot_ms) verdict("tpot_ms", *s.tpot_ms, false);
  return r;
}

void add_service_problems(const Topology& t, const Plan& plan, std::size_t j, const CostModel* model,
                          std::vector<std::string>& problems) {
  const Job& job = plan.jobs[j];
  const JobPlacement& p = plan.placements[j];
  if (!job.service || !p.placed) return;
  const Service& s = *job.service;
  const ServiceReport r = service_report(t, plan, j, model);

  if (s.availability) {
    const auto level = t.find_level(s.availability->level);
    if (r.guarantee && !r.guarantee_ok) {
      const LevelSurvival& g = *r.guarantee;
      problems.push_back(fmt::format(
          "availability: losing {} {} takes {} of {} slices and leaves {}, fewer than min_slices {} (asks to "
          "survive {} {} failure{})",
          s.availability->level, t.domain_name(g.worst), g.worst_slices, p.replicas.size(), g.slices_after_worst,
          s.availability->min_slices, s.availability->survive, s.availability->level,
          s.availability->survive == 1 ? "" : "s"));
    } else if (!level) {
      problems.push_back(fmt::format("availability: the topology has no level '{}'", s.availability->level));
    }
  }

  // Memory fit.
  for (const RoleMemoryFit& m : r.memory)
    if (!m.fits) {
      const ServiceRole& role = s.roles[m.role];
      const std::uint32_t tp = tp_that_fits(s, role, m.have_gib);
      problems.push_back(fmt::format("memory: role '{}' needs {:.1f} GiB per accelerator at tp {}; it has {:.0f}: {}",
                                     role.name, m.need_gib, role.parallelism.tp, m.have_gib,
                                     tp ? fmt::format("use tp {}", tp) : "no tp up to 64 fits"));
    }

  // TP and EP groups of each role replica inside one NVLink domain when one
  // holds them.
  const ScaleUpIslands islands = find_scale_up_islands(t);
  std::uint32_t largest = 0;
  for (std::uint32_t n : islands.size) largest = std::max(largest, n);
  auto islands_of = [&](const std::vector<DeviceId>& group) {
    std::vector<std::uint32_t> out;
    for (DeviceId d : group) {
      const std::uint32_t i = islands.island_of[t.accelerator_index(d)];
      if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    }
    return out;
  };
  for (std::size_t k = 0; k < p.replicas.size(); ++k) {
    const std::vector<RoleReplica> roles = assign_roles(t, s, p.replicas[k]);
    for (const RoleReplica& rr : roles) {
      const ServiceRole& role = s.roles[rr.role];
      const Parallelism& par = role.parallelism;
      if (rr.devices.size() != par.ranks()) continue;
      auto rank = [&](std::uint32_t tt, std::uint32_t st, std::uint32_t d) {
        return rr.devices[tt + par.tp * (st + par.pp * d)];
      };
      bool reported = false;
      for (std::uint32_t d = 0; d < par.dp && !reported && par.tp > 1 && par.tp <= largest; ++d)
        for (std::uint32_t st = 0; st < par.pp && !reported; ++st) {
          std::vector<DeviceId> group;
          for (std::uint32_t tt = 0; tt < par.tp; ++tt) group.push_back(rank(tt, st, d));
          if (islands_of(group).size() > 1) {
            problems.push_back(fmt::format("slice {} {} {}: its TP group of {} spans {} NVLink domains; one holds {}",
                                           k + 1, role.name, rr.replica + 1, par.tp, islands_of(group).size(),
                                           largest));
            reported = true;
          }
        }
      reported = false;
      for (std::uint32_t g = 0; g < par.dp / par.ep && !reported && par.ep > 1 && par.ep <= largest; ++g)
        for (std::uint32_t tt = 0; tt < par.tp && !reported; ++tt)
          for (std::uint32_t st = 0; st < par.pp && !reported; ++st) {
            std::vector<DeviceId> group;
            for (std::uint32_t d = g * par.ep; d < (g + 1) * par.ep; ++d) group.push_back(rank(tt, st, d));
            if (islands_of(group).size() > 1) {
              problems.push_back(fmt::format("slice {} {} {}: its EP group of {} spans {} NVLink domains; one "
                                             "holds {}",
                                             k + 1, role.name, rr.replica + 1, par.ep, islands_of(group).size(),
                                             largest));
              reported = true;
            }
          }
    }

    // Same-node hand-over where the fabric refuses it: the slice's first
    // such pair.
    if (!s.kv_same_host && s.disaggregated())
      if (const auto shared = prefill_decode_shared_node(t, s, roles))
        problems.push_back(
            fmt::format("kv_transfer: slice {} prefill {} and decode {} share node {}, but same_host is "
                        "false (the transfer engine refuses same-node transfers)",
                        k + 1, shared->prefill->replica + 1, shared->decode->replica + 1, t.hostname(shared->node)));

    // KV policy: every domain of its level holding prefill holds decode.
    if (s.kv_level && s.kv_required)
      if (auto level = t.find_level(*s.kv_level)) {
        std::vector<DomainId> with_decode;
        for (const RoleReplica& rr : roles)
          if (s.roles[rr.role].is_decode())
            for (DeviceId d : rr.devices) with_decode.push_back(t.ancestor(t.device(d).domain, *level));
        for (const RoleReplica& rr : roles) {
          if (!s.roles[rr.role].is_prefill() || rr.devices.empty()) continue;
          const DomainId at = t.ancestor(t.device(rr.devices.front()).domain, *level);
          if (std::find(with_decode.begin(), with_decode.end(), at) == with_decode.end()) {
            problems.push_back(fmt::format("kv_transfer: slice {} prefill {} is in {} {}, which holds no decode of "
                                           "its slice (required)",
                                           k + 1, rr.replica + 1, *s.kv_level, t.domain_name(at)));
            break;
          }
        }
      }
  }

  // A KV path through a coarser domain than one that holds a prefill and a
  // decode replica.
  if (r.kv.known && !r.kv.scale_up) {
    std::uint32_t pair = 0, pre = 0, dec = 0;
    for (const ServiceRole& role : s.roles) {
      if (role.is_prefill()) pre = std::max(pre, role.per_replica);
      if (role.is_decode()) dec = std::max(dec, role.per_replica);
    }
    pair = pre + dec;
    LevelIndex finest = t.host_level();
    if (!s.kv_same_host && finest > 1) {
      // Prefill and decode on different nodes: each takes whole nodes.
      const std::uint32_t node = std::max(1u, typical_node_accelerators(t));
      pair = (pre + node - 1) / node * node + (dec + node - 1) / node * node;
      finest = t.host_level() - 1;
    }
    LevelIndex could = 0;
    for (LevelIndex l = finest; l > 0 && could == 0; --l) {
      auto [first, last] = t.domains_at(l);
      for (DomainId d = first; d < last; ++d)
        if (t.domain(d).accel_end - t.domain(d).accel_begin >= pair) {
          could = l;
          break;
        }
    }
    if (could > r.kv.level)
      problems.push_back(fmt::format("kv path: slice {} hands its KV over through the {} level ({:.1f} GB/s); one {} "
                                     "holds a prefill and a decode replica",
                                     r.kv.slice + 1, t.levels()[r.kv.level].name, r.kv.gbps, t.levels()[could].name));
  }

  // Tenant isolation: no other tenant's job in the service's units.
  if (auto level = isolation_level(t, s)) {
    std::map<DomainId, bool> mine;
    for (const auto& replica : p.replicas)
      for (DeviceId d : replica) mine[t.ancestor(t.device(d).domain, *level)] = true;
    for (std::size_t o = 0; o < plan.jobs.size(); ++o) {
      if (o == j || !plan.placements[o].placed || plan.jobs[o].tenant == job.tenant) continue;
      DomainId shared = kNone;
      for (const auto& replica : plan.placements[o].replicas)
        for (DeviceId d : replica)
          if (shared == kNone && mine.count(t.ancestor(t.device(d).domain, *level))) shared = t.ancestor(t.device(d).domain, *level);
      if (shared != kNone)
        problems.push_back(fmt::format("isolation: tenant '{}' shares {} {} with job '{}'{}", job.tenant,
                                       t.levels()[*level].name, t.domain_name(shared), plan.jobs[o].name,
                                       plan.jobs[o].tenant.empty() ? "" : " of tenant '" + plan.jobs[o].tenant + "'"));
    }
  } else if (s.isolation == Isolation::rack) {
    problems.push_back("isolation: the topology has no level 'rack'");
  }
}

void write_service_text(std::ostream& out, const Topology& t, const Service& s, const ServiceReport& r,
                        std::size_t indent) {
  const std::string pad(indent, ' ');
  std::vector<std::string> roles;
  for (const ServiceRole& role : s.roles)
    roles.push_back(fmt::format("{} {}x{} (tp {}{}{})", role.name, role.replicas, role.per_replica, role.parallelism.tp,
                                role.parallelism.pp > 1 ? fmt::format(" pp {}", role.parallelism.pp) : "",
                                role.parallelism.ep > 1 ? fmt::format(" ep {}", role.parallelism.ep) : ""));
  fmt::print(out, "{}service: {} slice{} of {}\n", pad, s.slices, s.slices == 1 ? "" : "s", fmt::join(roles, ", "));
  if (r.guarantee) {
    const LevelSurvival& g = *r.guarantee;
    fmt::print(out, "{}availability: survives {} {} failure{} (asks {}), {} slice{} left after losing {} (needs {}): "
               "{}\n",
               pad, g.survives, s.availability->level, g.survives == 1 ? "" : "s", s.availability->survive,
               g.slices_after_worst, g.slices_after_worst == 1 ? "" : "s", t.domain_name(g.worst),
               s.availability->min_slices, r.guarantee_ok ? "ok" : "BROKEN");
  }
  if (r.kv.known)
    fmt::print(out, "{}kv transfer: {:.2f} GiB a prompt in {} over {} at {:.1f} GB/s (slice {})\n", pad,
               r.kv.bytes / kGiB, ms_text(r.kv.seconds * 1e3),
               r.kv.scale_up ? "NVLink" : fmt::format("the network within one {}", t.levels()[r.kv.level].name),
               r.kv.gbps, r.kv.slice + 1);
  if (!r.memory.empty()) {
    std::vector<std::string> parts;
    for (const RoleMemoryFit& m : r.memory)
      parts.push_back(m.have_gib > 0 ? fmt::format("{} {:.1f} of {:.0f} GiB{}", s.roles[m.role].name, m.need_gib,
                                                   m.have_gib, m.fits ? "" : " (does not fit)")
                                     : fmt::format("{} {:.1f} GiB (HBM unknown)", s.roles[m.role].name, m.need_gib));
    fmt::print(out, "{}memory per GPU: {}\n", pad, fmt::join(parts, ", "));
  }
  auto ms_or_dash = [](double ms) { return ms >= 0 ? ms_text(ms) : std::string("-"); };
  if (r.ttft_compute_ms >= 0 || r.tpot_compute_ms >= 0)
    fmt::print(out, "{}compute: {} a prompt, {} an output token\n", pad, ms_or_dash(r.ttft_compute_ms),
               ms_or_dash(r.tpot_compute_ms));
  if (r.ttft_comm_ms >= 0 || r.tpot_comm_ms >= 0)
    fmt::print(out, "{}communication: {} a prompt, {} an output token\n", pad, ms_or_dash(r.ttft_comm_ms),
               ms_or_dash(r.tpot_comm_ms));
  for (const SloVerdict& v : r.slo) {
    std::string how = "no estimate (give parameters and prompt_tokens on accelerators with a datasheet row, or "
                      "hidden and layers)";
    if (v.estimate_ms >= 0) {
      std::vector<std::string> parts;
      if (v.compute_ms >= 0) parts.push_back("compute " + ms_text(v.compute_ms));
      if (v.comm_ms >= 0) parts.push_back("communication " + ms_text(v.comm_ms));
      if (v.kv_ms > 0) parts.push_back("kv " + ms_text(v.kv_ms));
      how = fmt::format("estimate {} ({}) {}", ms_text(v.estimate_ms), fmt::join(parts, " + "), v.ok ? "ok" : "MISSED");
    }
    fmt::print(out, "{}slo {}: {} target, {}\n", pad, v.target == "ttft_ms" ? "ttft" : "tpot", ms_text(v.target_ms),
               how);
  }
  // Per role replica against the targets, a slice a line.
  if (s.ttft_ms || s.tpot_ms) {
    std::vector<std::string> parts;
    auto flush = [&](std::uint32_t slice) {
      if (!parts.empty()) fmt::print(out, "{}slice {} latency: {}\n", pad, slice + 1, fmt::join(parts, "; "));
      parts.clear();
    };
    for (std::size_t i = 0; i < r.replicas.size(); ++i) {
      const ReplicaLatency& l = r.replicas[i];
      if (i > 0 && l.slice != r.replicas[i - 1].slice) flush(r.replicas[i - 1].slice);
      std::vector<std::string> figures;
      if (l.answers_ttft && s.ttft_ms) figures.push_back("ttft " + ms_or_dash(l.ttft() >= 0 ? l.ttft() * 1e3 : -1));
      if (l.answers_tpot && s.tpot_ms) figures.push_back("tpot " + ms_or_dash(l.tpot() >= 0 ? l.tpot() * 1e3 : -1));
      if (figures.empty()) continue;
      parts.push_back(fmt::format("{} {} {} at speed {:.2f} {}", s.roles[l.role].name, l.replica + 1,
                                  fmt::join(figures, ", "), l.speed, l.meets(s) ? "ok" : "MISSED"));
    }
    if (!r.replicas.empty()) flush(r.replicas.back().slice);
  }
  // Role replicas per slice.
  std::uint32_t slice = kNone;
  std::vector<DeviceId> run;
  std::vector<std::string> parts;
  auto flush_run = [&](const ServiceReport::Entry* e) {
    if (!run.empty()) parts.back() += " " + devices_text(t, run);
    run.clear();
    if (e) parts.push_back(fmt::format("{} {}", s.roles[e->role].name, e->replica + 1));
  };
  for (std::size_t i = 0; i < r.placement.size(); ++i) {
    const ServiceReport::Entry& e = r.placement[i];
    const bool new_replica =
        i == 0 || e.slice != r.placement[i - 1].slice || e.role != r.placement[i - 1].role ||
        e.replica != r.placement[i - 1].replica;
    if (e.slice != slice) {
      flush_run(nullptr);
      if (!parts.empty()) fmt::print(out, "{}slice {}: {}\n", pad, slice + 1, fmt::join(parts, "; "));
      parts.clear();
      slice = e.slice;
    }
    if (new_replica) flush_run(&e);
    run.push_back(e.device);
  }
  flush_run(nullptr);
  if (!parts.empty()) fmt::print(out, "{}slice {}: {}\n", pad, slice + 1, fmt::join(parts, "; "));
}

void write_service_json(JsonWriter& j, const Topology& t, const Service& s, const ServiceReport& r) {
  j.key("availability");
  if (r.guarantee) {
    j.begin_object()
        .field("level", s.availability->level)
        .field("survive", s.availability->survive)
        .field("min_slices", s.availability->min_slices)
        .field("survives", r.guarantee->survives)
        .field("slices_after_worst", r.guarantee->slices_after_worst)
        .field("worst_domain", t.domain_name(r.guarantee->worst))
        .field("ok", r.guarantee_ok);
    j.key("levels").begin_array();
    for (const LevelSurvival& l : r.levels)
      j.begin_object()
          .field("level", t.levels()[l.level].name)
          .field("survives", l.survives)
          .field("slices_after_worst", l.slices_after_worst)
          .end_object();
    j.end_array().end_object();
  } else {
    j.null();
  }
  j.key("kv_transfer_ms");
  if (r.kv.known && std::isfinite(r.kv.seconds)) j.value(r.kv.seconds * 1e3, 3); else j.null();
  j.key("kv_path");
  if (r.kv.known)
    j.begin_object()
        .field("tier", r.kv.scale_up ? "nvlink" : "network")
        .field("level", t.levels()[r.kv.level].name)
        .field("gbps", r.kv.gbps, 3)
        .field("bytes", static_cast<unsigned long long>(std::llround(r.kv.bytes)))
        .field("slice", r.kv.slice + 1)
        .end_object();
  else
    j.null();
  j.key("memory").begin_array();
  for (const RoleMemoryFit& m : r.memory) {
    j.begin_object().field("role", s.roles[m.role].name).key("need_gib").value(m.need_gib, 3).key("have_gib");
    if (m.have_gib > 0) j.value(m.have_gib, 3); else j.null();
    j.field("fits", m.fits).end_object();
  }
  j.end_array();
  j.key("communication_ms").begin_object().key("prompt");
  if (r.ttft_comm_ms >= 0) j.value(r.ttft_comm_ms, 6); else j.null();
  j.key("output_token");
  if (r.tpot_comm_ms >= 0) j.value(r.tpot_comm_ms, 6); else j.null();
  j.end_object();
  auto ms_value = [&](double ms) {
    if (ms >= 0 && std::isfinite(ms)) j.value(ms, 6); else j.null();
  };
  j.key("compute_ms").begin_object().key("prompt");
  ms_value(r.ttft_compute_ms);
  j.key("output_token");
  ms_value(r.tpot_compute_ms);
  j.end_object();
  j.key("slo").begin_object();
  for (const SloVerdict& v : r.slo) {
    j.key(v.target).begin_object().key("target_ms").value(v.target_ms, 3).key("estimate_ms");
    ms_value(v.estimate_ms);
    j.key("compute_ms");
    ms_value(v.estimate_ms >= 0 ? v.compute_ms : -1);
    j.key("communication_ms");
    ms_value(v.estimate_ms >= 0 ? v.comm_ms : -1);
    j.key("kv_ms");
    ms_value(v.estimate_ms >= 0 && v.target == "ttft_ms" ? v.kv_ms : -1);
    j.key("ok");
    if (v.estimate_ms >= 0) j.value(v.ok); else j.null();
    j.end_object();
  }
  j.end_object();
  // Per role replica: its estimates against the targets.
  j.key("latency").begin_array();
  for (const ReplicaLatency& l : r.replicas) {
    if (!l.answers_ttft && !l.answers_tpot) continue;
    j.begin_object()
        .field("slice", l.slice + 1)
        .field("role", s.roles[l.role].name)
        .field("replica", l.replica + 1)
        .key("slowest_speed").value(l.speed, 4);
    if (l.answers_ttft) {
      j.key("ttft_ms");
      ms_value(l.ttft() >= 0 ? l.ttft() * 1e3 : -1);
    }
    if (l.answers_tpot) {
      j.key("tpot_ms");
      ms_value(l.tpot() >= 0 ? l.tpot() * 1e3 : -1);
    }
    j.field("ok", l.meets(s)).end_object();
  }
  j.end_array();
  j.key("placement").begin_array();
  for (const ServiceReport::Entry& e : r.placement)
    j.begin_object()
        .field("device", t.device_name(e.device))
        .field("role", s.roles[e.role].name)
        .field("replica", e.replica + 1)
        .field("slice", e.slice + 1)
        .end_object();
  j.end_array();
}

}  // namespace topoplan
