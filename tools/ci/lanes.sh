# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the stages that run many independent programs (tools/ci/sanitize.sh,
# tools/ci/fuzz.sh): `run_lanes LOGDIR NAME...` runs `lane_job NAME` (a function
# the caller defines and exports, with the variables it reads) for each NAME,
# as many at a time as there are cores (run one after the other, they left
# CI's second core idle), each into LOGDIR/NAME.log; then prints the logs in
# the order given, each under "-- NAME", and returns 1 if any job failed (its
# exit status named). tools/ci/compile-matrix.sh runs its compiles the same way
# but keeps only the logs of failures (111 compiles, nearly all of them silent).
run_lanes() {
  local logs=$1 name failed=0
  shift
  mkdir -p "$logs"
  rm -f "$logs"/*.log "$logs"/*.failed
  export LANE_LOGS=$logs
  # shellcheck disable=SC2016
  printf '%s\0' "$@" | xargs -0 -P "$(nproc)" -I{} \
    bash -c 'lane_job "$1" >"$LANE_LOGS/$1.log" 2>&1 || echo "$?" >"$LANE_LOGS/$1.failed"' _ {} || true
  for name in "$@"; do
    echo "-- $name"
    cat "$logs/$name.log"
    if [[ -f $logs/$name.failed ]]; then
      echo "FAILED: $name (exit status $(cat "$logs/$name.failed"))" >&2
      failed=1
    fi
  done
  return "$failed"
}
