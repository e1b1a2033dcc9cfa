#include "topoplan/placement/service_latency.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "topoplan/cost/accelerator_spec.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/placement/straggler_model.hpp"

namespace topoplan {

namespace {

// Activations cross TP all-reduces in bf16, 2 bytes an element, as the
// serving engines (vLLM, SGLang, TensorRT-LLM) run Llama and DeepSeek.
constexpr double kActivationBytes = 2;
// An FP8 model's expert-parallel dispatch is quantised: one byte a value and
// one float32 scale per 128 values (7,168 + 56 x 4 = 7,392 B a token at
// hidden 7168), while the combine, a weighted sum, comes back in BF16
// (deepseek-ai/DeepEP README and docs: "FP8 dispatching and BF16 combining";
// DeepSeek-V3 technical report, 3.3: dispatch in FP8, combine in BF16).
constexpr double kFp8DispatchBytes = 1 + 4.0 / 128;

// The roofs of a replica: its weakest part's datasheet row.
std::optional<AcceleratorSpec> roofs(const Topology& t, std::span<const DeviceId> devices) {
  std::optional<AcceleratorSpec> out;
  for (DeviceId d : devices) {
    const std::optional<AcceleratorSpec> s = accelerator_spec(t.str(t.device(d).model));
    if (!s) return std::nullopt;
    if (!out) out = s;
    if (s->peak_flops < out->peak_flops) {
      out->peak_flops = s->peak_flops;
      out->fp8_factor = s->fp8_factor;
      out->fp4_factor = s->fp4_factor;
    }
    out->hbm_bytes_per_s = std::min(out->hbm_bytes_per_s, s->hbm_bytes_per_s);
  }
  return out;
}

double prefill_eff(const ServiceWorkload& w) { return w.prefill_efficiency > 0 ? w.prefill_efficiency : kPrefillEfficiency; }
double decode_eff(const ServiceWorkload& w) { return w.decode_efficiency > 0 ? w.decode_efficiency : kDecodeEfficiency; }

double batch_of(const Service& s, const ServiceRole& role) {
  return static_cast<double>(role.batch ? role.batch : s.workload.batch);
}

// GPUs one pipeline stage of the replica has (tp x dp): a request's tokens
// pass the stages one after another.
double stage_gpus(const ServiceRole& role, std::size_t devices) {
  return static_cast<double>(devices) / role.parallelism.pp;
}

bool valid_speed(double speed) { return speed > 0 && std::isfinite(speed); }

}  // namespace

double active_parameters(const ServiceWorkload& w) {
  if (w.active_parameters > 0) return w.active_parameters;
  return w.expert_parameters > 0 ? 0 : w.parameters;
}

double prefill_compute_seconds(const Topology& t, const Service& s, const ServiceRole& role,
                               std::span<const DeviceId> devices, double speed) {
  const ServiceWorkload& w = s.workload;
  const double active = active_parameters(w);
  if (devices.empty() || active <= 0 || w.prompt_tokens == 0 || !valid_speed(speed)) return -1;
  const std::optional<AcceleratorSpec> roof = roofs(t, devices);
  if (!roof) return -1;
  // One request's prompt, prefilled alone (no queueing): TTFT is a request's.
  const double tokens = w.prompt_tokens;
  const double peak = roof->peak_flops_at(w.bytes_per_parameter);
  const double compute = 2 * active * tokens / (stage_gpus(role, devices.size()) * peak * prefill_eff(w));
  // The weights are read once per stage however long the prompt.
  const double memory = role.parallelism.pp * role_weight_bytes(s, role) / (roof->hbm_bytes_per_s * decode_eff(w));
  return std::max(compute, memory) / speed;
}

double decode_compute_seconds(const Topology& t, const Service& s, const ServiceRole& role,
                              std::span<const DeviceId> devices, double speed) {
  const ServiceWorkload& w = s.workload;
  if (devices.empty() || w.parameters <= 0 || !valid_speed(speed)) return -1;
  const std::optional<AcceleratorSpec> roof = roofs(t, devices);
  if (!roof) return -1;
  // Each step reads every weight and the KV of every request in flight.
  const double bytes = role_weight_bytes(s, role) + role_kv_bytes(s, role);
  const double memory = role.parallelism.pp * bytes / (roof->hbm_bytes_per_s * decode_eff(w));
  const double active = active_parameters(w);
  const double compute =
      active > 0 ? 2 * active * batch_of(s, role) /
                       (stage_gpus(role, devices.size()) * roof->peak_flops_at(w.bytes_per_parameter) * prefill_eff(w))
                 : 0;
  return std::max(memory, compute) / speed;
}

double role_communication_seconds(const CostModel& model, const Service& s, const ServiceRole& role,
                                  std::span<const DeviceId> ranks, double tokens, const JobWorkload* job) {
  const ServiceWorkload& w = s.workload;
  if (ranks.size() != role.parallelism.ranks() || w.hidden == 0 || w.layers == 0) return -1;
  Workload wl;
  wl.training = false;
  wl.layers = w.layers;
  wl.micro_batches = 1;
  // Each data-parallel rank group serves its own share of the requests.
  const double per_group = tokens / role.parallelism.dp;
  wl.activation_bytes = role.parallelism.tp > 1 ? per_group * w.hidden * kActivationBytes : 0;
  if (role.parallelism.ep > 1 && w.experts_per_token > 0) {
    const double values = per_group * w.hidden * w.experts_per_token;
    wl.moe_combine_bytes = values * kActivationBytes;
    wl.moe_dispatch_bytes = values * (w.bytes_per_parameter <= 1 ? kFp8DispatchBytes : kActivationBytes);
    wl.moe_layers = w.moe_layers ? w.moe_layers : w.layers;
    if (job) {
      wl.ep_kernel = job->ep_kernel;
      wl.ep_message_bytes = job->ep_message_bytes;
    }
  }
  if (wl.activation_bytes <= 0 && wl.moe_dispatch_bytes <= 0) return 0;
  return model.step(ranks, role.parallelism, wl).seconds();
}

namespace {

double sum_known(std::initializer_list<double> parts) {
  double out = -1;
  for (double p : parts)
    if (p >= 0) out = std::max(0.0, out) + p;
  return out;
}

}  // namespace

double ReplicaLatency::ttft() const { return sum_known({ttft_compute, ttft_comm, ttft_kv > 0 ? ttft_kv : -1}); }
double ReplicaLatency::tpot() const { return sum_known({tpot_compute, tpot_comm}); }

bool ReplicaLatency::meets(const Service& s) const {
  if (answers_ttft && s.ttft_ms && ttft() >= 0 && ttft() * 1e3 > *s.ttft_ms) return false;
  if (answers_tpot && s.tpot_ms && tpot() >= 0 && tpot() * 1e3 > *s.tpot_ms) return false;
  return true;
}

std::vector<ReplicaLatency> slice_latency(const Topology& t, const Service& s, std::uint32_t slice,
                                          const std::vector<RoleReplica>& roles, const CostModel* model,
                                          const SpeedClass* speeds, const JobWorkload* job) {
  std::vector<ReplicaLatency> out;
  const ServiceWorkload& w = s.workload;
  const bool split = s.disaggregated();
  const double kv_per_token = derive_kv_bytes_per_token(w);
  for (const RoleReplica& rr : roles) {
    const ServiceRole& role = s.roles[rr.role];
    ReplicaLatency l;
    l.slice = slice;
    l.role = rr.role;
    l.replica = rr.replica;
    l.answers_ttft = split ? role.is_prefill() : true;
    l.answers_tpot = split ? role.is_decode() : true;
    if (rr.devices.empty() || (!l.answers_ttft && !l.answers_tpot)) {
      out.push_back(l);
      continue;
    }
    l.speed = slowest_speed(t, rr.devices, speeds);
    const double batch = batch_of(s, role);
    if (l.answers_ttft) {
      l.ttft_compute = prefill_compute_seconds(t, s, role, rr.devices, l.speed);
      if (model && w.prompt_tokens > 0)
        l.ttft_comm = role_communication_seconds(*model, s, role, rr.devices, w.prompt_tokens, job);
      // The hand-over to the nearest decode replica of the slice.
      if (model && split && kv_per_token > 0 && w.prompt_tokens > 0) {
        const auto bytes = static_cast<std::uint64_t>(std::ceil(kv_per_token * w.prompt_tokens));
        double best = -1;
        for (const RoleReplica& dec : roles) {
          if (!s.roles[dec.role].is_decode() || dec.devices.empty()) continue;
          const KvTransferCost c = model->kv_transfer(rr.devices, dec.devices, bytes);
          const double sec = c.reachable ? c.seconds : std::numeric_limits<double>::infinity();
          if (best < 0 || sec < best) best = sec;
        }
        l.ttft_kv = std::max(0.0, best);
      }
    }
    if (l.answers_tpot) {
      l.tpot_compute = decode_compute_seconds(t, s, role, rr.devices, l.speed);
      if (model) l.tpot_comm = role_communication_seconds(*model, s, role, rr.devices, batch, job);
    }
    out.push_back(l);
  }
  return out;
}

namespace {

// Whether the workload says enough to price a request's communication.
bool prices_requests(const Service& s) {
  return s.workload.hidden > 0 && s.workload.layers > 0 && s.workload.prompt_tokens > 0;
}

}  // namespace

double request_communication_seconds(const Topology& t, const Service& s, const std::vector<RoleReplica>& roles,
                                     const CostModel& model, const JobWorkload* job) {
  if (!prices_requests(s)) return -1;
  double first = -1, token = -1;
  for (const ReplicaLatency& l : slice_latency(t, s, 0, roles, &model, nullptr, job)) {
    if (l.answers_ttft && l.ttft_comm >= 0) first = std::max(first, l.ttft_comm + l.ttft_kv);
    if (l.answers_tpot && l.tpot_comm >= 0) token = std::max(token, l.tpot_comm);
  }
  if (first < 0 || token < 0) return -1;
  return first + token;
}

std::vector<double> service_request_prices(const Topology& t, const std::vector<const Job*>& jobs,
                                           const std::vector<std::vector<DeviceId>>& ranks, const CostModel* model) {
  std::vector<double> out(jobs.size(), -1);
  if (!model) return out;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i] && jobs[i]->service && prices_requests(*jobs[i]->service) && !ranks[i].empty())
      out[i] = request_communication_seconds(t, *jobs[i]->service, assign_roles(t, *jobs[i]->service, ranks[i]), *model,
                                             &jobs[i]->workload);
  return out;
}

double worst_slo_ratio(const Service& s, std::span<const ReplicaLatency> replicas) {
  double worst = 0;
  for (const ReplicaLatency& l : replicas) {
    if (l.answers_ttft && s.ttft_ms && l.ttft() >= 0) worst = std::max(worst, l.ttft() * 1e3 / *s.ttft_ms);
    if (l.answers_tpot && s.tpot_ms && l.tpot() >= 0) worst = std::max(worst, l.tpot() * 1e3 / *s.tpot_ms);
  }
  return worst;
}

}  // namespace topoplan
