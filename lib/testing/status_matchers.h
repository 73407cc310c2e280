// status_matchers.h: GoogleTest matchers for absl::Status and absl::StatusOr,
// which this Abseil (20220623) does not ship: a failed check prints the
// status, code and message, where ASSERT_TRUE(s.ok()) prints "false".
//
// Example:
//
//   using ::spawnlab::testing::IsOk;
//   using ::spawnlab::testing::StatusIs;
//   ASSERT_THAT(Spawn(...), IsOk());
//   EXPECT_THAT(Open("/nonexistent"), StatusIs(absl::StatusCode::kNotFound));

#ifndef SPAWNLAB_LIB_TESTING_STATUS_MATCHERS_H_
#define SPAWNLAB_LIB_TESTING_STATUS_MATCHERS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace spawnlab {
namespace testing {
namespace internal {

inline const absl::Status& StatusOf(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}

}  // namespace internal

// Matches an OK absl::Status, or an absl::StatusOr that holds a value.
MATCHER(IsOk, negation ? "is not OK" : "is OK") {
  const absl::Status& s = internal::StatusOf(arg);
  if (!s.ok()) *result_listener << "whose status is " << s;
  return s.ok();
}

// Matches a status (or StatusOr's status) with the given code.
MATCHER_P(StatusIs, code,
          std::string(negation ? "has a status code other than " : "has status code ") +
              absl::StatusCodeToString(code)) {
  const absl::Status& s = internal::StatusOf(arg);
  *result_listener << "whose status is " << s;
  return s.code() == code;
}

}  // namespace testing
}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_TESTING_STATUS_MATCHERS_H_
