package report

import (
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// TestReportSaysTheLevelsAsBenchDoes: every report format lists the levels that do not
// meet the criteria in the judgement's own words, the lines bench's Markdown prints
// under its verdict. They used to put "fails at" before each, which made a level the
// load left in its warm-up "fails at 8 users: not measured (...)" and an undecided one
// "fails at 4 users (undecided: ...)" - a failure the judgement never claimed.
func TestReportSaysTheLevelsAsBenchDoes(t *testing.T) {
	run := edited(t, load(t, "base.json")[0], "run", func(r *model.Report) {
		r.Settings.MinRequests, r.Settings.MaxHoldS = model.MinFloor, 20
		ls := r.Endpoints[0].Levels
		for i := range ls {
			ls[i].Steady = ls[i].Requests
		}
		four, eight := &ls[2], &ls[3]
		four.Errors, four.ErrorRate, four.Undecided = map[string]int{"http_500": 1}, 0.04, []string{"error_rate"}
		*eight = model.ReportLevel{Concurrency: 8, Requests: 3, Succeeded: 3, Errors: map[string]int{}}
	})
	bench := Summary(&run.Report)
	var said []string
	for _, l := range strings.Split(bench, "\n") {
		if strings.HasPrefix(l, "- 4 users") || strings.HasPrefix(l, "- 8 users") {
			said = append(said, strings.TrimPrefix(l, "- "))
		}
	}
	if len(said) != 2 || !strings.Contains(said[0], "undecided") || !strings.Contains(said[1], "not measured") {
		t.Fatalf("bench's Markdown does not list the undecided and the unmeasured level:\n%s", bench)
	}
	md, html, poster := reportOf(t, run)
	for name, text := range map[string]string{"Markdown": strings.ReplaceAll(md, `\_`, "_"), "HTML": html, "picture": poster} {
		for _, s := range said {
			if !strings.Contains(text, s) {
				t.Errorf("the %s report does not say %q as bench does", name, s)
			}
		}
		if strings.Contains(text, "fails at") {
			t.Errorf("the %s report says a level fails where the judgement does not:\n%s", name, text)
		}
	}
}

// TestMeetsColumnClaimsNothingUnjudged: the reports' "meets the criteria" column says
// "yes" or "no" only of a level that decides; a short level of 3 requests read "yes,
// not judged (short)" and a level with no steady answer "no: not measured (...)".
func TestMeetsColumnClaimsNothingUnjudged(t *testing.T) {
	cases := []struct {
		lj   model.LevelJudgement
		want string
	}{
		{model.LevelJudgement{State: model.LevelFull, Meets: true}, "yes"},
		{model.LevelJudgement{State: model.LevelStopped, Failures: []string{"errors 20% > 1%"}}, "no: errors 20% > 1%"},
		{model.LevelJudgement{State: model.LevelShort, Meets: true}, "not judged (short): its figures meet them"},
		{model.LevelJudgement{State: model.LevelUndecided, Undecided: []string{"error_rate"}, Failures: []string{"errors 2.41% > 1%"}},
			"not judged (undecided): errors 2.41% > 1%"},
		{model.LevelJudgement{State: model.LevelNotMeasured, Failures: []string{"not measured (the load moved on 2.12 s into its steady time)"}},
			"not measured (the load moved on 2.12 s into its steady time)"},
	}
	for _, c := range cases {
		if got := meetsCell(c.lj); got != c.want {
			t.Errorf("%s level: %q, want %q", c.lj.Mark(), got, c.want)
		}
	}
}
