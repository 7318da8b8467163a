//go:build !unix

package main

import "time"

// processCPU is 0 where getrusage is missing: the load run (.ci/loadrun), which reads
// it, runs on Linux.
func processCPU() time.Duration { return 0 }
