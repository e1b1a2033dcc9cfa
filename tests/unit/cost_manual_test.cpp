// topoplan-cost(7) quotes the calibration report, a `topoplan cost` run and
// the rack-span series; all must stay what the code produces (the CLI run
// through its golden file, which ctest compares with the binary).
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>

#include "cost_test_topologies.hpp"
#include "source_dir.hpp"
#include "test_presets.hpp"
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

TEST_CASE("the manual's rack-span series is the model's") {
  // topoplan-cost(7) quotes a full-rack all-reduce's busbw over 1, 2, 4, 8
  // and 20 racks at 64 MiB, 512 MiB and 16 GiB (the issue's rack span);
  // each number must be what the model gives, rounded.
  std::string page = read(kRoot + "/man/topoplan-cost.7");
  for (char& c : page)
    if (c == '\n') c = ' ';
  const std::size_t from = page.find("racks gives busbw ");
  REQUIRE(from != std::string::npos);
  const std::size_t to = page.find(" at 16 GiB", from);
  REQUIRE(to != std::string::npos);
  // The quoted text without its "(2.8x)" ratios and unit words.
  const std::string quoted = std::regex_replace(page.substr(from, to - from), std::regex(R"(\([^)]*\))"), " ");
  const std::string sizes[] = {" at 64 MiB", " at 512 MiB"};
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (const std::string& size : sizes) {
    const std::size_t end = quoted.find(size, start);
    REQUIRE(end != std::string::npos);
    parts.push_back(quoted.substr(start, end - start));
    start = end + size.size();
  }
  parts.push_back(quoted.substr(start));
  Topology t = topoplan::test::preset("gb200-nvl72:racks=20");
  CostModel model(t);
  const std::uint64_t bytes[] = {std::uint64_t{64} << 20, std::uint64_t{512} << 20, std::uint64_t{16} << 30};
  const std::uint32_t racks[] = {1, 2, 4, 8, 20};
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(parts[i]);
    std::vector<long> numbers;
    const std::regex number(R"(\b\d+\b)");
    for (std::sregex_iterator it(parts[i].begin(), parts[i].end(), number), end; it != end; ++it)
      numbers.push_back(std::stol(it->str()));
    REQUIRE(numbers.size() == 5);
    for (std::size_t r = 0; r < 5; ++r) {
      CAPTURE(racks[r]);
      const CollectiveCost c =
          model.collective({cost_test::first(t, std::size_t{72} * racks[r]), Collective::allreduce, bytes[i]});
      CHECK(numbers[r] == std::lround(c.busbw_gbps));
    }
  }
}
