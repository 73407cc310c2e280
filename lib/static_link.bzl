"""Linking a binary -static, as spawnbench's and lat_proc's parents are.

Under --config=asan/ubsan the code is instrumented and GCC cannot link it
-static: the binary is then dynamic (such a run measures nothing anyway; its
context names the sanitizer).

    load("//lib:static_link.bzl", "STATIC_FEATURES", "STATIC_LINKOPTS")
    cc_binary(name = "x", features = STATIC_FEATURES, linkopts = STATIC_LINKOPTS,
              linkstatic = True, ...)
"""

STATIC_FEATURES = select({
    "//third_party:asan": [],
    "//third_party:ubsan": [],
    "//conditions:default": ["fully_static_link"],
})

STATIC_LINKOPTS = select({
    "//third_party:asan": [],
    "//third_party:ubsan": [],
    "//conditions:default": ["-static"],
})
