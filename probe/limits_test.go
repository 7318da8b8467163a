//go:build linux

package probe

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// limitsChild names the helper process's job (see TestLimitsHelperProcess).
const limitsChild = "TPSMON_LIMITS_CHILD"

// TestRaiseOpenFileLimit: a lowered soft limit goes back up to the hard limit (in a child
// process), and MaxStreams follows the limit.
func TestRaiseOpenFileLimit(t *testing.T) {
	out := limitsHelper(t, "raise")
	if !strings.Contains(out, "raised=ok") {
		t.Fatalf("child said %q; want the soft limit raised to the hard one", out)
	}
}

func limitsHelper(t *testing.T, job string) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("open-files limits are handled on Linux only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLimitsHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), limitsChild+"="+job)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return string(out)
}

// TestLimitsHelperProcess is the child of the test above; it does nothing otherwise.
func TestLimitsHelperProcess(t *testing.T) {
	switch os.Getenv(limitsChild) {
	case "raise":
		hard := hardLimit(t)
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 300, Max: hard}); err != nil {
			t.Fatal(err)
		}
		if got := MaxStreams(); got != (300-fdMargin)/fdsPerStream {
			t.Fatalf("MaxStreams at 300 open files = %d", got)
		}
		soft, h, err := RaiseOpenFileLimit()
		if err != nil || soft != hard || h != hard {
			t.Fatalf("RaiseOpenFileLimit = %d, %d, %v; want %d, %d", soft, h, err, hard, hard)
		}
		if got, want := MaxStreams(), maxStreams(hard); got != want {
			t.Fatalf("MaxStreams after raising = %d, want %d", got, want)
		}
		t.Log("raised=ok")
	}
}

func hardLimit(t *testing.T) uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	return lim.Max
}

func TestMaxStreams(t *testing.T) {
	for _, tt := range []struct {
		soft uint64
		want int
	}{
		{0, 1}, {50, 1}, {256, 78}, {1024, 462}, {4096, 1998}, {20000, 9950}, {1 << 20, StreamCap}, {1 << 62, StreamCap},
	} {
		if got := maxStreams(tt.soft); got != tt.want {
			t.Errorf("maxStreams(%d) = %d, want %d", tt.soft, got, tt.want)
		}
	}
}
