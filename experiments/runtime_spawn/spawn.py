"""spawn.py: Python's subprocess timed from inside Python, for the runtime_spawn bench.

    python3 spawn.py N PATH

runs subprocess.run([PATH], check=True) once to warm up, then N times, and
prints the mean nanoseconds per run (spawn, exec, wait) on stdout.
"""
import subprocess
import sys
import time


def main():
    if len(sys.argv) != 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit("usage: spawn.py N PATH (N a positive integer)")
    n, path = int(sys.argv[1]), sys.argv[2]
    subprocess.run([path], check=True)
    start = time.perf_counter_ns()
    for _ in range(n):
        subprocess.run([path], check=True)
    print((time.perf_counter_ns() - start) // n)


if __name__ == "__main__":
    main()
