#!/usr/bin/env bash
# Runs pod_security.js on each fixture in pod_security_cases/ and checks the
# outcome its header comments ask for:
#   # expect: pass                  exit 0, every pod template "ok"
#   # expect: RULE [RULE...]        exit 1, and exactly these rules named
#   # args: ARGS                    extra arguments (e.g. --allow-hostpath)
#   # expect-text: TEXT             TEXT appears in the output (may repeat)
# Exits 0 when every case is as expected.
set -u
here=$(cd "$(dirname "$0")" && pwd)
failures=0
for f in "$here"/pod_security_cases/*.yaml; do
  name=$(basename "$f")
  expect=$(sed -n 's/^# expect: //p' "$f")
  read -r -a args <<<"$(sed -n 's/^# args: //p' "$f")"
  out=$(node "$here/pod_security.js" "${args[@]}" "$f" 2>&1)
  rc=$?
  got=$(sed -n 's/.*: FAIL \([A-Za-z_]*\): .*/\1/p' <<<"$out" | sort -u | xargs)
  if [[ $expect == pass ]]; then
    want_rc=0 want=""
  else
    want_rc=1 want=$(tr ' ' '\n' <<<"$expect" | sort -u | xargs)
  fi
  problem=""
  [[ $rc == "$want_rc" ]] || problem+=" exit $rc, want $want_rc;"
  [[ $got == "$want" ]] || problem+=" rules [$got], want [$want];"
  while IFS= read -r text; do
    [[ -z $text || $out == *"$text"* ]] || problem+=" no \"$text\" in output;"
  done < <(sed -n 's/^# expect-text: //p' "$f")
  if [[ -z $problem ]]; then
    echo "PASS $name (${want:-ok})"
  else
    echo "FAIL $name:$problem"
    sed 's/^/    /' <<<"$out"
    failures=$((failures + 1))
  fi
done
echo "$failures case(s) not as expected"
[[ $failures == 0 ]]
