package model

import "strings"

// The values of ReportEndpoint.RampEnd, but for a stop rule's: RampEndStopped, a colon
// and the rule's words.
const (
	RampEndFinished    = "finished"
	RampEndStopped     = "stopped"
	RampEndMaxDuration = "max_duration"
	RampEndInterrupted = "interrupted"
	RampEndManual      = "manual"
)

// rampEndWords says why a ramp ended, for the Markdown ("" when it did not end).
func rampEndWords(end string) string {
	switch end {
	case "":
		return ""
	case RampEndFinished:
		return "finished: every level was held"
	case RampEndMaxDuration:
		return "cut by the run's maximum duration: higher levels were not measured"
	case RampEndInterrupted:
		return "interrupted (Ctrl-C or a signal) before its last level"
	case RampEndManual:
		return "stopped by hand on the live screen (a key): higher levels were not measured"
	}
	if why, ok := strings.CutPrefix(end, RampEndStopped+": "); ok {
		return "stopped early by a stop rule: " + why + "; higher levels were not measured"
	}
	return end
}

// writeRampEnd writes the line that says why the endpoint's ramp ended.
func writeRampEnd(b *strings.Builder, e *ReportEndpoint) {
	if w := rampEndWords(e.RampEnd); w != "" {
		b.WriteString("Ramp: " + w + "\n")
	}
}
