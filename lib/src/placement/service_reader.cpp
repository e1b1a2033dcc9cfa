// The service keys of a native job (topoplan-jobs(5)): roles, slices, pack,
// availability, slo, isolation, kv_transfer and the inference workload facts.
// The service is mapped onto the job's ordinary fields (placement/service.hpp).
#include <cstdint>
#include <memory>

#include <fmt/format.h>

#include "job_reader.hpp"
#include "topoplan/placement/service.hpp"

namespace topoplan {

const std::vector<std::string_view>& JobReader::service_keys() {
  static const std::vector<std::string_view> kKeys = {"slices", "roles", "pack", "pack_preferred", "availability",
                                                      "slo", "isolation", "kv_transfer"};
  return kKeys;
}

const std::vector<std::string_view>& JobReader::service_workload_keys() {
  static const std::vector<std::string_view> kKeys = {
      "kv_bytes_per_token", "kv_heads", "head_dim", "kv_latent", "kv_precision", "hidden", "expert_parameters", "experts_per_token",
      "prompt_tokens",      "output_tokens", "batch", "tokens_in_flight", "activation_memory", "active_parameters",
      "prefill_efficiency", "decode_efficiency"};
  return kKeys;
}

bool JobReader::read_role(const yaml::Node& name, const yaml::Node& node, ServiceRole& role) {
  role.name = name.IsScalar() ? name.Scalar() : "";
  if (role.name.empty()) {
    sink_.error(yaml::where(file_, name), "a role needs a non-empty name, like prefill or decode");
    return false;
  }
  yaml::MapReader m(node, file_, sink_, fmt::format("role '{}'", role.name));
  m.allow({"replicas", "gpus_per_replica", "lpus_per_replica", "parallelism", "batch", "phase"});
  if (!m.ok()) return false;
  const std::size_t before = sink_.size();
  // The phase is the role's name (prefill, decode) unless it says otherwise.
  role.phase = phase_named(role.name);
  if (auto phase = m.has("phase") ? m.string("phase", true) : std::nullopt) {
    if (*phase == "prefill" || *phase == "decode" || *phase == "other")
      role.phase = phase_named(*phase);
    else
      sink_.error(m.where("phase"), fmt::format("role '{}': 'phase' is prefill, decode or other, not '{}'", role.name,
                                                *phase));
  }
  role.replicas = count(m, "replicas", 1, 1'000'000).value_or(1);
  role.batch = count(m, "batch", 1, 100'000'000).value_or(0);
  std::optional<std::uint32_t> per;
  for (std::string_view key : {"gpus_per_replica", "lpus_per_replica"})
    if (m.has(key)) per = count(m, key, 1, 100'000'000);
  Job scratch;
  if (m.has("parallelism")) read_parallelism(m.get("parallelism"), scratch);
  role.parallelism = scratch.parallelism;
  const std::uint32_t ranks = role.parallelism.ranks();
  if (!per && !m.has("parallelism") && sink_.size() == before) {
    sink_.error(m.where(), fmt::format("role '{}' needs gpus_per_replica or parallelism", role.name));
    return false;
  }
  role.per_replica = per.value_or(ranks);
  if (m.has("parallelism") && per && ranks != *per)
    sink_.error(m.where("parallelism"),
                fmt::format("role '{}': parallelism tp {} x pp {} x dp {} = {} ranks, but gpus_per_replica is {}",
                            role.name, role.parallelism.tp, role.parallelism.pp, role.parallelism.dp, ranks, *per));
  if (!m.has("parallelism")) role.parallelism.dp = role.per_replica;
  return sink_.size() == before;
}

void JobReader::read_service(yaml::MapReader& m, Job& job) {
  bool wants = false;
  for (std::string_view key : service_keys()) wants = wants || m.has(key);
  yaml::Node workload = m.get("workload");
  if (workload.IsMap())
    for (std::string_view key : service_workload_keys()) wants = wants || workload[key].IsDefined();
  if (!wants) return;
  const std::size_t before = sink_.size();
  if (m.has("kind") && job.kind != JobKind::inference) {
    sink_.error(m.where("kind"), fmt::format("job '{}' has service keys (roles, slices, pack, availability, slo, "
                                             "isolation or inference workload facts); give it 'kind: inference'",
                                             job.name));
    return;
  }
  job.kind = JobKind::inference;
  auto service = std::make_shared<Service>();
  Service& s = *service;
  s.where = job.where;

  if (m.has("roles")) {
    for (std::string_view key : {"replicas", "gpus_per_replica", "lpus_per_replica", "gpus", "lpus", "accelerators",
                                 "nodes", "parallelism"})
      if (m.has(key))
        sink_.error(m.where(key), fmt::format("job '{}' has roles: give '{}' per role (slices count copies of the "
                                              "role set)",
                                              job.name, key));
    yaml::Node roles = m.get("roles");
    if (!roles.IsMap() || roles.size() == 0) {
      sink_.error(m.where("roles"), "'roles' maps role names to {replicas, gpus_per_replica, parallelism}, like "
                                    "'prefill: {replicas: 2, gpus_per_replica: 4}'");
    } else {
      for (const auto& entry : roles) {
        ServiceRole role;
        if (read_role(entry.first, entry.second, role)) s.roles.push_back(std::move(role));
      }
    }
    s.slices = count(m, "slices", 1, 100'000).value_or(1);
  } else {
    if (m.has("slices") && m.has("replicas"))
      sink_.error(m.where("slices"), fmt::format("job '{}' gives 'slices' and 'replicas': a service without roles "
                                                 "has one role whose replicas are its slices; give one",
                                                 job.name));
    // Today's form: one role whose replicas are the slices.
    s.slices = m.has("slices") ? count(m, "slices", 1, 100'000).value_or(1) : job.replicas;
    ServiceRole role;
    role.name = "serve";
    role.per_replica = job.per_replica;
    role.parallelism = job.parallelism;
    // (A job without a size has been told so by the job reader.)
    if (role.per_replica > 0) s.roles.push_back(role);
  }

  // Packing and the guarantee, onto the job's own constraints.
  auto level_key = [&](std::string_view key, std::string_view same, std::optional<std::string>& field,
                       SourceLocation& where) {
    if (!m.has(key)) return;
    if (m.has(same))
      sink_.error(m.where(key), fmt::format("job '{}' gives '{}' and '{}'; for a service give '{}'", job.name, key,
                                            same, key));
    field = m.string(key);
    where = m.where(key);
  };
  level_key("pack", "required", job.required, job.level_where.required);
  level_key("pack_preferred", "preferred", job.preferred, job.level_where.preferred);
  if (m.has("availability")) {
    yaml::MapReader a(m.get("availability"), file_, sink_, "'availability'");
    a.allow({"level", "survive", "min_slices"});
    if (a.ok()) {
      Availability av;
      av.where = m.where("availability");
      av.level = a.string("level", true).value_or("");
      av.survive = count(a, "survive", 0, 100'000).value_or(1);
      av.min_slices = count(a, "min_slices", 1, 100'000).value_or(1);
      if (!av.level.empty()) {
        if (av.survive + av.min_slices > s.slices)
          sink_.error(a.where(a.has("min_slices") ? "min_slices" : "survive"),
                      fmt::format("{} slice{} cannot keep {} after losing {} {} domain{}: with one slice per "
                                  "domain, give slices: {}",
                                  s.slices, s.slices == 1 ? "" : "s", av.min_slices, av.survive, av.level,
                                  av.survive == 1 ? "" : "s", av.survive + av.min_slices));
        if (job.spread && *job.spread != av.level)
          sink_.error(m.where("spread"), fmt::format("'spread: {}' contradicts availability at level '{}'",
                                                     *job.spread, av.level));
        if (s.slices > 1) {
          job.spread = av.level;
          job.level_where.spread = a.where("level");
        }
        job.min_replicas = av.min_slices;
        s.availability = av;
      }
    }
  }
  if (m.has("slo")) {
    yaml::MapReader o(m.get("slo"), file_, sink_, "'slo'");
    o.allow({"ttft_ms", "tpot_ms"});
    if (o.ok()) {
      s.ttft_ms = o.number("ttft_ms", 1e-6, 1e9);
      s.tpot_ms = o.number("tpot_ms", 1e-6, 1e9);
    }
  }
  if (auto iso = m.string("isolation")) {
    static const std::pair<std::string_view, Isolation> kIsolation[] = {
        {"node", Isolation::node}, {"nvlink-domain", Isolation::nvlink_domain}, {"rack", Isolation::rack}};
    bool found = false;
    for (auto [name, value] : kIsolation)
      if (*iso == name) {
        s.isolation = value;
        found = true;
      }
    if (!found) {
      std::string hint = did_you_mean(*iso, {"node", "nvlink-domain", "rack"});
      sink_.error(m.where("isolation"), fmt::format("unknown isolation '{}'; use node, nvlink-domain or rack{}{}",
                                                    *iso, hint.empty() ? "" : "; ", hint));
    } else if (job.tenant.empty()) {
      sink_.error(m.where("isolation"), fmt::format("'isolation' keeps a tenant's domains to itself; give job '{}' "
                                                    "a 'tenant'",
                                                    job.name));
    }
  }
  if (m.has("kv_transfer")) {
    yaml::MapReader k(m.get("kv_transfer"), file_, sink_, "'kv_transfer'");
    k.allow({"level", "enforcement", "same_host"});
    if (k.ok()) {
      if (auto same = flag(k, "same_host")) s.kv_same_host = *same;
      // A level says where decode must be; same_host alone needs none.
      s.kv_level = k.string("level", !k.has("same_host"));
      if (k.has("enforcement") && !s.kv_level)
        sink_.error(k.where("enforcement"), "'enforcement' applies to a 'level'; give one");
      const std::string e = k.string("enforcement").value_or("preferred");
      if (e == "required" || e == "preferred")
        s.kv_required = e == "required";
      else
        sink_.error(k.where("enforcement"), fmt::format("'enforcement' is required or preferred, not '{}'{}", e,
                                                        did_you_mean(e, {"required", "preferred"}).empty()
                                                            ? ""
                                                            : "; " + did_you_mean(e, {"required", "preferred"})));
    }
  }

  // Workload facts: the training keys the job reader took, and the serving ones.
  ServiceWorkload& w = s.workload;
  w.parameters = job.workload.parameters;
  w.bytes_per_parameter = job.workload.bytes_per_parameter;
  w.layers = job.workload.layers;
  w.expert_bytes = job.workload.expert_bytes;
  w.moe_layers = job.workload.moe_layers;
  if (workload.IsMap()) {
    yaml::MapReader wr(workload, file_, sink_, "'workload'");
    w.kv_bytes_per_token = bytes(wr, "kv_bytes_per_token").value_or(0);
    w.kv_heads = count(wr, "kv_heads", 1, 100'000).value_or(0);
    w.head_dim = count(wr, "head_dim", 1, 100'000).value_or(0);
    w.kv_latent = count(wr, "kv_latent", 1, 1'000'000).value_or(0);
    if (auto p = wr.string("kv_precision")) {
      if (*p == "fp32") w.kv_bytes_per_element = 4;
      else if (*p == "bf16" || *p == "fp16") w.kv_bytes_per_element = 2;
      else if (*p == "fp8" || *p == "int8") w.kv_bytes_per_element = 1;
      else
        sink_.error(wr.where("kv_precision"), fmt::format("unknown kv_precision '{}'; use fp32, bf16, fp16, fp8, int8",
                                                          *p));
    }
    w.hidden = count(wr, "hidden", 1, 10'000'000).value_or(0);
    w.experts_per_token = count(wr, "experts_per_token", 1, 10'000).value_or(0);
    if (auto text = wr.string("expert_parameters")) {
      auto v = parse_count(*text);
      if (!v || *v > w.parameters)
        sink_.error(wr.where("expert_parameters"),
                    fmt::format("'expert_parameters' must be a count like 650B, at most 'parameters', not '{}'", *text));
      else
        w.expert_parameters = *v;
    }
    if (auto text = wr.string("active_parameters")) {
      auto v = parse_count(*text);
      if (!v || *v <= 0 || (w.parameters > 0 && *v > w.parameters))
        sink_.error(wr.where("active_parameters"),
                    fmt::format("'active_parameters' must be a count like 37B, at most 'parameters', not '{}'", *text));
      else
        w.active_parameters = *v;
    }
    w.prefill_efficiency = wr.number("prefill_efficiency", 1e-6, 1).value_or(0);
    w.decode_efficiency = wr.number("decode_efficiency", 1e-6, 1).value_or(0);
    w.prompt_tokens = count(wr, "prompt_tokens", 1, 100'000'000).value_or(0);
    w.output_tokens = count(wr, "output_tokens", 1, 100'000'000).value_or(0);
    w.batch = count(wr, "batch", 1, 100'000'000).value_or(1);
    w.tokens_in_flight = static_cast<double>(count(wr, "tokens_in_flight", 1, 4'000'000'000).value_or(0));
    w.activation_bytes = bytes(wr, "activation_memory").value_or(0);
    if (w.kv_heads && !w.head_dim)
      sink_.error(wr.where("kv_heads"), "'kv_heads' needs 'head_dim' (and 'layers') to derive KV bytes per token");
    if ((w.kv_heads || w.kv_latent) && !w.layers && w.kv_bytes_per_token <= 0)
      sink_.error(wr.where(w.kv_heads ? "kv_heads" : "kv_latent"),
                  "KV bytes per token are derived from 'layers'; give 'layers' or 'kv_bytes_per_token'");
  }
  std::uint64_t per_slice = 0;
  for (const ServiceRole& role : s.roles) per_slice += std::uint64_t{role.replicas} * role.per_replica;
  if (per_slice > 100'000'000)
    sink_.error(m.where("roles"), fmt::format("service '{}' asks for {} accelerators a slice; at most 100000000",
                                              job.name, per_slice));
  if (sink_.size() != before || s.roles.empty()) return;
  attach_service(job, std::move(service));
}

}  // namespace topoplan
