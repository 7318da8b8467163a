package settings

// Nearest is the candidate nearest to name (a mistyped flag or config key), "" when
// none is within edits: of candidates equally near, one with name's first letter wins,
// then the first by name, so that the hint does not depend on their order.
func Nearest(name string, candidates []string, within int) string {
	best, bestD := "", within+1
	for _, c := range candidates {
		d := editDistance(name, c)
		if d < bestD || (d == bestD && nearer(name, c, best)) {
			best, bestD = c, d
		}
	}
	return best
}

// nearer reports whether a is a better hint for name than b at the same distance: a
// shares name's first letter and b does not, or both or neither do and a sorts first.
func nearer(name, a, b string) bool {
	first := func(f string) bool { return f != "" && name != "" && f[0] == name[0] }
	sa, sb := first(a), first(b)
	if sa != sb {
		return sa
	}
	return b == "" || a < b
}

// editDistance is the optimal-string-alignment distance of a and b: Levenshtein's
// insertions, deletions and substitutions plus the swap of two adjacent letters, each
// one edit ("hodl" is 1 from "hold", not 2).
func editDistance(a, b string) int {
	pprev := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pprev[j-2]+1)
			}
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[len(b)]
}
