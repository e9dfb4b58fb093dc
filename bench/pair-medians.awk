# pair-medians.awk: reads bench/pairs' output and prints, for each of the
# two commands, "NAME WALL CPU": the medians of its wall and CPU seconds
# over the pairs (bench/tds-vs-pg.sh, bench/vs-bare-mssqldb.sh).
/^  pair / {
	split($0, side, "|")
	for (i = 1; i <= 2; i++)
		if (match(side[i], /[a-z-]+ +[0-9.]+s wall +[0-9.]+s cpu/)) {
			split(substr(side[i], RSTART, RLENGTH), f, " +")
			sub(/s$/, "", f[2]); sub(/s$/, "", f[4])
			name[i] = f[1]; k = ++cnt[i]; W[i, k] = f[2]; C[i, k] = f[4]
		}
}
function median(a, i, m,   x, j, tmp, h) {
	for (j = 1; j <= m; j++) x[j] = a[i, j] + 0
	for (j = 2; j <= m; j++) { tmp = x[j]; h = j - 1; while (h > 0 && x[h] > tmp) { x[h + 1] = x[h]; h-- } x[h + 1] = tmp }
	return (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
}
END { for (i = 1; i <= 2; i++) print name[i], median(W, i, cnt[i]), median(C, i, cnt[i]) }
