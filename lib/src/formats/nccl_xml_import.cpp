// --from nccl-xml: an NCCL (or RCCL) topology dump, NCCL_TOPO_DUMP_FILE, as
// one node of levels [cluster, node].
//
// What the dump says and how it is read (element and attribute names from
// NCCL's src/graph/topo.cc and xml.cc, RCCL's tools/topo_expl models):
//  - <cpu numaid arch vendor familyid modelid>: one CPU per NUMA node; CPUs
//    are joined pairwise, as NCCL's ncclTopoConnectCpus does, by `upi`
//    (Intel and others) or `amd-if` (AMD). The model names NCCL's CPU class
//    (Broadwell/Skylake/Sapphire Rapids/Emerald Rapids, Zen 1-2/3-4/5) from
//    familyid and modelid as ncclTopoAddCpu does.
//  - <pci busid class link_speed link_width>: class 0x03xxxx, or a <gpu> child,
//    is a GPU; 0x02xxxx, or a <nic> child, a NIC; a bridge (0x0604xx) whose
//    subtree holds two or more GPUs/NICs becomes a pcie-switch. A bridge with a
//    single such child adds no fan-out (NCCL flattens Broadcom's two-level
//    switches for the same reason) and is skipped; the link through it takes
//    the narrowest PCIe link on the way. Other PCI devices (NVMe, ...) are left
//    out. The link type comes from link_speed and link_width ("16.0 GT/s PCIe"
//    and "16 GT/s" x16 -> pcie4x16); a missing or unknown speed is Gen3, width
//    0 is x16, as in NCCL's kvDictPciGen and ncclTopoAddPci.
//  - <gpu dev sm>: gpu<dev>. The model follows from the PCI device ID of its
//    <pci> where one compute capability covers several parts (A100/A800/A30,
//    H100/H200/H800/H20/GH200; gpu_model_from_pci_device), else from sm, the
//    CUDA compute capability (NVIDIA's CUDA GPUs table): 60 P100, 70 V100,
//    80 A100, 90 H100, 100 B200, 103 B300; other values give "sm<N>". RCCL's
//    <gpu gcn=gfxNNN> names AMD parts (ROCm's GPU architecture table): gfx942
//    MI300X (also MI300A/MI325X), gfx950 MI355X, gfx90a MI250X, gfx908 MI100,
//    gfx906 MI50. Memory is not in the dump and stays unset.
//  - <nvlink target count tclass>: tclass 0x068000 is an NVSwitch; each target
//    bus id becomes one nvswitch device. A GPU target gives a direct link.
//    count is the link count; the NVLink generation follows from sm (<70: 1,
//    7x: 2, 8x: 3, 9x: 4, >=100: 5). NVLinks to a CPU (POWER9) are left out.
//  - <xgmi target count>: direct xgmi links between AMD GPUs.
//  - <c2c count bw>: a Grace-Hopper/Blackwell GPU's NVLink-C2C to its CPU, at
//    count x bw MB/s as NCCL computes it.
//  - <nic><net name dev speed/></nic>: one nic device per <net> (NCCL's unit
//    of network traffic), nic<dev>, labelled net=<name>, model from the PCI
//    class (IB for 0x0207, Ethernet otherwise) and speed in Mb/s. A nonzero
//    `latency` (what the network plugin reports, us; aws-ofi-nccl's 75 on
//    p4d and p5) becomes the topology's nccl: net_latency, the largest of
//    the nets'.
// Other elements (NCCL adds new ones over time) are ignored.
#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "topoplan/model/nccl_environment.hpp"
#include "topoplan/support/json_writer.hpp"
#include "import_support.hpp"
#include "xml_reader.hpp"

namespace topoplan::formats {

namespace {

// Numbers are bounded by what they feed into, not by what hardware has so
// far: kAny leaves room for arithmetic on any value a dump holds.
constexpr long long kAny = std::numeric_limits<long long>::max() / 2;
constexpr long long kMaxLinkCount = 65535;  // Link::count
// Above this a NIC speed is pointed out (kept all the same): twice the
// fastest NIC shipping in 2025, NVIDIA ConnectX-8 at 800 Gb/s.
constexpr long long kFastestNicGbps = 1600;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

const XmlElement* child(const XmlElement& e, std::string_view name) {
  for (const XmlElement& c : e.children)
    if (c.name == name) return &c;
  return nullptr;
}

std::string gpu_model_from_sm(int sm) {
  switch (sm) {
    case 60: return "P100";
    case 70: return "V100";
    case 80: return "A100";
    case 90: return "H100";
    case 100: return "B200";
    case 103: return "B300";
    default: return fmt::format("sm{}", sm);
  }
}

std::string gpu_model_from_gcn(std::string_view gcn) {
  gcn = gcn.substr(0, gcn.find(':'));  // "gfx942:sramecc+:xnack-"
  if (gcn == "gfx942") return "MI300X";
  if (gcn == "gfx950") return "MI355X";
  if (gcn == "gfx90a") return "MI250X";
  if (gcn == "gfx908") return "MI100";
  if (gcn == "gfx906") return "MI50";
  return safe_name(fmt::format("AMD-{}", gcn));
}

// "0x10de" -> 0x10de; false for anything else (the attribute is then unused).
bool hex(std::string_view text, unsigned& value) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
  text.remove_prefix(2);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return ec == std::errc() && end == text.data() + text.size();
}

// NVIDIA PCI device IDs of data-centre GPUs that share a compute capability
// (sm 80: A100/A800/A30; sm 90: H100/H200/H800/H20/GH200). Sources: the PCI
// ID Repository as shipped in Debian's pci.ids 0.0~2023.04.11 (vendor 10de)
// and NVIDIA/gpu-admin-tools gpu/devid_names.py (2024) for the later parts
// (H200, GH200, H20). Blackwell parts are told apart by sm (100 B200,
// 103 B300) and are not listed.
std::string_view gpu_model_from_pci_device(unsigned device) {
  struct Entry {
    unsigned device;
    std::string_view model;
  };
  static constexpr Entry kTable[] = {
      {0x1db1, "V100"},  {0x1db4, "V100"}, {0x1db5, "V100"},  {0x1db6, "V100"},  {0x1db8, "V100"},
      {0x1df5, "V100"},  {0x1df6, "V100S"}, {0x20b0, "A100"}, {0x20b1, "A100"},  {0x20b2, "A100"},
      {0x20b3, "A100"},  {0x20b5, "A100"}, {0x20f1, "A100"},  {0x20b7, "A30"},   {0x20f3, "A800"},
      {0x20f5, "A800"},  {0x20f6, "A800"}, {0x2309, "H20"},   {0x230c, "H20"},   {0x230e, "H20"},
      {0x2313, "H100"},  {0x2321, "H100"}, {0x2322, "H800"},  {0x2324, "H800"},  {0x2328, "H20"},
      {0x2329, "H20"},   {0x232c, "H20"},  {0x2330, "H100"},  {0x2331, "H100"},  {0x2335, "H200"},
      {0x2336, "H100"},  {0x2337, "H100"}, {0x2338, "H100"},  {0x2339, "H100"},  {0x233a, "H800"},
      {0x233b, "H200"},  {0x233d, "H100"}, {0x2342, "GH200"}, {0x2343, "GH200"}, {0x2345, "GH200"},
      {0x2348, "GH200"},
  };
  for (const Entry& e : kTable)
    if (e.device == device) return e.model;
  return {};
}

int nvlink_generation(int sm) { return sm < 70 ? 1 : sm < 80 ? 2 : sm < 90 ? 3 : sm < 100 ? 4 : 5; }

class Importer {
 public:
  Importer(const ImportSource& source, const ImportOptions& options)
      : source_(source), name_(topology_name({&source, 1}, options)), node_(single_node(name_)) {}

  ImportResult run() {
    XmlElement root = read_xml(source_.text, source_.path);
    if (root.name == "graphs")
      throw InputError(where(root),
                       "this is an NCCL graph dump (<graphs>, from NCCL_GRAPH_DUMP_FILE): it lists the rings and "
                       "trees NCCL chose over GPU ranks, not the machine; import the topology dump "
                       "(NCCL_TOPO_DUMP_FILE, root <system>) instead");
    if (root.name != "system")
      throw InputError(where(root), fmt::format("expected <system>, the root of an NCCL topology dump "
                                                "(NCCL_TOPO_DUMP_FILE), found <{}>",
                                                root.name));
    std::vector<const XmlElement*> cpus;
    for (const XmlElement& e : root.children)
      if (e.name == "cpu") cpus.push_back(&e);
    if (cpus.empty()) sink_.error(where(root), "<system> has no <cpu>: there is no topology to import");
    for (const XmlElement* cpu : cpus) add_cpu(*cpu);
    sink_.throw_if_any();
    join_cpus();
    add_gpu_links();
    sink_.throw_if_any();
    warn_about_gaps(root);
    if (net_latency_ > 0) {
      NcclEnvironment env;
      const std::string problem =
          apply_nccl_setting(env, {std::string(kNcclNetLatencyKey), format_number(net_latency_), {}});
      if (problem.empty()) node_.builder.set_nccl_environment(std::move(env));
    }
    DiagnosticSink finish;
    ImportResult result{node_.builder.finish(finish), std::move(warnings_)};
    return result;
  }

 private:
  struct Gpu {
    DeviceId device;
    const XmlElement* pci;
    const XmlElement* gpu;  // null in hand-written files without <gpu>
    DeviceId cpu;
    int sm = 0;
  };

  SourceLocation where(const XmlElement& e) const { return {source_.path, e.line, e.column}; }
  SourceLocation where(const XmlAttribute& a) const { return {source_.path, a.line, a.column}; }
  std::uint32_t origin(const XmlElement& e) { return node_.builder.add_origin(where(e)); }

  std::optional<long long> integer(const XmlElement& e, std::string_view name, long long min, long long max,
                                   bool required) {
    const XmlAttribute* a = e.attribute(name);
    if (!a) {
      if (required) sink_.error(where(e), fmt::format("<{}> has no '{}' attribute", e.name, name));
      return std::nullopt;
    }
    std::string_view v = a->value;
    long long value = 0;
    bool hex = starts_with(v, "0x") || starts_with(v, "0X");
    if (hex) v.remove_prefix(2);
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value, hex ? 16 : 10);
    if (ec != std::errc() || end != v.data() + v.size() || v.empty() || value < min || value > max) {
      std::string range = max >= kAny ? fmt::format("of at least {}", min) : fmt::format("from {} to {}", min, max);
      if (min == std::numeric_limits<long long>::min()) range = fmt::format("of at most {}", max);
      sink_.error(where(*a), fmt::format("'{}' of <{}> must be an integer {}, not '{}'", name, e.name, range,
                                         a->value));
      return std::nullopt;
    }
    return value;
  }

  std::string text(const XmlElement& e, std::string_view name) const {
    const XmlAttribute* a = e.attribute(name);
    return a ? a->value : std::string();
  }

  // The PCIe link between a <pci> element and its parent. NCCL's fallbacks:
  // an unknown speed counts as 8 GT/s (Gen3), width 0 as x16.
  LinkType pcie_link(const XmlElement& pci) {
    std::string speed = text(pci, "link_speed");
    int generation = 0;
    double rate = 0;
    auto [end, ec] = std::from_chars(speed.data(), speed.data() + speed.size(), rate);
    std::string_view unit = ec == std::errc() ? std::string_view(end, speed.data() + speed.size()) : "";
    if (unit == " GT/s" || unit == " GT/s PCIe") {
      constexpr std::pair<double, int> kRates[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}};
      for (auto [r, g] : kRates)
        if (rate == r) generation = g;
    }
    long long width = 16;
    if (const XmlAttribute* w = pci.attribute("link_width")) {
      auto [wend, wec] = std::from_chars(w->value.data(), w->value.data() + w->value.size(), width);
      if (wec != std::errc() || wend != w->value.data() + w->value.size()) width = -1;
      if (width == 0) width = 16;
    } else {
      width = -1;
    }
    if (generation == 0 || (width != 1 && width != 2 && width != 4 && width != 8 && width != 16)) {
      ++unknown_pcie_;
      if (generation == 0) generation = 3;
      if (width != 1 && width != 2 && width != 4 && width != 8) width = 16;
    }
    return *find_link_type(fmt::format("pcie{}x{}", generation, width));
  }

  static const LinkType& narrower(const LinkType& a, const LinkType& b) { return b.bandwidth < a.bandwidth ? b : a; }

  std::string cpu_model(const XmlElement& cpu) {
    std::string vendor = text(cpu, "vendor");
    std::string arch = text(cpu, "arch");
    auto family = integer(cpu, "familyid", 0, kAny, false);
    auto model = integer(cpu, "modelid", 0, kAny, false);
    if (vendor == "GenuineIntel" && family) {
      long long m = model.value_or(0);
      if (*family == 6 && (m >= 0xCF || m == 0xAD || m == 0xAE || m == 0xAF)) return "Intel-Emerald-Rapids-class";
      if (*family == 6 && m >= 0x8F) return "Intel-Sapphire-Rapids";
      if (*family == 6 && m >= 0x55) return "Intel-Skylake-class";
      return "Intel-Broadwell-class";
    }
    if (vendor == "AuthenticAMD" && family) {
      if (*family == 26 || *family == 0xBF) return "AMD-Zen5";
      if (*family == 25 || *family == 0xAF) return "AMD-Zen3-4";
      return "AMD-Zen1-2";
    }
    if (!arch.empty()) return safe_name(arch);
    return "";
  }

  void add_cpu(const XmlElement& cpu) {
    auto numa = integer(cpu, "numaid", -1, kAny, false);
    std::string name = numa && *numa >= 0 ? fmt::format("cpu{}", *numa) : fmt::format("cpu{}", cpus_.size());
    DeviceProperties p;
    std::string model = cpu_model(cpu);
    p.model = model;
    DeviceId id = node_.builder.add_device(node_.node, DeviceKind::cpu, name, p, origin(cpu));
    cpus_.push_back(id);
    amd_ = amd_ || text(cpu, "vendor") == "AuthenticAMD";
    current_cpu_ = id;
    for (const XmlElement& c : cpu.children) {
      if (c.name == "pci") {
        add_pci(c, id, pcie_link(c));
      } else if (c.name == "nic") {
        // A NIC without PCI path (NCCL's ncclTopoAddCpu): attached to the CPU
        // at NCCL's default PCI bandwidth, Gen3 x16 (PCI_BW 12 GB/s).
        add_nic(c, nullptr, id, *find_link_type("pcie3x16"));
      }
    }
  }

  // Whether a <pci> subtree holds a GPU or NIC, the devices worth modelling.
  bool holds_endpoint(const XmlElement& pci) {
    if (is_gpu(pci) || is_nic(pci)) return true;
    for (const XmlElement& c : pci.children)
      if (c.name == "pci" && holds_endpoint(c)) return true;
    return false;
  }
  static bool is_gpu(const XmlElement& pci) {
    return child(pci, "gpu") || starts_with(lower(pci.attribute("class") ? pci.attribute("class")->value : ""), "0x03");
  }
  static bool is_nic(const XmlElement& pci) {
    return child(pci, "nic") || starts_with(lower(pci.attribute("class") ? pci.attribute("class")->value : ""), "0x02");
  }

  // `up` is the narrowest link between `pci` and `parent`, including bridges
  // skipped on the way.
  void add_pci(const XmlElement& pci, DeviceId parent, const LinkType& up) {
    if (is_gpu(pci)) return add_gpu(pci, parent, up);
    if (is_nic(pci)) return add_nic(*child_or_self(pci), &pci, parent, up);
    std::vector<const XmlElement*> below;
    for (const XmlElement& c : pci.children)
      if (c.name == "pci" && holds_endpoint(c)) below.push_back(&c);
    if (below.empty()) return;  // storage, management controllers, empty bridges
    if (below.size() == 1) return add_pci(*below.front(), parent, narrower(up, pcie_link(*below.front())));
    DeviceProperties p;
    std::string name = fmt::format("psw{}", switches_++);
    DeviceId sw = node_.builder.add_device(node_.node, DeviceKind::pcie_switch, name, p, origin(pci));
    node_.builder.add_link(parent, sw, up, 1, -1, -1, origin(pci));
    for (const XmlElement* c : below) add_pci(*c, sw, pcie_link(*c));
  }

  static const XmlElement* child_or_self(const XmlElement& pci) {
    const XmlElement* nic = child(pci, "nic");
    return nic ? nic : &pci;
  }

  void add_gpu(const XmlElement& pci, DeviceId parent, const LinkType& up) {
    const XmlElement* g = child(pci, "gpu");
    DeviceProperties p;
    std::string model = "GPU";
    int sm = 0;
    std::string name = fmt::format("gpu{}", gpus_.size());
    if (g) {
      if (auto dev = integer(*g, "dev", 0, kAny, false)) name = fmt::format("gpu{}", *dev);
      if (g->attribute("gcn")) {
        model = gpu_model_from_gcn(text(*g, "gcn"));
      } else if (auto s = integer(*g, "sm", 1, std::numeric_limits<int>::max(), true)) {
        sm = static_cast<int>(*s);
        model = gpu_model_from_sm(sm);
        // The PCI device ID names the part where sm is shared (sm 90 is
        // H100, H200, H800, H20 and GH200).
        unsigned vendor = 0, device = 0;
        if (hex(text(pci, "vendor"), vendor) && vendor == 0x10de && hex(text(pci, "device"), device)) {
          if (std::string_view known = gpu_model_from_pci_device(device); !known.empty())
            model = known;
          else if (sm == 90 || sm == 80)
            ++unknown_devices_;
        } else if (sm == 90 || sm == 80) {
          ++unknown_devices_;
        }
      }
    } else {
      ++gpus_without_gpu_;
    }
    p.model = model;
    if (auto busid = text(pci, "busid"); !busid.empty()) p.labels = {{"busid", busid}};
    DeviceId id = node_.builder.add_device(node_.node, DeviceKind::gpu, name, p, origin(g ? *g : pci));
    node_.builder.add_link(parent, id, up, 1, -1, -1, origin(pci));
    std::string busid = lower(text(pci, "busid"));
    if (!busid.empty() && !gpu_by_busid_.emplace(busid, gpus_.size()).second)
      sink_.error(where(pci), fmt::format("two GPUs have bus id {}", busid));
    gpus_.push_back({id, &pci, g, current_cpu_, sm});
  }

  // `nic` is the <nic> element, or the <pci> itself in hand-written files
  // that list the NIC's PCI device alone; `pci` is null for a NIC under <cpu>.
  void add_nic(const XmlElement& nic, const XmlElement* pci, DeviceId parent, const LinkType& up) {
    std::string cls = pci ? lower(text(*pci, "class")) : "";
    std::string kind = starts_with(cls, "0x0207") ? "IB" : "Ethernet";
    std::vector<const XmlElement*> nets;
    for (const XmlElement& c : nic.children)
      if (c.name == "net") nets.push_back(&c);
    if (nets.empty()) {
      ++nics_without_net_;
      DeviceProperties p;
      p.model = kind;
      DeviceId id = node_.builder.add_device(node_.node, DeviceKind::nic, fmt::format("nic{}", nics_++), p,
                                             origin(pci ? *pci : nic));
      node_.builder.add_link(parent, id, up, 1, -1, -1, origin(pci ? *pci : nic));
      return;
    }
    for (const XmlElement* net : nets) {
      std::string name = fmt::format("nic{}", nics_);
      if (auto dev = integer(*net, "dev", 0, kAny, false)) name = fmt::format("nic{}", *dev);
      ++nics_;
      // NCCL reads speed in Mb/s and treats 0 or less as 10 Gb/s
      // (ncclTopoAddNet). Real dumps hold surprises (RCCL's own model of an
      // HPE Slingshot node, tools/topo_expl/models/topo_4p_940.xml, has
      // 200000000 for its 200 Gb/s NICs); they are kept and pointed out.
      auto mbps = integer(*net, "speed", std::numeric_limits<long long>::min(), kAny, false);
      long long gbps = mbps && *mbps > 0 ? (*mbps + 500) / 1000 : 10;
      if (gbps > kFastestNicGbps) {
        ++implausible_speeds_;
        implausible_speed_ = std::max(implausible_speed_, *mbps);
      }
      // The latency the network plugin reported (ncclTopoFillNet writes
      // props.latency; NCCL's IB transport 0, aws-ofi-nccl 75 us on p4d
      // and p5): what NCCL's tuner adds to a network step.
      // A value the model's own net_latency setting refuses is an error at
      // the attribute, not a latency quietly left out.
      if (const XmlAttribute* lat = net->attribute("latency")) {
        NcclEnvironment check;
        if (std::string problem = apply_nccl_setting(check, {std::string(kNcclNetLatencyKey), lat->value, {}});
            !problem.empty())
          sink_.error(where(*lat), fmt::format("'latency' of <net>: {}", problem));
        else
          net_latency_ = std::max(net_latency_, *check.net_latency_us);
      }
      DeviceProperties p;
      std::string model = fmt::format("{}-{}G", kind, gbps);
      p.model = model;
      if (std::string n = text(*net, "name"); !n.empty()) p.labels = {{"net", n}};
      DeviceId id = node_.builder.add_device(node_.node, DeviceKind::nic, name, p, origin(*net));
      node_.builder.add_link(parent, id, up, 1, -1, -1, origin(*net));
    }
  }

  // NCCL joins every pair of CPUs (ncclTopoConnectCpus); so do we.
  void join_cpus() {
    LinkType inter = *find_link_type(amd_ ? "amd-if" : "upi");
    for (std::size_t i = 0; i < cpus_.size(); ++i)
      for (std::size_t j = i + 1; j < cpus_.size(); ++j) node_.builder.add_link(cpus_[i], cpus_[j], inter);
  }

  void add_gpu_links() {
    // NVSwitch chips, numbered in bus id order.
    std::set<std::string> switch_ids;
    for (const Gpu& g : gpus_)
      if (g.gpu)
        for (const XmlElement& l : g.gpu->children)
          if (l.name == "nvlink" && lower(text(l, "tclass")) == "0x068000") switch_ids.insert(lower(text(l, "target")));
    std::map<std::string, DeviceId> nvswitches;
    for (const std::string& id : switch_ids) {
      DeviceProperties p;
      p.labels = {{"busid", id}};
      nvswitches[id] = node_.builder.add_device(node_.node, DeviceKind::nvswitch,
                                                fmt::format("nvsw{}", nvswitches.size()), p);
    }
    // GPU pairs: NCCL lists each pair from both ends; the larger count wins.
    std::map<std::tuple<std::size_t, std::size_t, std::string>, std::pair<int, std::uint32_t>> pairs;
    for (std::size_t gi = 0; gi < gpus_.size(); ++gi) {
      const Gpu& g = gpus_[gi];
      if (!g.gpu) continue;
      for (const XmlElement& l : g.gpu->children) {
        bool nvlink = l.name == "nvlink", xgmi = l.name == "xgmi";
        if (l.name == "c2c") {
          auto count = integer(l, "count", 1, kMaxLinkCount, true);
          auto bw = integer(l, "bw", 1, kAny, false);
          if (!count) continue;
          double gbs = bw ? static_cast<double>(*bw) * static_cast<double>(*count) / 1000.0 : -1;
          node_.builder.add_link(g.device, g.cpu, *find_link_type("nvlink-c2c"), 1, gbs, -1, origin(l));
          continue;
        }
        if (!nvlink && !xgmi) continue;
        auto count = integer(l, "count", 1, kMaxLinkCount, true);
        std::string target = lower(text(l, "target"));
        std::string tclass = lower(text(l, "tclass"));
        if (!count) continue;
        std::string type = xgmi ? "xgmi" : fmt::format("nvlink{}", nvlink_generation(g.sm));
        if (nvlink && tclass == "0x068000") {
          node_.builder.add_link(g.device, nvswitches.at(target), *find_link_type(type), static_cast<int>(*count), -1,
                                 -1, origin(l));
          continue;
        }
        auto other = gpu_by_busid_.find(target);
        if (other == gpu_by_busid_.end() || other->second == gi) {
          ++links_elsewhere_;
          continue;
        }
        auto key = std::make_tuple(std::min(gi, other->second), std::max(gi, other->second), type);
        auto& entry = pairs[key];
        if (static_cast<int>(*count) > entry.first) entry = {static_cast<int>(*count), origin(l)};
      }
    }
    for (const auto& [key, value] : pairs)
      node_.builder.add_link(gpus_[std::get<0>(key)].device, gpus_[std::get<1>(key)].device,
                             *find_link_type(std::get<2>(key)), value.first, -1, -1, value.second);
  }

  void warn(std::string message) { warnings_.push_back({{source_.path, 0, 0}, std::move(message)}); }

  void warn_about_gaps(const XmlElement& root) {
    if (gpus_.empty())
      warnings_.push_back({where(root), "the dump lists no GPU: the node has no accelerator (a partial dump?)"});
    if (gpus_without_gpu_ > 0)
      warn(fmt::format("{} of {} GPUs have no <gpu> element (a hand-written NCCL_TOPO_FILE rather than a dump): "
                       "their model and NVLinks are unknown",
                       gpus_without_gpu_, gpus_.size()));
    if (nics_without_net_ > 0)
      warn(fmt::format("{} NICs have no <net> element: their speed is unknown", nics_without_net_));
    if (implausible_speeds_ > 0)
      warn(fmt::format("{} <net> elements give a speed beyond any NIC (up to {} Mb/s = {} Gb/s; NCCL reads Mb/s): "
                       "kept as given in the NIC model",
                       implausible_speeds_, implausible_speed_, (implausible_speed_ + 500) / 1000));
    if (unknown_pcie_ > 0)
      warn(fmt::format("{} PCIe links have no usable link_speed or link_width: taken as Gen3 x16, NCCL's fallback",
                       unknown_pcie_));
    if (unknown_devices_ > 0)
      warn(fmt::format("{} GPUs have a compute capability several parts share (sm 80: A100, A800, A30; sm 90: H100, "
                       "H200, H800, H20, GH200) and a PCI device ID topoplan does not know: named after the first",
                       unknown_devices_));
    if (links_elsewhere_ > 0)
      warn(fmt::format("{} NVLink/xGMI entries lead to no GPU of this dump (a CPU or another node): left out",
                       links_elsewhere_));
  }

  const ImportSource& source_;
  std::string name_;
  SingleNode node_;
  DiagnosticSink sink_{kMaxImportErrors};
  std::vector<ImportWarning> warnings_;
  std::vector<DeviceId> cpus_;
  DeviceId current_cpu_ = kNone;
  bool amd_ = false;
  std::vector<Gpu> gpus_;
  std::map<std::string, std::size_t> gpu_by_busid_;
  int switches_ = 0;
  int nics_ = 0;
  int implausible_speeds_ = 0;
  long long implausible_speed_ = 0;
  int gpus_without_gpu_ = 0;
  int nics_without_net_ = 0;
  double net_latency_ = 0;  // the largest latency a <net> reports, us
  int unknown_pcie_ = 0;
  int links_elsewhere_ = 0;
  int unknown_devices_ = 0;
};

}  // namespace

ImportResult import_nccl_xml(std::span<const ImportSource> sources, const ImportOptions& options) {
  return Importer(single_source(sources, "nccl-xml"), options).run();
}

}  // namespace topoplan::formats
