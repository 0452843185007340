#!/usr/bin/env bash
# `efimsim capacity` judges its answer as a benchmark client sees it unless
# told otherwise (issue 33): with no --slo and no --frontend, the SLOs are
# client_ttft_p99_ms=500 and client_tpot_p99_ms=50 with the engine's
# frontend on, and capacity.csv ends with the client columns; with
# --frontend none they are the engine's ttft_p99_ms and tpot_p99_ms and the
# client columns are absent. A small search (8 users at most, 2 rounds).
#
# Usage: capacity_defaults_test.sh PATH/TO/efimsim
set -u
efimsim=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
small=(--documents synthetic --rounds 2 --max-users 8 --policies efim --jobs 1)

check() {  # description, command's status, text, wanted substring
  if [[ $2 -ne 0 || "$3" != *"$4"* ]]; then
    echo "FAIL: $1 (exit $2; wanted '$4' in: $3)"
    failures=$((failures + 1))
  fi
}
refuse() {  # description, text, unwanted substring
  if [[ "$2" == *"$3"* ]]; then
    echo "FAIL: $1 (did not want '$3' in: $2)"
    failures=$((failures + 1))
  fi
}

err=$("$efimsim" capacity "${small[@]}" --out "$work/client" 2>&1 >/dev/null); status=$?
check "default SLOs are the client's" $status "$err" "client_ttft_p99_ms <= 500.0, client_tpot_p99_ms <= 50.0"
header=$(head -1 "$work/client/capacity.csv" 2>/dev/null)
check "default capacity.csv has client columns" 0 "$header" ",client_ttft_p99_ms,client_tpot_p99_ms,client_e2e_p99_ms"
out=$("$efimsim" capacity "${small[@]}" --out "$work/client2" 2>/dev/null)
check "default report says the times are client-side" 0 "$out" "times:    client-side"

err=$("$efimsim" capacity "${small[@]}" --frontend none --out "$work/engine" 2>&1 >/dev/null); status=$?
check "--frontend none: engine SLOs" $status "$err" "1 policy, ttft_p99_ms <= 500.0, tpot_p99_ms <= 50.0"
refuse "--frontend none: no client SLO" "$err" "client_"
refuse "--frontend none: no client columns" "$(head -1 "$work/engine/capacity.csv" 2>/dev/null)" "client_"

# Engine SLOs given explicitly keep the frontend on for the report's columns.
err=$("$efimsim" capacity "${small[@]}" --slo ttft_p99_ms=500 --out "$work/given" 2>&1 >/dev/null); status=$?
check "an engine --slo is kept" $status "$err" ", ttft_p99_ms <= 500.0, up to"
check "an engine --slo keeps client columns" 0 "$(head -1 "$work/given/capacity.csv" 2>/dev/null)" ",client_e2e_p99_ms"

if [[ $failures -gt 0 ]]; then echo "$failures failed"; exit 1; fi
echo "capacity defaults: all passed"
