// uml_pid1.cc: what PID 1 inside User-Mode Linux needs and a minimal Debian
// (debootstrap --variant=minbase, a debian:12 container) lacks: neither `ip`,
// `ifconfig` nor `poweroff` is there.
//
//   uml_pid1 lo-up      bring the loopback interface up (SIOCSIFFLAGS)
//   uml_pid1 poweroff   sync, then power the machine off (reboot(2))
//
// Exit status 0 on success, 1 with the reason on stderr, 2 for a usage error.

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace {

int Fail(const char* what) {
  std::fprintf(stderr, "uml_pid1: %s: %s\n", what, strerror(errno));
  return 1;
}

int LoopbackUp() {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Fail("socket");
  struct ifreq ifr = {};
  strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) return Fail("SIOCGIFFLAGS lo");
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0) return Fail("SIOCSIFFLAGS lo");
  close(fd);
  return 0;
}

int PowerOff() {
  sync();
  reboot(RB_POWER_OFF);
  return Fail("reboot(RB_POWER_OFF)");  // only if it returned
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc == 2 ? argv[1] : "";
  if (what == "lo-up") return LoopbackUp();
  if (what == "poweroff") return PowerOff();
  std::fprintf(stderr, "usage: uml_pid1 lo-up|poweroff\n");
  return 2;
}
