// SPDX-License-Identifier: Apache-2.0
#include "engine/src/path.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace blockbloom::detail {
namespace {

[[noreturn]] void SysFail(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error("blockbloom: " + path + ": " + what + ": " + std::strerror(err));
}

// ---- Temporary files being written, for the signal handler ----
// A slot is 0 (free), 1 (being filled) or 2 (armed: path holds a file to unlink).
struct TempSlot {
  std::atomic<int> state{0};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");
constexpr int kTempSlots = 32;
TempSlot g_temp_slots[kTempSlots];

// Lists a path for RemovePendingTempFiles while armed; disarmed at the latest
// on destruction.
class TempRegistration {
 public:
  TempRegistration() = default;
  TempRegistration(const TempRegistration&) = delete;
  TempRegistration& operator=(const TempRegistration&) = delete;
  ~TempRegistration() { Disarm(); }

  void Arm(const std::string& path) {
    Disarm();
    if (path.size() >= PATH_MAX) return;
    for (int i = 0; i < kTempSlots; ++i) {
      int expected = 0;
      if (g_temp_slots[i].state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) {
        std::memcpy(g_temp_slots[i].path, path.c_str(), path.size() + 1);
        g_temp_slots[i].state.store(2, std::memory_order_release);
        slot_ = i;
        return;
      }
    }
    // All slots busy (32 concurrent writes): this file is only cleaned by the
    // next run's stale-file sweep.
  }
  void Disarm() {
    if (slot_ >= 0) g_temp_slots[slot_].state.store(0, std::memory_order_release);
    slot_ = -1;
  }

 private:
  int slot_ = -1;
};

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}
std::string BaseOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Removes "<base>.tmp.<pid>.<6 chars>" files beside `path` whose writer is
// dead (kill(pid, 0) says ESRCH): what a killed writer left. The file's age
// does not matter: a writer killed this very second (or on a host whose clock
// runs ahead) left a file as stale as an old one, and a live writer's file is
// kept however old it is. Best effort: anything unexpected is left alone.
void RemoveStaleTemps(const std::string& path) {
  const std::string dir = DirOf(path);
  const std::string prefix = BaseOf(path) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    // <pid>.<6 chars>
    const std::string rest = name.substr(prefix.size());
    const size_t dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || dot > 10 || rest.size() - dot - 1 != 6) continue;
    bool digits = true;
    for (size_t i = 0; i < dot; ++i) digits = digits && rest[i] >= '0' && rest[i] <= '9';
    if (!digits) continue;
    const long pid = std::strtol(rest.substr(0, dot).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    const std::string full = dir + "/" + name;
    struct stat st;
    if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    ::unlink(full.c_str());
  }
  ::closedir(d);
}

// "the file size limit (ulimit -f) of N bytes", for EFBIG.
std::string FileSizeLimit() {
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return "the file size limit";
  return "the file size limit (ulimit -f) of " + std::to_string(static_cast<uint64_t>(lim.rlim_cur)) + " bytes";
}

// Six characters for a temporary name: not secret, only unlikely to collide
// (O_EXCL settles any collision).
std::string RandomSuffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t x = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
               (counter.fetch_add(1) * 0x9E3779B97F4A7C15ULL) ^ (static_cast<uint64_t>(::getpid()) << 40);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s(6, 'a');
  for (char& c : s) {
    c = kChars[x % 36];
    x /= 36;
  }
  return s;
}

// Where the bytes go: `path` itself, or a symbolic link's final target.
struct OutputTarget {
  std::string path;
  bool exists = false;
  struct stat st {};
};

OutputTarget ResolveOutput(const std::string& path) {
  OutputTarget t;
  t.path = path;
  if (path.empty()) throw std::runtime_error("blockbloom: the output path is empty: expected a file name");
  CheckPath(path);
  struct stat lst;
  if (::lstat(path.c_str(), &lst) != 0) {
    if (errno == ENOENT) return t;  // a new name (a missing directory fails at create)
    SysFail("cannot examine the output", path, errno);
  }
  if (S_ISLNK(lst.st_mode)) {
    char* real = ::realpath(path.c_str(), nullptr);
    if (real == nullptr) {
      const int e = errno;
      if (e == ENOENT)
        throw std::runtime_error("blockbloom: " + path +
                                 ": is a symbolic link to a missing file: expected a regular file, a link to one, or a "
                                 "new name");
      SysFail("cannot resolve the symbolic link", path, e);
    }
    t.path = real;
    std::free(real);
  }
  if (::stat(t.path.c_str(), &t.st) != 0) SysFail("cannot examine the output", t.path, errno);
  if (!S_ISREG(t.st.st_mode))
    throw std::runtime_error("blockbloom: " + path + ": is " + FileKind(t.st.st_mode) +
                             ": expected a regular file or a new name (outputs are replaced atomically, never written "
                             "into)");
  t.exists = true;
  return t;
}

}  // namespace

void CheckPath(const std::string& path) {
  const size_t nul = path.find('\0');
  if (nul == std::string::npos) return;
  throw std::invalid_argument("blockbloom: the path \"" + path.substr(0, nul) + "\\0...\" has a NUL byte at byte " +
                              std::to_string(nul) + ": expected a path without NUL bytes (the system would read it as " +
                              "\"" + path.substr(0, nul) + "\")");
}

const char* FileKind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

int OpenRegularFile(const std::string& path, uint64_t* size) {
  CheckPath(path);
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of
  // waiting; O_NOCTTY: a terminal never becomes ours.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) SysFail("cannot open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    SysFail("cannot stat", path, e);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error("blockbloom: " + path + ": is " + FileKind(st.st_mode) + ": expected a regular file");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

uint64_t ReadFull(int fd, void* buf, uint64_t len, uint64_t offset, const std::string& path) {
  auto* p = static_cast<uint8_t*>(buf);
  uint64_t done = 0;
  while (done < len) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(len - done, uint64_t{1} << 30));
    const ssize_t r = ::pread(fd, p + done, chunk, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      SysFail("cannot read", path, errno);
    }
    if (r == 0) break;
    done += static_cast<uint64_t>(r);
  }
  return done;
}

std::string TempPrefix(const std::string& path) { return path + ".tmp."; }

void WriteFileAtomic(const std::string& path, std::span<const std::span<const uint8_t>> parts) {
  const OutputTarget target = ResolveOutput(path);
  RemoveStaleTemps(target.path);
  // The temporary file lives beside the target so that rename() stays within
  // one file system and is atomic; it is created with the final mode.
  const mode_t mode = target.exists ? (target.st.st_mode & 07777) : 0666;
  const std::string base = TempPrefix(target.path) + std::to_string(::getpid()) + ".";
  std::string tmp;
  int fd = -1;
  TempRegistration reg;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = base + RandomSuffix();
    reg.Arm(tmp);  // listed before it exists: a signal never misses it
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0 && errno != EEXIST) {
      const int e = errno;
      reg.Disarm();
      SysFail("cannot create a temporary file beside it", path, e);
    }
    if (fd < 0) reg.Disarm();
  }
  if (fd < 0) SysFail("cannot create a temporary file beside it", path, EEXIST);
  auto fail = [&](const std::string& what) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    SysFail(what, path, e);
  };
  if (target.exists) {
    // Keep the replaced file's owner (only root may give a file away; others
    // keep their own) and its exact mode, which the umask may have narrowed.
    if (::geteuid() == 0 && (target.st.st_uid != 0 || target.st.st_gid != 0))
      (void)::fchown(fd, target.st.st_uid, target.st.st_gid);
    if (::fchmod(fd, mode) != 0) fail("cannot set the mode of the temporary file");
  }
  for (std::span<const uint8_t> part : parts) {
    const uint8_t* q = part.data();
    size_t left = part.size();
    while (left > 0) {
      const ssize_t w = ::write(fd, q, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        const int e = errno;
        const std::string what =
            e == EFBIG ? "cannot write the temporary file past " + FileSizeLimit() : "cannot write the temporary file";
        errno = e;
        fail(what);
      }
      q += w;
      left -= static_cast<size_t>(w);
    }
  }
  if (::fsync(fd) != 0) fail("cannot fsync the temporary file");
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    SysFail("cannot close the temporary file", path, e);
  }
  if (::rename(tmp.c_str(), target.path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    SysFail("cannot rename the temporary file over it", path, e);
  }
  reg.Disarm();
  // Make the rename itself durable.
  const int dfd = ::open(DirOf(target.path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);  // best effort: some file systems refuse fsync on directories
    ::close(dfd);
  }
}

void RemovePendingTempFiles() noexcept {
  for (TempSlot& s : g_temp_slots) {
    if (s.state.load(std::memory_order_acquire) == 2) ::unlink(s.path);
  }
}

}  // namespace blockbloom::detail
