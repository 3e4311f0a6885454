// Checks a zip archive's entries against the CRC-32s its central directory
// records. LibTorch's archives (torch::serialize, the search's checkpoints) are
// zip files whose writer records each entry's CRC-32, but whose reader is built
// without checking them: a byte changed on disk in an optimizer moment, the
// random generator's state or a pickled scalar would load silently. Reading
// goes through this file's zlib adapter (data/idx.cc is the other).
//
// Reads the central directory (zip64 too), then each entry's bytes from its
// local header: stored entries are summed as they are, deflated ones inflated
// first. Entries are read in 1 MiB pieces, so the archive is never in memory.
//
// Ownership: none kept. Thread safety: a pure function of the file.
#pragma once

#include <string>

#include "graph/status.h"

namespace data {

// Ok when every entry's bytes give its recorded CRC-32 and size. Otherwise
// InvalidArgument, one line: "PATH: not a zip archive (...)", "PATH: entry 'NAME'
// does not match its CRC-32", "PATH: entry 'NAME' is cut off", or an unknown
// compression method; IoError when the file cannot be read.
graph::Status CheckZipArchive(const std::string& path);

}  // namespace data
