"""spawnlab_bench: a bench binary and its smoke test, in one call.

Usage, in experiments/foo/BUILD.bazel:

    load("//lib:bench.bzl", "spawnlab_bench")

    spawnlab_bench(
        name = "bench",
        srcs = ["bench.cc"],
        data = ["//lib/children:minimal_child"],
        expect = ["foo/op:bar/.*"],
    )

gives `:bench` (bazel run //experiments/foo:bench) and `:bench_smoke_test`,
which runs it with --quick, validates its JSON, and checks that some row's name
matches each regular expression in `expect` and that one such row was measured.
For rows that need a feature, write "REGEX if probe.KEY" (a key of the
context's probe record, lib/probes.h): measured where the probe passed,
skipped where it failed.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_test")

def spawnlab_bench(name, srcs, deps = [], data = [], expect = [], smoke_timeout_s = 120, visibility = None, **kwargs):
    cc_binary(
        name = name,
        srcs = srcs,
        data = data,
        deps = deps + ["//lib:bench"],
        # The suite (//:suite) runs every bench.
        visibility = (visibility or []) + ["//suite:__pkg__"],
        **kwargs
    )
    cc_test(
        name = name + "_smoke_test",
        size = "medium",
        args = [
            "$(rootpath :%s)" % name,
            "--timeout_s=%d" % smoke_timeout_s,
        ] + ["'--expect=%s'" % e for e in expect],
        data = [":" + name],
        deps = ["//lib/testing:bench_smoke_test"],
        # A smoke test asserts nothing about speed, but a parallel test could
        # still push a quick run past its timeout on a 2-core machine.
        tags = ["exclusive"],
    )
