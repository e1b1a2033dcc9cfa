// Failures as per-component Poisson processes: the same stream for a seed,
// components chosen in proportion to their rates, the mean gap 1 / rate.
#include "topoplan/simulate/failure_process.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

using namespace topoplan;
using topoplan::test::preset;

TEST_CASE("failure process: a seed fixes the stream, the rate sets the mean gap") {
  Topology t = preset("dgx-h100:nodes=4");
  FailureRates rates = parse_failure_rates(
      "rates:\n  - {component: gpu, per_day: 1}\n  - {component: node, per_day: 3}\n", "r.yaml", t);
  FailureProcess a(t, rates, 5, 0), b(t, rates, 5, 0), c(t, rates, 6, 0);
  REQUIRE_FALSE(a.never());
  // 32 GPUs at 1 a day and 4 nodes at 3 a day: 44 failures a day.
  CHECK(a.rate_per_second() == Approx(44.0 / 86400));
  bool differs = false;
  std::size_t nodes = 0;
  const int n = 20000;
  double last = 0;
  for (int i = 0; i < n; ++i) {
    CHECK(a.next().time_s == b.next().time_s);
    CHECK(a.next().component.id == b.next().component.id);
    differs = differs || a.next().time_s != c.next().time_s;
    CHECK(a.next().time_s > last);
    last = a.next().time_s;
    if (a.next().component.what == ComponentClass::domain) ++nodes;
    a.advance();
    b.advance();
    c.advance();
  }
  CHECK(differs);
  // Mean gap 86400 / 44 s; nodes are 12 of the 44 per day (3 sigma bounds).
  CHECK(last / n == Approx(86400.0 / 44).epsilon(0.03));
  CHECK(static_cast<double>(nodes) / n == Approx(12.0 / 44).epsilon(0.05));
}

TEST_CASE("failure process: no rates, no failures") {
  Topology t = preset("dgx-h100:nodes=1");
  FailureRates rates = parse_failure_rates("rates: []\n", "r.yaml", t);
  CHECK(FailureProcess(t, rates, 1, 0).never());
}
