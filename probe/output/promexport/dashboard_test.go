package promexport

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// dashboardPath is the Grafana dashboard shipped in the repository.
const dashboardPath = "../../../deploy/grafana/tpsmon.json"

// registered is every series name the exporter exposes (histograms with their _bucket,
// _sum and _count series), once every metric has a child.
func registered(t *testing.T) map[string]bool {
	t.Helper()
	x := New()
	e, err := engine.New(engine.Config{}, []engine.Part{{Endpoint: client.Endpoint{Name: "a", Model: "m"}, Control: nopCtl{}}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	x.Observe(e, &probe.Event{Sample: &model.Sample{Send: t0, First: t0.Add(time.Second), Last: t0.Add(2 * time.Second), Tokens: 9}})
	x.Observe(e, &probe.Event{Sample: &model.Sample{Err: model.ErrTimeout}})
	x.Observe(e, &probe.Event{Tick: &model.Tick{Target: 1}})
	mfs, err := x.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
		if mf.GetType() == dto.MetricType_HISTOGRAM {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[mf.GetName()+s] = true
			}
		}
	}
	if len(mfs) != 8 {
		t.Fatalf("%d metric families gathered, want 8", len(mfs))
	}
	return names
}

var (
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent     = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*\s*\(?`)
	promVariables = regexp.MustCompile(`\$\{?[A-Za-z_][A-Za-z0-9_]*\}?`)
	promNumbers   = regexp.MustCompile(`\b[0-9][0-9.]*[a-z]*`) // 0.95, 5m, 1e3
	promBy        = regexp.MustCompile(`\bby\s*\(([^)]*)\)`)
	promKeywords  = map[string]bool{"by": true, "without": true, "and": true, "or": true, "unless": true, "on": true,
		"ignoring": true, "group_left": true, "group_right": true, "bool": true, "offset": true, "inf": true, "nan": true}
)

// metricNames are the metric names a PromQL expression selects: identifiers outside
// label matchers, ranges and groupings that are neither functions nor keywords.
func metricNames(expr string) []string {
	s := promStrings.ReplaceAllString(expr, `""`)
	s = promMatchers.ReplaceAllString(s, " ")
	s = promRanges.ReplaceAllString(s, " ")
	s = promGrouping.ReplaceAllString(s, " ")
	s = promVariables.ReplaceAllString(s, " ")
	s = promNumbers.ReplaceAllString(s, " ")
	var out []string
	for _, id := range promIdent.FindAllString(s, -1) {
		if strings.HasSuffix(id, "(") || promKeywords[strings.ToLower(strings.TrimSpace(id))] {
			continue // a function call, or a keyword
		}
		out = append(out, strings.TrimSpace(id))
	}
	return out
}

func TestMetricNamesOfPromQL(t *testing.T) {
	got := metricNames(`histogram_quantile(0.5, sum by (le, endpoint) (rate(tpsmon_x_bucket{endpoint=~"$endpoint", kind="a b"}[$__rate_interval]))) or sum without (model) (tpsmon_y) / on (endpoint) tpsmon_z offset 5m`)
	if strings.Join(got, ",") != "tpsmon_x_bucket,tpsmon_y,tpsmon_z" {
		t.Errorf("metricNames = %v", got)
	}
}

// dashboard is the part of a Grafana dashboard the test reads.
type dashboard struct {
	Title  string `json:"title"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

func TestDashboardNamesOnlyExportedMetrics(t *testing.T) {
	data, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	names := registered(t)
	used := map[string]bool{}
	check := func(where, expr string) {
		ms := metricNames(expr)
		if len(ms) == 0 {
			t.Errorf("%s: no metric in %q", where, expr)
		}
		for _, m := range ms {
			if !names[m] {
				t.Errorf("%s: %q names %s, which the exporter does not register", where, expr, m)
			}
			used[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_sum"), "_count")] = true
		}
	}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			check("panel "+p.Title, tg.Expr)
			for _, by := range promBy.FindAllStringSubmatch(tg.Expr, -1) {
				if !strings.Contains(by[1], "endpoint") {
					t.Errorf("panel %q: %q does not sum by endpoint", p.Title, tg.Expr)
				}
			}
			if !strings.Contains(tg.Expr, "sum by") {
				t.Errorf("panel %q: %q does not sum over shards", p.Title, tg.Expr)
			}
		}
	}
	for _, v := range d.Templating.List {
		if expr, ok := strings.CutPrefix(v.Definition, "label_values("); ok {
			if i := strings.LastIndex(expr, ","); i > 0 {
				check("variable "+v.Name, expr[:i])
			}
		}
	}
	// The degradation curve's inputs are all there.
	for _, m := range []string{UserTPS, OutputTokens, TTFT, Errors, TargetUsers} {
		if !used[m] {
			t.Errorf("the dashboard does not show %s", m)
		}
	}
}
