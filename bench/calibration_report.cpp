// The cost model against published measurements.
//
//   topoplan_calibration [--plain] [DATA_DIR]   (default: the source tree's bench/data)
//
// Prices every row of DATA_DIR/collectives-calibration.csv (the team's
// reference set) and DATA_DIR/collectives-added.csv (measurements topoplan
// added) on the topology and ranks DATA_DIR/calibration-setups.csv maps it
// to, and prints measured vs model, the relative error, and per group and
// role (fit: the points the model was shaped on; check: the others) the
// median and 90th percentile of |error| and the worst factor; then the same
// statistics without the size-dependent efficiency, to show what it
// contributes. --plain leaves out the topology column: the table
// topoplan-cost(7) quotes.
// Exit status 1 when the bounds tests/unit/cost_calibration_test.cpp enforces
// fail (all and fit points: median <= 10 %, p90 <= 25 %, none off by 2x or
// more; check points: 1.5 times those), 2 on bad input.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/cost/calibration.hpp"
#include "topoplan/support/error.hpp"

namespace {

std::optional<std::string> read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  bool no_topology = false;
  std::string dir = TOPOPLAN_SOURCE_DIR "/bench/data";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--plain")
      no_topology = true;
    else
      dir = arg;
  }
  try {
    auto required = [&](const std::string& name) {
      auto text = read(dir + "/" + name);
      if (!text) throw topoplan::InputError({dir + "/" + name, 0, 0}, "cannot read");
      return *text;
    };
    auto points = topoplan::parse_calibration_points(required("collectives-calibration.csv"),
                                                     dir + "/collectives-calibration.csv");
    auto added = topoplan::parse_calibration_points(required("collectives-added.csv"),
                                                    dir + "/collectives-added.csv");
    points.insert(points.end(), added.begin(), added.end());
    auto setups =
        topoplan::parse_calibration_setups(required("calibration-setups.csv"), dir + "/calibration-setups.csv");
    // Topology files in the setups are relative to the data directory.
    auto reader = [&](const std::string& path) { return read(path.rfind('/', 0) == 0 ? path : dir + "/" + path); };
    topoplan::CalibrationSummary summary = topoplan::run_calibration(points, setups, reader);
    // What the size ramp contributes: NCCL's tuner structure alone.
    topoplan::CostModelOptions plain;
    plain.size_efficiency = false;
    topoplan::CalibrationSummary ablation = topoplan::run_calibration(points, setups, reader, plain);
    topoplan::write_calibration_report(std::cout, summary, ablation, !no_topology);
    auto within = [](const topoplan::CalibrationStats& st, double scale) {
      return st.median <= 0.10 * scale && st.p90 <= 0.25 * scale && st.worst_ratio < 2.0 * scale;
    };
    return within(summary.all, 1) && within(summary.fit, 1) && within(summary.check, 1.5) ? 0 : 1;
  } catch (const topoplan::InputError& e) {
    for (const topoplan::Diagnostic& d : e.diagnostics()) fmt::print(std::cerr, "topoplan_calibration: error: {}\n", d.str());
    return 2;
  }
}
