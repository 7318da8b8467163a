//go:build linux

package client

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// TestClientOwnLimitsAreClientErrors: a connection that tpsmon itself cannot open (no
// file descriptor, no memory, no local port) is a client error, never charged to the
// endpoint, and the message says what to do.
func TestClientOwnLimitsAreClientErrors(t *testing.T) {
	tests := []struct {
		errno syscall.Errno
		want  string
	}{
		{syscall.EMFILE, "ulimit -n"},
		{syscall.ENFILE, "system has no file descriptor left"},
		{syscall.ENOMEM, "out of memory"},
		{syscall.ENOBUFS, "out of memory"},
		{syscall.EADDRNOTAVAIL, "no local port left"},
	}
	for _, tt := range tests {
		t.Run(tt.errno.Error(), func(t *testing.T) {
			tr := &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
				return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", tt.errno)}
			}}
			ep, u, err := normalize(Endpoint{BaseURL: "http://127.0.0.1:9/v1", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			c, err := newClient(ep, u, &http.Client{Transport: tr})
			if err != nil {
				t.Fatal(err)
			}
			s := c.Stream(context.Background(), nil)
			t.Logf("ErrMsg: %s", s.ErrMsg)
			if s.Err != model.ErrClient || s.Err.Charged() || !strings.Contains(s.ErrMsg, tt.want) ||
				!strings.HasPrefix(s.ErrMsg, "client: ") || strings.Contains(s.ErrMsg, "--") {
				t.Fatalf("Err %q (%s); want client containing %q", s.Err, s.ErrMsg, tt.want)
			}
		})
	}
	t.Run("a refused connection stays connect", func(t *testing.T) {
		tr := &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
		}}
		ep, u, _ := normalize(Endpoint{BaseURL: "http://127.0.0.1:9/v1", Model: "m"})
		c, _ := newClient(ep, u, &http.Client{Transport: tr})
		if s := c.Stream(context.Background(), nil); s.Err != model.ErrConnect {
			t.Fatalf("Err %q (%s), want connect", s.Err, s.ErrMsg)
		}
	})
}

// limitsChild names the helper process's job (see TestLimitsHelperProcess).
const limitsChild = "TPSMON_LIMITS_CHILD"

// TestClientOutOfFilesForReal: with no file descriptor left (the soft limit at the
// number already open), a request is a client error: the real "socket: too many open
// files" that --users 20000 met. It runs in a child process, whose limits it lowers.
func TestClientOutOfFilesForReal(t *testing.T) {
	out := limitsHelper(t, "emfile")
	if !strings.Contains(out, "kind=client") || !strings.Contains(out, "too many open files") {
		t.Fatalf("child said %q; want a client error for too many open files", out)
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
	case "emfile":
		ep := serve(t, (&sseHandler{events: []string{chunk(`{"content":"a"}`), done}}).ServeHTTP)
		c, err := New(ep, 1)
		if err != nil {
			t.Fatal(err)
		}
		// The limit bounds descriptor numbers: at the lowest free one, no file opens.
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: lowestFreeFD(t), Max: hardLimit(t)}); err != nil {
			t.Fatal(err)
		}
		s := c.Stream(context.Background(), nil)
		t.Logf("kind=%s msg=%s", s.Err, s.ErrMsg)
	}
}

func lowestFreeFD(t *testing.T) uint64 {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	fd := f.Fd()
	_ = f.Close()
	return uint64(fd)
}

func hardLimit(t *testing.T) uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	return lim.Max
}
