package main

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

// waitingTests is how many tests of this package run at once by default. The long ones
// drive bench against a simulator for tens of seconds and spend nearly all of it
// waiting on its decode steps and on the level rule (TestDiagnosisFaultTable: 10 CPU
// seconds under -race in its 64 s). go test's default, GOMAXPROCS (2 on the CI
// machines), would run them nearly one after the other.
const waitingTests = 16

// TestMain raises the default -test.parallel to waitingTests (or GOMAXPROCS when
// larger); a -parallel given on the command line is kept.
//
// Which tests are parallel: those that mostly wait (t.Parallel). Not parallel, so run
// first and alone, before any parallel one starts: the tests that check for leaked
// goroutines (goleak), that time a Ctrl-C or count time-series lines, and the
// CPU-heavy ones (the help's examples on fast simulators, at once among themselves;
// instant httptest servers).
// The parallel ones share this process with bench's own CPU watch: busy on a CPU
// beside them, the diagnosis would say "tpsmon may be the limit" in their runs (the
// healthy row of TestDiagnosisFaultTable asserts it says nothing).
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(max(waitingTests, runtime.GOMAXPROCS(0)))); err != nil {
			panic(err)
		}
	}
	m.Run()
}
