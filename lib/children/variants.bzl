"""child_variants: one program built several ways, one cc_binary per variant.

The pattern of tcmalloc's build variants: an experiment that asks what a way of
building costs (linking, stripping, optimisation) lists the variants as data,
and Bazel builds each; the bench gets them as `data` and finds them in its
runfiles. Nothing is compiled at run time.

Usage, in experiments/foo/BUILD.bazel:

    load("//lib/children:variants.bzl", "child_variants")

    child_variants(
        name = "child",
        src = "//lib/children:child.cc",
        variants = {
            "static": {"linkopts": ["-static"], "features": ["fully_static_link"]},
            "dynamic": {},
        },
    )

gives :child_static and :child_dynamic. Each variant is a dict with any of
copts, linkopts, deps and features. Sanitizers are always off, as for every
child (see //lib/children:BUILD.bazel).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")

_NO_SANITIZERS = ["-fno-sanitize=all"]

def child_variants(name, src, variants, visibility = None):
    """Declares name_<variant> for each variant; returns their labels."""
    labels = []
    for variant, attrs in variants.items():
        target = "%s_%s" % (name, variant)
        cc_binary(
            name = target,
            srcs = [src],
            copts = _NO_SANITIZERS + attrs.get("copts", []),
            linkopts = _NO_SANITIZERS + attrs.get("linkopts", []),
            deps = attrs.get("deps", []),
            features = attrs.get("features", []),
            linkstatic = True,
            visibility = visibility,
        )
        labels.append(":" + target)
    return labels
