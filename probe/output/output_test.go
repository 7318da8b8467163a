package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output/promexport"
)

// run is a small run's report: one endpoint, one level measured in full.
func run() *model.Report {
	return &model.Report{Schema: model.Schema, Settings: model.ReportSettings{Ramp: []int{4}, SLO: model.DefaultSLO.Report()},
		Endpoints: []model.ReportEndpoint{{Name: "gpu", Levels: []model.ReportLevel{{Concurrency: 4, DurationS: 10, Requests: 30,
			Steady: 30, Succeeded: 30, Errors: map[string]int{}, TTFTMs: model.LatencyJSON{P50: 90, P95: 120},
			UserTPS: model.RateJSON{P50: 50}, AggregateTPS: 200}}}}}
}

// failing is an output whose End fails; ended counts its Ends.
type failing struct{ ended *int }

func (failing) Observe(*engine.Engine, *probe.Event) {}
func (f failing) End(*model.Report) (string, error) {
	*f.ended++
	return "", errors.New("disk full")
}

// TestFilesAtTheEnd: each file output writes itself from the run's report when the run
// ends, and says where; one that fails does not keep the others from being written, and
// its error names it.
func TestFilesAtTheEnd(t *testing.T) {
	dir := t.TempDir()
	js, csv, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.md")
	var stdout bytes.Buffer
	ended := 0
	set := Set{
		{Name: "--out " + js, Output: JSONFile{Path: js}},
		{Name: "broken", Output: failing{&ended}},
		{Name: "--csv " + csv, Output: CSVFile{Path: csv}},
		{Name: "--report " + md, Output: ReportFile{Path: md, Run: "r.json"}},
		{Name: "stdout", Output: Summary{W: &stdout}},
	}
	if n := len(set.Observers()); n != 5 {
		t.Fatalf("%d observers", n)
	}
	var said []string
	err := set.End(run(), func(w string) { said = append(said, w) })
	if err == nil || err.Error() != "broken: disk full" {
		t.Errorf("err %v, want the broken output's, named", err)
	}
	if strings.Join(said, ",") != js+","+csv+","+md {
		t.Errorf("said %q", said)
	}
	var back model.Report
	if data, err := os.ReadFile(js); err != nil || json.Unmarshal(data, &back) != nil || back.Endpoints[0].Name != "gpu" {
		t.Errorf("results.json: %v", err)
	}
	if data, _ := os.ReadFile(csv); !strings.HasPrefix(string(data), "endpoint,model,simulated,concurrency,") {
		t.Errorf("CSV:\n%s", data)
	}
	verdict := model.Judge(run()).Endpoints[0].Verdict.Text
	if data, _ := os.ReadFile(md); !strings.Contains(string(data), verdict) {
		t.Errorf("the report lacks the verdict %q:\n%s", verdict, data)
	}
	if !strings.Contains(stdout.String(), "**Verdict**: "+verdict) {
		t.Errorf("the summary lacks the verdict:\n%s", stdout.String())
	}
	if err := set.End(run(), func(string) {}); err != nil || ended != 1 {
		t.Errorf("a second End: %v, the broken output ended %d times", err, ended)
	}
	// A file that cannot be written says which and why.
	bad := Set{{Name: "--out nowhere/r.json", Output: JSONFile{Path: filepath.Join(dir, "nowhere", "r.json")}}}
	if err := bad.End(run(), func(string) {}); err == nil || !strings.HasPrefix(err.Error(), "--out nowhere/r.json: cannot write the results: ") {
		t.Errorf("err %v", err)
	}
}

// TestLiveOutputs: the time series file is created when the run starts and says its
// lines when it ends; the metrics are served while the run goes and stop at its end.
func TestLiveOutputs(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenTimeSeries(filepath.Join(dir, "no", "ts.jsonl")); err == nil || !strings.HasPrefix(err.Error(), "cannot create the file: ") {
		t.Errorf("a file in a missing directory: %v", err)
	}
	path := filepath.Join(dir, "ts.jsonl")
	ts, err := OpenTimeSeries(path)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := promexport.ParseAddr("127.0.0.1:0")
	m, err := ServeMetrics(addr)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + m.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("metrics: %s\n%s", resp.Status, body)
	}
	set := Set{{Name: "--timeseries " + path, Output: ts}, {Name: "--metrics-addr", Output: m}}
	var said []string
	if err := set.End(nil, func(w string) { said = append(said, w) }); err != nil || strings.Join(said, ",") != path+" (0 lines)" {
		t.Errorf("end: %v, said %q", err, said)
	}
	if _, err := http.Get("http://" + m.Addr() + "/metrics"); err == nil {
		t.Error("the metrics are still served after the end")
	}
}
