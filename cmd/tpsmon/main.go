// Command tpsmon load-tests OpenAI-compatible streaming LLM endpoints and shows how
// per-user tokens/s, aggregate tokens/s and time to first token change as concurrency
// rises. Plain `tpsmon` is the live screen, `tpsmon bench` the headless run,
// `tpsmon sim` the built-in simulated endpoint.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	startPprof(os.Getenv(pprofEnv), os.Stderr)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program: it parses args, runs the command until it ends or a
// SIGINT/SIGTERM arrives, and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // the first Ctrl-C stops cleanly; a second one kills at once
	}()
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, openTTY: openDevTTY}
	return a.execute(ctx, args)
}
