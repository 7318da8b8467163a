package report

import (
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// conversationWords describes a run of conversations for the settings: how many turns,
// where the history's answers come from, and the think time (nil when none).
func conversationWords(s *model.ReportSettings) []string {
	if s.Turns == "" {
		return nil
	}
	turns := "all turns of each conversation"
	if s.Turns != "all" {
		turns = "the first " + s.Turns + " turns of each conversation"
	}
	out := []string{turns + ", each carrying the history (a user is a conversation)"}
	if s.History == "live" {
		out = append(out, "the history holds the server's own answers")
	} else {
		out = append(out, "the history holds the dataset's answers")
	}
	if s.ThinkS > 0 {
		out = append(out, "think time "+seconds(s.ThinkS)+" between turns")
	}
	return out
}

// writeTurns writes, for a run of conversations, each level's TTFT of first turns and
// of later turns apart (nothing when no level has them).
func writeTurns(b *strings.Builder, e *model.ReportEndpoint, j *model.EndpointJudgement) {
	var rows []string
	for i := range e.Levels {
		if t := e.Levels[i].Turns; t != nil {
			rows = append(rows, "- "+j.LevelName(e.Levels[i].Concurrency)+": "+t.Words())
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nTTFT by turn (a later turn carries the history: a server with prefix caching answers it from its cache):\n")
	b.WriteString(strings.Join(rows, "\n") + "\n\n")
}

// writePrefixCache writes the share of prompt tokens the server found in its prefix
// cache at each level, when it publishes it.
func writePrefixCache(b *strings.Builder, e *model.ReportEndpoint, j *model.EndpointJudgement) {
	var parts []string
	for i := range e.Levels {
		if sv := e.Levels[i].Server; sv != nil && sv.PrefixHitPct != nil {
			parts = append(parts, j.LevelName(e.Levels[i].Concurrency)+" "+strconv.FormatFloat(*sv.PrefixHitPct, 'f', 1, 64)+"%")
		}
	}
	if len(parts) > 0 {
		b.WriteString("Prefix cache (the server's own count): prompt tokens found cached: " + strings.Join(parts, "; ") + ".\n\n")
	}
}
