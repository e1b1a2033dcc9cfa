// --from ibnetdiscover: the switches and hosts of an InfiniBand fabric from
// the output of ibnetdiscover (rdma-core, infiniband-diags/ibnetdiscover.c).
//
// The dump is a list of blocks separated by blank lines: id lines (vendid=,
// devid=, sysimgguid=, switchguid=/caguid=/rtguid=), a node line
//   Switch  65 "S-2c5eab0300b87b40"   # "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" enhanced port 0 lid 73 lmc 0
//   Ca      1 "H-e09d7303007a5a68"    # "a08-p1-dgx-04-c17 mlx5_5"
// and one line per connected port
//   [1]  "H-e09d7303007a4bd8"[1](e09d7303007a4bd8)   # "a08-p1-dgx-04-c01 mlx5_5" lid 647 4xNDR
//   [1](e09d7303007a5a68)  "S-2c5eab0300b87b40"[17]  # lid 657 lmc 0 "MF0;...:MQM9701/U1" lid 73 4xNDR
// Every link appears from both ends and is kept once.
//
// How it becomes a topology:
//  - Hosts: a CA whose node description is "HOST HCA" (two words, the form
//    rdma-ndd sets, "%h %d") belongs to host HOST (a HOST with two CAs of
//    the same HCA name is several machines and is left out, with a warning);
//    its HCAs, in name order,
//    are the host's NICs in order. CAs with another description (the default
//    "MT4129 ConnectX7 Mellanox Technologies" of a host that never set it) are
//    left out with a warning; SHARP "Aggregation Node" CAs inside switches are
//    left out. Router (Rt) nodes are left out.
//  - Each host gets the node type (--node-type), or a generic node with
//    --gpus-per-node GPUs, or as many GPUs as the most HCAs any host has.
//  - Switches: a switch linked to a CA is a leaf (tier 1); every other switch
//    is one tier above the nearest leaf (tier 2 spine, 3 core). Names come from
//    the description ("MF0;NAME:MODEL/U1" gives NAME and MODEL, as Topograph
//    reads them), else the description itself when it is one word, else S-GUID.
//  - Levels [fabric, ..., spine, leaf, node]: leaves that share a host form
//    one leaf domain (a multi-rail host connects to one leaf per rail, and the
//    hierarchy must stay a tree); switches of a tier that share a child domain
//    form one domain of that tier. A top tier that ends up as one domain is the
//    fabric root itself. Every link is kept as a link whatever the domains.
//  - Link types from width and rate: 4xNDR = 4 x 100 Gb/s = ib-ndr, 4xHDR
//    ib-hdr, 4xEDR ib-edr, other widths/rates ib-<N>g (IBTA lane rates: SDR 2.5,
//    DDR 5, QDR 10, FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s);
//    a link without a rate gets --fabric-link.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "support/disjoint_sets.hpp"
#include "format_functions.hpp"
#include "import_support.hpp"
#include "topoplan/formats/node_type.hpp"

namespace topoplan::formats {

namespace {

constexpr std::size_t kMaxNodes = 2'000'000;

struct IbNode {
  char type = 'S';  // S switch, H channel adapter, R router
  std::string id;   // "S-2c5eab0300b87b40"
  std::string description;
  int line = 0;
  int links = 0;
};

struct IbPort {
  std::size_t node;
  int port;
  bool operator<(const IbPort& o) const { return node != o.node ? node < o.node : port < o.port; }
  bool operator==(const IbPort& o) const { return node == o.node && port == o.port; }
};

struct IbLink {
  IbPort a, b;
  std::string type;  // link type name; empty when the dump gives no rate
  int line = 0;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "4xNDR" -> "ib-ndr"; "" when `token` is no width-rate pair.
std::string link_type_of(std::string_view token) {
  std::size_t x = token.find('x');
  if (x == std::string_view::npos) return {};
  int width = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + x, width);
  if (ec != std::errc() || end != token.data() + x) return {};
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12) return {};
  constexpr std::pair<std::string_view, double> kLane[] = {{"SDR", 2.5}, {"DDR", 5},  {"QDR", 10},
                                                           {"FDR10", 10}, {"FDR", 14}, {"EDR", 25},
                                                           {"HDR", 50},   {"NDR", 100}, {"XDR", 200}};
  std::string_view rate = token.substr(x + 1);
  for (auto [name, gbps] : kLane)
    if (rate == name) {
      long total = std::lround(width * gbps);
      return fmt::format("ib-{}g", std::max(1L, total));  // find_link_type names 400g ib-ndr etc.
    }
  return {};
}

class Importer {
 public:
  Importer(const ImportSource& source, const ImportOptions& options)
      : source_(source), options_(options), name_(topology_name({&source, 1}, options)) {}

  ImportResult run() {
    parse();
    sink_.throw_if_any();
    resolve();
    sink_.throw_if_any();
    return build();
  }

 private:
  SourceLocation at(int line, int column) const { return {source_.path, line, column}; }
  void warn(std::string message) { warnings_.push_back({{source_.path, 0, 0}, std::move(message)}); }

  // ---- reading ----

  void parse() {
    std::string_view text = source_.text;
    if (text.size() > (512u << 20)) throw InputError({source_.path, 0, 0}, "the file is larger than 512 MiB");
    std::size_t current = kNoNode;
    int line = 0;
    for (std::size_t start = 0; start < text.size();) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view raw = text.substr(start, end - start);
      start = end + 1;
      ++line;
      std::string_view l = trim(raw);
      if (l.empty()) {
        current = kNoNode;
        continue;
      }
      if (l[0] == '#') continue;
      if (starts_with(l, "vendid=") || starts_with(l, "devid=") || starts_with(l, "sysimgguid=") ||
          starts_with(l, "switchguid=") || starts_with(l, "caguid=") || starts_with(l, "rtguid="))
        continue;
      // ibnetdiscover -g groups chassis: "Chassis N (guid ...)" and "Hostname: ..." lines.
      if (starts_with(l, "Chassis ") || starts_with(l, "Hostname:")) continue;
      int column = static_cast<int>(l.data() - raw.data()) + 1;
      if (starts_with(l, "Switch") || starts_with(l, "Ca") || starts_with(l, "Rt")) {
        current = node_line(l, line, column);
        continue;
      }
      if (l[0] == '[') {
        if (current == kNoNode) {
          sink_.error(at(line, column), "port line outside a Switch, Ca or Rt block");
          continue;
        }
        port_line(l, current, line, column);
        continue;
      }
      sink_.error(at(line, column), fmt::format("unrecognised line: '{}'", l.substr(0, 40)));
    }
  }

  static constexpr std::size_t kNoNode = static_cast<std::size_t>(-1);

  // `Switch 65 "S-guid" # "desc" ...`, `Ca 1 "H-guid" # "desc"`.
  std::size_t node_line(std::string_view l, int line, int column) {
    char type = l[0] == 'S' ? 'S' : l[0] == 'C' ? 'H' : 'R';
    std::size_t word = l[0] == 'S' ? 6 : 2;
    std::size_t open = l.find('"');
    std::size_t close = open == std::string_view::npos ? open : l.find('"', open + 1);
    if (l.size() <= word || (l[word] != ' ' && l[word] != '\t') || close == std::string_view::npos) {
      sink_.error(at(line, column), "expected TYPE PORTS \"ID\" # \"DESCRIPTION\" (TYPE Switch, Ca or Rt)");
      return kNoNode;
    }
    std::string_view ports = trim(l.substr(word, open - word));
    int nports = 0;
    auto [pend, pec] = std::from_chars(ports.data(), ports.data() + ports.size(), nports);
    if (pec != std::errc() || pend != ports.data() + ports.size() || nports < 1 || nports > 255) {
      sink_.error(at(line, column + static_cast<int>(word)),
                  fmt::format("'{}' is not a port count from 1 to 255", ports));
      return kNoNode;
    }
    std::string id(l.substr(open + 1, close - open - 1));
    if (id.size() < 3 || id[0] != type || id[1] != '-') {
      sink_.error(at(line, column + static_cast<int>(open)),
                  fmt::format("node id \"{}\" should be \"{}-GUID\"", id.substr(0, 40), type));
      return kNoNode;
    }
    IbNode n;
    n.type = type;
    n.id = id;
    n.line = line;
    std::size_t hash = l.find('#', close);
    if (hash != std::string_view::npos) {
      std::size_t d0 = l.find('"', hash);
      std::size_t d1 = l.rfind('"');
      if (d0 != std::string_view::npos && d1 > d0) n.description = std::string(l.substr(d0 + 1, d1 - d0 - 1));
    }
    if (nodes_.size() >= kMaxNodes) throw InputError(at(line, column), fmt::format("more than {} nodes", kMaxNodes));
    if (!index_.emplace(id, nodes_.size()).second) {
      sink_.error(at(line, column + static_cast<int>(open)),
                  fmt::format("node {} is described twice (first at line {})", id, nodes_[index_[id]].line));
      return kNoNode;
    }
    nodes_.push_back(std::move(n));
    return nodes_.size() - 1;
  }

  // `[p](portguid) "X-guid"[q](portguid) # ... WIDTHRATE`, either guid optional.
  void port_line(std::string_view l, std::size_t node, int line, int column) {
    std::size_t i = 0;
    auto fail = [&](std::string what) {
      sink_.error(at(line, column + static_cast<int>(i)), std::move(what));
    };
    auto number_in_brackets = [&](int& value) {
      if (i >= l.size() || l[i] != '[') return false;
      std::size_t close = l.find(']', i);
      if (close == std::string_view::npos) return false;
      auto [end, ec] = std::from_chars(l.data() + i + 1, l.data() + close, value);
      if (ec != std::errc() || end != l.data() + close || value < 0 || value > 255) return false;
      i = close + 1;
      return true;
    };
    auto skip_extras = [&] {
      for (;;) {
        while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
        if (starts_with(l.substr(i), "[ext ")) {
          i = l.find(']', i);
          i = i == std::string_view::npos ? l.size() : i + 1;
        } else if (i < l.size() && l[i] == '(') {
          std::size_t close = l.find(')', i);
          i = close == std::string_view::npos ? l.size() : close + 1;
        } else {
          return;
        }
      }
    };
    int local = 0, remote = 0;
    if (!number_in_brackets(local)) return fail("expected [PORT] at the start of a port line");
    skip_extras();
    if (i >= l.size() || l[i] != '"') return fail("expected the quoted id of the remote node");
    std::size_t close = l.find('"', i + 1);
    if (close == std::string_view::npos) return fail("the remote node id is not closed with '\"'");
    std::string remote_id(l.substr(i + 1, close - i - 1));
    i = close + 1;
    if (!number_in_brackets(remote)) return fail("expected [PORT] after the remote node id");
    IbLink link;
    link.a = {node, local};
    link.line = line;
    // The width and rate follow the last quoted string ("4xNDR").
    std::size_t last_quote = l.rfind('"');
    std::string_view tail = last_quote == std::string_view::npos || last_quote < i ? l.substr(i) : l.substr(last_quote + 1);
    for (std::size_t p = 0; p < tail.size();) {
      while (p < tail.size() && (tail[p] == ' ' || tail[p] == '\t')) ++p;
      std::size_t q = p;
      while (q < tail.size() && tail[q] != ' ' && tail[q] != '\t') ++q;
      if (std::string type = link_type_of(tail.substr(p, q - p)); !type.empty() && link.type.empty()) link.type = type;
      p = q;
    }
    pending_.push_back({std::move(link), std::move(remote_id), remote});
    ++nodes_[node].links;
  }

  // ---- checking ----

  void resolve() {
    std::set<std::pair<IbPort, IbPort>> seen;
    for (auto& [link, remote_id, remote_port] : pending_) {
      auto it = index_.find(remote_id);
      if (it == index_.end()) {
        ++dangling_;
        continue;
      }
      link.b = {it->second, remote_port};
      auto key = link.a < link.b ? std::make_pair(link.a, link.b) : std::make_pair(link.b, link.a);
      if (link.a == link.b) {
        sink_.error(at(link.line, 1), "a port linked to itself");
        continue;
      }
      if (!seen.insert(key).second) continue;
      links_.push_back(std::move(link));
    }
    pending_.clear();
    bool any_switch = false;
    for (const IbNode& n : nodes_) {
      any_switch = any_switch || n.type == 'S';
      if (n.type == 'H' && n.links == 0)
        sink_.error(at(n.line, 1), fmt::format("Ca {} (\"{}\") lists no connected port: the dump looks cut off", n.id,
                                               n.description));
    }
    if (!any_switch && sink_.empty())
      sink_.error({source_.path, 0, 0}, "no Switch block: there is no fabric to import");
    if (dangling_ > 0) warn(fmt::format("{} port lines name nodes the dump does not describe: left out", dangling_));
  }

  // ---- building ----

  static bool is_aggregation(const IbNode& n) {
    return n.type == 'H' && n.description.find("Aggregation Node") != std::string::npos;
  }
  bool is_switch(std::size_t node) const { return nodes_[node].type == 'S'; }

  ImportResult build() {
    switches_.clear();
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (is_switch(i)) switches_.push_back(i);
    adjacent_.assign(nodes_.size(), {});
    for (const IbLink& l : links_) {
      adjacent_[l.a.node].push_back(l.b.node);
      adjacent_[l.b.node].push_back(l.a.node);
    }
    collect_hosts();
    assign_tiers();
    name_switches();
    group_switches();
    Topology topology = assemble();
    return {std::move(topology), std::move(warnings_)};
  }

  // HCA names compare by their digits as numbers: mlx5_2 before mlx5_10.
  static bool natural_less(std::string_view x, std::string_view y) {
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    std::size_t i = 0, j = 0;
    while (i < x.size() && j < y.size()) {
      if (digit(x[i]) && digit(y[j])) {
        std::size_t i2 = i, j2 = j;
        while (i2 < x.size() && digit(x[i2])) ++i2;
        while (j2 < y.size() && digit(y[j2])) ++j2;
        std::string_view a = x.substr(i, i2 - i), b = y.substr(j, j2 - j);
        while (a.size() > 1 && a[0] == '0') a.remove_prefix(1);
        while (b.size() > 1 && b[0] == '0') b.remove_prefix(1);
        if (a.size() != b.size()) return a.size() < b.size();
        if (a != b) return a < b;
        i = i2;
        j = j2;
      } else {
        if (x[i] != y[j]) return x[i] < y[j];
        ++i;
        ++j;
      }
    }
    return x.size() - i < y.size() - j;
  }

  // Hosts from "HOST HCA" node descriptions, each host's HCAs in name order.
  void collect_hosts() {
    int unnamed = 0, aggregation = 0, routers = 0;
    const IbNode* example = nullptr;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const IbNode& n = nodes_[i];
      if (n.type == 'R') ++routers;
      if (n.type != 'H') continue;
      if (is_aggregation(n)) {
        ++aggregation;
        continue;
      }
      std::string_view d = n.description;
      std::size_t space = d.find(' ');
      bool two_words = space != std::string_view::npos && space > 0 && space + 1 < d.size() &&
                       d.find(' ', space + 1) == std::string_view::npos;
      if (!two_words) {
        if (unnamed++ == 0) example = &n;
        continue;
      }
      hosts_[safe_name(d.substr(0, space))].push_back({std::string(d.substr(space + 1)), i});
    }
    if (hosts_.empty())
      throw InputError({source_.path, 1, 1}, "no CA names a host (\"HOST HCA\" node descriptions): no node to import");
    // One name for several machines ("localhost" on hosts never named):
    // two CAs with the same HCA name cannot be one host, and which HCAs go
    // together is unknown, so that host is left out.
    std::vector<std::string> shared;
    for (auto it = hosts_.begin(); it != hosts_.end();) {
      std::vector<Hca>& hcas = it->second;
      std::sort(hcas.begin(), hcas.end(), [](const Hca& p, const Hca& q) {
        return p.name != q.name ? natural_less(p.name, q.name) : p.node < q.node;
      });
      auto twice = std::adjacent_find(hcas.begin(), hcas.end(), [](const Hca& p, const Hca& q) { return p.name == q.name; });
      if (twice != hcas.end()) {
        shared.push_back(fmt::format("'{}' ({} at lines {} and {})", it->first, twice->name, nodes_[twice->node].line,
                                     nodes_[std::next(twice)->node].line));
        it = hosts_.erase(it);
        continue;
      }
      most_hcas_ = std::max(most_hcas_, hcas.size());
      ++it;
    }
    if (!shared.empty())
      warn(fmt::format("{} host name{} several machines: {}; their CAs are left out with their links (give each "
                       "machine its own name: rdma-ndd sets \"%h %d\" from the hostname)",
                       shared.size(), shared.size() == 1 ? " is shared by" : "s are shared by", fmt::join(shared, ", ")));
    if (hosts_.empty())
      throw InputError({source_.path, 1, 1}, "no CA names a host of its own: no node to import");
    if (unnamed > 0)
      warn(fmt::format("{} CAs have no \"HOST HCA\" node description (e.g. \"{}\" at line {}): left out with their links",
                       unnamed, example->description, example->line));
    if (aggregation > 0) warn(fmt::format("{} SHARP aggregation nodes (CAs inside switches) left out", aggregation));
    if (routers > 0) warn(fmt::format("{} routers (Rt) left out", routers));
  }

  // Leaves touch a CA; every other switch is one tier above the nearest leaf.
  // SHARP aggregation nodes sit inside every switch, spines too, and make no
  // switch a leaf.
  void assign_tiers() {
    tier_.assign(nodes_.size(), 0);
    std::vector<std::size_t> frontier;
    for (std::size_t s : switches_)
      for (std::size_t other : adjacent_[s])
        if (nodes_[other].type == 'H' && !is_aggregation(nodes_[other]) && tier_[s] == 0) {
          tier_[s] = 1;
          frontier.push_back(s);
        }
    top_ = frontier.empty() ? 0 : 1;
    while (!frontier.empty()) {
      std::vector<std::size_t> next;
      for (std::size_t s : frontier)
        for (std::size_t other : adjacent_[s])
          if (is_switch(other) && tier_[other] == 0) {
            tier_[other] = tier_[s] + 1;
            next.push_back(other);
          }
      if (!next.empty()) ++top_;
      if (top_ > 16)
        throw InputError({source_.path, 0, 0}, "the fabric has more than 16 switch tiers; at most 16 are supported");
      frontier = std::move(next);
    }
    int unreached = 0;
    for (std::size_t s : switches_) unreached += tier_[s] == 0 ? 1 : 0;
    if (unreached > 0) warn(fmt::format("{} switches reach no host: placed at the fabric root", unreached));
  }

  // "MF0;NAME:MODEL/U1" gives NAME and MODEL (as Topograph reads Mellanox
  // descriptions); a one-word description is the name; else S-GUID, which
  // also replaces names that two switches share.
  void name_switches() {
    switch_name_.assign(nodes_.size(), "");
    switch_model_.assign(nodes_.size(), "");
    std::map<std::string, int> uses;
    for (std::size_t s : switches_) {
      const std::string& d = nodes_[s].description;
      std::size_t semi = d.find(';'), colon = d.find(':');
      std::string name;
      if (semi != std::string::npos && colon != std::string::npos && semi < colon &&
          d.find(';', semi + 1) == std::string::npos) {
        name = d.substr(semi + 1, colon - semi - 1);
        std::string model = d.substr(colon + 1);
        switch_model_[s] = safe_name(model.substr(0, model.find('/')));
      } else if (!d.empty() && d.find_first_of(" ;:\t") == std::string::npos) {
        name = d;
      }
      switch_name_[s] = name.empty() ? nodes_[s].id : safe_name(name);
      ++uses[switch_name_[s]];
    }
    for (std::size_t s : switches_)
      if (uses[switch_name_[s]] > 1) switch_name_[s] = nodes_[s].id;
  }

  // Groups are ordered by their first switch name (switchless ones by their child).
  const std::string& key_of(std::size_t group) {
    auto it = key_.find(group);
    if (it != key_.end()) return it->second;
    std::string& k = key_[group];
    for (std::size_t s : members_[group])
      if (k.empty() || switch_name_[s] < k) k = switch_name_[s];
    return k;
  }
  auto by_key() {
    return [this](std::size_t x, std::size_t y) {
      const std::string &a = key_of(x), &b = key_of(y);
      return a != b ? a < b : x < y;
    };
  }

  // Domains of switches, bottom up. Leaves that share a host are one group (a
  // multi-rail host reaches one leaf per rail); switches of a tier that share
  // a child group are one group. A group without an upper neighbour gets a
  // switchless parent group of its own (ids from nodes_.size() on), so every
  // group has a parent up to the top tier.
  void group_switches() {
    DisjointSets<> sets(nodes_.size());
    bool multi_rail = false;
    for (const auto& [host, hcas] : hosts_) {
      std::size_t first_leaf = kNoNode;
      for (const Hca& hca : hcas)
        for (std::size_t other : adjacent_[hca.node])
          if (is_switch(other)) {
            if (first_leaf == kNoNode) {
              first_leaf = other;
            } else if (other != first_leaf) {
              sets.join(first_leaf, other);
              multi_rail = true;
            }
          }
    }
    if (multi_rail)
      warn("hosts connect to several leaf switches (multi-rail): leaves that share hosts form one leaf domain");
    for (int t = 2; t <= top_; ++t) {
      std::map<std::size_t, std::size_t> first_parent;  // child group -> first upper switch
      for (std::size_t s : switches_) {
        if (tier_[s] != t - 1) continue;
        for (std::size_t other : adjacent_[s])
          if (is_switch(other) && tier_[other] == t) {
            auto [it, inserted] = first_parent.emplace(sets.find(s), other);
            if (!inserted) sets.join(it->second, other);
          }
      }
    }
    group_of_.assign(nodes_.size(), kNoNode);
    for (std::size_t s : switches_)
      if (tier_[s] > 0) {
        group_of_[s] = sets.find(s);
        groups_[tier_[s]].insert(group_of_[s]);
        members_[group_of_[s]].push_back(s);
      }
    for (std::size_t s : switches_)
      if (tier_[s] > 0 && tier_[s] < top_)
        for (std::size_t other : adjacent_[s])
          if (is_switch(other) && tier_[other] == tier_[s] + 1) parent_group_[group_of_[s]] = group_of_[other];
    std::size_t next_id = nodes_.size();
    for (int t = 1; t < top_; ++t)
      for (std::size_t g : std::set<std::size_t>(groups_[t]))
        if (!parent_group_.count(g)) {
          parent_group_[g] = next_id;
          groups_[t + 1].insert(next_id);
          key_[next_id] = key_of(g);
          ++next_id;
        }
    for (const auto& [host, hcas] : hosts_) {
      std::size_t leaf = kNoNode;
      for (const Hca& hca : hcas)
        for (std::size_t other : adjacent_[hca.node])
          if (is_switch(other) && leaf == kNoNode) leaf = other;
      if (leaf != kNoNode) hosts_of_group_[group_of_[leaf]].push_back(host);  // in host name order
    }
    for (const auto& [child, parent] : parent_group_) children_[parent].push_back(child);
    for (auto& [parent, list] : children_) std::sort(list.begin(), list.end(), by_key());
  }

  static std::string tier_name(int t) {
    return t == 1 ? "leaf" : t == 2 ? "spine" : t == 3 ? "core" : fmt::format("tier{}", t);
  }

  Topology assemble() {
    // A top tier that is one group is the fabric root itself.
    domain_tiers_ = top_ > 0 && groups_[top_].size() == 1 ? top_ - 1 : top_;
    std::vector<std::string> levels{"fabric"};
    for (int t = domain_tiers_; t >= 1; --t) levels.push_back(tier_name(t));
    levels.push_back("node");
    TopologyBuilder b(name_, levels);
    if (options_.node_type) {
      node_type_ = NodeType::copy_of(*options_.node_type);
    } else {
      int gpus = options_.gpus_per_node > 0 ? options_.gpus_per_node : static_cast<int>(std::max<std::size_t>(1, most_hcas_));
      node_type_ = NodeType::generic(gpus, options_.gpu_model.empty() ? "GPU" : options_.gpu_model);
    }
    device_.assign(nodes_.size(), kNone);
    next_index_.assign(static_cast<std::size_t>(top_) + 1, 0);
    if (top_ > 0) {
      std::vector<std::size_t> tops(groups_[top_].begin(), groups_[top_].end());
      std::sort(tops.begin(), tops.end(), by_key());
      for (std::size_t g : tops) add_group(b, g, top_, b.root());
    }
    for (std::size_t s : switches_)
      if (tier_[s] == 0) add_switch(b, s, b.root());
    if (too_many_hcas_ > 0) {
      // One message for what is one mistake, however many hosts show it.
      if (too_many_hcas_ > 1)
        first_too_many_.message += fmt::format(" (and {} more hosts have too many HCAs)", too_many_hcas_ - 1);
      first_too_many_.message += "; give --gpus-per-node or a --node-type with more NICs";
      sink_.error(first_too_many_.where, first_too_many_.message);
    }
    sink_.throw_if_any();
    add_links(b);
    b.set_description(fmt::format("InfiniBand fabric from ibnetdiscover: {} hosts of {}, {} switches", hosts_added_,
                                  node_type_->description(), switches_.size()));
    DiagnosticSink sink;
    return b.finish(sink);
  }

  void add_group(TopologyBuilder& b, std::size_t group, int t, DomainId parent) {
    DomainId domain = parent;
    if (t <= domain_tiers_) {
      auto& index = next_index_[static_cast<std::size_t>(t)];
      std::size_t width = std::to_string(groups_[t].size() - 1).size();
      domain = b.add_domain(parent, fmt::format("{}{:0{}}", tier_name(t), index++, width));
    }
    std::vector<std::size_t> list = members_[group];
    std::sort(list.begin(), list.end(), [&](std::size_t x, std::size_t y) { return switch_name_[x] < switch_name_[y]; });
    for (std::size_t s : list) add_switch(b, s, domain);
    if (t == 1) return add_hosts(b, group, domain);
    for (std::size_t c : children_[group]) add_group(b, c, t - 1, domain);
  }

  void add_switch(TopologyBuilder& b, std::size_t s, DomainId domain) {
    DeviceProperties p;
    p.model = switch_model_[s];
    device_[s] = b.add_device(domain, DeviceKind::network_switch, switch_name_[s], p, b.add_origin(at(nodes_[s].line, 1)));
  }

  // The hosts whose HCAs reach the leaves of `group`, by host name; HCA k is NIC k.
  void add_hosts(TopologyBuilder& b, std::size_t group, DomainId domain) {
    for (const std::string& host : hosts_of_group_[group]) {
      const std::vector<Hca>& hcas = hosts_[host];
      DomainId node = b.add_domain(domain, host, b.add_origin(at(nodes_[hcas.front().node].line, 1)));
      b.set_hostname(node, host);
      ++hosts_added_;
      std::vector<DeviceId> nics = node_type_->instantiate(b, node);
      if (hcas.size() > nics.size() && too_many_hcas_++ == 0)
        first_too_many_ = {at(nodes_[hcas[nics.size()].node].line, 1),
                           fmt::format("host {} has {} HCAs but the node type ({}) has {} NICs", host, hcas.size(),
                                       node_type_->description(), nics.size())};
      for (std::size_t k = 0; k < hcas.size() && k < nics.size(); ++k) device_[hcas[k].node] = nics[k];
    }
  }

  // Every cable, parallel ones folded into one link with a count.
  void add_links(TopologyBuilder& b) {
    std::optional<LinkType> fallback = find_link_type(options_.fabric_link);
    if (!fallback) throw InputError({"--fabric-link", 0, 0}, fmt::format("unknown link type '{}'", options_.fabric_link));
    std::map<std::tuple<DeviceId, DeviceId, std::string>, std::pair<int, int>> folded;  // -> (count, first line)
    int without_rate = 0, between_cas = 0;
    for (const IbLink& l : links_) {
      DeviceId x = device_[l.a.node], y = device_[l.b.node];
      if (x == kNone || y == kNone) continue;  // a CA left out
      if (!is_switch(l.a.node) && !is_switch(l.b.node)) {
        ++between_cas;
        continue;
      }
      std::string type = l.type;
      if (type.empty()) {
        ++without_rate;
        type = fallback->name;
      }
      auto& f = folded[{std::min(x, y), std::max(x, y), type}];
      if (f.first++ == 0) f.second = l.line;
    }
    for (const auto& [k, v] : folded)
      for (int remaining = v.first; remaining > 0; remaining -= 65535)  // a link's count is at most 65535
        b.add_link(std::get<0>(k), std::get<1>(k), *find_link_type(std::get<2>(k)), std::min(remaining, 65535), -1,
                   -1, b.add_origin(at(v.second, 1)));
    std::size_t hostless = hosts_.size() - hosts_added_;
    if (hostless > 0) warn(fmt::format("{} hosts connect to no switch: left out", hostless));
    if (without_rate > 0)
      warn(fmt::format("{} links give no width and rate: typed {} (--fabric-link)", without_rate, fallback->name));
    if (between_cas > 0) warn(fmt::format("{} links join two CAs directly: left out", between_cas));
  }

  struct Hca {
    std::string name;  // "mlx5_0", "HCA-1"
    std::size_t node;
  };
  struct Pending {
    IbLink link;
    std::string remote_id;
    int remote_port;
  };

  const ImportSource& source_;
  const ImportOptions& options_;
  std::string name_;
  DiagnosticSink sink_{kMaxImportErrors};
  std::vector<ImportWarning> warnings_;
  std::vector<IbNode> nodes_;
  std::map<std::string, std::size_t> index_;
  std::vector<Pending> pending_;
  std::vector<IbLink> links_;
  int dangling_ = 0;
  // Building state, in the order build() fills it.
  std::vector<std::size_t> switches_;
  std::vector<std::vector<std::size_t>> adjacent_;
  std::map<std::string, std::vector<Hca>> hosts_;  // by host name
  std::size_t most_hcas_ = 0;
  std::vector<int> tier_;  // 0: not a switch, or one that reaches no host
  int top_ = 0;
  std::vector<std::string> switch_name_, switch_model_;
  std::vector<std::size_t> group_of_;  // a switch's group representative
  std::map<int, std::set<std::size_t>> groups_;  // by tier
  std::map<std::size_t, std::vector<std::size_t>> members_, children_;
  std::map<std::size_t, std::vector<std::string>> hosts_of_group_;  // leaf group -> host names
  std::map<std::size_t, std::size_t> parent_group_;
  std::map<std::size_t, std::string> key_;
  int domain_tiers_ = 0;
  std::optional<NodeType> node_type_;
  std::vector<DeviceId> device_;  // node index -> device
  std::vector<int> next_index_;   // next domain number per tier
  std::size_t hosts_added_ = 0;
  int too_many_hcas_ = 0;
  Diagnostic first_too_many_;
};

}  // namespace

ImportResult import_ibnetdiscover(std::span<const ImportSource> sources, const ImportOptions& options) {
  return Importer(single_source(sources, "ibnetdiscover"), options).run();
}

}  // namespace topoplan::formats
