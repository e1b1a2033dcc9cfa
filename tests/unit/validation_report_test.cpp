#include "topoplan/model/validation_report.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include <sstream>

#include <fmt/format.h>

#include "topoplan/io/topology_yaml.hpp"

using namespace topoplan;
using topoplan::test::preset;

TEST_CASE("validation report: valid, with problems, and not loaded") {
  std::vector<ValidationResult> results;
  results.push_back(validation_result("dgx-h100:nodes=2", preset("dgx-h100:nodes=2")));
  // gpu1 has no link at all: one problem.
  Topology lonely = parse_topology_yaml(R"(name: lonely
levels: [cluster, node]
blocks:
  n: {level: node, devices: [{name: "gpu[0-2]", kind: gpu}], links: [{from: gpu0, to: gpu2, type: nvlink4}]}
  c: {level: cluster, children: [{block: n}]}
)",
                                        "lonely.yaml");
  results.push_back(validation_result("lonely.yaml", lonely));
  REQUIRE(results[0].problems.empty());
  REQUIRE_FALSE(results[1].problems.empty());
  CHECK(validation_status(results) == 1);

  std::ostringstream out, err;
  write_validation_text(out, err, results);
  CHECK(out.str().find(fmt::format("dgx-h100:nodes=2: valid ({} accelerators)", results[0].accelerators)) !=
        std::string::npos);
  CHECK(out.str().find("lonely.yaml: ") != std::string::npos);
  CHECK(err.str().empty());

  results.push_back(load_failure("broken.yaml", InputError({"broken.yaml", 3, 7}, "unknown key 'lvl'")));
  CHECK(validation_status(results) == 2);
  std::ostringstream out2, err2;
  write_validation_text(out2, err2, results);
  CHECK(err2.str() == "topoplan: error: broken.yaml:3:7: unknown key 'lvl'\n");
  std::ostringstream json;
  write_validation_json(json, results);
  CHECK(json.str().find("\"loaded\": false") != std::string::npos);
  CHECK(json.str().find("\"line\": 3") != std::string::npos);
  CHECK(json.str().find("\"valid\": true") != std::string::npos);
}
