// A seeded, reproducible job mix for the scale benchmark (issue 9): training
// jobs of 1 to 4,096 GPUs, about 20 % inference services spread over racks,
// some jobs that require one rack, and a total demand of about 95 % of the
// cluster's GPUs.
//
// Sizes: powers of two from 1 to 4,096 with weights falling as size^-1.2, the
// shape of the public GPU-cluster traces (Philly, Helios, Acme: most jobs use
// one to eight GPUs, a few very large ones use most of the GPU time; see
// ../shared/reference/inputs/traces). The total is then brought to the
// demand target deterministically: the largest jobs are halved while it is
// above, random jobs below 4,096 GPUs doubled while it is below.
//
// Parallelism follows common practice on NVL72: tp 4 (one compute tray) for
// jobs of 4 GPUs or more, pp 2-8 for jobs of 256 GPUs or more, dp for the
// rest. Services: 2-4 replicas of 1-16 GPUs (tp = GPUs per replica), each
// replica in a different rack (`spread: rack`). About 10 % of the training
// jobs of 8 to 64 GPUs say `required: rack`.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace topoplan::bench {

struct MixJob {
  bool service = false;
  std::uint32_t gpus = 0;  // per replica for services
  std::uint32_t replicas = 1;
  std::uint32_t tp = 1, pp = 1, dp = 1;
  bool required_rack = false;
  int priority = 0;
  double parameters = 0;
};

inline std::vector<MixJob> scale_mix(std::size_t jobs, std::uint64_t cluster_gpus, double demand, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> weights;
  for (int k = 0; k <= 12; ++k) weights.push_back(std::pow(static_cast<double>(1u << k), -1.2));
  std::discrete_distribution<int> size_dist(weights.begin(), weights.end());
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<MixJob> out(jobs);
  for (MixJob& j : out) {
    j.service = unit(rng) < 0.2;
    if (j.service) {
      j.replicas = 2 + static_cast<std::uint32_t>(rng() % 3);
      j.gpus = 1u << (rng() % 5);  // 1..16
      j.priority = 10;
    } else {
      j.gpus = 1u << size_dist(rng);
      j.priority = static_cast<int>(rng() % 3);
    }
  }
  auto total = [&]() {
    std::uint64_t n = 0;
    for (const MixJob& j : out) n += static_cast<std::uint64_t>(j.gpus) * j.replicas;
    return n;
  };
  const auto target = static_cast<std::uint64_t>(demand * static_cast<double>(cluster_gpus));
  while (total() > target) {
    MixJob* largest = &out.front();
    for (MixJob& j : out)
      if (!j.service && j.gpus > largest->gpus) largest = &j;
    if (largest->gpus <= 1) break;
    largest->gpus /= 2;
  }
  for (int guard = 0; total() < target && guard < 1'000'000; ++guard) {
    MixJob& j = out[rng() % out.size()];
    if (j.service || j.gpus >= 4096) continue;
    if (total() + j.gpus > target + target / 200) continue;
    j.gpus *= 2;
  }
  for (MixJob& j : out) {
    if (j.service) {
      j.tp = j.gpus;
      j.parameters = j.gpus >= 8 ? 70e9 : 8e9;
      continue;
    }
    j.tp = std::min<std::uint32_t>(j.gpus, 4);
    if (j.gpus >= 256) j.pp = std::min<std::uint32_t>(8, j.gpus / 128);
    j.dp = j.gpus / (j.tp * j.pp);
    j.required_rack = j.gpus >= 8 && j.gpus <= 64 && unit(rng) < 0.1;
    j.parameters = j.gpus >= 1024 ? 405e9 : j.gpus >= 64 ? 70e9 : 8e9;
  }
  return out;
}

/// The mix as a native manifest (topoplan-jobs(5)).
inline std::string scale_mix_yaml(const std::vector<MixJob>& mix) {
  std::string s = "jobs:\n";
  for (std::size_t i = 0; i < mix.size(); ++i) {
    const MixJob& j = mix[i];
    if (j.service) {
      s += fmt::format(
          "  - {{name: svc-{:05}, kind: inference, replicas: {}, gpus_per_replica: {}, parallelism: {{tp: {}}}, "
          "spread: rack, priority: {}, workload: {{parameters: {:.0f}}}}}\n",
          i, j.replicas, j.gpus, j.tp, j.priority, j.parameters);
    } else {
      s += fmt::format("  - {{name: job-{:05}, gpus: {}, parallelism: {{tp: {}, pp: {}, dp: {}}}, {}priority: {}, "
                       "workload: {{parameters: {:.0f}}}}}\n",
                       i, j.gpus, j.tp, j.pp, j.dp, j.required_rack ? "required: rack, " : "", j.priority,
                       j.parameters);
    }
  }
  return s;
}

}  // namespace topoplan::bench
