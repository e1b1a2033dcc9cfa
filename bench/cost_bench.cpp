// Cost-model speed: how fast placements can be priced, as the planner will.
//
//   topoplan_cost_bench [TOPO] [JOBS]    (default: dgx-h100:nodes=1024, 10000)
//
// Prices JOBS jobs of 8 to 512 GPUs placed at pseudo-random offsets (a fixed
// linear congruential sequence, so runs are comparable): one step() each
// (tensor, pipeline and data parallel communication). Target (cost model
// issue): 10,000 jobs in under a second. Exit status 1 when it is missed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topoplan/cost/cost_model.hpp"
#include "topoplan/io/topology_source.hpp"

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "dgx-h100:nodes=1024";
  const std::size_t jobs = argc > 2 ? std::stoul(argv[2]) : 10000;
  auto no_files = [](const std::string&) { return std::optional<std::string>(); };
  topoplan::Topology topology = topoplan::load_topology(name, no_files);
  const auto accels = topology.accelerators();

  auto start = std::chrono::steady_clock::now();
  topoplan::CostModel model(topology);
  const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::uint64_t state = 12345;
  auto next = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  std::vector<topoplan::DeviceId> ranks;
  double total_seconds = 0;
  start = std::chrono::steady_clock::now();
  for (std::size_t j = 0; j < jobs; ++j) {
    const std::size_t size = std::min<std::size_t>(std::size_t{8} << (next() % 7), accels.size());
    const std::size_t offset = next() % (accels.size() - size + 1) / 8 * 8;
    ranks.assign(accels.begin() + static_cast<std::ptrdiff_t>(offset),
                 accels.begin() + static_cast<std::ptrdiff_t>(offset + size));
    topoplan::Parallelism p;
    p.tp = 8;
    p.pp = size >= 64 ? 4 : 1;
    p.dp = static_cast<std::uint32_t>(size / (std::size_t{p.tp} * p.pp));
    topoplan::Workload w;
    w.gradient_bytes = 2.0 * 70e9;
    w.activation_bytes = 4.0 * 4096 * 8192 * 2;
    w.layers = 80;
    w.micro_batches = 8;
    total_seconds += model.step(ranks, p, w).seconds();
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %zu accelerators; model setup %.3f s\n", name.c_str(), accels.size(), setup);
  std::printf("%zu job steps priced in %.3f s (%.1f us each); checksum %.6g s\n", jobs, elapsed,
              elapsed / static_cast<double>(jobs) * 1e6, total_seconds);

  // Single collectives: a 64-rank all-reduce at varying offsets, auto algorithm.
  const std::size_t calls = 100000;
  double sum = 0;
  start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < calls; ++i) {
    const std::size_t size = std::min<std::size_t>(64, accels.size());
    const std::size_t offset = (i * 8) % (accels.size() - size + 1);
    const std::span<const topoplan::DeviceId> ranks64 = accels.subspan(offset, size);
    sum += model.collective({ranks64, topoplan::Collective::allreduce, std::uint64_t{1} << (10 + i % 24)}).time_us;
  }
  const double each = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
  std::printf("64-rank all-reduces: %.2f us each (checksum %.6g)\n", each * 1e6, sum);

  const bool ok = elapsed < static_cast<double>(jobs) / 10000.0;
  std::printf("target: 10,000 jobs in under 1 s: %s\n", ok ? "met" : "MISSED");
  return ok ? 0 : 1;
}
