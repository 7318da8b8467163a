package main

import (
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
)

// ttyPath is the controlling terminal of the process, whatever stdin and stdout are.
const ttyPath = "/dev/tty"

// openDevTTY opens the controlling terminal for reading (keys) and writing (the screen).
func openDevTTY() (io.ReadWriteCloser, error) { return os.OpenFile(ttyPath, os.O_RDWR, 0) }

// screenIO says where the live screen draws and reads keys. With stdin and stdout on a
// terminal, Bubble Tea's defaults. Otherwise (`tpsmon > run.md`, `tpsmon | tee run.md`,
// `tpsmon < /dev/null`) the controlling terminal, when the process has one: the screen
// is drawn there and stdout keeps only the summary printed at the end. No terminal at
// all is a usage error (exit 2). close releases the terminal opened, if any.
func (a *app) screenIO() (opts []tea.ProgramOption, close func(), err error) {
	if isTerminal(a.stdin) && isTerminal(a.stdout) {
		return nil, func() {}, nil
	}
	if a.openTTY == nil {
		return nil, nil, usageErrorf("%s", noTerminal)
	}
	tty, err := a.openTTY()
	if err != nil {
		return nil, nil, usageErrorf("%s", noTerminal)
	}
	return []tea.ProgramOption{tea.WithInput(tty), tea.WithOutput(tty)}, func() { _ = tty.Close() }, nil
}
