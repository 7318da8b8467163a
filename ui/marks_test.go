package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/themes"
)

// TestEndpointsPartWithoutColour: in the mono theme (no colour at all) several endpoints'
// curves are still told apart: each has its own marker on its levels and its own line
// (solid, dashed, dotted), and the legend shows each one's line and marker beside its
// name.
func TestEndpointsPartWithoutColour(t *testing.T) {
	levels := rampLevels()
	levels[len(levels)-1].Open = false
	names := []string{"dc", "l4", "cpu"}
	mono := newStyles(themes.Mono())
	render := func(series []curveSeries) string {
		p := &curvePanel{}
		p.SetStyles(mono)
		p.SetSize(110, 24)
		p.SetData(series, 30)
		return ansi.Strip(p.View())
	}
	var all []curveSeries
	for _, n := range names {
		all = append(all, curveSeries{Name: n, Levels: levels})
	}
	view := render(all)
	head := strings.SplitN(view, "\n", 2)[0]
	seen := map[string]bool{}
	for i, n := range names {
		m := markOf(i)
		if !strings.Contains(head, m.sample()+" "+n) {
			t.Errorf("legend %q lacks %q", head, m.sample()+" "+n)
		}
		if seen[m.sample()] {
			t.Errorf("endpoint %d's mark %q is another's", i, m.sample())
		}
		seen[m.sample()] = true
		if !strings.ContainsRune(view, m.dot) {
			t.Errorf("no %c marker for %s:\n%s", m.dot, n, view)
		}
	}
	// The same curve drawn as the first endpoint (solid) and as the second and third
	// (dashed, dotted) has fewer dots each time.
	dots := make([]int, len(names))
	for i := range names {
		series := make([]curveSeries, i+1)
		series[i] = curveSeries{Name: names[i], Levels: levels}
		dots[i] = brailleDots(render(series))
	}
	if !(dots[0] > dots[1] && dots[1] > dots[2]) || dots[2] == 0 {
		t.Errorf("braille dots of one curve as endpoint 1, 2, 3: %v; want solid > dashed > dotted > 0", dots)
	}
}

// brailleDots counts the raised dots of every braille cell in s.
func brailleDots(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x2800 && r <= 0x28FF {
			for b := r - 0x2800; b > 0; b >>= 1 {
				n += int(b & 1)
			}
		}
	}
	return n
}

func TestDashOn(t *testing.T) {
	var got strings.Builder
	for k := range 14 {
		if dashOn([]int{4, 3}, k) {
			got.WriteByte('x')
		} else {
			got.WriteByte('.')
		}
	}
	if got.String() != "xxxx...xxxx..." {
		t.Errorf("dash 4,3: %s", got.String())
	}
	if !dashOn(nil, 5) {
		t.Error("a solid line has a gap")
	}
}
