// Checking the cost model against published measurements: the points of
// bench/data/collectives-calibration.csv and collectives-added.csv (nccl-tests,
// DeepEP and pplx-kernels figures), each mapped by
// bench/data/calibration-setups.csv onto a topology, a rank set, the quantity
// to compare, a group (single node, multi-node, ...) and a role: `fit` points
// shaped the model, `check` points only test it, `outlier` points are
// measurements the model cannot reproduce for a reason the setup states (an
// unstated system setup, a non-NCCL kernel). The bench program prints the
// comparison per group and role; a unit test bounds the errors.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/rank_set.hpp"
#include "topoplan/io/topology_source.hpp"

namespace topoplan {

/// One published measurement: a row of collectives-calibration.csv.
struct CalibrationPoint {
  std::string id;
  std::string setup;        // the hardware, in the source's words
  std::uint32_t gpus = 0;
  std::uint32_t nodes = 0;
  std::string collective;   // allreduce, sendrecv, alltoall ...
  std::string algorithm;    // as measured: nvls, ring, auto, p2p, ep-dispatch
  std::uint64_t size_bytes = 0;  // 0 when the source gives none
  std::string metric;       // busbw, algbw or time_us
  double value = 0;         // GB/s or microseconds
  std::string source;
};

/// How topoplan reproduces a measurement: a row of calibration-setups.csv.
struct CalibrationSetup {
  std::string id;
  std::string topology;       // TOPO argument: a preset with parameters, or a file
  RankSelection ranks;        // `first:N` or `devices:LIST` in the file
  std::string algorithm;      // empty: the measurement's (`auto` stays auto)
  std::uint64_t size_bytes = 0;  // 0: the measurement's
  /// What to compare with the measured value: `metric` (the row's metric),
  /// `scale-up-bandwidth` or `nic-bandwidth` (bytes each rank moves over that
  /// tier per second: DeepEP's "bottleneck bandwidth" over NVLink or RDMA), or
  /// `rdma-bandwidth`: the RDMA bytes as DeepEP's test counts them (a token
  /// once per node it goes to, its own node included) per second.
  std::string compare = "metric";
  std::string group;          // one of calibration_groups()
  std::string role = "check"; // `fit`, `check` or `outlier`
  /// The NCCL release the run states (empty: the newest the model follows).
  std::optional<NcclVersion> nccl_version;
  /// The NCCL variables the run set that the model follows (NCCL_BUFFSIZE,
  /// NCCL_ALGO, ...): the nccl column's `NAME=VALUE` words after the release.
  std::vector<NcclSetting> nccl_settings;
  /// The GPUs one thread of the run drove (nccl-tests' -g; 1: a process per
  /// GPU). More cost the serial launches of serial_launch.hpp.
  std::uint32_t gpus_per_thread = 1;
  std::string note;
};

/// The groups a setup may name, in report order: single-node, multi-node,
/// multi-rack-nvl72, latency (small messages), amd, alltoall.
const std::vector<std::string>& calibration_groups();

/// |error| statistics of a set of points.
struct CalibrationStats {
  std::size_t count = 0;
  double median = 0;  // the mean of the two middle values for an even count
  double p90 = 0;     // nearest rank: the ceil(0.9 n)-th smallest
  /// The largest factor between model and measurement, max(m/v, v/m);
  /// infinite when the model has no value.
  double worst_ratio = 0;
};

CalibrationStats calibration_stats(const std::vector<double>& model, const std::vector<double>& measured);

struct CalibrationResult {
  CalibrationPoint point;
  CalibrationSetup setup;
  CollectiveCost cost;
  double model = 0;   // the model's value of the compared quantity
  double error = 0;   // (model - measured) / measured
};

struct CalibrationSummary {
  std::vector<CalibrationResult> results;  // in the order of the points
  double median = 0;  // of |error| over the fit and check points (= all.median)
  double p90 = 0;     // of |error| over the fit and check points (= all.p90)
  CalibrationStats all;       // fit and check points
  CalibrationStats fit;       // the points the model was shaped on
  CalibrationStats check;     // the points it is only tested against
  CalibrationStats outliers;  // the points it cannot reproduce, for the reason their setup gives
  /// Fit and check points per group of calibration_groups() that has any, in that order.
  std::vector<std::pair<std::string, CalibrationStats>> groups;
};

/// Parsers take the text and a display name for errors; `#` starts a comment
/// line; the first other line is the header. Throw InputError on bad rows.
std::vector<CalibrationPoint> parse_calibration_points(std::string_view text, const std::string& file);
std::vector<CalibrationSetup> parse_calibration_setups(std::string_view text, const std::string& file);

/// Prices every point on its setup (topologies load through `read`). Throws
/// InputError when a point has no setup or a setup cannot be priced.
CalibrationSummary run_calibration(const std::vector<CalibrationPoint>& points,
                                   const std::vector<CalibrationSetup>& setups, const FileReader& read,
                                   const CostModelOptions& options = {});

/// The report's header and one row per point (measured, model, error, the
/// model's algorithm, group and role), without the topology column; and its
/// summary: one line for all points, then per role and per group.
std::string calibration_header();
std::string calibration_row(const CalibrationResult& result);
std::string calibration_summary(const CalibrationSummary& summary);
std::string calibration_stats_line(std::string_view label, const CalibrationStats& stats);

/// The report: per point the row (and, with `topologies`, its topology),
/// the summary lines, the outliers with their reasons, and the statistics of
/// `ablation` (the same points without the size-dependent efficiency). The
/// bench program prints it with topologies; topoplan-cost(7) quotes it
/// without.
void write_calibration_report(std::ostream& out, const CalibrationSummary& summary,
                              const CalibrationSummary& ablation, bool topologies);

}  // namespace topoplan
