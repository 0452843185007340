#!/usr/bin/env bash
# The README's command table is `efimsim --commands-markdown` byte for byte,
# and `efimsim --help` lists every command of it: both come from one table
# (sim/app/command_table.cc), so neither can drift from the other.
# Usage: command_table_test.sh REPO_ROOT EFIMSIM_BINARY
set -uo pipefail
repo=$1
efimsim=$2
readme_table=$(sed -n '/^| command | what it does |$/,/^$/p' "$repo/README.md" | sed '/^$/d')
binary_table=$("$efimsim" --commands-markdown)
passed=0
failed=0
if [[ -n $readme_table && $readme_table == "$binary_table" ]]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: README.md's command table differs from efimsim --commands-markdown:"
  diff <(echo "$readme_table") <(echo "$binary_table")
fi
help=$("$efimsim" --help)
while IFS= read -r name; do
  if [[ $help == *"  $name "* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: efimsim --help does not list '$name'"
  fi
done < <(echo "$binary_table" | sed -n 's/^| `\([^`]*\)` |.*/\1/p')
echo "command table: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
