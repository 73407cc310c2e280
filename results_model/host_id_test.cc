// host_id_test.cc: machines are told apart by what every results file records.

#include "results_model/host_id.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace {

std::map<std::string, std::string> Context(const std::string& meltdown) {
  return {{"cpu.model", "AMD EPYC"},        {"cpu.online", "2"},
          {"virtualization", "vm (KVM)"},   {"mitigation.meltdown", meltdown},
          {"mitigation.spectre_v2", "Mitigation: Retpolines; IBPB: conditional"}};
}

TEST(HostId, TwoHostsThatShareAModelNameAreToldApartByTheirVulnerabilities) {
  const std::string a = HostIdFrom(HostIdentityFromContext(Context("Not affected")));
  const std::string b = HostIdFrom(HostIdentityFromContext(Context("Mitigation: PTI")));
  EXPECT_NE(a, b);
  EXPECT_TRUE(absl::StartsWith(a, "amd-epyc-2cpu-")) << a;
  EXPECT_TRUE(absl::StartsWith(b, "amd-epyc-2cpu-")) << b;
}

TEST(HostId, ANewKernelsWordingOfAMitigationKeepsTheId) {
  std::map<std::string, std::string> older = Context("Mitigation: PTI");
  std::map<std::string, std::string> newer = older;
  newer["mitigation.spectre_v2"] = "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional";
  newer["mitigation.gather_data_sampling"] = "Not affected";  // a file a newer kernel adds
  newer["mhz_per_cpu"] = "2096";                              // recorded, not hashed
  EXPECT_EQ(HostIdFrom(HostIdentityFromContext(older)), HostIdFrom(HostIdentityFromContext(newer)));
}

TEST(HostId, ModelCpusAndVirtualizationCount) {
  const std::string id = HostIdFrom(HostIdentityFromContext(Context("Not affected")));
  std::map<std::string, std::string> c = Context("Not affected");
  c["cpu.online"] = "4";
  EXPECT_NE(HostIdFrom(HostIdentityFromContext(c)), id);
  c = Context("Not affected");
  c["virtualization"] = "uml";
  EXPECT_NE(HostIdFrom(HostIdentityFromContext(c)), id);
  HostIdentity slugged;
  slugged.cpu_model = "AMD EPYC 7B13 64-Core Processor";
  slugged.cpus = 2;
  EXPECT_TRUE(absl::StartsWith(HostIdFrom(slugged), "amd-epyc-7b13-2cpu-"));
  EXPECT_TRUE(absl::StartsWith(HostIdFrom(HostIdentity{}), "cpu-0cpu-"));
}

TEST(HostId, VulnerabilityClasses) {
  EXPECT_EQ(VulnerabilityClass("Not affected"), "Not affected");
  EXPECT_EQ(VulnerabilityClass("Mitigation: PTI"), "Mitigation");
  EXPECT_EQ(VulnerabilityClass("Vulnerable: Clear CPU buffers attempted, no microcode"),
            "Vulnerable");
  EXPECT_EQ(VulnerabilityClass("Unknown: No mitigations"), "Unknown");
}

}  // namespace
}  // namespace spawnlab
