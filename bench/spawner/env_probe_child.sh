#!/bin/sh
# env_probe_child.sh CLOCK_FD: a spawner's child for driver_test that tells
# whether it was given the spawner's environment. It writes 8 bytes to CLOCK_FD
# (where a real child writes its clock reading) and exits 0 only if
# SPAWNLAB_ENV_PROBE, which the test sets in the spawner's environment, is not
# in its own.
printf 'spawnlab' >&"$1"
[ -z "${SPAWNLAB_ENV_PROBE+set}" ]
