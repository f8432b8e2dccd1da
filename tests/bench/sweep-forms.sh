#!/bin/bash
# sweep-forms.sh: times other stage forms of batched lengths against the
# plans and prints the clear winners as entries of ocl/clf-plan-forms.c,
# the way that table was filled (docs/benchmarks.md, "Forty-second
# session").
#
# usage: tests/bench/sweep-forms.sh BUILD_DIR LIST [WORK_DIR]
#   LIST: forms-bench lines, "N - -" (the plan) and "N VALUES RADICES",
#   e.g. from tests/bench/stage-forms.py
#
# 1. builds every line's programs in shards side by side (SHARDS, one a
#    core by default) for the batch the timing takes, so that the timing
#    finds them in the kernel cache (CLFFT_CACHE_DIR, WORK_DIR/cache
#    unless set);
# 2. times the list ROUNDS times (2) at TOTAL points (2^24) a transform
#    batch, ITERS runs (20) each;
# 3. times each length's fastest form that beat its plan by 3% against
#    the plan in CONFIRM rounds (5) (tests/bench/pick-forms.py);
# 4. checks those forms against the reference transform, forward and
#    inverse (clfft-bench --check);
# 5. prints the forms faster than the plan in every round, by 3% in the
#    median, and within the error bound, as table entries.
# DEADLINE (seconds) cuts each step short so that the whole run ends by
# then, for machines lent by the minute. Files in WORK_DIR (a new
# temporary folder unless given): sweep.txt, confirm.txt, check.txt.
set -u
BUILD=${1:?usage: sweep-forms.sh BUILD_DIR LIST [WORK_DIR]}
LIST=${2:?usage: sweep-forms.sh BUILD_DIR LIST [WORK_DIR]}
WORK=${3:-$(mktemp -d)}
HERE=$(cd "$(dirname "$0")" && pwd)
FB=$BUILD/tests/bench/forms-bench
BENCH=$BUILD/tests/bench/clfft-bench
ROUNDS=${ROUNDS:-2} CONFIRM=${CONFIRM:-5} TOTAL=${TOTAL:-16777216}
ITERS=${ITERS:-20} SHARDS=${SHARDS:-$(nproc)} DEADLINE=${DEADLINE:-0}
export CLFFT_CACHE_DIR=${CLFFT_CACHE_DIR:-$WORK/cache}
mkdir -p "$WORK" || exit 1
if [ ! -x "$FB" ] || [ ! -x "$BENCH" ]; then
  echo "sweep-forms: no $FB or $BENCH (build BUILD_DIR first)" >&2
  exit 1
fi
start=$SECONDS

# the seconds a step may take before DEADLINE, share of what is left
# (timeout 0 waits for ever)
left () {
  [ "$DEADLINE" -gt 0 ] || { echo 0; return; }
  local rest=$((DEADLINE - (SECONDS - start)))
  [ $rest -gt 1 ] && echo $((rest * $1 / 100 + 1)) || echo 1
}

step () {
  echo "sweep-forms: $* ($((SECONDS - start)) s)" >&2
}

step "building $(grep -c . "$LIST") forms' programs in $SHARDS shards"
limit=$(left 40)
for k in $(seq 0 $((SHARDS - 1))); do
  timeout "$limit" "$FB" --compile "$k/$SHARDS" "$TOTAL" < "$LIST" \
      > /dev/null 2>&1 &
done
wait

step "timing the list, $ROUNDS rounds"
timeout "$(left 50)" "$FB" "$TOTAL" "$ROUNDS" "$ITERS" < "$LIST" \
    > "$WORK/sweep.txt"
python3 "$HERE/pick-forms.py" "$WORK/sweep.txt" > "$WORK/candidates.txt"

step "timing $(grep -vc ' - -$' "$WORK/candidates.txt") candidates" \
    "against their plans, $CONFIRM rounds"
timeout "$(left 60)" "$FB" "$TOTAL" "$CONFIRM" "$ITERS" \
    < "$WORK/candidates.txt" > "$WORK/confirm.txt"

step "checking them forward and inverse"
: > "$WORK/check.txt"
python3 "$HERE/pick-forms.py" --winners "$WORK/confirm.txt" |
    while read -r n values radices; do
      for dir in "" --inverse; do
        echo "$n $values $radices $dir $(CLFFT_THREAD_VALUES=$values \
            CLFFT_RADICES=$radices timeout "$(left 90)" "$BENCH" $dir \
            --check "$n" 1 3 2 2>&1 | tail -n 1)" >> "$WORK/check.txt"
      done
    done

step "done; work files in $WORK"
python3 "$HERE/pick-forms.py" --taken "$WORK/confirm.txt" "$WORK/check.txt"
