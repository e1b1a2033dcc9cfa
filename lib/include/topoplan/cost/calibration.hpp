// Checking the cost model against published measurements: the points of
// bench/data/collectives-calibration.csv (nccl-tests and DeepEP figures), each
// mapped by bench/data/calibration-setups.csv onto a topology, a rank set and
// the quantity to compare. The bench program prints the comparison; a unit
// test bounds its median and 90th-percentile error.
#pragma once

#include <cstdint>
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
  /// tier per second: DeepEP's "bottleneck bandwidth" over NVLink or RDMA).
  std::string compare = "metric";
  std::string note;
};

struct CalibrationResult {
  CalibrationPoint point;
  CalibrationSetup setup;
  CollectiveCost cost;
  double model = 0;   // the model's value of the compared quantity
  double error = 0;   // (model - measured) / measured
};

struct CalibrationSummary {
  std::vector<CalibrationResult> results;  // in the order of the points
  double median = 0;  // of |error|; the mean of the two middle values for an even count
  double p90 = 0;     // of |error|; nearest rank: the ceil(0.9 n)-th smallest
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
/// model's algorithm), without the topology column; and its summary line.
std::string calibration_header();
std::string calibration_row(const CalibrationResult& result);
std::string calibration_summary(const CalibrationSummary& summary);

/// Per point: the row and its topology; then the summary line.
void write_calibration_text(std::ostream& out, const CalibrationSummary& summary);

}  // namespace topoplan
