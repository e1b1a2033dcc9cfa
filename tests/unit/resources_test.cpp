// Kubernetes quantities and resource lists, with values worked out from the
// quantity grammar (k8s.io/apimachinery resource.Quantity) and Kueue's
// counting rules (pkg/resources/requests.go @ff69552e).
#include <catch2/catch.hpp>

#include "topoplan/model/resources.hpp"

using namespace topoplan;

TEST_CASE("quantities: cpu in millicores, the rest in units, rounded up") {
  CHECK(parse_quantity("cpu", "500m") == 500);
  CHECK(parse_quantity("cpu", "1") == 1000);
  CHECK(parse_quantity("cpu", "0.5") == 500);
  CHECK(parse_quantity("cpu", ".5") == 500);
  CHECK(parse_quantity("cpu", "2.5e-1") == 250);
  CHECK(parse_quantity("cpu", "100n") == 1);  // 0.0001 millicores rounds up to one
  CHECK(parse_quantity("memory", "1Gi") == 1073741824);
  CHECK(parse_quantity("memory", "32561656Ki") == 32561656LL * 1024);
  CHECK(parse_quantity("memory", "1k") == 1000);
  CHECK(parse_quantity("memory", "1.5") == 2);
  CHECK(parse_quantity("memory", "1e3") == 1000);
  CHECK(parse_quantity("memory", "1E3") == 1000);
  CHECK(parse_quantity("memory", "2M") == 2'000'000);
  CHECK(parse_quantity("pods", "+110") == 110);
  CHECK(parse_quantity("pods", "0") == 0);
  CHECK(parse_quantity("pods", "-0") == 0);
  CHECK(parse_quantity("ephemeral-storage", "1Ei") == std::int64_t{1} << 60);
}

TEST_CASE("quantities: what is not one is refused") {
  for (const char* bad : {"", "-1", "abc", "1.2.3", "1Gb", "m", "1 Gi", "1e", "1e99999", "1Ei1", "8Ei"}) {
    INFO(bad);
    CHECK_FALSE(parse_quantity("memory", bad).has_value());
  }
  CHECK_FALSE(parse_quantity("cpu", "5Ei").has_value());  // beyond 2^62 millicores
}

TEST_CASE("quantities are written back exactly") {
  CHECK(format_quantity("cpu", 250) == "250m");
  CHECK(format_quantity("cpu", 2000) == "2");
  CHECK(format_quantity("memory", 1073741824) == "1Gi");
  CHECK(format_quantity("memory", 32561656LL * 1024) == "32561656Ki");
  CHECK(format_quantity("memory", 1000) == "1000");
  CHECK(format_quantity("pods", 1024) == "1024");  // counts stay plain
  for (std::int64_t v : {1LL, 999LL, 1536LL, 3LL << 20, 7910LL}) {
    CHECK(parse_quantity("cpu", format_quantity("cpu", v)) == v);
    CHECK(parse_quantity("memory", format_quantity("memory", v)) == v);
  }
}

TEST_CASE("fit_count: the scarcest request limits, alphabetically first on a tie") {
  ResourceList pod{{"cpu", 1000}, {"pods", 1}};
  FitCount f = fit_count(pod, {{"cpu", 2500}, {"pods", 110}});
  CHECK(f.count == 2);
  CHECK(f.limiting == "cpu");
  f = fit_count(pod, {{"cpu", 2500}, {"pods", 1}});
  CHECK(f.count == 1);
  CHECK(f.limiting == "pods");
  // A resource the capacity lacks fits nothing; both give 0: "cpu" is named.
  f = fit_count({{"cpu", 1000}, {"example.com/gpu", 1}}, {{"cpu", 500}});
  CHECK(f.count == 0);
  CHECK(f.limiting == "cpu");
  // A zero request never limits; a negative capacity fits nothing.
  CHECK(fit_count({{"cpu", 0}, {"pods", 1}}, {{"pods", 3}}).count == 3);
  CHECK(fit_count({{"cpu", 100}}, {{"cpu", -500}}).count == 0);
  CHECK(fit_count({}, {{"cpu", 1}}).count == 0);
}

TEST_CASE("resource lists stay sorted and add with a factor") {
  ResourceList r{{"pods", 1}, {"cpu", 500}};
  CHECK(r.entries().front().first == "cpu");
  r.add({{"cpu", 250}, {"memory", 1024}}, 4);
  CHECK(r == ResourceList{{"cpu", 1500}, {"memory", 4096}, {"pods", 1}});
  r.add({{"cpu", 1500}}, -1);
  CHECK(r.value("cpu") == 0);
  r.erase("memory");
  CHECK_FALSE(r.get("memory").has_value());
  CHECK(Taint{"nvidia.com/gpu", "present", "NoSchedule"}.str() == "nvidia.com/gpu=present:NoSchedule");
  CHECK(Taint{"dedicated", "", "NoExecute"}.str() == "dedicated:NoExecute");
}
