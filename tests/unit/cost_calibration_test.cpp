// The cost model against the published measurements of bench/data: the same
// comparison bench/calibration_report.cpp prints, with the bounds.
#include "topoplan/cost/calibration.hpp"

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

using namespace topoplan;

namespace {

const std::string kData = std::string(TOPOPLAN_SOURCE_DIR) + "/bench/data";

std::optional<std::string> read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

CalibrationSummary run() {
  auto points = parse_calibration_points(*read(kData + "/collectives-calibration.csv"), "collectives-calibration.csv");
  auto setups = parse_calibration_setups(*read(kData + "/calibration-setups.csv"), "calibration-setups.csv");
  return run_calibration(points, setups, [](const std::string& path) { return read(kData + "/" + path); });
}

}  // namespace

TEST_CASE("every published point is priced within the issue's error bounds") {
  CalibrationSummary s = run();
  REQUIRE(s.results.size() == 18);
  INFO("median " << s.median << ", p90 " << s.p90);
  CHECK(s.median <= 0.15);
  CHECK(s.p90 <= 0.30);
  for (const CalibrationResult& r : s.results) {
    INFO(r.point.id);
    CHECK(r.cost.reachable);
    CHECK(r.model > 0);
  }
}

TEST_CASE("calibration files are checked") {
  CHECK_THROWS_AS(parse_calibration_points("id,a\nc1,x\n", "p.csv"), InputError);
  CHECK_THROWS_AS(parse_calibration_setups("id,topology,ranks,algorithm,size_bytes,compare,note\n"
                                           "c1,dgx-h100,most:8,,,,\n",
                                           "s.csv"),
                  InputError);
  auto points = parse_calibration_points(*read(kData + "/collectives-calibration.csv"), "p.csv");
  CHECK_THROWS_WITH(run_calibration(points, {}, [](const std::string&) { return std::optional<std::string>(); }),
                    Catch::Contains("has no setup"));
}
