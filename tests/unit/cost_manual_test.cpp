// topoplan-cost(7) quotes the calibration report and a `topoplan cost` run;
// both must stay what the code produces (the CLI run through its golden file,
// which ctest compares with the binary).
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "source_dir.hpp"
#include "topoplan/cost/calibration.hpp"

using namespace topoplan;

namespace {

const std::string kRoot = TOPOPLAN_SOURCE_DIR;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines between `.\" BEGIN...` and `.\" END`, without .EX/.EE, with roff's
// `\-` turned back into `-`.
std::vector<std::string> block(const std::string& page, const std::string& begin, const std::string& end) {
  std::vector<std::string> lines;
  std::istringstream in(page);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind(".\\\" " + begin, 0) == 0) {
      inside = true;
      continue;
    }
    if (line.rfind(".\\\" " + end, 0) == 0) break;
    if (!inside || line == ".EX" || line == ".EE") continue;
    std::string plain;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '-') continue;
      plain += line[i];
    }
    lines.push_back(plain);
  }
  return lines;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("the manual's calibration table is the calibration report") {
  const std::string data = kRoot + "/bench/data";
  auto reader = [&](const std::string& path) -> std::optional<std::string> { return read(data + "/" + path); };
  auto points = parse_calibration_points(read(data + "/collectives-calibration.csv"), "points");
  auto added = parse_calibration_points(read(data + "/collectives-added.csv"), "added");
  points.insert(points.end(), added.begin(), added.end());
  auto setups = parse_calibration_setups(read(data + "/calibration-setups.csv"), "setups");
  CalibrationSummary summary = run_calibration(points, setups, reader);
  CostModelOptions plain;
  plain.size_efficiency = false;
  CalibrationSummary ablation = run_calibration(points, setups, reader, plain);
  std::ostringstream report;
  write_calibration_report(report, summary, ablation, false);
  CHECK(block(read(kRoot + "/man/topoplan-cost.7"), "calibration-begin", "calibration-end") ==
        lines_of(report.str()));
}

TEST_CASE("the manual's example is the golden output of that command") {
  CHECK(block(read(kRoot + "/man/topoplan-cost.7"), "cost-example-begin", "cost-example-end") ==
        lines_of(read(kRoot + "/tests/cli/cases/cost-gb200-rack.out")));
  CHECK(read(kRoot + "/tests/cli/cases/cost-gb200-rack.cmd") ==
        "cost gb200-nvl72 --collective allreduce --size 1G --first 72\n");
}
