// Package model holds tpsmon's pure data and statistics: per-request samples,
// per-second live buckets, levels, the degradation curve, capacity and
// saturation, and the bench report schema. It does no I/O, starts no
// goroutines and reads no clock: every time arrives as an argument, so that
// everything here is table-tested with a fake clock.
//
// The definitions follow ../shared/docs/measurement.md (the contract).
package model
