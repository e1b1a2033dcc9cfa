// A synthetic trace from the AcmeTrace cluster summary (Hu et al.,
// "Characterization of Large Language Model Development in the Datacenter",
// NSDI'24; github.com/InternLM/AcmeTrace data/cluster_summary.csv), which
// gives per cluster (Seren, Kalos, and for comparison Philly, Helios, PAI)
// the mean and median run time and GPU count of its GPU jobs and the largest
// of each, but no job list. The summary has no arrival times, shapes or job
// list, so we draw one (TRACE:cluster=NAME,jobs=N,load=L,seed=S):
//   - GPU counts are powers of two up to max_gpu, P(2^k) proportional to
//     r^k, with r chosen so that the mean is avg_gpu_num;
//   - run times are log-normal with median med_run_time_gpu and mean
//     avg_run_time_gpu, cut at max_run_time_gpu;
//   - counts and run times are independent;
//   - arrivals are Poisson at the rate that offers `load` times the
//     cluster's accelerator-seconds over the trace.
// These are our assumptions; the summary's numbers are the only facts used.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "csv_reader.hpp"
#include "random.hpp"
#include "trace_readers.hpp"

namespace topoplan {

namespace {

struct ClusterStats {
  std::string name;
  double avg_run = 0, med_run = 0, max_run = 0;
  double avg_gpus = 0, med_gpus = 0, max_gpus = 0;
  SourceLocation where;
};

// P(2^k) for k = 0..K proportional to r^k: the mean as a function of r.
double mean_size(double r, int top) {
  double weight = 0, sum = 0, w = 1;
  for (int k = 0; k <= top; ++k, w *= r) {
    weight += w;
    sum += w * std::ldexp(1.0, k);
  }
  return sum / weight;
}

}  // namespace

Trace read_acme_trace(std::string_view text, const std::string& file, const TraceOptions& options) {
  TraceSettingsReader settings(options.settings, "the AcmeTrace cluster summary", {"cluster", "jobs", "load", "seed"});
  DiagnosticSink sink(20);
  csv::Reader reader(text, file);
  std::vector<csv::Field> f;
  reader.next(f);
  std::map<std::string, std::size_t> column;
  for (std::size_t c = 0; c < f.size(); ++c) column.emplace(f[c].text, c);
  const std::vector<std::string> needed = {"id", "avg_run_time_gpu", "med_run_time_gpu", "max_run_time_gpu",
                                           "avg_gpu_num", "med_gpu_num", "max_gpu"};
  for (const std::string& name : needed)
    if (!column.count(name)) sink.error(reader.where(1), fmt::format("the AcmeTrace summary needs the column '{}'", name));
  sink.throw_if_any();
  const std::size_t width = f.size();
  std::vector<ClusterStats> clusters;
  while (reader.next(f)) {
    if (clusters.size() > 1000) throw InputError(reader.where(), "more than 1000 clusters in a summary");
    if (f.size() != width) {
      sink.error(reader.where(), fmt::format("{} fields, but the header has {}", f.size(), width));
      continue;
    }
    ClusterStats c;
    c.where = reader.where(1);
    c.name = f[column.at("id")].text;
    auto num = [&](const char* name) {
      return csv::number(f[column.at(name)], reader, sink, name, 0, TraceLimits::max_seconds).value_or(0);
    };
    c.avg_run = num("avg_run_time_gpu");
    c.med_run = num("med_run_time_gpu");
    c.max_run = num("max_run_time_gpu");
    c.avg_gpus = num("avg_gpu_num");
    c.med_gpus = num("med_gpu_num");
    c.max_gpus = num("max_gpu");
    clusters.push_back(c);
  }
  sink.throw_if_any();
  std::vector<std::string> names;
  for (const ClusterStats& c : clusters) names.push_back(c.name);
  std::optional<std::string> wanted = settings.get("cluster");
  if (!wanted)
    throw InputError({file, 1, 1}, fmt::format("the AcmeTrace summary describes clusters, not jobs: name one to draw "
                                               "a trace from with '{}:cluster=NAME' ({})",
                                               file, fmt::join(names, ", ")));
  auto it = std::find_if(clusters.begin(), clusters.end(), [&](const ClusterStats& c) { return c.name == *wanted; });
  if (it == clusters.end()) {
    std::string hint = did_you_mean(*wanted, names);
    throw InputError({file, 0, 0}, fmt::format("no cluster '{}' in the summary ({}){}{}", *wanted,
                                               fmt::join(names, ", "), hint.empty() ? "" : "; ", hint));
  }
  const ClusterStats& c = *it;
  if (c.avg_gpus < 1 || c.med_gpus < 1 || c.max_gpus < 1)
    throw InputError(c.where, fmt::format("cluster '{}' shares GPUs (mean {} GPUs a job); a trace of whole GPUs "
                                          "cannot be drawn from it",
                                          c.name, c.avg_gpus));
  if (!(c.avg_run > c.med_run && c.med_run > 0))
    throw InputError(c.where, fmt::format("cluster '{}': a log-normal run time needs a mean above the median",
                                          c.name));
  const auto jobs = static_cast<std::size_t>(settings.number("jobs", 1, TraceLimits::max_jobs).value_or(10'000));
  const double load = settings.number("load", 0.01, 100).value_or(0.9);
  const auto seed = static_cast<std::uint64_t>(settings.number("seed", 0, 1e15).value_or(1));
  if (options.accelerators == 0) throw InputError({file, 0, 0}, "the cluster has no accelerators to load");

  // GPU counts: r by bisection (the mean grows with r).
  const int top = static_cast<int>(std::floor(std::log2(c.max_gpus)));
  double lo = 1e-9, hi = 1e9;
  for (int i = 0; i < 200; ++i) {
    double mid = std::sqrt(lo * hi);
    (mean_size(mid, top) < c.avg_gpus ? lo : hi) = mid;
  }
  const double r = std::sqrt(lo * hi);
  std::vector<double> cumulative;
  double total = 0, w = 1;
  for (int k = 0; k <= top; ++k, w *= r) cumulative.push_back(total += w);
  // Run times: log-normal with the summary's median and mean.
  const double mu = std::log(c.med_run);
  const double sigma = std::sqrt(2.0 * std::log(c.avg_run / c.med_run));

  Random rng(seed);
  Trace trace;
  trace.format = "acme";
  double work = 0;
  for (std::size_t j = 0; j < jobs; ++j) {
    TraceJob job;
    job.id = fmt::format("{}-{}", c.name, j);
    job.where = c.where;
    double u = rng.uniform() * total;
    auto k = static_cast<int>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
    job.gpus = static_cast<std::uint32_t>(std::ldexp(1.0, std::min(k, top)));
    job.duration_s = std::clamp(std::round(std::exp(mu + sigma * rng.normal())), 1.0, std::max(c.max_run, 1.0));
    work += job.duration_s * job.gpus;
    trace.jobs.push_back(std::move(job));
  }
  const double span = work / (load * static_cast<double>(options.accelerators));
  const double rate = static_cast<double>(jobs) / span;
  double t = 0;
  for (TraceJob& job : trace.jobs) {
    job.submit_s = std::round(t);
    t += rng.exponential(rate);
  }
  trace.assumptions.push_back(fmt::format(
      "acme: {} jobs drawn (seed {}) from cluster {}'s summary: GPU counts powers of two up to {} with mean {} "
      "(P(2^k) ~ {:.3f}^k); run times log-normal, median {} s, mean {} s, at most {} s",
      jobs, seed, c.name, c.max_gpus, c.avg_gpus, r, c.med_run, c.avg_run, c.max_run));
  trace.assumptions.push_back(fmt::format(
      "acme: Poisson arrivals offering {} of the cluster's {} accelerators over {:.0f} s", load,
      options.accelerators, span));
  return trace;
}

}  // namespace topoplan
