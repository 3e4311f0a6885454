// A scratch directory for the files of one test process, removed when that
// process exits. ctest runs every test case as its own process; files they left
// in the system's temporary directory piled up by the thousand over runs.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace planner_test {

inline const std::string& ScratchDir() {
  // Never destroyed: the exit handler below reads it after static destructors.
  static const std::string* dir = [] {
    auto* d = new std::string(::testing::TempDir() + "planner_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(*d);
    static const pid_t owner = ::getpid();
    std::atexit([] {
      if (::getpid() != owner) return;  // a forked child that exits normally
      std::error_code ec;
      std::filesystem::remove_all(ScratchDir(), ec);
    });
    return d;
  }();
  return *dir;
}

}  // namespace planner_test
