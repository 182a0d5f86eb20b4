#!/bin/bash
# run every repro in its own interpreter; print how each ended
for f in "$(dirname "$0")"/r*.py; do
	for perturb in "" 165; do
		out=$(MALLOC_PERTURB_=$perturb timeout 30 python3 -X faulthandler "$f" 2>&1)
		rc=$?
		echo "=== $(basename $f) MALLOC_PERTURB_=${perturb:-unset}: exit $rc"
		echo "$out" | grep -v '^  File\|^Thread\|^$\|most recent call\|^Current thread\|Extension modules' | tail -4
	done
done
