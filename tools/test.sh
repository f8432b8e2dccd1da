#!/bin/bash
# test.sh: installs what is missing, builds into build/ and runs every test.
# Ends with one line "N passed, N failed" (tests counted by meson).
set -u
cd "$(dirname "$0")/.."
./tools/install-deps.sh || exit 1
BUILD=${BUILD:-build}
if [ -d "$BUILD" ]; then
  meson setup --reconfigure "$BUILD" || exit 1
else
  meson setup "$BUILD" || exit 1
fi
ninja -C "$BUILD" || exit 1

# Kernel binaries are cached in the build tree (tests set CLFFT_CACHE_DIR),
# or on PoCL in PoCL's own cache, so a second run skips the OpenCL compiler. Two tests at a time: on a cold
# cache the core sweep keeps one core compiling for about 15 minutes while
# the element tests run beside it (TEST_PROCESSES overrides).
meson test -C "$BUILD" --print-errorlogs --num-processes "${TEST_PROCESSES:-2}" "$@"
status=$?

python3 - "$BUILD/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line)
        if r["result"] in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r["result"] == "SKIP":
            skipped += 1
        else:
            failed += 1
print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
PY
exit $status
