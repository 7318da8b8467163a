// Package model holds tpsmon's pure data and statistics: per-request samples,
// per-second live buckets, levels, the degradation curve, the report schema
// (results.json) and its merging, and the judgement of a run (JudgeEndpoint: each
// level's state, capacity and saturation from the levels measured in full, the verdict
// sentence and the notes) with the word helpers every surface uses (words.go). It does
// no I/O, starts no goroutines and reads no clock: every time arrives as an argument, so
// that everything here is table-tested with a fake clock.
//
// The definitions follow docs/measurement.md (the contract).
package model
