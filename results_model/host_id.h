// host_id.h: which machine a run was made on, as an id that tells machines
// apart and that every results file, old or new, carries the makings of.
//
// The id hashes the CPU model and count, the virtualization and the class of
// each long-standing CPU vulnerability the kernel reports (Not affected,
// Mitigation, Vulnerable): two VMs that call themselves "AMD EPYC" on hosts
// that differ in PTI get two ids; a new kernel on one host keeps its id.
//
//   std::string id = spawnlab::HostIdFrom(spawnlab::HostIdentityFromContext(file.context));
//   // "amd-epyc-2cpu-3f09a2"

#ifndef SPAWNLAB_RESULTS_MODEL_HOST_ID_H_
#define SPAWNLAB_RESULTS_MODEL_HOST_ID_H_

#include <map>
#include <string>

namespace spawnlab {

struct HostIdentity {
  std::string cpu_model;       // /proc/cpuinfo's model name
  int cpus = 0;                // online
  std::string virtualization;  // bench/environment.h: "vm (KVM ...)", "uml", "none detected"
  // For each of kHashedVulnerabilities the kernel reports: its class.
  std::map<std::string, std::string> vulnerabilities;
};

// The vulnerabilities whose class is hashed: reported by every kernel since
// 5.x, and telling hosts apart where the CPU model string does not.
inline constexpr const char* kHashedVulnerabilities[] = {"meltdown", "spectre_v1", "spectre_v2",
                                                         "spec_store_bypass", "l1tf", "mds"};

// "Not affected", "Mitigation" or "Vulnerable" from a line of
// /sys/devices/system/cpu/vulnerabilities ("Mitigation: PTI" -> "Mitigation").
std::string VulnerabilityClass(const std::string& status);

// From a results file's context: cpu.model, cpu.online (else num_cpus),
// virtualization and mitigation.<name>. MHz, caches, family/model/stepping,
// microcode and flags are recorded beside them (bench/environment.h) but not
// hashed: results files written before they were recorded could not be filed
// by them.
HostIdentity HostIdentityFromContext(const std::map<std::string, std::string>& context);

// "amd-epyc-2cpu-3f09a2": the model's slug (without the words every model
// has), the CPU count and 24 bits of an FNV-1a hash of the whole identity,
// stable across processes and builds.
std::string HostIdFrom(const HostIdentity& identity);

}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_HOST_ID_H_
