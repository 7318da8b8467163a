package main

import (
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/settings"
)

// openFiles raises the open-files limit to its hard limit (Linux) and says how many
// streams it allows (probe.MaxStreams). Tests set a.limit instead.
func (a *app) openFiles() settings.StreamLimit {
	if a.limit != nil {
		return a.limit()
	}
	soft, _, _ := probe.RaiseOpenFileLimit() // on failure soft is the limit as it is
	return settings.StreamLimit{Max: probe.MaxStreams(), Soft: soft}
}
