"""Local stand-ins for the rule repositories Bazel 4.2.3 asks for.

Debian's bazel-bootstrap builds offline, but some of its built-in packages load
`@rules_cc//cc:defs.bzl` and `@rules_java//java:defs.bzl`, and `bazel test`
wires `@remote_coverage_tools` into every test action. None of these can be
downloaded here (no network but Debian and npm), and Debian's own
bazel-rules-cc is too new for 4.2.3. So each is generated on the spot: a few
lines that re-export the native rules under the expected names.

Usage, in WORKSPACE:

    load("//third_party:offline_repos.bzl", "spawnlab_offline_repositories")
    spawnlab_offline_repositories()
"""

_RULES_CC_DEFS = """\
\"\"\"Shim: re-exports Bazel's native C++ rules (see //third_party:offline_repos.bzl).\"\"\"

def cc_binary(**kwargs):
    native.cc_binary(**kwargs)

def cc_import(**kwargs):
    native.cc_import(**kwargs)

def cc_library(**kwargs):
    native.cc_library(**kwargs)

def cc_proto_library(**kwargs):
    native.cc_proto_library(**kwargs)

def cc_test(**kwargs):
    native.cc_test(**kwargs)

def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)

def objc_library(**kwargs):
    native.objc_library(**kwargs)

def fdo_profile(**kwargs):
    native.fdo_profile(**kwargs)

def fdo_prefetch_hints(**kwargs):
    native.fdo_prefetch_hints(**kwargs)
"""

_RULES_JAVA_DEFS = """\
\"\"\"Shim: re-exports Bazel's native Java rules (see //third_party:offline_repos.bzl).\"\"\"

def java_binary(**kwargs):
    native.java_binary(**kwargs)

def java_import(**kwargs):
    native.java_import(**kwargs)

def java_library(**kwargs):
    native.java_library(**kwargs)

def java_lite_proto_library(**kwargs):
    native.java_lite_proto_library(**kwargs)

def java_proto_library(**kwargs):
    native.java_proto_library(**kwargs)

def java_test(**kwargs):
    native.java_test(**kwargs)

def java_plugin(**kwargs):
    native.java_plugin(**kwargs)

def java_runtime(**kwargs):
    native.java_runtime(**kwargs)

def java_toolchain(**kwargs):
    native.java_toolchain(**kwargs)

def java_package_configuration(**kwargs):
    native.java_package_configuration(**kwargs)
"""

_COVERAGE_BUILD = """\
# Shim: coverage is not collected offline; these targets only satisfy the
# implicit dependencies that `bazel test` adds to every test.
package(default_visibility = ["//visibility:public"])

sh_binary(
    name = "coverage_report_generator",
    srcs = ["unavailable.sh"],
)

sh_binary(
    name = "lcov_merger",
    srcs = ["unavailable.sh"],
)
"""

_UNAVAILABLE_SH = """\
#!/bin/sh
echo "spawnlab: coverage tools are not available offline" >&2
exit 1
"""

def _shim_repository_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    for path, content in ctx.attr.files.items():
        ctx.file(path, content, executable = path.endswith(".sh"))

_shim_repository = repository_rule(
    implementation = _shim_repository_impl,
    attrs = {"files": attr.string_dict(mandatory = True)},
    local = True,
)

def spawnlab_offline_repositories():
    """Declares rules_cc, rules_java and remote_coverage_tools as local shims."""
    _shim_repository(
        name = "rules_cc",
        files = {
            "BUILD.bazel": "",
            "cc/BUILD.bazel": "exports_files([\"defs.bzl\"])\n",
            "cc/defs.bzl": _RULES_CC_DEFS,
        },
    )
    _shim_repository(
        name = "rules_java",
        files = {
            "BUILD.bazel": "",
            "java/BUILD.bazel": "exports_files([\"defs.bzl\"])\n",
            "java/defs.bzl": _RULES_JAVA_DEFS,
        },
    )
    _shim_repository(
        name = "remote_coverage_tools",
        files = {
            "BUILD.bazel": _COVERAGE_BUILD,
            "unavailable.sh": _UNAVAILABLE_SH,
        },
    )
