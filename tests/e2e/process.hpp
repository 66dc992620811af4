// The sagemaker-emulator binary (SMEMU_BINARY) as a child process, with its stdout (and
// optionally stderr) captured, for tests of the executable: signals, restarts, crashes.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace smemu::testing {

// A child process running the binary with its stdout (and optionally stderr) captured. The binary
// runs with --check-responses: every answer it gives is checked against the service model.
class Process {
 public:
  // With `merge_stderr` false, stderr is discarded and output() holds stdout alone.
  // `in_child` runs in the child before exec (to change its user, say). A `launcher` (a command
  // and its arguments, such as nsenter's) is run with the binary and `args` after it.
  explicit Process(std::vector<std::string> args, bool merge_stderr = true,
                   const std::function<void()>& in_child = {},
                   std::vector<std::string> launcher = {}) {
    int out[2];
    EXPECT_EQ(pipe(out), 0);
    pid_ = fork();
    if (pid_ == 0) {
      if (in_child) in_child();
      dup2(out[1], STDOUT_FILENO);
      dup2(merge_stderr ? out[1] : open("/dev/null", O_WRONLY), STDERR_FILENO);
      close(out[0]);
      std::vector<char*> argv;
      static std::string binary = SMEMU_BINARY;
      for (auto& word : launcher) argv.push_back(word.data());
      argv.push_back(binary.data());
      static std::string check_responses = "--check-responses";
      argv.push_back(check_responses.data());
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      if (!launcher.empty()) execvp(argv[0], argv.data());
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    out_ = out[0];
  }
  ~Process() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(out_);
  }

  // Reads output until a line starts with `prefix` or `timeout` passes; returns the rest of it.
  std::string WaitFor(const std::string& prefix, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      std::string::size_type line_end;
      while ((line_end = output_.find('\n', scanned_)) != std::string::npos) {
        const std::string line = output_.substr(scanned_, line_end - scanned_);
        scanned_ = line_end + 1;
        if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
      }
      ReadSome(std::chrono::milliseconds(50));
    }
    return "";
  }

  // Waits for the process to exit; returns its exit status (or -1 on timeout).
  int Wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        while (ReadSome(std::chrono::milliseconds(10))) {
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      ReadSome(std::chrono::milliseconds(20));
    }
    return -1;
  }

  void Signal(int signal) { kill(pid_, signal); }
  pid_t pid() const { return pid_; }
  const std::string& output() const { return output_; }

 private:
  bool ReadSome(std::chrono::milliseconds timeout) {
    pollfd fd{out_, POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char buffer[4096];
    const ssize_t n = read(out_, buffer, sizeof buffer);
    if (n <= 0) return false;
    output_.append(buffer, static_cast<size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int out_ = -1;
  bool reaped_ = false;
  std::string output_;
  std::string::size_type scanned_ = 0;
};

// Waits for the server's listening line and returns its port; 0 (and a test failure showing what
// it printed) if none came.
inline unsigned short ListeningPort(Process& server,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const std::string port =
      server.WaitFor("sagemaker-emulator listening on http://127.0.0.1:", timeout);
  EXPECT_FALSE(port.empty()) << server.output();
  return port.empty() ? 0 : static_cast<unsigned short>(std::stoi(port));
}

}  // namespace smemu::testing
