// The simulation benchmark (issue 12): 100,000 jobs drawn from AcmeTrace's
// Seren summary (tests/data/traces/acme-cluster-summary.csv, the reader's
// synthetic trace: power-of-two sizes with Seren's mean of 5.68 GPUs,
// log-normal run times with its median and mean) replayed on
// dgx-h100:nodes=1250 (10,000 GPUs) at an offered load of 0.9, and 1/4 and
// 1/2 of both.
//
//   topoplan_simulate_bench [--sizes 0.25,0.5,1] [--jobs N] [--nodes N]
//                           [--load L] [--policies P,...]
//
// Each (size, policy) runs in a forked child (wall clock, CPU time and peak
// resident memory from wait4), which builds the simulator and replays the trace under
// one policy: what `topoplan simulate --policies P` does after reading its
// inputs. Every row shows the policy's figures from the same run (mean JCT,
// mean wait, utilisation, jobs never started). Targets at full size: < 10 s
// and < 1 GiB per policy, the time as CPU seconds (user + system), since
// the machine is shared and wall clock there measures the neighbours too.
// Exit status 1 when one is missed.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/simulate/simulation_metrics.hpp"
#include "topoplan/simulate/simulator.hpp"
#include "topoplan/simulate/trace.hpp"

namespace {

using namespace topoplan;
using bench::slurp;
using bench::split;

constexpr double kTargetSeconds = 10;
constexpr double kTargetMiB = 1024;

struct Options {
  std::vector<double> sizes = {0.25, 0.5, 1};
  std::size_t jobs = 100'000;
  std::size_t nodes = 1250;  // of 8 GPUs: 10,000
  double load = 0.9;
  std::vector<std::string> policies = {"topo", "kueue", "slurm", "naive"};
};

struct Result {
  double seconds = 0;
  double cpu_seconds = 0;  // user + system: what the run cost, however loaded the machine
  double peak_mib = 0;
  bool ok = false;
  std::string figures;  // the child's one line
};

// One policy's replay in a child; its figures come back through a pipe.
Result measure(const Topology& topology, const Trace& trace, const std::string& policy) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    int code = 0;
    std::string line;
    try {
      Simulator sim(topology, trace, {});
      PolicyMetrics m = summarize(sim.run(policy));
      line = fmt::format("{:>9.0f} {:>9.0f} {:>6.1f}% {:>6}", m.jct.mean, m.wait.mean, 100 * m.utilisation,
                         m.never_started);
    } catch (const std::exception& e) {
      line = e.what();
      code = 1;
    }
    const ssize_t n = write(fds[1], line.data(), line.size());
    (void)n;
    _exit(code);
  }
  close(fds[1]);
  Result r;
  char buffer[512];
  ssize_t n = 0;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) r.figures.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                  static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  r.peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "topoplan_simulate_bench: {} needs a value\n", a);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--sizes") {
      o.sizes.clear();
      for (const std::string& s : split(value())) o.sizes.push_back(std::stod(s));
    } else if (a == "--jobs") {
      o.jobs = std::stoul(value());
    } else if (a == "--nodes") {
      o.nodes = std::stoul(value());
    } else if (a == "--load") {
      o.load = std::stod(value());
    } else if (a == "--policies") {
      o.policies = split(value());
    } else {
      fmt::print(stderr, "topoplan_simulate_bench: unknown option '{}'\n", a);
      return 2;
    }
  }
  const std::string summary_file = std::string(TOPOPLAN_SOURCE_DIR) + "/tests/data/traces/acme-cluster-summary.csv";
  const std::string summary = slurp(summary_file);
  fmt::print("simulate: AcmeTrace Seren synthetic trace at load {} on dgx-h100 nodes; EASY backfill\n", o.load);
  fmt::print("{:>5} {:>8} {:>7} {:<7} {:>8} {:>8} {:>9} {:>9} {:>9} {:>7} {:>6}\n", "size", "jobs", "GPUs", "policy",
             "wall s", "cpu s", "peak MiB", "jct mean", "wait mean", "util", "never");
  bool missed = false;
  for (double size : o.sizes) {
    const auto nodes = static_cast<std::size_t>(std::lround(static_cast<double>(o.nodes) * size));
    const auto jobs = static_cast<std::size_t>(std::lround(static_cast<double>(o.jobs) * size));
    Topology topology =
        load_topology(fmt::format("dgx-h100:nodes={}", nodes), [](const std::string&) { return std::nullopt; });
    TraceOptions trace_options;
    trace_options.accelerators = topology.accelerators().size();
    trace_options.settings = parse_trace_argument(
                                 fmt::format("{}:cluster=Seren,jobs={},load={},seed=1", summary_file, jobs, o.load))
                                 .second;
    Trace trace = read_trace(summary, summary_file, trace_options);
    for (const std::string& policy : o.policies) {
      Result r = measure(topology, trace, policy);
      const bool full = size >= 1.0;
      const bool miss = !r.ok || (full && (r.cpu_seconds > kTargetSeconds || r.peak_mib > kTargetMiB));
      missed = missed || miss;
      fmt::print("{:>5} {:>8} {:>7} {:<7} {:>8.2f} {:>8.2f} {:>9.0f} {}{}\n", size, jobs, trace_options.accelerators,
                 policy, r.seconds, r.cpu_seconds, r.peak_mib, r.figures, miss ? "  << target missed" : "");
      std::fflush(stdout);
    }
  }
  fmt::print("targets at size 1: < {} CPU s and < {} MiB per policy\n", kTargetSeconds,
             kTargetMiB);
  return missed ? 1 : 0;
}
