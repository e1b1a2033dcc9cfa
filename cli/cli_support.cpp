#include "cli_support.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/formats/topology_argument.hpp"
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

namespace {

// What a file type is called in "is a ..., not a regular file or a pipe".
const char* file_type(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

// Reads `fd` to its end, refusing more than kMaxInputBytes: a pipe or stdin
// may be endless (`< /dev/zero`, `yes |`).
std::string read_bounded(int fd, const std::string& name) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError({name, 0, 0}, fmt::format("read error: {}", std::strerror(errno)));
    }
    if (text.size() + static_cast<std::size_t>(n) > kMaxInputBytes)
      throw InputError({name, 0, 0}, fmt::format("more than {} MiB; topoplan reads inputs of at most {} MiB",
                                                 kMaxInputBytes >> 20, kMaxInputBytes >> 20));
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::optional<std::string> read_file(const std::string& path) {
  // Refuse devices before opening them: opening may have effects (a tape
  // rewinds, a terminal becomes the controlling one). A FIFO is opened:
  // like `cat`, topoplan then waits for its writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw InputError({path, 0, 0}, fmt::format("cannot read: {}", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) throw InputError({path, 0, 0}, "is a directory, not a file");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    throw InputError({path, 0, 0}, fmt::format("is {}, not a regular file or a pipe", file_type(st.st_mode)));
  if (S_ISREG(st.st_mode) && static_cast<std::uintmax_t>(st.st_size) > kMaxInputBytes)
    throw InputError({path, 0, 0}, fmt::format("is {} MiB; topoplan reads inputs of at most {} MiB",
                                               static_cast<std::uintmax_t>(st.st_size) >> 20, kMaxInputBytes >> 20));
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw InputError({path, 0, 0}, fmt::format("cannot open: {}", std::strerror(errno)));
  return read_bounded(fd.get(), path);
}

std::string read_input(const std::string& path) {
  if (path == "-") return read_bounded(STDIN_FILENO, "<stdin>");
  std::optional<std::string> text = read_file(path);
  if (!text) throw InputError({path, 0, 0}, "no such file");
  return *text;
}

void refuse_directory(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw InputError({path, 0, 0}, "is a directory, not a file");
}

Topology load_topology_argument(const std::string& argument, const std::vector<std::string>& level_labels) {
  ImportResult result = topoplan::load_topology_argument(argument, read_file, {level_labels});
  print_warnings(result.warnings);
  return std::move(result.topology);
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
