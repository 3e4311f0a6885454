#include "graph/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace graph {

Result<std::string> ReadFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer would wait for one forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return IoError(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  // Only regular files: a FIFO or /dev/zero would never end.
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return IoError(path + ": is not a regular file");
  }
  std::string data;
  char buf[1 << 16];
  try {  // a file larger than memory (a data set given as the model) is said, not thrown
    data.reserve(static_cast<size_t>(st.st_size));
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return IoError(path + ": read failed: " + std::strerror(err));
      }
      if (n == 0) break;
      data.append(buf, static_cast<size_t>(n));
    }
  } catch (const std::exception&) {  // std::bad_alloc, std::length_error
    ::close(fd);
    return Status(StatusCode::kOutOfMemory, path + ": " + std::to_string(st.st_size) +
                                                " bytes, more than this process can hold");
  }
  ::close(fd);
  return data;
}

Status CheckRegularFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return IoError(path + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return IoError(path + ": is not a regular file");
  return Status::Ok();
}

Status WriteFileAtomic(const std::string& path, const std::string& contents) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(path + ": cannot write: " + std::strerror(errno));
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return IoError(path + ": write failed: " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return IoError(path + ": write failed: " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return IoError(path + ": cannot rename into place: " + std::strerror(err));
  }
  // The rename is durable once the directory's entry is: without this a crash
  // soon after could leave the old file (or none) in place of the new one.
  // Best effort: a directory that cannot be opened or synced loses nothing
  // the rename did not already risk.
  const std::string dir = DirName(path);
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return Status::Ok();
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

bool ResolvesInside(const std::string& dir, const std::string& p) {
  char* base = ::realpath(dir.empty() ? "." : dir.c_str(), nullptr);
  char* file = ::realpath((dir + p).c_str(), nullptr);
  bool inside = true;
  if (base && file) {
    const std::string b = std::string(base) + (std::string(base) == "/" ? "" : "/");
    inside = std::string(file).rfind(b, 0) == 0;
  }
  std::free(base);
  std::free(file);
  return inside;
}

bool SafeRelativePath(const std::string& p) {
  if (p.empty() || p[0] == '/') return false;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    if (end - start == 2 && p.compare(start, 2, "..") == 0) return false;
    start = end + 1;
  }
  return true;
}

}  // namespace graph
