#include "cli_support.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan::cli {

void add_format_option(CLI::App& command, Format& format) {
  command
      .add_option_function<std::string>(
          "--format", [&format](const std::string& v) { format = v == "json" ? Format::json : Format::text; },
          "output format: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->option_text("text|json");
}

std::optional<std::string> read_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw InputError({path, 0, 0}, fmt::format("cannot read: {}", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) throw InputError({path, 0, 0}, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0}, fmt::format("cannot open: {}", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError({path, 0, 0}, "read error");
  return text.str();
}

std::string read_input(const std::string& path) {
  if (path == "-") {
    std::ostringstream text;
    text << std::cin.rdbuf();
    return text.str();
  }
  std::optional<std::string> text = read_file(path);
  if (!text) throw InputError({path, 0, 0}, "no such file");
  return *text;
}

Topology load_topology_argument(const std::string& argument, const std::vector<std::string>& level_labels) {
  if (!find_builtin_topology(parse_topology_argument(argument).target)) {
    if (std::optional<std::string> text = read_file(argument); text && is_k8s_node_list(*text)) {
      ImportOptions options;
      options.level_labels = level_labels;
      options.cpu_nodes = true;  // a Kueue flavor may hold CPU nodes too
      std::vector<ImportSource> sources{{argument, *text}};
      ImportResult result = find_import_format("k8s-nodes")->run(sources, options);
      for (const ImportWarning& w : result.warnings) fmt::print(std::cerr, "topoplan: warning: {}\n", w.str());
      return std::move(result.topology);
    }
  }
  return load_topology(argument, [](const std::string& path) { return read_file(path); });
}

namespace {

// Writes straight into `path`: a device or a pipe (-o /dev/null,
// -o /dev/stdout), which a rename would replace with a regular file.
void write_in_place(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError({path, 0, 0}, fmt::format("cannot write: {}", std::strerror(errno)));
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.flush();
  if (!out) throw InputError({path, 0, 0}, "write error");
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  struct stat st {};
  bool exists = ::stat(path.c_str(), &st) == 0;  // follows symbolic links
  if (exists && S_ISDIR(st.st_mode)) throw InputError({path, 0, 0}, "is a directory, not a file");
  if (exists && !S_ISREG(st.st_mode)) return write_in_place(path, content);
  // A symbolic link keeps pointing at the file: the file is what is replaced.
  std::string target = path;
  if (struct stat link {}; exists && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      target = real;
      std::free(real);
    }
  }
  std::string dir = ".";
  if (auto slash = target.rfind('/'); slash != std::string::npos) dir = slash == 0 ? "/" : target.substr(0, slash);
  std::string temp = fmt::format("{}/.topoplan-{}.tmp", dir, ::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError({path, 0, 0}, fmt::format("cannot write: {}", std::strerror(errno)));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw InputError({path, 0, 0}, "write error");
    }
  }
  // The replaced file keeps its permissions.
  if (exists) ::chmod(temp.c_str(), st.st_mode & 07777);
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    int err = errno;
    std::remove(temp.c_str());
    throw InputError({path, 0, 0}, fmt::format("cannot write: {}", std::strerror(err)));
  }
}

void write_output(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-")
    std::cout << content << std::flush;
  else
    write_file_atomically(path, content);
}

void print_warnings(const std::vector<Diagnostic>& warnings) { write_diagnostics(std::cerr, "warning", warnings); }

}  // namespace topoplan::cli
