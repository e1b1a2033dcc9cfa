// Load-time and memory benchmark for large topologies.
//
//   topoplan_load_bench [TOPO...]        (default: gb200-nvl72:racks=1820)
//
// For each topology: wall time to parse and build it (best of 3 runs), to
// summarise it (what `topology show` adds), and the peak resident memory of
// the process. Targets (issue 2): gb200-nvl72:racks=1820 (131,040 GPUs) loads
// in under 0.5 s and stays under 1 GiB on a 2-core machine. Exit status 1
// when a target is missed, so the benchmark can gate a release.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/model/topology_summary.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> topologies(argv + 1, argv + argc);
  if (topologies.empty()) topologies.emplace_back("gb200-nvl72:racks=1820");
  auto no_files = [](const std::string&) { return std::optional<std::string>(); };
  constexpr double kLoadTarget = 0.5;       // seconds
  constexpr double kMemoryTarget = 1024.0;  // MiB
  bool ok = true;
  fmt::print("{:<28} {:>12} {:>10} {:>10} {:>12} {:>12}\n", "topology", "accelerators", "links", "load s",
             "summary s", "peak MiB");
  for (const std::string& arg : topologies) {
    double best = 1e9;
    std::size_t accelerators = 0;
    std::size_t links = 0;
    double summary_time = 0;
    for (int run = 0; run < 3; ++run) {
      auto start = std::chrono::steady_clock::now();
      topoplan::Topology t = topoplan::load_topology(arg, no_files);
      best = std::min(best, seconds_since(start));
      accelerators = t.accelerators().size();
      links = t.link_count();
      if (run == 0) {
        auto s0 = std::chrono::steady_clock::now();
        topoplan::TopologySummary s = topoplan::summarize(t);
        summary_time = seconds_since(s0);
      }
    }
    double rss = peak_rss_mib();
    fmt::print("{:<28} {:>12} {:>10} {:>10.3f} {:>12.3f} {:>12.0f}\n", arg, accelerators, links, best, summary_time,
               rss);
    if (arg == "gb200-nvl72:racks=1820" && (best > kLoadTarget || rss > kMemoryTarget)) {
      fmt::print("target missed: load {:.3f} s (target {} s), peak {:.0f} MiB (target {} MiB)\n", best, kLoadTarget,
                 rss, kMemoryTarget);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
