#!/usr/bin/env python3
"""The reading half of spawnbench_side_by_side.sh: what it takes from each
round's files and the closing table of issue 45's ratios.

  spawnbench_side_by_side.py fastest ROUND.json   # each row's fastest spawn, child faults
  spawnbench_side_by_side.py context ROUND.json   # "KERNEL HOST REVISION"
  spawnbench_side_by_side.py table [--path_mode=published] < ROUNDS
  spawnbench_side_by_side.py --self_test KEPT.txt # the table ROUNDS gives is KEPT's

ROUNDS is the part of a kept run from its first "== round" line on (the
script writes it, then the table from it): each round's spawnlab lines (its
--rows table, then `fastest NAME US` lines), spawnbench's lines and the
reaped spawnbench's.
"""

import json
import re
import sys

# The ratios: (name, spawnlab's numerator and denominator as
# (method, parent), spawnbench's as (binary, size)).
RATIOS = [
    ("fork/vfork", ("fork", "minimal"), ("vfork", "minimal"),
     ("fork", "small"), ("vfork", "small")),
    ("posix_spawn/vfork", ("posix_spawn", "minimal"), ("vfork", "minimal"),
     ("posix_spawn", "small"), ("vfork", "small")),
    ("clone/vfork", ("clone", "minimal"), ("vfork", "minimal"),
     ("clone_vm", "small"), ("vfork", "small")),
    ("vfork-1g-touched/vfork", ("vfork", "1g-touched"), ("vfork", "minimal"),
     ("vfork", "+  1G init"), ("vfork", "small")),
    ("fork-1g-touched/fork", ("fork", "1g-touched"), ("fork", "minimal"),
     ("fork", "+  1G init"), ("fork", "small")),
    ("fork-1g-touched-unplaced/fork", ("fork", "1g-touched-unplaced"), ("fork", "minimal"),
     ("fork", "+  1G init"), ("fork", "small")),
]
# Pairings of statistics: spawnlab's (row median or fastest spawn) against
# spawnbench's (average or minimum). The reaped spawnbench only in like pairs.
PAIRINGS = {"median~avg": ("median", "avg"), "min~min": ("fastest", "min"),
            "median~min": ("median", "min")}
REAPED_PAIRINGS = ["median~avg", "min~min"]
AGREE = 0.10   # within 10%
SPREAD = 1.20  # spawnbench's rounds spread by more than 20%: noted

UNIT_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
GB_SEGMENTS = re.compile(r"/(iterations:\d+|min_time:[0-9.]+|manual_time|real_time)")
ROUND = re.compile(r"^== round (\d+): (spawnlab|spawnbench, reaped|spawnbench)\b")


def number(text):
    """A figure as the tools print it; 0 where it is not one."""
    try:
        return float(text)
    except ValueError:
        return 0.0


def fastest(path):
    """Each row's fastest single spawn over the run (its fastest_us counter:
    spawnlab's minimum, the statistic spawnbench reports), then the median of
    its repetitions' child page faults per spawn, as the reaped spawnbench
    counts them."""
    fast, faults = {}, {}
    with open(path) as f:
        benchmarks = json.load(f)["benchmarks"]
    for b in benchmarks:
        if b.get("run_type") == "iteration" and "fastest_us" in b:
            # Google Benchmark's own segments off (the 1 GiB parents' rows
            # carry /min_time:S).
            name = GB_SEGMENTS.sub("", b["run_name"])
            fast[name] = min(fast.get(name, float("inf")), b["fastest_us"])
            if "child_faults" in b:
                faults.setdefault(name, []).append(b["child_faults"])
    lines = ["fastest %s %s" % (name, us) for name, us in fast.items()]
    lines += ["child_faults %s %.2f" % (name, sorted(f)[len(f) // 2])
              for name, f in faults.items()]
    return lines


def context(path):
    with open(path) as f:
        c = json.load(f).get("context", {})
    return " ".join(c.get(k, "unknown") for k in ("kernel.release", "host.id", "git.revision"))


def split_rounds(lines):
    """{round: {"spawnlab"|"spawnbench"|"spawnbench, reaped": [lines]}}."""
    rounds, section = {}, None
    for line in lines:
        m = ROUND.match(line)
        if m:
            section = rounds.setdefault(int(m.group(1)), {}).setdefault(m.group(2), [])
        elif section is not None:
            section.append(line.rstrip("\n"))
    return rounds


def spawnlab_figures(lines):
    """Row medians in µs (the first line of each name: its --rows table comes
    before the key ratios, whose lines also start with the row's name) and
    fastest spawns."""
    median, fast = {}, {}
    for line in lines:
        f = line.split()
        if len(f) >= 3 and f[0] == "fastest":
            fast[f[1]] = number(f[2])
        elif len(f) >= 3 and f[0].startswith("spawn/") and f[0] not in median:
            median[f[0]] = number(f[1]) * UNIT_US.get(f[2], 1.0)
    return {"median": median, "fastest": fast}


def spawnbench_figures(lines):
    """spawnbench's `NAME SIZE: avg=Nns min=Nns` lines, by (NAME, SIZE)."""
    avg, mn = {}, {}
    for line in lines:
        if ": avg=" not in line:
            continue
        f = line.split()
        rest = line.lstrip(" ")[len(f[0]):].lstrip(" ")
        key = (f[0], rest[:rest.index(":")].rstrip(" "))
        for field in f:
            if field.startswith("avg="):
                avg[key] = number(field[4:].removesuffix("ns"))
            elif field.startswith("min="):
                mn[key] = number(field[4:].removesuffix("ns"))
    return {"avg": avg, "min": mn}


def ratio(a, b):
    # Six significant digits, as the figures the first version passed on.
    return float("%.6g" % (a / b)) if a > 0 and b > 0 else 0.0


def round_ratios(sections):
    """[(name@pairing[(reaped)], spawnlab's ratio, spawnbench's ratio)]."""
    lab = spawnlab_figures(sections.get("spawnlab", []))
    out = []
    for tool, pairings in (("spawnbench", list(PAIRINGS)), ("spawnbench, reaped", REAPED_PAIRINGS)):
        sb = spawnbench_figures(sections.get(tool, []))
        for pairing in pairings:
            lab_stat, sb_stat = PAIRINGS[pairing]

            def row(method_parent):
                method, parent = method_parent
                name = "spawn/method:%s/child:minimal/parent:%s/until:start" % (method, parent)
                return lab[lab_stat].get(name, 0.0)

            for name, ln, ld, sn, sd in RATIOS:
                label = "%s@%s%s" % (name, pairing, "(reaped)" if tool != "spawnbench" else "")
                out.append((label, ratio(row(ln), row(ld)),
                            ratio(sb[sb_stat].get(sn, 0.0), sb[sb_stat].get(sd, 0.0))))
    return out


def median(values):
    v = sorted(values)
    m = len(v)
    return v[(m - 1) // 2] if m % 2 else (v[m // 2 - 1] + v[m // 2]) / 2


def table(lines, path_mode):
    rounds = split_rounds(lines)
    if not rounds:
        raise SystemExit("no '== round N: ...' lines: not a side-by-side run")
    order, lab, sb = [], {}, {}
    for r in sorted(rounds):
        for label, a, b in round_ratios(rounds[r]):
            if label not in lab:
                order.append(label)
            lab.setdefault(label, []).append(a)
            sb.setdefault(label, []).append(b)
    out = [
        "",
        "the issue's ratios, to the child's first instruction, spawnlab against spawnbench "
        "(PATH %s)," % path_mode,
        "each the median over %d rounds (range); agree: within %d%%. Pairings of statistics:"
        % (len(rounds), round(AGREE * 100)),
        "  @median~avg  spawnlab's row medians against spawnbench's averages "
        "(the typical spawn in each)",
        "  @min~min     spawnlab's fastest single spawns against spawnbench's minima "
        "(the best case in each)",
        "  @median~min  spawnlab's medians against spawnbench's minima (the issue's pairing)",
        "  (reaped)     against spawnbench changed in one thing: each child reaped after its "
        "timestamp",
        "Where spawnbench's own rounds spread by more than %d%% (highest over lowest), the note "
        "says so:" % round((SPREAD - 1) * 100),
        "its figure moved more than the tolerance.",
        "%-46s %22s %22s %7s %-3s %s" % ("ratio", "spawnlab", "spawnbench", "", "agree", "note"),
    ]
    for label in order:
        sa, sb_ = median(lab[label]), median(sb[label])
        blo, bhi = min(sb[label]), max(sb[label])
        ag = sa / sb_ if sb_ > 0 else 0.0
        note = ("its rounds spread %.0f%%" % ((bhi / blo - 1) * 100)
                if blo > 0 and bhi / blo > SPREAD else "")
        out.append("%-46s %7.2f (%.2f-%.2f) %7.2f (%.2f-%.2f) %7.2f %-3s %s" % (
            label, sa, min(lab[label]), max(lab[label]), sb_, blo, bhi, ag,
            "yes" if 1 - AGREE <= ag <= 1 + AGREE else "no", note))
    return out


def self_test(kept_path):
    """The table computed from a kept run's rounds is the one it kept."""
    with open(kept_path) as f:
        lines = f.read().split("\n")
    first = next((i for i, line in enumerate(lines) if ROUND.match(line)), None)
    start = next((i for i, line in enumerate(lines) if line.startswith("the issue's ratios")), None)
    mode = re.search(r"PATH (\w+)\)", lines[start]) if start is not None else None
    if first is None or start is None or mode is None:
        raise SystemExit("%s: not a kept side-by-side run" % kept_path)
    want = [""] + lines[start:first - 1]
    got = table(lines[first:], mode.group(1))
    if got != want:
        for i, (g, w) in enumerate(zip(got + [""] * len(want), want + [""] * len(got))):
            if g != w:
                raise SystemExit("line %d differs:\n  kept:     %r\n  computed: %r" % (i, w, g))
    print("ok: %d lines of %s's table recomputed from its rounds" % (len(want), kept_path))


def main(argv):
    usage = __doc__.split("\n\n")[1]
    if len(argv) == 3 and argv[1] == "fastest":
        print("\n".join(fastest(argv[2])))
    elif len(argv) == 3 and argv[1] == "context":
        print(context(argv[2]))
    elif len(argv) in (2, 3) and argv[1] == "table":
        mode = argv[2].removeprefix("--path_mode=") if len(argv) == 3 else "published"
        print("\n".join(table(sys.stdin.read().split("\n"), mode)))
    elif len(argv) == 3 and argv[1] == "--self_test":
        self_test(argv[2])
    else:
        sys.stderr.write("usage:\n%s\n" % usage)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
