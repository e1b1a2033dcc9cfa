#include "topoplan/model/link_table.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/support/json_writer.hpp"

namespace topoplan {

std::vector<LinkRow> link_table(const Topology& t, const LinkTableOptions& o) {
  std::string wanted;
  if (!o.type.empty()) {
    std::optional<LinkType> type = find_link_type(o.type);
    if (!type) {
      std::string hint = did_you_mean(o.type, link_type_names());
      throw InputError({}, fmt::format("--type: unknown link type '{}'{}{}", o.type, hint.empty() ? "" : "; ", hint));
    }
    wanted = type->name;
  }
  std::vector<LinkRow> rows;
  for (const Link& l : t.links()) {
    const LinkType& type = t.link_type(l);
    if (!wanted.empty() && type.name != wanted) continue;
    if (o.accelerators && !(is_accelerator(t.device(l.a).kind) && is_accelerator(t.device(l.b).kind))) continue;
    rows.push_back({t.device_name(l.a), t.device_name(l.b), type.name, l.count, static_cast<double>(l.bandwidth),
                    static_cast<double>(l.latency_us)});
  }
  return rows;
}

namespace {

std::string number(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

void write_link_table_text(std::ostream& out, const std::vector<LinkRow>& rows) {
  std::size_t from = 4, to = 2, type = 4;
  for (const LinkRow& r : rows) {
    from = std::max(from, r.from.size());
    to = std::max(to, r.to.size());
    type = std::max(type, r.type.size());
  }
  fmt::print(out, "{:<{}}  {:<{}}  {:<{}}  {:>5}  {:>7}  {:>10}\n", "FROM", from, "TO", to, "TYPE", type, "COUNT",
             "GB/S", "LATENCY_US");
  for (const LinkRow& r : rows)
    fmt::print(out, "{:<{}}  {:<{}}  {:<{}}  {:>5}  {:>7}  {:>10}\n", r.from, from, r.to, to, r.type, type, r.count,
               number(r.bandwidth), number(r.latency_us));
}

void write_link_table_json(std::ostream& out, const Topology& t, const std::vector<LinkRow>& rows) {
  JsonWriter j(out);
  j.begin_object().field("topology", t.name());
  j.key("links").begin_array();
  for (const LinkRow& r : rows)
    j.begin_object()
        .field("from", r.from)
        .field("to", r.to)
        .field("type", r.type)
        .field("count", r.count)
        .field("gbps", r.bandwidth, 3)
        .field("latency_us", r.latency_us, 3)
        .end_object();
  j.end_array().end_object();
}

}  // namespace topoplan
