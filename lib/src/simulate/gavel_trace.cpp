// Gavel traces (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling
// Policies for Deep Learning Workloads", OSDI'20;
// github.com/stanford-futuredata/gavel): tab-separated lines, one job each,
// in two layouts:
//   7 fields (traces/msr, sampled from Microsoft's Philly trace):
//     job_type, command, num_steps_arg, needs_data_dir, total_steps,
//     arrival_time, scale_factor
//   10 fields (traces/physical_cluster, Gavel's Job.__str__ plus arrival):
//     job_type, command, working_directory, num_steps_arg, needs_data_dir,
//     total_steps, scale_factor, priority_weight, SLO, arrival_time
// A job is scale_factor GPUs for total_steps steps. Gavel keeps no duration:
// its simulator divides steps by a measured throughput. We do the same with
// Gavel's V100 throughputs (below); where Gavel measured no multi-GPU figure
// for a model we assume linear scaling from its single-GPU one.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "csv_reader.hpp"
#include "trace_readers.hpp"

namespace topoplan {

namespace {

struct Throughput {
  const char* model;
  std::uint32_t gpus;
  double steps_per_s;
};

// Steps per second of each Gavel job type on V100 GPUs, running alone ("null"
// colocation): scheduler/simulation_throughputs.json of
// stanford-futuredata/gavel @ c4fa40097339e9608ab71fd64c8bdea96a5e4a4c (MIT),
// rounded to 6 significant digits.
constexpr Throughput kV100[] = {
    {"A3C", 1, 7.17577},
    {"CycleGAN", 1, 4.42609},
    {"LM (batch size 10)", 1, 81.6516},
    {"LM (batch size 10)", 2, 163.129},
    {"LM (batch size 10)", 4, 121.478},
    {"LM (batch size 10)", 8, 615.093},
    {"LM (batch size 20)", 1, 64.7425},
    {"LM (batch size 20)", 2, 132.174},
    {"LM (batch size 20)", 4, 110.997},
    {"LM (batch size 20)", 8, 497.295},
    {"LM (batch size 40)", 1, 45.2374},
    {"LM (batch size 40)", 2, 91.5927},
    {"LM (batch size 40)", 4, 96.0312},
    {"LM (batch size 40)", 8, 359.307},
    {"LM (batch size 5)", 1, 109.167},
    {"LM (batch size 5)", 2, 185.724},
    {"LM (batch size 5)", 4, 126.716},
    {"LM (batch size 5)", 8, 698.773},
    {"LM (batch size 80)", 1, 28.24},
    {"LM (batch size 80)", 2, 58.0915},
    {"LM (batch size 80)", 4, 74.8073},
    {"LM (batch size 80)", 8, 231.176},
    {"Recommendation (batch size 1024)", 1, 13.2826},
    {"Recommendation (batch size 2048)", 1, 7.46963},
    {"Recommendation (batch size 4096)", 1, 3.90605},
    {"Recommendation (batch size 512)", 1, 23.3176},
    {"Recommendation (batch size 8192)", 1, 2.84151},
    {"ResNet-18 (batch size 128)", 1, 17.9949},
    {"ResNet-18 (batch size 128)", 2, 23.9854},
    {"ResNet-18 (batch size 128)", 4, 69.9505},
    {"ResNet-18 (batch size 128)", 8, 162.092},
    {"ResNet-18 (batch size 16)", 1, 32.3534},
    {"ResNet-18 (batch size 16)", 2, 100.142},
    {"ResNet-18 (batch size 16)", 4, 123.854},
    {"ResNet-18 (batch size 16)", 8, 382.597},
    {"ResNet-18 (batch size 256)", 1, 10.3003},
    {"ResNet-18 (batch size 256)", 2, 15.8828},
    {"ResNet-18 (batch size 256)", 4, 27.7821},
    {"ResNet-18 (batch size 256)", 8, 81.5066},
    {"ResNet-18 (batch size 32)", 1, 29.9472},
    {"ResNet-18 (batch size 32)", 2, 94.2489},
    {"ResNet-18 (batch size 32)", 4, 114.733},
    {"ResNet-18 (batch size 32)", 8, 340.038},
    {"ResNet-18 (batch size 64)", 1, 24.0932},
    {"ResNet-18 (batch size 64)", 2, 74.1359},
    {"ResNet-18 (batch size 64)", 4, 95.5881},
    {"ResNet-18 (batch size 64)", 8, 255.829},
    {"ResNet-50 (batch size 128)", 1, 2.49677},
    {"ResNet-50 (batch size 128)", 2, 4.22301},
    {"ResNet-50 (batch size 128)", 4, 7.02929},
    {"ResNet-50 (batch size 128)", 8, 10.2932},
    {"ResNet-50 (batch size 16)", 1, 11.3961},
    {"ResNet-50 (batch size 16)", 2, 13.8598},
    {"ResNet-50 (batch size 16)", 4, 23.1956},
    {"ResNet-50 (batch size 16)", 8, 27.7991},
    {"ResNet-50 (batch size 32)", 1, 7.78726},
    {"ResNet-50 (batch size 32)", 2, 10.8346},
    {"ResNet-50 (batch size 32)", 4, 13.7632},
    {"ResNet-50 (batch size 32)", 8, 24.0674},
    {"ResNet-50 (batch size 64)", 1, 4.39477},
    {"ResNet-50 (batch size 64)", 2, 7.92205},
    {"ResNet-50 (batch size 64)", 4, 9.45195},
    {"ResNet-50 (batch size 64)", 8, 17.3032},
    {"Transformer (batch size 128)", 1, 5.44611},
    {"Transformer (batch size 128)", 2, 10.0692},
    {"Transformer (batch size 128)", 4, 14.1745},
    {"Transformer (batch size 128)", 8, 30.8835},
    {"Transformer (batch size 16)", 1, 11.0641},
    {"Transformer (batch size 16)", 2, 14.1538},
    {"Transformer (batch size 16)", 4, 20.085},
    {"Transformer (batch size 16)", 8, 71.6517},
    {"Transformer (batch size 256)", 1, 1.59514},
    {"Transformer (batch size 256)", 2, 2.88524},
    {"Transformer (batch size 256)", 4, 4.76305},
    {"Transformer (batch size 256)", 8, 9.71702},
    {"Transformer (batch size 32)", 1, 10.6209},
    {"Transformer (batch size 32)", 2, 13.328},
    {"Transformer (batch size 32)", 4, 22.8225},
    {"Transformer (batch size 32)", 8, 63.9777},
    {"Transformer (batch size 64)", 1, 8.61776},
    {"Transformer (batch size 64)", 2, 15.8765},
    {"Transformer (batch size 64)", 4, 19.6596},
    {"Transformer (batch size 64)", 8, 49.6507},
};

// (model, gpus) -> steps per second, and the models for error messages.
struct Table {
  std::map<std::pair<std::string, std::uint32_t>, double> rate;
  std::vector<std::string> models;
  Table() {
    for (const Throughput& t : kV100) {
      rate[{t.model, t.gpus}] = t.steps_per_s;
      if (models.empty() || models.back() != t.model) models.emplace_back(t.model);
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

Trace read_gavel_trace(std::string_view text, const std::string& file, const TraceOptions& options) {
  TraceSettingsReader settings(options.settings, "a Gavel trace", {});
  Trace trace;
  trace.format = "gavel";
  DiagnosticSink sink(20);
  csv::Reader reader(text, file, '\t');
  std::vector<csv::Field> f;
  std::size_t layout = 0;  // 7 or 10 fields, fixed by the first line
  std::size_t extrapolated = 0;
  while (reader.next(f)) {
    if (trace.jobs.size() >= TraceLimits::max_jobs)
      throw InputError(reader.where(), fmt::format("more than {} jobs in one trace", TraceLimits::max_jobs));
    if (layout == 0) layout = f.size();
    if (f.size() != 7 && f.size() != 10) {
      sink.error(reader.where(), fmt::format("a Gavel trace line has 7 or 10 tab-separated fields, not {}", f.size()));
      continue;
    }
    if (f.size() != layout) {
      sink.error(reader.where(), fmt::format("{} fields, but the first line has {}", f.size(), layout));
      continue;
    }
    const bool msr = layout == 7;
    const csv::Field& steps_field = f[msr ? 4 : 5];
    const csv::Field& arrival_field = f[msr ? 5 : 9];
    const csv::Field& scale_field = f[6];  // scale_factor is field 6 in both layouts
    const std::size_t errors = sink.size();
    TraceJob job;
    job.where = reader.where(1);
    job.id = fmt::format("job{}", trace.jobs.size());
    auto steps = csv::integer(steps_field, reader, sink, "total_steps", 1, std::int64_t{1} << 50);
    auto arrival = csv::number(arrival_field, reader, sink, "arrival_time", 0, TraceLimits::max_seconds);
    auto scale = csv::integer(scale_field, reader, sink, "scale_factor", 1, TraceLimits::max_gpus);
    if (sink.size() != errors) continue;
    const std::string model = f[0].text;
    job.submit_s = *arrival;
    job.gpus = static_cast<std::uint32_t>(*scale);
    const Table& t = table();
    auto it = t.rate.find({model, job.gpus});
    double rate = 0;
    if (it != t.rate.end()) {
      rate = it->second;
    } else if (auto one = t.rate.find({model, 1}); one != t.rate.end()) {
      rate = one->second * job.gpus;
      ++extrapolated;
    } else {
      std::string hint = did_you_mean(model, t.models);
      sink.error(reader.where(1), fmt::format("unknown Gavel job type '{}' (no measured throughput){}{}", model,
                                              hint.empty() ? "" : "; ", hint));
      continue;
    }
    job.duration_s = static_cast<double>(*steps) / rate;
    if (job.duration_s > TraceLimits::max_seconds) {
      sink.error(reader.where(steps_field.column), fmt::format("total_steps {} last longer than {} s", *steps,
                                                               TraceLimits::max_seconds));
      continue;
    }
    trace.jobs.push_back(std::move(job));
  }
  sink.throw_if_any();
  trace.assumptions.push_back(
      "gavel: duration = total_steps / Gavel's measured V100 steps per second for the job type and GPU count");
  if (extrapolated > 0)
    trace.assumptions.push_back(fmt::format(
        "gavel: {} jobs use GPU counts Gavel measured no throughput for; their throughput is the single-GPU "
        "one times the GPU count (linear scaling)",
        extrapolated));
  trace.assumptions.push_back("gavel: jobs are data parallel over scale_factor GPUs; ids are job0, job1, ... in "
                              "file order; priority_weight and SLO are not used");
  return trace;
}

}  // namespace topoplan
