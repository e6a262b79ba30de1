#!/usr/bin/env bash
# Prints the figures of the code's shape (scripts/code_metrics.py says which
# and how they are measured), so a restructuring is measured the same way
# before and after; --check DOC fails past the limits in DOC.
# usage: scripts/code-metrics.sh [--list N] [--check DOC]
set -euo pipefail
exec python3 "$(dirname "$0")/code_metrics.py" "$@"
