// The cost model against published measurements.
//
//   topoplan_calibration [DATA_DIR]      (default: the source tree's bench/data)
//
// Prices every row of DATA_DIR/collectives-calibration.csv on the topology
// and ranks DATA_DIR/calibration-setups.csv maps it to, and prints measured vs
// model, the relative error, and the median and 90th percentile of |error|;
// then the same statistics without the size-dependent efficiency, to show
// what it contributes.
// Exit status 1 when the median exceeds 15 % or the 90th percentile 30 %
// (the bounds tests/unit/cost_calibration_test.cpp enforces), 2 on bad input.
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
  const std::string dir = argc > 1 ? argv[1] : TOPOPLAN_SOURCE_DIR "/bench/data";
  try {
    auto required = [&](const std::string& name) {
      auto text = read(dir + "/" + name);
      if (!text) throw topoplan::InputError({dir + "/" + name, 0, 0}, "cannot read");
      return *text;
    };
    auto points = topoplan::parse_calibration_points(required("collectives-calibration.csv"),
                                                     dir + "/collectives-calibration.csv");
    auto setups =
        topoplan::parse_calibration_setups(required("calibration-setups.csv"), dir + "/calibration-setups.csv");
    // Topology files in the setups are relative to the data directory.
    auto reader = [&](const std::string& path) { return read(path.rfind('/', 0) == 0 ? path : dir + "/" + path); };
    topoplan::CalibrationSummary summary = topoplan::run_calibration(points, setups, reader);
    topoplan::write_calibration_text(std::cout, summary);
    // What the size ramp contributes: NCCL's tuner structure alone.
    topoplan::CostModelOptions plain;
    plain.size_efficiency = false;
    topoplan::CalibrationSummary ablation = topoplan::run_calibration(points, setups, reader, plain);
    fmt::print(std::cout, "without the size-dependent efficiency, {}\n", topoplan::calibration_summary(ablation));
    return summary.median <= 0.15 && summary.p90 <= 0.30 ? 0 : 1;
  } catch (const topoplan::InputError& e) {
    for (const topoplan::Diagnostic& d : e.diagnostics()) fmt::print(std::cerr, "topoplan_calibration: error: {}\n", d.str());
    return 2;
  }
}
