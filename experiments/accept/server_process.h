// server_process.h: run the accept experiment's server (server.cc) and stop it.
//
// Start launches it on a free loopback port and waits for its "listening"
// line; a server that cannot start gives Unimplemented (the kernel lacks the
// mechanism), InvalidArgument (bad flags, port in use) or Internal, each with
// what the server said. Stop sends SIGTERM, reaps it and keeps the events it
// counted (its "stats" line). A server never outlives its ServerProcess, nor
// this process, and is killed after 30 minutes in any case.
//
//   absl::StatusOr<ServerProcess> s = ServerProcess::Start(binary, "reuseport", "epoll", 2);
//   RunLoad({.port = s->port(), ...});
//   s->Stop();

#ifndef SPAWNLAB_EXPERIMENTS_ACCEPT_SERVER_PROCESS_H_
#define SPAWNLAB_EXPERIMENTS_ACCEPT_SERVER_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/command.h"

namespace spawnlab {

class ServerProcess {
 public:
  // `extra_flags` go to the server as they are (timeouts, --max_connections).
  static absl::StatusOr<ServerProcess> Start(const std::string& binary, const std::string& model,
                                             const std::string& mechanism, int workers,
                                             int port = 0,
                                             const std::vector<std::string>& extra_flags = {});
  int port() const { return port_; }
  // The server's children: its workers (and, for proxy, the relay).
  const std::vector<pid_t>& children() const { return children_; }
  // SIGTERM, then reap; the server's exit status.
  absl::StatusOr<ExitStatus> Stop();
  // After Stop: the server's counters by name (empty if it printed none).
  const std::map<std::string, int64_t>& stats() const { return stats_; }

 private:
  ServerProcess(Process p) : process_(std::move(p)) {}
  Process process_;
  int port_ = 0;
  std::vector<pid_t> children_;
  std::map<std::string, int64_t> stats_;
  bool stopped_ = false;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_EXPERIMENTS_ACCEPT_SERVER_PROCESS_H_
