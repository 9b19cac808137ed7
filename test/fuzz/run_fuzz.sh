#!/bin/sh
# run_fuzz.sh FUZZER CORPUS_DIR REGRESSIONS_DIR [SECONDS]: replay every kept
# crasher (one that turns slow again fails too), then fuzz for a fixed budget
# from the committed seed corpus, mutating into a temporary copy. A crash
# leaves its input in the temp dir (printed) to be added to REGRESSIONS_DIR.
# A kept input named known-* is a finding not fixed yet (its README entry says
# which bug): it is replayed and its result printed, but does not fail the run.
# FUZZ_ORACLE_ALL=1 makes fuzz_oracle generate the shapes it otherwise leaves
# out so as not to find known bugs again.
set -eu
fuzzer=$1
corpus=$2
regressions=$3
secs=${FUZZ_SECS:-${4:-60}} # FUZZ_SECS: a longer run than the test command's
name=$(basename "$fuzzer")
for f in "$regressions"/*; do
	[ -f "$f" ] || continue
	case $(basename "$f") in
	README*) continue ;;
	known-*)
		if FUZZ_ORACLE_ALL=1 "$fuzzer" -runs=1 -timeout=30 "$f" >/dev/null 2>&1; then
			echo "known-unfixed $f passes now: rename it (drop known-)"
		else
			echo "known-unfixed $f still fails (not counted)"
		fi
		continue ;;
	esac
	"$fuzzer" -runs=1 -timeout=30 "$f" >/dev/null 2>&1 || { echo "regression $f fails"; "$fuzzer" "$f"; exit 1; }
done
work=$(mktemp -d "/tmp/skops-$name.XXXXXX")
cp "$corpus"/* "$work"/
echo "$name: ${secs}s from $(ls "$corpus" | wc -l) seeds in $work"
if "$fuzzer" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/" "$work" 2>"$work/fuzz.log"; then
	tail -12 "$work/fuzz.log"
	rm -rf "$work"
	exit 0
fi
tail -60 "$work/fuzz.log"
echo "$name: crash input kept in $work (copy it to $regressions)"
exit 1
