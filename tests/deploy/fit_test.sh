#!/usr/bin/env bash
# Renders deploy/k8s/base and every overlay with `kubectl kustomize`, runs
# fit.js over them, and fails if the base does not fit a provider's default
# cluster or the table in docs/kubernetes-fit.md is not the one fit.js makes.
#   tests/deploy/fit_test.sh            check (CTest)
#   tests/deploy/fit_test.sh --update   rewrite the table in the doc
# Exit 77 (skipped) without kubectl, node or tests/deploy/node_modules.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
doc="$src/docs/kubernetes-fit.md"
begin='<!-- fit-table:begin -->'
end='<!-- fit-table:end -->'

command -v kubectl >/dev/null || { echo "SKIP: kubectl is not on PATH"; exit 77; }
command -v node >/dev/null || { echo "SKIP: node is not on PATH"; exit 77; }
[[ -d "$here/node_modules/js-yaml" ]] ||
  { echo "SKIP: no tests/deploy/node_modules (npm ci in tests/deploy)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=()
render() {  # NAME DIR
  if ! kubectl kustomize "$2" >"$tmp/$1.yaml" 2>"$tmp/$1.err"; then
    echo "FAIL: kubectl kustomize $2:"; cat "$tmp/$1.err"; exit 1
  fi
  args+=(--overlay "$1=$tmp/$1.yaml")
}
render base "$src/deploy/k8s/base"
for d in "$src"/deploy/k8s/overlays/*; do
  [[ -f "$d/kustomization.yaml" ]] && render "$(basename "$d")" "$d"
done

status=0
node "$here/fit.js" --types "$here/node_types.json" "${args[@]}" \
  --markdown "$tmp/table.md" || status=1

if [[ "${1:-}" == --update ]]; then
  awk -v b="$begin" -v e="$end" -v t="$tmp/table.md" '
    $0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
    $0 == e { skip = 0 }
    !skip' "$doc" >"$tmp/doc.md"
  cp "$tmp/doc.md" "$doc"
  echo "updated the table in $doc"
  exit $status
fi

awk -v b="$begin" -v e="$end" '$0 == e { on = 0 } on { print } $0 == b { on = 1 }' \
  "$doc" >"$tmp/doc-table.md"
if ! diff -u "$tmp/doc-table.md" "$tmp/table.md"; then
  echo "FAIL: the table in docs/kubernetes-fit.md is not the one fit.js makes;" \
       "run tests/deploy/fit_test.sh --update"
  status=1
fi
exit $status
