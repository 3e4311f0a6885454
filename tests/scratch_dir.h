// A scratch directory for the files of one test process, removed when that
// process exits. ctest runs every test case as its own process; files they left
// in the system's temporary directory piled up by the thousand over runs.
#pragma once

#include <ftw.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace planner_test {

// POSIX rather than std::filesystem: pip's LibTorch (libtorch.so) exports
// std::filesystem symbols of its own, and a test linked against it crashed in
// the remove_all it resolved there.
inline int RemoveScratchEntry(const char* path, const struct stat*, int, struct FTW*) {
  return std::remove(path);
}

inline const std::string& ScratchDir() {
  // Never destroyed: the exit handler below reads it after static destructors.
  static const std::string* dir = [] {
    auto* d = new std::string(::testing::TempDir() + "planner_test_" + std::to_string(::getpid()));
    // Every folder on the way, as a TEST_TMPDIR that does not exist yet needs.
    for (size_t slash = d->find('/', 1); slash != std::string::npos;
         slash = d->find('/', slash + 1)) {
      ::mkdir(d->substr(0, slash).c_str(), 0700);
    }
    if (::mkdir(d->c_str(), 0700) != 0 && errno != EEXIST) {
      ADD_FAILURE() << "cannot create the scratch folder " << *d;
    }
    static const pid_t owner = ::getpid();
    std::atexit([] {
      if (::getpid() != owner) return;  // a forked child that exits normally
      ::nftw(ScratchDir().c_str(), RemoveScratchEntry, 16, FTW_DEPTH | FTW_PHYS);
    });
    return d;
  }();
  return *dir;
}

}  // namespace planner_test
