package report

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// levelHeader is the header of the level table; units are in the names.
var levelHeader = []string{
	"users", "requests", "errors", "per-user tok/s p50", "p10", "p90", "aggregate tok/s",
	"TTFT p50 ms", "TTFT p95 ms", "TPOT p50 ms", "stall p95 ms", "meets the criteria",
}

// stallColumn is the index of "stall p95 ms" in levelHeader.
const stallColumn = 10

// levelTable is a series' level table: one row per level, "-" for what was not
// measured; without the stall column when the file records no stall.
func levelTable(s *Series) (header []string, rows [][]string) {
	rows = levelRows(s)
	for _, r := range rows {
		if r[stallColumn] != "-" {
			return levelHeader, rows
		}
	}
	header = append(slices.Clone(levelHeader[:stallColumn]), levelHeader[stallColumn+1:]...)
	for i, r := range rows {
		rows[i] = append(r[:stallColumn:stallColumn], r[stallColumn+1:]...)
	}
	return header, rows
}

// levelRows is a series' level table, every column of levelHeader.
func levelRows(s *Series) [][]string {
	slo := s.SLO()
	var rows [][]string
	for i, l := range s.Endpoint.Levels {
		u := strconv.Itoa(l.Concurrency)
		if s.Short(i) {
			u += " (short)"
		}
		req := strconv.Itoa(l.Requests)
		if n, ok := s.SteadyRequests(i); ok {
			req += " (" + strconv.Itoa(n) + " steady)"
		}
		_, user := userP50(l)
		_, ttft := ttftP95(l)
		meets := "yes"
		if f := Failures(l, slo); len(f) > 0 {
			meets = "no: " + strings.Join(f, ", ")
		}
		rows = append(rows, []string{
			u, req, errorsCell(l),
			cell(user, l.UserTPS.P50), cell(user, l.UserTPS.P10), cell(user, l.UserTPS.P90),
			cell(l.DurationS > 0, l.AggregateTPS),
			cell(ttft, l.TTFTMs.P50), cell(ttft, l.TTFTMs.P95),
			cell(l.TPOTMs != (model.LatencyJSON{}), l.TPOTMs.P50),
			cell(l.StallMs != (model.LatencyJSON{}), l.StallMs.P95),
			meets,
		})
	}
	return rows
}

// errorsCell is "0", or the failed count with the rate and the kinds: "3 (4.55%: http_500 3)".
func errorsCell(l model.ReportLevel) string {
	n := l.Requests - l.Succeeded
	s := strconv.Itoa(n)
	if n <= 0 {
		return s
	}
	kinds := make([]string, 0, len(l.Errors))
	for k := range l.Errors {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		if l.Errors[k] > 0 {
			parts = append(parts, k+" "+strconv.Itoa(l.Errors[k]))
		}
	}
	detail := model.FormatPercent(l.ErrorRate)
	if len(parts) > 0 {
		detail += ": " + strings.Join(parts, ", ")
	}
	return s + " (" + detail + ")"
}

func cell(ok bool, v float64) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// heading names a series for its table: label, endpoint, model, URL, simulated.
func heading(s *Series) []string {
	h := []string{s.Label}
	e := s.Endpoint
	if e.Name != s.Label && !strings.HasSuffix(s.Label, " · "+e.Name) {
		h = append(h, e.Name)
	}
	if e.Model != "" {
		h = append(h, e.Model)
	}
	if e.URL != "" {
		h = append(h, e.URL)
	}
	if e.Simulated {
		h = append(h, "SIMULATED")
	}
	return h
}
