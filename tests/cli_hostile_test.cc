// SPDX-License-Identifier: Apache-2.0
// The CLI against hostile but fair inputs (issue 12), through the built
// binary: odd output paths (FIFO, socket, device, directory, symlink), FIFOs as
// inputs, signals during a save, stale temporary files, overloaded headers,
// sizes that overflow, out of memory, stdout that cannot be written, a filter
// file that shrinks while the CLI uses it, the number grammar, JSON for
// non-UTF-8 names; plus the CLI polish of issue 10 (help, warnings, messages).
// Each failure must be one line on stderr and a non-zero exit; nothing may
// hang (every run has a timeout) and no device node outside the test's own
// temporary directory is touched.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_fixture.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/layout.h"
#include "engine/src/filter_access.h"

#ifdef BLOCKBLOOM_CLI

namespace blockbloom {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;

class Hostile : public testing::TempDirTest {
 protected:
  Hostile() : TempDirTest("bbhostile") {}

  // `blockbloom ARGS` in the temp dir under a 60 s timeout; `prefix` runs
  // first in the same shell (umask, ulimit); `redirect` replaces the default
  // stdout redirection.
  Result Run(const std::string& args, const std::string& prefix = "", const std::string& stdin_file = "/dev/null",
             const std::string& stdout_redirect = ">.out") const {
    const std::string cmd = "cd '" + dir_.string() + "' && " + (prefix.empty() ? "" : prefix + " && ") +
                            "timeout 60 '" + BLOCKBLOOM_CLI + "' " + args + " <" + stdin_file + " " +
                            stdout_redirect + " 2>.err";
    const int raw = std::system(cmd.c_str());
    Result r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, Read(".out"), Read(".err")};
    fs::remove(dir_ / ".out");
    fs::remove(dir_ / ".err");
    return r;
  }

  // Non-zero status (not the timeout), exactly one line on stderr starting
  // "blockbloom" and containing `needle`.
  Result ExpectFailure(const std::string& args, const std::string& needle, const std::string& prefix = "",
                       const std::string& stdout_redirect = ">.out") const {
    const Result r = Run(args, prefix, "/dev/null", stdout_redirect);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_NE(r.status, 124) << args << ": timed out";
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": not one line: " << r.err;
    EXPECT_EQ(r.err.rfind("blockbloom", 0), 0u) << r.err;
    return r;
  }

  std::vector<std::string> TempFiles() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (n.find(".tmp.") != std::string::npos) names.push_back(n);
    }
    return names;
  }

  // A small valid filter file `name` (3 keys).
  void MakeFilter(const std::string& name, const std::string& layout = "blocked512") const {
    Write("three.txt", "a\nb\nc\n");
    const Result r = Run("build --layout " + layout + " --bytes 1024 --keys three.txt -o " + name);
    ASSERT_EQ(r.status, 0) << r.err;
  }

  // A filter file of `blocks` blocked512 blocks whose header claims `keys`.
  void MakeClaimingFilter(const std::string& name, uint64_t blocks, uint64_t keys) const {
    Filter f = Filter::WithBlocks(Layout::kBlocked512, blocks, 6);
    f.Insert(uint64_t{1});
    detail::FilterAccess::SetInserted(f, keys);
    SaveFilter(f, Path(name));
  }

};

// ---- 1. Output paths ----

bool IsFifo(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

TEST_F(Hostile, OutputThatIsAFifoSocketDeviceOrDirectoryIsRefusedAndKept) {
  MakeFilter("f.bbf");
  Write("keys.txt", "x\ny\n");
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0644), 0);
  // A unix socket, bound here (kept open so it stays a live socket).
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock_path = Path("sock");
  ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
  std::strcpy(addr.sun_path, sock_path.c_str());
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  fs::create_directory(dir_ / "dir");

  const std::string build = "build --layout blocked512 --n 1000 --fpr 0.01 --keys keys.txt -o ";
  ExpectFailure(build + "fifo", "fifo: is a FIFO: expected a regular file or a new name");
  EXPECT_TRUE(IsFifo(Path("fifo"))) << "the FIFO was replaced";
  ExpectFailure("merge f.bbf f.bbf -o fifo", "is a FIFO");
  ExpectFailure("fold f.bbf -o fifo", "is a FIFO");
  ExpectFailure(build + "sock", "sock: is a socket: expected a regular file or a new name");
  struct stat st;
  ASSERT_EQ(::lstat(sock_path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  ::close(sock);
  ExpectFailure(build + "dir", "dir: is a directory");
  EXPECT_TRUE(fs::is_directory(dir_ / "dir"));

  // A character device made here (the same numbers as /dev/full): as root
  // only, as CI runs; the real device node is never touched.
  if (::mknod(Path("fulldev").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) {
    ExpectFailure(build + "fulldev", "fulldev: is a character device: expected a regular file or a new name");
    ASSERT_EQ(::lstat(Path("fulldev").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device node was replaced by a regular file";
  } else {
    std::printf("(mknod refused, errno %d: the device case needs root)\n", errno);
  }
  EXPECT_TRUE(TempFiles().empty());
}

TEST_F(Hostile, SymlinkOutputReplacesItsTargetAtomicallyAndStaysALink) {
  MakeFilter("a.bbf");
  MakeFilter("target.bbf");
  fs::create_symlink("target.bbf", dir_ / "link.bbf");
  const Result r = Run("merge a.bbf a.bbf -o link.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.bbf")) << "the link was replaced by a regular file";
  EXPECT_EQ(LoadFilter(Path("target.bbf")).inserted(), 6u) << "the link's target was not written";
  // A dangling link is refused, and nothing is created.
  fs::create_symlink("missing.bbf", dir_ / "dangling.bbf");
  ExpectFailure("merge a.bbf a.bbf -o dangling.bbf", "is a symbolic link to a missing file");
  EXPECT_FALSE(fs::exists(dir_ / "missing.bbf"));
  EXPECT_TRUE(TempFiles().empty());
}

mode_t ModeOf(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

TEST_F(Hostile, OutputModeFollowsTheUmaskOrTheReplacedFile) {
  Write("keys.txt", "x\n");
  const std::string build = "build --layout blocked512 --bytes 64 --keys keys.txt -o ";
  ASSERT_EQ(Run(build + "new.bbf", "umask 027").status, 0);
  EXPECT_EQ(ModeOf(Path("new.bbf")), 0640u);
  ASSERT_EQ(Run(build + "open.bbf", "umask 002").status, 0);
  EXPECT_EQ(ModeOf(Path("open.bbf")), 0664u);
  // An existing file keeps its mode, whatever the umask says.
  ASSERT_EQ(::chmod(Path("new.bbf").c_str(), 0604), 0);
  ASSERT_EQ(Run(build + "new.bbf", "umask 077").status, 0);
  EXPECT_EQ(ModeOf(Path("new.bbf")), 0604u);
  ASSERT_EQ(Run("build --layout split256 --hash xxh64 --bytes 64 --keys keys.txt -o p.bbf").status, 0);
  Write("x.bin", "old");
  ASSERT_EQ(::chmod(Path("x.bin").c_str(), 0640), 0);
  ASSERT_EQ(Run("export-parquet p.bbf -o x.bin", "umask 000").status, 0);
  EXPECT_EQ(ModeOf(Path("x.bin")), 0640u);
}

// ---- 6. Temporary files ----

void SetOld(const std::string& p) {
  const timespec times[2] = {{1'000'000'000, 0}, {1'000'000'000, 0}};  // 2001
  ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), times, 0), 0);
}

TEST_F(Hostile, StaleTempFilesOfDeadWritersAreRemovedOthersKept) {
  // Above the largest pid_max Linux allows (2^22): never a live process.
  const std::string dead = "4194305";
  const std::string live = std::to_string(::getpid());
  Write("out.bbf.tmp." + dead + ".abc123", "partial");
  SetOld(Path("out.bbf.tmp." + dead + ".abc123"));
  Write("out.bbf.tmp." + live + ".abc123", "a live writer's");
  SetOld(Path("out.bbf.tmp." + live + ".abc123"));
  Write("out.bbf.tmp." + dead + ".zzz999", "newer than the run");  // dated in the future below: still stale
  const timespec future[2] = {{4'000'000'000, 0}, {4'000'000'000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, Path("out.bbf.tmp." + dead + ".zzz999").c_str(), future, 0), 0);
  Write("other.bbf.tmp." + dead + ".abc123", "another output's");
  SetOld(Path("other.bbf.tmp." + dead + ".abc123"));
  Write("keys.txt", "x\n");
  ASSERT_EQ(Run("build --layout blocked512 --bytes 64 --keys keys.txt -o out.bbf").status, 0);
  const std::vector<std::string> left = TempFiles();
  const std::set<std::string> names(left.begin(), left.end());
  EXPECT_FALSE(names.count("out.bbf.tmp." + dead + ".abc123")) << "a dead writer's stale temp file stayed";
  EXPECT_TRUE(names.count("out.bbf.tmp." + live + ".abc123")) << "a live writer's temp file was removed";
  EXPECT_FALSE(names.count("out.bbf.tmp." + dead + ".zzz999"))
      << "a dead writer's temp file dated after the run started stayed";
  EXPECT_TRUE(names.count("other.bbf.tmp." + dead + ".abc123")) << "another output's temp file was removed";
  EXPECT_EQ(names.size(), 2u);
}

// A writer killed by SIGKILL, then an immediate re-save: both fall in the
// same second, and the dead writer's temp file (its PID reaped, so it names no
// process) is removed all the same.
TEST_F(Hostile, AWriterKilledThisSecondLeavesNoTempFileAfterTheNextSave) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const std::string stale = "out.bbf.tmp." + std::to_string(child) + ".k9k9k9";
  Write(stale, "what a killed writer left");  // dated now
  Write("keys.txt", "x\n");
  ASSERT_EQ(Run("build --layout blocked512 --bytes 64 --keys keys.txt -o out.bbf").status, 0);
  EXPECT_TRUE(TempFiles().empty()) << "left " << TempFiles().front();
}

// Every catchable terminating signal while the output is being written: the
// process dies of the signal and leaves no temporary file. The signal is sent
// as soon as the temporary file appears; a run in which the save finished
// first proves nothing and is repeated, and a signal that never landed
// mid-save across the attempts fails the test (a skip would hide a signal the
// CLI does not catch).
TEST_F(Hostile, SignalDuringSaveRemovesTheTempFile) {
  Write("keys.txt", "x\n");
  std::vector<int> signals = {SIGTERM, SIGINT,    SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2,
                              SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPIPE};
#ifdef SIGRTMIN
  signals.push_back(SIGRTMIN);
#endif
  for (int sig : signals) {
    bool caught = false;
    for (int attempt = 0; attempt < 8 && !caught; ++attempt) {
      for (const auto& t : TempFiles()) fs::remove(dir_ / t);
      fs::remove(dir_ / "big.bbf");
      const pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        if (::chdir(dir_.c_str()) != 0) ::_exit(127);
        const int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        // As a shell would start it: the signal at its default, unblocked,
        // and no core file (SIGQUIT, SIGXCPU dump core by default).
        ::signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        ::sigprocmask(SIG_SETMASK, &set, nullptr);
        const struct rlimit no_core = {0, 0};
        ::setrlimit(RLIMIT_CORE, &no_core);
        // 256 MiB: long enough to write that the signal lands mid-save.
        ::execl(BLOCKBLOOM_CLI, "blockbloom", "build", "--layout", "blocked512", "--bytes", "268435456", "--keys",
                "keys.txt", "-o", "big.bbf", static_cast<char*>(nullptr));
        ::_exit(127);
      }
      bool seen = false;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      int status = 0;
      while (std::chrono::steady_clock::now() < deadline) {
        if (!TempFiles().empty()) {
          seen = true;
          ::kill(pid, sig);
          break;
        }
        if (::waitpid(pid, &status, WNOHANG) == pid) break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (!seen) {
        if (::waitpid(pid, &status, WNOHANG) == 0) {
          ::kill(pid, SIGKILL);
          ::waitpid(pid, &status, 0);
        }
        continue;  // finished before a temp file was seen: try again
      }
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
      if (fs::exists(dir_ / "big.bbf")) {  // the save won the race: nothing was measured
        fs::remove(dir_ / "big.bbf");
        continue;
      }
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << strsignal(sig) << ": status " << status;
      EXPECT_TRUE(TempFiles().empty()) << strsignal(sig) << " left " << TempFiles().front();
      caught = true;
    }
    EXPECT_TRUE(caught) << strsignal(sig) << ": the save finished before the signal in every attempt";
  }
}

// Past `ulimit -f` the kernel sends SIGXFSZ, which by default kills the
// process with no message and leaves the temporary file. The CLI ignores it,
// so the write fails with EFBIG: one line naming the limit, a non-zero exit,
// no temporary file and no output.
TEST_F(Hostile, FileSizeLimitIsAMessageAndLeavesNoTempFile) {
  Write("keys.txt", "x\n");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::chdir(dir_.c_str()) != 0) ::_exit(127);
    const int null = ::open("/dev/null", O_RDWR);
    const int err = ::open(".err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(err, 2);
    ::signal(SIGXFSZ, SIG_DFL);
    const struct rlimit limit = {65536, 65536};  // ulimit -f 64
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::execl(BLOCKBLOOM_CLI, "blockbloom", "build", "--layout", "blocked512", "--bytes", "1048576", "--keys", "keys.txt",
            "-o", "big.bbf", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string err = Read(".err");
  fs::remove(dir_ / ".err");
  ASSERT_TRUE(WIFEXITED(status)) << "killed by " << (WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "?");
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(err,
            "blockbloom build: big.bbf: cannot write the temporary file past the file size limit (ulimit -f) of 65536 "
            "bytes: " +
                std::string(std::strerror(EFBIG)) + "\n");
  EXPECT_TRUE(TempFiles().empty()) << "left " << TempFiles().front();
  EXPECT_FALSE(Exists("big.bbf"));
}

// ---- 4. FIFOs and other non-regular inputs never hang ----

TEST_F(Hostile, FifoInputsAreRefusedAtOnce) {
  MakeFilter("f.bbf");
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0644), 0);
  fs::create_directory(dir_ / "dir");
  const std::string want = "fifo: is a FIFO: expected a regular file";
  ExpectFailure("stats fifo", want);
  ExpectFailure("query fifo --keys f.bbf", want);
  ExpectFailure("query f.bbf --keys fifo", want);
  ExpectFailure("merge f.bbf fifo -o out.bbf", want);
  ExpectFailure("merge fifo f.bbf -o out.bbf", want);
  ExpectFailure("fold fifo -o out.bbf", want);
  ExpectFailure("export-parquet fifo -o out.bin", want);
  ExpectFailure("import-parquet fifo -o out.bbf", want);
  ExpectFailure("build --layout blocked512 --bytes 64 --keys fifo -o out.bbf", want);
  ExpectFailure("stats dir", "dir: is a directory: expected a regular file");
  ExpectFailure("build --layout blocked512 --bytes 64 --keys dir -o out.bbf", "is a directory");
  EXPECT_FALSE(fs::exists(dir_ / "out.bbf"));
  // Keys through standard input may still come from a pipe.
  const Result r = Run("query f.bbf --output count", "", "three.txt");
  EXPECT_EQ(r.out, "3\n") << r.err;
}

// ---- 2. A header claiming more keys than the payload can hold ----

TEST_F(Hostile, StatsOnAnOverloadedHeaderSaysSoQuickly) {
  MakeClaimingFilter("over.bbf", 2, uint64_t{1} << 63);  // the 192-byte file of the issue
  ASSERT_EQ(fs::file_size(dir_ / "over.bbf"), 192u);
  const auto t0 = std::chrono::steady_clock::now();
  Result r = Run("stats over.bbf");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_LT(secs, 10.0);
  EXPECT_NE(r.out.find("keys inserted   9223372036854775808"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cannot meaningfully hold them"), std::string::npos) << r.out;
  r = Run("stats over.bbf --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"overloaded\": true"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"predicted_fpr_at_inserted\": 1,"), std::string::npos) << r.out;
  // 1,000 blocks with 1e16 keys: as quick.
  MakeClaimingFilter("over2.bbf", 1000, 10'000'000'000'000'000ULL);
  r = Run("stats over2.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cannot meaningfully hold"), std::string::npos) << r.out;
  // An ordinary filter is not called overloaded.
  MakeFilter("f.bbf");
  r = Run("stats f.bbf --format json");
  EXPECT_NE(r.out.find("\"overloaded\": false"), std::string::npos) << r.out;
}

// ---- 3 and 5. Sizes: one --n limit, overflow, out of memory ----

TEST_F(Hostile, EveryCommandSharesOneLimitOnN) {
  Write("keys.txt", "x\n");
  const std::string want = "--n = '1e17' is out of range: expected 1..1099511627776";
  ExpectFailure("build --layout blocked512 --n 1e17 --fpr 0.01 --keys keys.txt -o f.bbf", want);
  ExpectFailure("params --n 1e17 --fpr 0.01", want);
  ExpectFailure("table --layout blocked512 --n 1e17", want);
  ExpectFailure("demo --n 1e17", want);
  EXPECT_FALSE(fs::exists(dir_ / "f.bbf"));
}

TEST_F(Hostile, HugeBitsPerKeyIsAnErrorNamingTheOption) {
  Write("keys.txt", "x\n");
  for (const std::string v : {"1e300", "1e19", "18446744073709551616", "3e9"}) {
    const Result r = ExpectFailure("build --layout blocked512 --n 1000 --bits-per-key " + v + " --keys keys.txt -o f.bbf",
                                   "--bits-per-key = " + v + " is out of range");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.find("blocks = 0"), std::string::npos) << r.err;
  }
  ExpectFailure("build --layout blocked512 --n 1000 --bits-per-key 0 --keys keys.txt -o f.bbf",
                "--bits-per-key = 0 is out of range");
  ExpectFailure("build --layout blocked512 --bytes 2305843009213693952 --keys keys.txt -o f.bbf",
                "--bytes = '2305843009213693952' is out of range: expected 1..274877906944");
  EXPECT_FALSE(fs::exists(dir_ / "f.bbf"));
}

TEST_F(Hostile, OutOfMemoryNamesTheSizeItTried) {
  Write("keys.txt", "x\n");
  // 2 GB of address space: an 8 GiB filter cannot be had.
  const Result r = ExpectFailure("build --layout blocked512 --bytes 8589934592 --keys keys.txt -o f.bbf",
                                 "out of memory: cannot allocate 8589934592 bytes", "ulimit -v 2000000");
  EXPECT_EQ(r.err.find("std::bad_alloc"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "f.bbf"));
}

TEST_F(Hostile, MergeSaturatesTheKeyCount) {
  MakeClaimingFilter("a.bbf", 2, uint64_t{1} << 63);
  MakeClaimingFilter("b.bbf", 2, uint64_t{1} << 63);
  const Result r = Run("merge a.bbf b.bbf -o ab.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(LoadFilter(Path("ab.bbf")).inserted(), UINT64_MAX) << "the count wrapped";
  EXPECT_NE(r.out.find("18446744073709551615 keys"), std::string::npos) << r.out;
}

// ---- 7. stdout that cannot be written ----

TEST_F(Hostile, FailedWritesToStdoutAreAnErrorExit) {
  MakeFilter("f.bbf");
  std::vector<std::string> redirects = {">&-"};  // closed: EBADF
  // A full device made here, as /dev/full is (root only).
  if (::mknod(Path("full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) redirects.push_back(">full");
  for (const std::string& to : redirects) {
    for (const std::string cmd : {"stats f.bbf", "stats f.bbf --format json", "params --n 1000 --fpr 0.01", "targets",
                                  "--help", "build --help", "query f.bbf --keys three.txt",
                                  "query f.bbf --keys three.txt --output count", "table --layout classic --mn 2:3"}) {
      const Result r = ExpectFailure(cmd, "cannot write to standard output", "", to);
      EXPECT_EQ(r.status, 1) << cmd << " " << to;
    }
  }
}

// ---- 7. A filter file that shrinks while the CLI holds it ----

TEST_F(Hostile, FilterTruncatedInPlaceWhileQueriedGivesNoSignal) {
  std::string keys;
  for (int i = 0; i < 20000; ++i) keys += std::to_string(i) + "\n";
  Write("keys.txt", keys);
  ASSERT_EQ(Run("build --layout blocked512 --bytes 1048576 --keys keys.txt -o f.bbf").status, 0);
  ASSERT_EQ(::mkfifo(Path("in").c_str(), 0644), 0);
  // query reads the filter, then waits for keys on stdin (the FIFO).
  const std::string cmd = "cd '" + dir_.string() + "' && timeout 60 '" + BLOCKBLOOM_CLI +
                          "' query f.bbf --output count <in >.out 2>.err";
  int status = -1;
  std::thread runner([&] { status = std::system(cmd.c_str()); });
  {
    std::ofstream feed(Path("in"), std::ios::binary);  // opens when the shell opens the FIFO for reading
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the filter is loaded by now
    ASSERT_EQ(::truncate(Path("f.bbf").c_str(), 4096), 0);        // shrinks under the reader
    feed << keys;
  }
  runner.join();
  ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal: " << status;
  const std::string out = Read(".out"), err = Read(".err");
  if (WEXITSTATUS(status) == 0) {
    EXPECT_EQ(out, "20000\n") << "the answers come from the filter as it was read";
  } else {
    EXPECT_NE(err.find("truncated"), std::string::npos) << err;  // read after the truncation: a message
  }
  // After the truncation: a message naming the offset, not SIGBUS.
  ExpectFailure("query f.bbf --keys keys.txt", "f.bbf: byte 4096: file is truncated");
  ExpectFailure("stats f.bbf", "file is truncated");
}

// ---- 6. One number grammar ----

TEST_F(Hostile, NumbersHaveOneGrammar) {
  const std::string nint = "is not a non-negative integer";
  for (const std::string bad : {"' 5'", "'5 '", "0x10", "-1", "1.5", "''", "1e", "e6", "+5", "1,000", "1.25e1"})
    ExpectFailure("params --fpr 0.01 --n " + bad, nint);
  ExpectFailure("params --fpr 0.01 --n 18446744073709551616", "--n = '18446744073709551616' is out of range");
  ExpectFailure("params --fpr 0.01 --n 1e300", "--n = '1e300' is out of range");
  ExpectFailure("build --layout classic --bytes 64 --seed 18446744073709551616 -o f.bbf",
                "--seed = '18446744073709551616' is out of range: expected 0..18446744073709551615");
  for (const std::string good : {"1e6", "1000000", "1.5e6", "2.50e3"}) {
    const Result r = Run("params --layout classic --fpr 0.01 --n " + good);
    EXPECT_EQ(r.status, 0) << good << ": " << r.err;
  }
  EXPECT_NE(Run("params --layout classic --fpr 0.01 --n 1.5e6").out.find("1500000 keys"), std::string::npos);
  for (const std::string bad : {"' 0.01'", "'0.01 '", "0x1p-7", "inf", "nan", "1e999", "0.01%"})
    ExpectFailure("params --n 1000 --fpr " + bad, "--fpr = ");
  EXPECT_EQ(Run("params --n 1000 --fpr 1e-3").status, 0);
  EXPECT_EQ(Run("params --n 1000 --fpr .001").status, 0);
}

TEST_F(Hostile, UnknownOptionsAreOptionsNotPositionals) {
  Result r = ExpectFailure("params -x", "unknown option -x (expected one of: --format --fpr --layout --n)");
  EXPECT_EQ(r.status, 2);
  ExpectFailure("stats -v f.bbf", "unknown option -v");
  r = ExpectFailure("merge a.bbf b.bbf --out x", "unknown option --out (expected one of: -o)");
  EXPECT_EQ(r.err.find("--o "), std::string::npos) << r.err;
  ExpectFailure("targets --verbose", "unknown option --verbose (this command takes no options)");
}

// ---- 7. JSON for any file name ----

bool ValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t j = 1; j < len; ++j)
      if ((static_cast<unsigned char>(s[i + j]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

TEST_F(Hostile, StatsJsonIsValidForNonUtf8FileNames) {
  MakeFilter("f.bbf");
  const std::string odd = "n\xff\xfe\xc3(\x01q\"\\\xc3\xa9.bbf";  // invalid bytes, a control byte, a quote, é
  fs::copy_file(dir_ / "f.bbf", dir_ / odd);
  // Quoted for the shell: none of these bytes is a single quote.
  const Result r = Run("stats --format json '" + odd + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(ValidUtf8(r.out)) << r.out;
  EXPECT_NE(r.out.find("\"file\": \"n\\ufffd\\ufffd\\ufffd(\\u0001q\\\"\\\\\xc3\xa9.bbf\""), std::string::npos)
      << r.out;
  for (char c : r.out.substr(0, r.out.size() - 1)) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << r.out;
  if (std::system("command -v python3 >/dev/null 2>&1") == 0) {
    Write("doc.json", r.out);
    EXPECT_EQ(std::system(("python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding=\"utf-8\"))' '" +
                           Path("doc.json") + "'")
                              .c_str()),
              0)
        << r.out;
  }
}

// ---- Issue 10: CLI polish ----

TEST_F(Hostile, EveryCommandHelpListsEveryOptionWithItsDefault) {
  const std::vector<std::string> commands = {"demo",  "params", "table", "verify",         "build",          "query",
                                             "stats", "merge",  "fold",  "import-parquet", "export-parquet", "targets",
                                             "version", "garden-build", "garden-query", "garden-stats", "garden-merge",
                                             "import-rocksdb", "export-rocksdb"};
  for (const std::string& cmd : commands) {
    const Result help = Run(cmd + " --help");
    ASSERT_EQ(help.status, 0) << cmd;
    EXPECT_EQ(help.out.rfind("usage: blockbloom " + cmd, 0), 0u) << help.out;
    // The parser's own list of what it accepts.
    const Result bad = Run(cmd + " --no-such-option");
    const size_t at = bad.err.find("expected one of:");
    if (at == std::string::npos) {
      EXPECT_NE(bad.err.find("takes no options"), std::string::npos) << cmd << ": " << bad.err;
      continue;
    }
    std::istringstream list(bad.err.substr(at + 16, bad.err.find(')', at) - at - 16));
    std::string opt;
    while (list >> opt) {
      const size_t line_at = help.out.find("\n  " + opt + " ");
      ASSERT_NE(line_at, std::string::npos) << cmd << " --help does not list " << opt << "\n" << help.out;
      // The option's entry (its line and any continuation lines) says its default.
      size_t end = help.out.find("\n  -", line_at + 1);
      const std::string entry = help.out.substr(line_at, end == std::string::npos ? std::string::npos : end - line_at);
      EXPECT_TRUE(entry.find("default") != std::string::npos || entry.find("required") != std::string::npos)
          << cmd << " " << opt << ": no default in\n" << entry;
    }
  }
  for (const std::string cmd : {"build", "params", "table", "demo", "verify"}) {
    const std::string help = Run(cmd + " --help").out;
    for (Layout l : kAllLayouts) EXPECT_NE(help.find(std::string(LayoutName(l))), std::string::npos) << cmd;
  }
  for (const std::string cmd : {"build", "query"})
    EXPECT_NE(Run(cmd + " --help").out.find("standard input"), std::string::npos) << cmd;
}

TEST_F(Hostile, BuildWarnsWhenOverfilledPastTwiceTheAskedRate) {
  std::string keys;
  for (int i = 0; i < 1000; ++i) keys += std::to_string(i) + "\n";
  Write("keys.txt", keys);
  Result r = Run("build --layout blocked512 --n 100 --fpr 0.01 --keys keys.txt -o f.bbf");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "f.bbf"));
  EXPECT_NE(r.err.find("warning: 1000 keys went into a filter sized for --n 100"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("more than twice the --fpr 0.01"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // A few keys over, still within twice the rate: no warning.
  r = Run("build --layout blocked512 --n 990 --fpr 0.01 --keys keys.txt -o g.bbf");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "");
  r = Run("build --layout blocked512 --n 1000 --fpr 0.01 --keys keys.txt -o h.bbf");
  EXPECT_EQ(r.err, "");
}

TEST_F(Hostile, MessagesSayRangesAndRatesPlainly) {
  Write("keys.txt", "x\n");
  Result r = ExpectFailure("build --layout split256 --bytes 64 --k 3 --keys keys.txt -o f.bbf",
                           "--k = 3 is out of range for layout split256: expected 8");
  EXPECT_EQ(r.err.find("8..8"), std::string::npos) << r.err;
  r = ExpectFailure("build --layout register64 --n 1e6 --fpr 1e-12 --k 1 --keys keys.txt -o f.bbf",
                    "--fpr = 1e-12 is out of reach");
  EXPECT_EQ(r.err.find("0.000000"), std::string::npos) << r.err;
}

TEST_F(Hostile, BenchSaysWhatToRunWhenTheSuitesAreNotBuilt) {
  const fs::path bench = fs::path(BLOCKBLOOM_CLI).parent_path().parent_path() / "bench" / "blockbloom_bench";
  if (fs::exists(bench)) GTEST_SKIP() << "the suites are built here";
  const Result r = ExpectFailure("bench", "the benchmark suites are not built");
  EXPECT_NE(r.err.find("tools/scripts/bench.sh"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-DBLOCKBLOOM_BUILD_BENCH=ON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--target blockbloom_bench"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace blockbloom

#else

TEST(Hostile, NeedsTheBuiltCli) { GTEST_SKIP() << "the CLI is not built (BLOCKBLOOM_BUILD_TOOLS=OFF)"; }

#endif  // BLOCKBLOOM_CLI
