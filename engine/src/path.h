// SPDX-License-Identifier: Apache-2.0
// Paths as a careful Unix tool treats them (internal to blockbloom; the CLI
// uses it too). The rules are stated for users in format.h:
//
// Reading: a file is opened with O_NONBLOCK and fstat'ed before anything can
// block, and only a regular file is accepted: a FIFO, socket, device or
// directory is refused at once with one line naming what it is, so nothing
// hangs in open() or read() waiting for a writer.
//
// Writing: the output is written atomically (temporary file beside it, fsync,
// rename) and only over a regular file or a new name. A symbolic link is
// followed: the link's final target is replaced atomically and the link stays
// a link; a dangling link is refused. Devices, FIFOs, sockets and directories
// are refused before anything is written. The temporary file gets the output's
// final mode (an existing file's mode, owner and group where permitted; else
// 0666 less the umask) and is named "<output>.tmp.<pid>.<6 characters>": while
// it exists it is listed for RemovePendingTempFiles() (async-signal-safe, for
// the CLI's handler of the terminating signals), and the next write to the
// same output removes such files whose writer process is dead (kill(pid, 0)
// fails with ESRCH), whatever their timestamp.
//
// A path with a NUL byte is refused (std::invalid_argument) before any system
// call, which would read only the part before it.
#ifndef BLOCKBLOOM_ENGINE_PATH_H_
#define BLOCKBLOOM_ENGINE_PATH_H_

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <span>
#include <string>

namespace blockbloom::detail {

// Throws std::invalid_argument "blockbloom: the path "out\0..." has a NUL
// byte at byte 3: expected a path without NUL bytes ..." if `path` holds one.
void CheckPath(const std::string& path);

// "a FIFO", "a directory", "a socket", "a character device", ... for a mode.
const char* FileKind(mode_t mode);

// Opens `path` for reading if it is a regular file; throws std::runtime_error
// "blockbloom: PATH: is a FIFO: expected a regular file" otherwise (or naming
// the open/stat failure). The returned descriptor is blocking again and
// close-on-exec; `*size` receives the file's size.
int OpenRegularFile(const std::string& path, uint64_t* size);

// Closes a descriptor (from OpenRegularFile) when it goes out of scope.
struct ScopedFd {
  int fd;
  explicit ScopedFd(int d) : fd(d) {}
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { ::close(fd); }
};

// Reads up to `len` bytes at `offset`, retrying short reads and EINTR; returns
// how many were read (fewer only at end of file). Throws on a read error.
uint64_t ReadFull(int fd, void* buf, uint64_t len, uint64_t offset, const std::string& path);

// Writes `parts` to `path` atomically under the rules above. Throws
// std::runtime_error naming the path and the failing step.
void WriteFileAtomic(const std::string& path, std::span<const std::span<const uint8_t>> parts);

// Unlinks every temporary file a WriteFileAtomic in this process is writing.
// Async-signal-safe (only atomics and unlink).
void RemovePendingTempFiles() noexcept;

// The name prefix of this output's temporary files: "<path>.tmp.".
std::string TempPrefix(const std::string& path);

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_ENGINE_PATH_H_
