package ui

import (
	"fmt"
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestDumpSizes(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	for _, sz := range []size{{80, 24}, {90, 30}, {100, 30}, {119, 40}, {120, 25}, {160, 20}, {80, 50}} {
		m, _, _ := newTestRoot(t, 2)
		m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		fmt.Printf("===== %v\n%s\n", sz, ansi.Strip(m.View().Content))
	}
}
