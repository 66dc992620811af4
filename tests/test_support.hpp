// Helpers shared by the unit and end-to-end tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

namespace smemu::testing {

// A fresh path in the temp directory, removed (with its -wal/-shm files) when the object dies.
class TempDbPath {
 public:
  TempDbPath() {
    std::random_device random;
    path_ = (std::filesystem::temp_directory_path() /
             ("smemu-test-" + std::to_string(getpid()) + "-" + std::to_string(random()) + ".db"))
                .string();
  }
  ~TempDbPath() {
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::error_code ignored;
      std::filesystem::remove(path_ + suffix, ignored);
    }
  }
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

// A fresh empty folder under the temp directory, removed with everything in it.
class TempDir {
 public:
  TempDir() : path_(TempDbPath().str() + ".d") { std::filesystem::create_directory(path_); }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace smemu::testing
