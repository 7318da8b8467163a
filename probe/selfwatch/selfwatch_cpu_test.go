//go:build linux || darwin

package selfwatch

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time of the calling thread so far, by the kernel's clock.
func threadCPU(t *testing.T) time.Duration {
	t.Helper()
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// TestReadMeasuresThisProcess: the CPU this process burns shows in the readings, and the
// time it sleeps does not. A busy loop runs on one thread until the kernel says that
// thread burnt 200 ms, however long that takes on a busy machine, and the readings are
// handed times 1 s apart (the clock is Read's argument): the process's CPU over the
// interval is at least the loop's, 0.2 cores. Then 300 ms asleep burn next to nothing.
// (A loop of 200 ms by the wall clock read "most of a core" only when it got one.)
func TestReadMeasuresThisProcess(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w := New()
	t0 := time.Unix(1000, 0)
	w.Read(t0)
	for start := threadCPU(t); threadCPU(t)-start < 200*time.Millisecond; {
	}
	if u := w.Read(t0.Add(time.Second)); !u.Known || u.CPU < 0.2 {
		t.Errorf("a busy loop that burnt 200 ms of CPU read %+v: want at least 0.2 cores over 1 s", u)
	}
	time.Sleep(300 * time.Millisecond)
	if u := w.Read(t0.Add(2 * time.Second)); !u.Known || u.CPU > 0.1 {
		t.Errorf("300 ms asleep read %+v: want next to no CPU (under 0.1 cores over 1 s)", u)
	}
}
