// SPDX-License-Identifier: Apache-2.0
// blockbloom: the command-line front end of the library.
//
// Every command's output to stdout is checked: a failed write (a full disk,
// a closed pipe or descriptor) is one line on stderr and exit status 1.
// Every catchable signal whose default action ends the process (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, ..., the real-time signals)
// removes the temporary file of an output being written, then ends the
// process as the signal would. SIGXFSZ is ignored: an output past the file
// size limit (ulimit -f) fails its write() with EFBIG, which is reported in
// one line, and the temporary file is removed.
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "blockbloom/format.h"
#include "blockbloom/targets.h"
#include "blockbloom/layout.h"
#include "tools/cli/args.h"
#include "tools/cli/commands.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**);
  const char* help;
};

constexpr Command kCommands[] = {
    {"demo", blockbloom::cli::Demo, "[--n N] [--fpr P] [--layout L] [--reps R] [--batch B]: build a 10M-key blocked filter, report speed and accuracy per target"},
    {"params", blockbloom::cli::Params, "--n N --fpr P [--layout L] [--format text|csv|json]: size a filter"},
    {"table", blockbloom::cli::Table, "--layout L --mn A:B --k C:D [--n N] [--format text|csv]: rates by bits/key and k"},
    {"verify", blockbloom::cli::Verify, "[--layout L] [--keys N] [--probes N] [--bits-per-key B,B,...] [--streams random,urls] [--confidence C] [--format text|csv]: measured vs model"},
    {"build", blockbloom::cli::Build, "--layout L (--n N --fpr P | --bits-per-key B | --bytes N) [--k K] [--hash xxh3|xxh64|mulx|rocksdb|aes|foldmul] [--seed S] [--keys FILE] [--key-width W] -o FILTER"},
    {"query", blockbloom::cli::Query, "FILTER [--keys FILE] [--key-width W] [--output bits|hits|count]"},
    {"stats", blockbloom::cli::Stats, "FILTER [--format text|json]: parameters, fill, distinct keys estimated from the fill, rate now"},
    {"merge", blockbloom::cli::Merge, "A B -o OUT: union of two compatible filters"},
    {"intersect", blockbloom::cli::Intersect, "A B -o OUT: bitwise AND of two compatible filters (keys of both kept)"},
    {"fold", blockbloom::cli::Fold, "FILTER -o OUT: halve the size (needs an even block count)"},
    {"import-parquet", blockbloom::cli::ImportParquet, "FILE [--bytes N] -o FILTER"},
    {"export-parquet", blockbloom::cli::ExportParquet, "FILTER [--with-header] -o FILE"},
    {"import-rocksdb", blockbloom::cli::ImportRocksdbCmd, "FILE [--block | --sst] -o FILTER: a RocksDB full filter block or an SST's"},
    {"export-rocksdb", blockbloom::cli::ExportRocksdbCmd, "FILTER -o FILE: a RocksDB full filter block (blocked512, hash rocksdb)"},
    {"targets", blockbloom::cli::Targets, "list the compiled SIMD targets and the one in use"},
    {"garden-build", blockbloom::cli::GardenBuild, "--type counting|blocked-counting|count-min (--n N --fpr P | --cells C --k K [--width W] | --blocks B --k K | --eps E [--delta D] | --columns W [--depth D]) [--conservative] [--hash xxh3|xxh64|mulx|rocksdb|aes|foldmul] [--seed S] [--keys FILE] [--key-width W] -o OUT"},
    {"garden-query", blockbloom::cli::GardenQuery, "FILE [--keys FILE] [--key-width W] [--output bits|hits|count|counts]: membership or counts per key"},
    {"garden-stats", blockbloom::cli::GardenStats, "FILE [--format text|json] [--keys FILE --top N]: parameters, fill, saturation, top counts"},
    {"garden-merge", blockbloom::cli::GardenMerge, "A B [C...] [--weight W] -o OUT: merge garden files of one type (refused, with the reason, where undefined)"},
    {"bench", blockbloom::cli::Bench, "[BENCHMARK_FLAGS]: run the Google Benchmark suites (tools/scripts/bench.sh adds the report)"},
    {"version", blockbloom::cli::Version, "(or --version): library version, file format version, SIMD targets compiled in"},
};

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: blockbloom [--target NAME] COMMAND [ARGS]\n"
               "  --target NAME   pin the SIMD target (as BLOCKBLOOM_TARGET does); 'blockbloom targets' lists them\n\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-15s %s\n", c.name, c.help);
  std::fprintf(out, "\n'blockbloom COMMAND --help' lists every option of a command with its default.\n");
}

// The command being run, for messages after it returns.
std::string cmd_name;

// Runs the command line; returns the exit status.
int Run(int argc, char** argv) {
  int i = 1;
  try {
    for (; i < argc; ++i) {
      std::string_view a = argv[i];
      if (a == "--target") {
        if (i + 1 >= argc) throw blockbloom::cli::UsageError("--target needs a value");
        blockbloom::PinTarget(argv[++i]);
      } else if (a.rfind("--target=", 0) == 0) {
        blockbloom::PinTarget(a.substr(9));
      } else if (a == "--version") {
        return blockbloom::cli::Version(0, nullptr);
      } else if (a == "--help" || a == "-h" || a == "help") {
        Usage(stdout);
        return 0;
      } else {
        break;
      }
    }
    if (i >= argc) {
      Usage(stderr);
      return 2;
    }
    cmd_name = argv[i];
    for (const Command& c : kCommands) {
      if (cmd_name != c.name) continue;
      for (int j = i + 1; j < argc; ++j) {
        const std::string_view a = argv[j];
        if (a == "--help" || a == "-h") {
          const std::string help = blockbloom::cli::CommandHelp(c.name);
          if (help.empty()) {
            std::printf("usage: blockbloom %s %s\n", c.name, c.help);
          } else {
            std::fwrite(help.data(), 1, help.size(), stdout);
          }
          return 0;
        }
      }
      return c.run(argc - i - 1, argv + i + 1);
    }
    throw blockbloom::cli::UsageError("unknown command '" + cmd_name + "' (try 'blockbloom --help')");
  } catch (const blockbloom::cli::UsageError& e) {
    std::fprintf(stderr, "blockbloom%s%s: %s\n", cmd_name.empty() ? "" : " ", cmd_name.c_str(), e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // Where the CLI allocates it names the size; this is the last resort.
    std::fprintf(stderr, "blockbloom%s%s: out of memory\n", cmd_name.empty() ? "" : " ", cmd_name.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (msg.rfind("blockbloom: ", 0) == 0) msg = msg.substr(12);
    std::fprintf(stderr, "blockbloom%s%s: %s\n", cmd_name.empty() ? "" : " ", cmd_name.c_str(), msg.c_str());
    return 1;
  }
}

// Removes a temporary output file, then dies of the signal (the exit status
// a shell expects: 128 + signal number).
extern "C" void OnTerminatingSignal(int sig) {
  blockbloom::RemovePendingTempFiles();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// The asynchronous signals whose default action is to end the process (the
// faults, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, are left
// to their default and to sanitizers; SIGKILL and SIGSTOP cannot be caught).
constexpr int kTerminatingSignals[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF,
#ifdef SIGPOLL
    SIGPOLL,
#endif
#ifdef SIGPWR
    SIGPWR,
#endif
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};

void CatchTerminating(int sig) {
  struct sigaction old {};
  // A signal the caller ignores (nohup, a background job) stays ignored, and
  // one a preloaded library already handles (a profiler's SIGPROF) stays its.
  if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) return;
  struct sigaction sa {};
  sa.sa_handler = OnTerminatingSignal;
  sigemptyset(&sa.sa_mask);
  // Every other terminating signal waits while the handler runs, so two
  // signals in a row still unlink before the process ends.
  for (int other : kTerminatingSignals) sigaddset(&sa.sa_mask, other);
  ::sigaction(sig, &sa, nullptr);
}

void InstallSignalHandlers() {
  for (int sig : kTerminatingSignals) CatchTerminating(sig);
#if defined(SIGRTMIN) && defined(SIGRTMAX)
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) CatchTerminating(sig);
#endif
  // Past `ulimit -f` the kernel sends SIGXFSZ, whose default would kill the
  // process silently and leave the temporary file; ignored, the write fails
  // with EFBIG and WriteFileAtomic reports it and removes the file.
  ::signal(SIGXFSZ, SIG_IGN);
}

// Flushes stdout; false (errno set) if anything written to it was lost.
bool FlushStdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    if (errno == 0) errno = EIO;
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  InstallSignalHandlers();
  const int status = Run(argc, argv);
  // A command that failed has said why already: one line, not two.
  if (!FlushStdout() && status == 0) {
    std::fprintf(stderr, "blockbloom%s%s: cannot write to standard output: %s\n", cmd_name.empty() ? "" : " ",
                 cmd_name.c_str(), std::strerror(errno));
    return 1;
  }
  return status;
}
