#!/usr/bin/env bash
# The gates of smemsim's GitHub Action (action.yml), runnable anywhere: analyze with
# --fail-on-excess and check of every tracked file matching FILES (git pathspecs, separated
# by spaces), each finding a compiler diagnostic (which the Actions log shows as
# annotations through the problem matcher) and one SARIF file per file and verb under
# SARIF_DIR. Exit 1 when a gate fails, 2 when a file cannot be read (unless
# SKIP_UNREADABLE=true). File names are data: read NUL-separated, passed after `--`.
set -uo pipefail
FILES=${FILES:-'*.cu'}
FAIL_ON_EXCESS=${FAIL_ON_EXCESS:-0.25}
CHECK=${CHECK:-true}
SKIP_UNREADABLE=${SKIP_UNREADABLE:-false}
SARIF_DIR=${SARIF_DIR:-smemsim-sarif}
OPTIONS=${OPTIONS:-}
read -r -a specs <<< "$FILES"
read -r -a extra <<< "$OPTIONS"
mkdir -p "$SARIF_DIR"
status=0
n=0
worst() { if [ "$1" -gt "$status" ]; then status=$1; fi; }
while IFS= read -r -d '' f; do
  n=$((n + 1))
  smemsim analyze --format gcc --fail-on-excess "$FAIL_ON_EXCESS" --sarif "$SARIF_DIR/analyze-$n.sarif" "${extra[@]}" -- "$f"
  code=$?
  if [ "$code" -eq 2 ] && [ "$SKIP_UNREADABLE" = true ]; then
    echo "smemsim: $f: not read (see above); skipped" >&2
    continue
  fi
  worst "$code"
  if [ "$CHECK" = true ] && [ "$code" -ne 2 ]; then
    smemsim check --format gcc --sarif "$SARIF_DIR/check-$n.sarif" "${extra[@]}" -- "$f"
    worst $?
  fi
done < <(git ls-files -z -- "${specs[@]}")
# one log, one run: code scanning takes one run of a tool and category in an upload
parts=("$SARIF_DIR"/analyze-*.sarif "$SARIF_DIR"/check-*.sarif)
present=()
for p in "${parts[@]}"; do [ -f "$p" ] && present+=("$p"); done
python3 -c 'import sys; from smemsim.cli.sarif import merge_files; merge_files(sys.argv[1], sys.argv[2:])' \
  "$SARIF_DIR/smemsim.sarif" "${present[@]}" && rm -f "${present[@]}"
echo "smemsim: $n file(s) checked" >&2
exit "$status"
