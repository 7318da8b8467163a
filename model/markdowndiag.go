package model

import (
	"fmt"
	"strings"
	"time"
)

// writeDiagnosis writes the endpoint's diagnosis: each finding of the run, most telling
// first, with its severity and when it held; "nothing wrong seen" when requests ended
// and none held.
func writeDiagnosis(b *strings.Builder, e *ReportEndpoint) {
	if len(e.Diagnosis) == 0 {
		for i := range e.Levels {
			if e.Levels[i].Requests > 0 {
				b.WriteString("Diagnosis: " + NothingWrong + ".\n")
				return
			}
		}
		return
	}
	b.WriteString("Diagnosis:\n")
	for _, f := range e.Diagnosis {
		sev := f.Severity
		if sev == "" {
			sev = SevInfo
		}
		fmt.Fprintf(b, "- %s: %s (%s)\n", sev, f.Text, heldWords(f))
	}
	b.WriteString("\n")
}

// heldWords says when a finding held: "at 20 s", "from 20 s to 31 s".
func heldWords(f Finding) string {
	first, last := runSpanS(f.FirstS), runSpanS(f.LastS)
	if first == last {
		return "at " + first
	}
	return "from " + first + " to " + last
}

// runSpanS is seconds of the run in words, as the diagnosis says them.
func runSpanS(s float64) string { return runSpan(time.Duration(s * float64(time.Second))) }
