// Failure-rate files (lib/include/topoplan/io/failure_rates.hpp): reading,
// every problem with its place, and rates resolved onto a topology.
#include "topoplan/io/failure_rates.hpp"

#include <catch2/catch.hpp>

#include "source_dir.hpp"
#include "test_presets.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::vector<std::string> errors_of(const std::string& text, const Topology& t) {
  try {
    parse_failure_rates(text, "rates.yaml", t);
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.str());
    return out;
  }
  return {};
}

}  // namespace

TEST_CASE("failure rates: components resolve onto the topology and add up") {
  Topology t = preset("gb200-nvl72:racks=2");
  FailureRates r = parse_failure_rates(R"(source: test
rates:
  - {component: gpu, per_day: 0.001}
  - {component: gpu, model: "GB200", per_day: 0.002, repair_hours: 6}
  - {component: gpu, model: "H100", per_day: 1}
  - {component: link, type: "ib-*", mtbf_hours: 240}
  - {component: rack, per_day: 0.0001}
)",
                                       "rates.yaml", t);
  CHECK(r.source == "test");
  REQUIRE(r.rates.size() == 5);
  CHECK(r.rates[3].per_day == Approx(0.1));  // 24 h / 240 h
  std::size_t gpus = 0, links = 0, racks = 0;
  for (const ComponentRate& c : component_rates(t, r)) {
    if (c.what == ComponentClass::device) {
      ++gpus;
      CHECK(t.device(c.id).kind == DeviceKind::gpu);
      CHECK(c.per_day == Approx(0.003));
      CHECK(c.repair_hours == 6);
    } else if (c.what == ComponentClass::link) {
      ++links;
      CHECK(t.link_type(t.link(c.id)).name.rfind("ib-", 0) == 0);
    } else {
      ++racks;
      CHECK(t.levels()[t.domain(c.id).level].name == "rack");
    }
  }
  CHECK(gpus == 144);
  CHECK(links > 0);
  CHECK(racks == 2);
}

TEST_CASE("failure rates: every problem is reported with its place") {
  Topology t = preset("gb200-nvl72:racks=1");
  std::vector<std::string> e = errors_of(R"(rates:
  - {component: gpus, per_day: 1}
  - {component: gpu, per_day: -1}
  - {component: node}
  - {component: node, per_day: 1, mtbf_hours: 5}
  - {component: link, model: x, per_day: 1}
  - {component: gpu, per_day: 1, color: red}
)",
                                        t);
  REQUIRE(e.size() == 6);
  CHECK_THAT(e[0], Catch::StartsWith("rates.yaml:2:17: unknown component 'gpus'") && Catch::Contains("did you mean 'gpu'"));
  CHECK_THAT(e[1], Catch::StartsWith("rates.yaml:3:"));
  CHECK_THAT(e[2], Catch::Contains("exactly one of 'per_day'"));
  CHECK_THAT(e[3], Catch::Contains("exactly one of 'per_day'"));
  CHECK_THAT(e[4], Catch::Contains("'model' narrows devices, not links"));
  CHECK_THAT(e[5], Catch::Contains("unknown key 'color'"));
  CHECK_THAT(errors_of("rates: 3\n", t).front(), Catch::Contains("must be a list"));
}

TEST_CASE("failure rates: the sample reads on a built-in topology") {
  const std::string text = topoplan::test::source_file("samples/failure-rates-llama3.yaml");
  REQUIRE_FALSE(text.empty());
  Topology t = preset("dgx-h100:nodes=4");
  FailureRates r = parse_failure_rates(text, "failure-rates-llama3.yaml", t);
  CHECK(r.rates.size() == 4);
  double gpu_day = 0;
  for (const ComponentRate& c : component_rates(t, r))
    if (c.what == ComponentClass::device && t.device(c.id).kind == DeviceKind::gpu) gpu_day += c.per_day;
  CHECK(gpu_day == Approx(32 * 3.03e-4));
}
