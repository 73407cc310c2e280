"""spawnlab_bench: a bench binary and its smoke test, in one call.

Usage, in experiments/foo/BUILD.bazel:

    load("//bench:bench.bzl", "spawnlab_bench")

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

A folder with a `report.json` (the experiment's report spec,
analysis/report_spec.h) also gets `:report_spec_test`, which fails when the
spec names a row the bench does not register, or when a claim of the ledger
(analysis/claims.json) names a row of this experiment that it lacks. A spec
with a cross-check names the binary that writes its rows: `crosscheck = ":crosscheck"` (it must take
`--list_rows`).

Every bench is also one entry of the suite (//:suite), which finds the folder
by itself (suite/experiments_index.bzl): `:suite_entry` holds the binaries and
a line saying how to run them, and `suite_seconds = (full, quick)` is the
suite's estimate of a run before any results say better. A cross-check binary
is run by the suite after the bench, under its own target name.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_test")

def spawnlab_bench(name, srcs, deps = [], data = [], expect = [], smoke_timeout_s = 120, crosscheck = None, suite_seconds = (60, 8), visibility = None, **kwargs):
    has_spec = bool(native.glob(["report.json"]))
    embedded = []
    if has_spec:
        # The spec compiled in, so that the bench prints the headline it
        # declares (bench.cc: EmbeddedHeadline): one declaration, two readers.
        native.genrule(
            name = name + "_report_spec_cc",
            srcs = ["report.json"],
            outs = [name + "_report_spec.cc"],
            cmd = "(echo 'extern \"C\" const char kSpawnlabReportSpec[] = R\"spawnlab_spec(';" +
                  " cat $<; echo ')spawnlab_spec\";') > $@",
        )
        native.cc_library(
            name = name + "_report_spec",
            srcs = [name + "_report_spec.cc"],
            alwayslink = True,
        )
        embedded = [":" + name + "_report_spec"]
    cc_binary(
        name = name,
        srcs = srcs,
        data = data,
        deps = deps + ["//bench"] + embedded,
        visibility = visibility,
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
        deps = ["//bench/testing:bench_smoke_test"],
        # A smoke test asserts nothing about speed, but a parallel test could
        # still push a quick run past its timeout on a 2-core machine.
        tags = ["exclusive"],
    )
    # Its README's figures are checked against the reports (//:readmes_and_reports).
    native.exports_files(["README.md"], visibility = ["//:__pkg__"])
    if has_spec:
        # The analysis's own tests may read a real spec.
        native.exports_files(["report.json"], visibility = ["//analysis:__pkg__"])
        cross = [crosscheck] if crosscheck else []
        cc_test(
            name = "report_spec_test",
            size = "small",
            args = [
                "--spec=$(rootpath report.json)",
                "--bench=$(rootpath :%s)" % name,
                "--claims=$(rootpath //analysis:claims.json)",
                "--experiment=" + native.package_name().split("/")[-1],
            ] + ["--crosscheck=$(rootpath %s)" % c for c in cross],
            data = ["report.json", ":" + name, "//analysis:claims.json"] + cross,
            deps = ["//analysis:report_spec_check"],
        )

    # The suite's entry: "NAME<TAB>RUNFILE<TAB>FULL_S<TAB>QUICK_S" per binary.
    experiment = native.package_name().split("/")[-1]
    lines = ["%s\\t$(rootpath :%s)\\t%d\\t%d" % (experiment, name, suite_seconds[0], suite_seconds[1])]
    if crosscheck:
        lines.append("%s\\t$(rootpath %s)\\t%d\\t%d" % (crosscheck.lstrip(":"), crosscheck, suite_seconds[0] // 3, max(3, suite_seconds[1] // 3)))
    native.genrule(
        name = "suite_entry_txt",
        outs = ["suite_entry.txt"],
        srcs = [":" + name] + ([crosscheck] if crosscheck else []),
        cmd = "printf '%s\\n' > $@" % "\\n".join(lines),
        visibility = ["//suite:__pkg__"],
    )
    # `data`, not only `srcs`: the binaries' own runfiles (children, servers)
    # come along, so that a runfiles tree holding the suite holds them too.
    native.filegroup(
        name = "suite_entry",
        srcs = [":suite_entry.txt", ":" + name] + ([crosscheck] if crosscheck else []),
        data = [":" + name] + ([crosscheck] if crosscheck else []),
        visibility = ["//suite:__pkg__"],
    )
