# marginal.sh, sourced by bench scripts: marginal UNITS FIXED MEDIANS prints
# each command's marginal client CPU per unit (µs) and units per second:
# MEDIANS and FIXED are bench/pair-medians.awk's output for the fixed work
# and for the same commands doing almost no work (the fixed cost of a run:
# the process, its connections, the server's first statements on a new
# session), which is taken off.
marginal() {
	awk -v units="$1" '
		FNR == NR { fw[$1] = $2; fc[$1] = $3; next }
		{ printf "  %s: medians %.2fs wall, %.2fs cpu; with a run of no work (%.2fs wall, %.2fs cpu) taken off: client CPU %.1f µs per unit, %.0f units/s\n", $1, $2, $3, fw[$1], fc[$1], ($3 - fc[$1]) * 1e6 / units, units / ($2 - fw[$1]) }' "$2" "$3"
}
