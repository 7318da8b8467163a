package model

// The values of ReportEndpoint.RampEnd, but for a stop rule's: RampEndStopped, a colon
// and the rule's words.
const (
	RampEndFinished    = "finished"
	RampEndStopped     = "stopped"
	RampEndMaxDuration = "max_duration"
	RampEndInterrupted = "interrupted"
	RampEndManual      = "manual"
)
