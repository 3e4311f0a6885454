// Child processes for the fleet's integration tests: start `planner` commands
// in the background with their output in a file, signal them, wait for them,
// and kill whatever is left when the test ends (no process outlives a test).
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>

namespace planner::testing {

class Processes {
 public:
  ~Processes() {
    for (pid_t pid : running_) {
      ::kill(pid, SIGCONT);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }

  // Runs `command` through /bin/sh with stdout and stderr in `log`.
  pid_t Start(const std::string& command, const std::string& log) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const std::string line = "exec " + command + " >" + log + " 2>&1";
      ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    running_.insert(pid);
    return pid;
  }

  // The exit code, or -1 when it did not exit normally within `timeout_s`
  // (it is then still running and killed at the end).
  int Wait(pid_t pid, double timeout_s) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        running_.erase(pid);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

  void Signal(pid_t pid, int sig) { ::kill(pid, sig); }

 private:
  std::set<pid_t> running_;
};

// A TCP port on loopback that nothing listens on right now.
inline int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  const int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

// Connects to `port` on loopback and writes `bytes` raw (not ZeroMQ), then hangs up.
inline void SendRawBytes(int port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    (void)!::write(fd, bytes.data(), bytes.size());
  }
  ::close(fd);
}

}  // namespace planner::testing
