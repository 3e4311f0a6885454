#include "graph/file_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "tests/scratch_dir.h"

namespace graph {
namespace {

TEST(FileUtilTest, AtomicWriteThenReadReturnsTheSameBytes) {
  std::string path = planner_test::ScratchDir() + "/file_util_roundtrip";
  std::string data("a\0b\xff", 4);
  ASSERT_TRUE(WriteFileAtomic(path, data).ok());
  auto back = ReadFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, data);
  unlink(path.c_str());
}

TEST(FileUtilTest, MissingFileErrorNamesThePath) {
  auto r = ReadFile("/nonexistent/dir/model.pb");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/dir/model.pb"), std::string::npos);
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

TEST(FileUtilTest, DirectoryIsNotReadAsAFile) {
  auto r = ReadFile(planner_test::ScratchDir());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a regular file"), std::string::npos);
}

TEST(FileUtilTest, UnwritableDirectoryFailsNamingThePath) {
  Status st = WriteFileAtomic("/nonexistent/dir/out.pb", "x");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/nonexistent/dir/out.pb"), std::string::npos);
}

TEST(FileUtilTest, FailedRenameLeavesNoTemporaryFile) {
  // Renaming a file over a non-empty directory fails after the data is written.
  std::string dir = planner_test::ScratchDir() + "/rename_target";
  ::mkdir(dir.c_str(), 0755);
  ASSERT_TRUE(WriteFileAtomic(dir + "/keep", "x").ok());
  Status st = WriteFileAtomic(dir, "data");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot rename"), std::string::npos) << st.message();
  struct stat s;
  std::string tmp = dir + ".tmp." + std::to_string(::getpid());
  EXPECT_NE(::stat(tmp.c_str(), &s), 0) << "left " << tmp;
}

// A file larger than any memory (an 8 TiB sparse file here: a data set or a
// disk image given where a model goes) is an error naming it; reserving its
// size threw std::bad_alloc, which nothing caught.
TEST(FileUtilTest, AFileLargerThanMemoryIsAnErrorNotAThrow) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator ends the process on an allocation it cannot make";
#endif
  std::ifstream overcommit("/proc/sys/vm/overcommit_memory");
  int mode = 0;
  if (overcommit >> mode && mode == 1) {
    GTEST_SKIP() << "vm.overcommit_memory 1 grants any allocation; reading would not end";
  }
  const std::string path = planner_test::ScratchDir() + "/huge.bin";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  const bool sparse = ::ftruncate(fd, off_t{1} << 43) == 0;
  ::close(fd);
  if (!sparse) GTEST_SKIP() << "this file system holds no 8 TiB sparse file";
  auto r = ReadFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            path + ": 8796093022208 bytes, more than this process can hold");
  ::unlink(path.c_str());
}

TEST(FileUtilTest, DeviceFilesAreRefusedInsteadOfReadForever) {
  auto r = ReadFile("/dev/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "/dev/zero: is not a regular file");
}

// A FIFO without a writer: opening it to read would wait for one forever.
TEST(FileUtilTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = planner_test::ScratchDir() + "/fifo_" + std::to_string(::getpid());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = ReadFile(fifo);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), fifo + ": is not a regular file");
  EXPECT_EQ(CheckRegularFile(fifo).message(), fifo + ": is not a regular file");
  EXPECT_EQ(CheckRegularFile(planner_test::ScratchDir()).message(),
            planner_test::ScratchDir() + ": is not a regular file");
  ::unlink(fifo.c_str());
  EXPECT_EQ(CheckRegularFile(fifo).code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace graph
