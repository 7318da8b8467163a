package report

import (
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// TestSettingsSayTheDrawnLengths: a run whose lengths each request drew
// (--max-tokens uniform:64:512, --prompt-tokens uniform:64:512; results.json keeps the
// draws' means, 288, beside its workload) says the draws on every surface: bench's
// Markdown, the reports' settings table and the pictures' footer. They said "max_tokens
// 288" and "prompt about 288 tokens", a setting no request had; the reports said
// nothing of the draws, nor of a dataset whose prompts stood in for the synthetic one.
func TestSettingsSayTheDrawnLengths(t *testing.T) {
	cases := []struct {
		workload   string
		want, lies []string
	}{
		{"max_tokens drawn from uniform:64:512 · prompt tokens drawn from uniform:64:512",
			[]string{"max_tokens drawn from uniform:64:512", "prompt tokens drawn from uniform:64:512"},
			[]string{"max_tokens 288", "288 tokens"}},
		{"dataset prompts.jsonl", []string{"dataset prompts.jsonl", "256"}, []string{"about 288 tokens"}},
	}
	for _, c := range cases {
		run := edited(t, load(t, "base.json")[0], "run", func(r *model.Report) {
			r.Settings.MaxTokens, r.Settings.PromptTokens, r.Settings.Workload = 288, 288, c.workload
			if strings.HasPrefix(c.workload, "dataset") {
				r.Settings.MaxTokens = 256
			}
		})
		md, html, _ := reportOf(t, run)
		surfaces := map[string]string{
			"bench's Markdown": Summary(&run.Report), "the Markdown report": strings.ReplaceAll(md, `\_`, "_"), "the HTML report": html,
			"the picture's footer": strings.Join(newPosterText([]*Run{run}, SeriesOf([]*Run{run})).footer, " "),
		}
		for name, text := range surfaces {
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("%s (workload %q) does not say %q:\n%s", name, c.workload, w, text)
				}
			}
			for _, l := range c.lies {
				if strings.Contains(text, l) {
					t.Errorf("%s (workload %q) says %q, a setting no request had:\n%s", name, c.workload, l, text)
				}
			}
		}
	}
}
