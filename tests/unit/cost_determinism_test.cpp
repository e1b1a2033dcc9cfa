// Same input, same bytes: the model reuses scratch space between queries and
// must not let one query leak into the next.
#include "topoplan/cost/cost_model.hpp"

#include <sstream>

#include <catch2/catch.hpp>

#include "cost_test_topologies.hpp"
#include "topoplan/cost/cost_report.hpp"
#include "topoplan/cost/rank_set.hpp"
#include "topoplan/io/topology_source.hpp"

using namespace topoplan;
using namespace cost_test;

namespace {

std::string json(const CostModel& m, const CollectiveCost& c) {
  std::ostringstream out;
  write_cost_json(out, m, c);
  return out.str();
}

}  // namespace

TEST_CASE("a query gives the same bytes before and after other queries, in any model") {
  Topology t = load_topology("dgx-h100:nodes=64", [](const std::string&) { return std::optional<std::string>(); });
  CostModel a(t);
  CostModel b(t);
  RankSelection sel;
  sel.devices = "h100-00000,h100-00033,h100-00007";
  auto ranks = select_ranks(t, sel);
  CollectiveQuery q{ranks, Collective::allreduce, std::uint64_t{1} << 28};
  const std::string first = json(a, a.collective(q));
  // Other queries in between, touching other domains and families.
  a.collective({first_n(t, 512), Collective::alltoall, 1 << 20});
  a.collective({ranks, Collective::sendrecv, 1 << 10});
  const auto sixty_four = first_n(t, 64);  // a query only views its ranks
  std::vector<CollectiveQuery> many = {q, {sixty_four, Collective::allreduce, 1 << 30}};
  a.concurrent(many);
  CHECK(json(a, a.collective(q)) == first);
  CHECK(json(b, b.collective(q)) == first);

  std::ostringstream s1, s2;
  write_sweep_text(s1, a, a.sweep(q, 1024, std::uint64_t{1} << 34));
  write_sweep_text(s2, b, b.sweep(q, 1024, std::uint64_t{1} << 34));
  CHECK(s1.str() == s2.str());
}

TEST_CASE("concurrent results do not depend on the order of the queries") {
  Topology t = parse(kLeaves);
  CostModel model(t);
  RankSelection sa, sb;
  sa.devices = "l0-n0,l1-n0";
  sb.devices = "l0-n1,l2-n0,l1-n1";
  auto a = select_ranks(t, sa);
  auto b = select_ranks(t, sb);
  CollectiveQuery qa{a, Collective::allreduce, 1 << 30};
  CollectiveQuery qb{b, Collective::alltoall, 1 << 26};
  std::vector<CollectiveQuery> ab = {qa, qb};
  std::vector<CollectiveQuery> ba = {qb, qa};
  auto x = model.concurrent(ab);
  auto y = model.concurrent(ba);
  CHECK(json(model, x[0]) == json(model, y[1]));
  CHECK(json(model, x[1]) == json(model, y[0]));
}
