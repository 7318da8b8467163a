package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// load decodes testdata files, named as given.
func load(t *testing.T, names ...string) []*Run {
	t.Helper()
	var runs []*Run
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Decode(n, data)
		if err != nil {
			t.Fatalf("Decode(%s): %v", n, err)
		}
		runs = append(runs, r)
	}
	return runs
}

func TestDecodeRefusesWhatIsNotAResultsFile(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not json", "users,tps\n1,2\n", "not a tpsmon results file"},
		{"other schema", `{"schema":"guidellm/v2","endpoints":[]}`, `schema "guidellm/v2"`},
		{"no schema", `{"endpoints":[]}`, `schema ""`},
	} {
		_, err := Decode("x.json", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "x.json") {
			t.Errorf("%s: err = %v, want one naming x.json and %q", tc.name, err, tc.want)
		}
	}
}

func TestDecodeReadsTheNewerKeys(t *testing.T) {
	r := load(t, "newkeys.json")[0]
	s := SeriesOf([]*Run{r})[0]
	if s.API() != "completions" {
		t.Errorf("API = %q, want the endpoint's own (completions)", s.API())
	}
	// Its levels rest on 1 to 10 steady requests (20 needed), the last short: the
	// judgement claims no capacity, whatever the file's capacity says.
	if k := s.Judgement.Capacity.Kind; k != model.CapNotMeasured {
		t.Errorf("capacity kind %v, want not measured", k)
	}
	if s.Judgement.Levels[3].State != model.LevelShort || s.Judgement.Levels[0].State != model.LevelFew {
		t.Errorf("states %v, %v: want short, too few", s.Judgement.Levels[3].State, s.Judgement.Levels[0].State)
	}
	if n, ok := s.SteadyRequests(0); !ok || n != s.Endpoint.Levels[0].Requests-1 {
		t.Errorf("SteadyRequests(0) = %d, %v", n, ok)
	}
	if got := s.Endpoint.Levels[2].StallMs.P95; got != 42.5 {
		t.Errorf("stall p95 at level 2 = %v, want 42.5 (stall_ms from the file)", got)
	}
	line := r.SettingsLine()
	for _, want := range []string{"ignore_eos on", "max hold 30 s", "timeout 60 s", "SIMULATED"} {
		if !strings.Contains(line, want) {
			t.Errorf("settings line lacks %q: %s", want, line)
		}
	}
	header, rows := levelTable(&s)
	stall := slices.Index(header, "stall p95 ms")
	if stall < 0 || rows[2][stall] != "42.5" {
		t.Errorf("stall column: header %q, level 2 %q", header, rows[2])
	}
	if rows[3][0] != "8 (short)" || !strings.Contains(rows[0][1], "steady") {
		t.Errorf("short and steady cells: %q, %q", rows[3][0], rows[0][1])
	}
}

func TestDecodeToleratesMissingNewerKeys(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	ss := SeriesOf(runs)
	// base meets the criteria at its highest level (8 users): a lower bound.
	if c := ss[0].Judgement.Capacity; c.Kind != model.CapAtLeast || c.Level != 8 {
		t.Errorf("base: capacity 8 at the top level 8 must read as at least 8: %+v", c)
	}
	if c := ss[1].Judgement.Capacity; c.Kind != model.CapExact || c.Level != 2 {
		t.Errorf("small-gpu: capacity 2 below the top level is exact: %+v", c)
	}
	if ss[0].API() != "chat" {
		t.Errorf("API falls back to the run's: %q", ss[0].API())
	}
	header, rows := levelTable(&ss[0])
	for _, h := range header {
		if h == "stall p95 ms" {
			t.Error("a file without stall_ms must not show an empty stall column")
		}
	}
	if len(rows[0]) != len(header) {
		t.Errorf("row has %d cells, header %d", len(rows[0]), len(header))
	}
	if strings.Contains(runs[0].SettingsLine(), "ignore_eos") {
		t.Error("ignore_eos shown though the file does not record it")
	}
}

func TestSeriesLabels(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	if got := SeriesOf(runs[:1])[0].Label; got != "simulator" {
		t.Errorf("one run: label %q, want the endpoint's name", got)
	}
	ss := SeriesOf(runs)
	if ss[0].Label != "base" || ss[1].Label != "small-gpu" {
		t.Errorf("two runs: labels %q, %q, want the file names", ss[0].Label, ss[1].Label)
	}
	// The same file name in two directories: the path tells them apart.
	a, b := *runs[0], *runs[1]
	a.Name, b.Name = "old/results.json", "new/results.json"
	ss = SeriesOf([]*Run{&a, &b})
	if ss[0].Label != "old/results" || ss[1].Label != "new/results" {
		t.Errorf("same base names: labels %q, %q", ss[0].Label, ss[1].Label)
	}
}

func TestNewRunReadsAReportInMemory(t *testing.T) {
	base := load(t, "base.json")[0]
	r, err := NewRun("live", &base.Report)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "live" || len(r.Report.Endpoints) != 1 || r.Report.Endpoints[0].Levels[3].UserTPS.P50 != base.Report.Endpoints[0].Levels[3].UserTPS.P50 {
		t.Errorf("NewRun: %+v", r.Report.Endpoints)
	}
}
